use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::semantics::html_document::is_html_document;
use crate::{declare_check, evidence};

declare_check! {
    /// No meta description, or an empty one.
    pub struct MetaDescriptionMissing {
        id: "search.meta-description-missing",
        severity: Medium,
        title: "Page has no meta description",
        fires_when: "no <meta name=\"description\"> or one whose content is empty",
        description: "Search engines often use the meta description as the snippet under the title in results, and social networks use it for link previews. Without one they pick arbitrary text from the page.",
        remediation: "Add `<meta name=\"description\" content=\"...\">` to <head> with a unique 50-160 character summary of the page.",
        cwe: None,
        evidence: ["url"],
        help_url: Some("https://developers.google.com/search/docs/appearance/snippet#meta-descriptions"),
        requires: [Dom],
    }
}

/// The page's meta description, whitespace collapsed (`None` when absent or empty).
pub fn meta_description(page: &PageView<'_>) -> Option<String> {
    let content = page.meta_named("description")?.content.as_deref()?;
    let collapsed = content.split_whitespace().collect::<Vec<_>>().join(" ");
    (!collapsed.is_empty()).then_some(collapsed)
}

impl Check for MetaDescriptionMissing {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if is_html_document(page) && meta_description(page).is_none() {
            out.report(evidence! { "url" => page.final_url });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, meta_name, page};
    use crate::model::DomFacts;

    #[test]
    fn fires_when_absent_or_empty() {
        assert_eq!(
            findings(
                &page(DomFacts::default()),
                "search.meta-description-missing"
            )
            .len(),
            1
        );
        let p = page(DomFacts {
            metas: vec![meta_name("description", "   ")],
            ..Default::default()
        });
        assert_eq!(findings(&p, "search.meta-description-missing").len(), 1);
    }

    #[test]
    fn a_page_whose_dom_was_not_gathered_is_not_judged() {
        // The collector failed: the empty DomFacts must not read as "no description".
        let mut p = page(DomFacts::default());
        p.gather_errors.push(crate::model::GatherError { gatherer: crate::model::Artifact::Dom.gatherer().into(), message: "timed out".into() });
        assert!(findings(&p, "search.meta-description-missing").is_empty());
        let run = crate::run_page_checks(&p, &crate::Thresholds::default());
        assert!(run.not_run.iter().any(|n| n.check_id == "search.meta-description-missing"), "{:?}", run.not_run);
    }

    #[test]
    fn quiet_with_an_uppercase_name() {
        let p = page(DomFacts {
            metas: vec![meta_name("Description", "Shoes for running.")],
            ..Default::default()
        });
        assert!(findings(&p, "search.meta-description-missing").is_empty());
    }
}
