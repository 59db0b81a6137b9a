use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::semantics::html_document::is_html_document;
use crate::{declare_check, evidence};

declare_check! {
    /// `<title>` is missing or empty.
    pub struct TitleMissing {
        id: "search.title-missing",
        severity: High,
        title: "Page has no title",
        fires_when: "the rendered document has no <title> element, or only an empty or whitespace one",
        description: "The title is the headline of the page in search results, the name of its browser tab and bookmark, and the first thing a screen reader announces. Without one, search engines make up a title from the page and users cannot tell tabs apart.",
        remediation: "Add a unique, descriptive <title> inside <head> of every page, e.g. `<title>Blue running shoes – Example Store</title>`.",
        cwe: None,
        evidence: ["url"],
        help_url: Some("https://developers.google.com/search/docs/appearance/title-link"),
        requires: [Dom],
    }
}

impl Check for TitleMissing {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if is_html_document(page)
            && page
                .dom()
                .title
                .as_deref()
                .is_none_or(|t| t.trim().is_empty())
        {
            out.report(evidence! { "url" => page.final_url });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, page};
    use crate::model::DomFacts;

    #[test]
    fn fires_on_a_blank_title() {
        let p = page(DomFacts {
            title: Some("  \n ".into()),
            title_count: 1,
            ..Default::default()
        });
        assert_eq!(findings(&p, "search.title-missing").len(), 1);
        assert_eq!(
            findings(&page(DomFacts::default()), "search.title-missing").len(),
            1
        );
    }

    #[test]
    fn quiet_with_a_title_and_on_error_pages() {
        let p = page(DomFacts {
            title: Some("Home – Example".into()),
            title_count: 1,
            ..Default::default()
        });
        assert!(findings(&p, "search.title-missing").is_empty());
        let mut err = page(DomFacts::default());
        err.status = Some(500);
        assert!(findings(&err, "search.title-missing").is_empty());
    }
}
