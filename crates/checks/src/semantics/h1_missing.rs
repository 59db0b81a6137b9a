use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::html_document::is_html_document;
use crate::{declare_check, evidence};

declare_check! {
    /// The page has no `<h1>`.
    pub struct H1Missing {
        id: "semantics.h1-missing",
        severity: Medium,
        title: "Page has no h1 heading",
        fires_when: "the rendered page has no h1 element (nor an element with role=heading and aria-level=1)",
        description: "The h1 names the page's main topic. Screen-reader users jump to it to learn what the page is about, and search engines use it as a strong hint for the page's subject.",
        remediation: "Give every page exactly one <h1> that states its main topic (usually close to the <title>), placed at the start of the main content.",
        cwe: None,
        evidence: ["url"],
        help_url: Some("https://developer.mozilla.org/en-US/docs/Web/HTML/Element/Heading_Elements"),
        requires: [Dom],
    }
}

impl Check for H1Missing {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        // Any h1 counts here, visible or not: a visually hidden (screen-reader-only) h1 is valid.
        if is_html_document(page) && !page.dom().headings.iter().any(|h| h.level == 1) {
            out.report(evidence! { "url" => page.final_url });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, page};
    use crate::model::{DomFacts, Heading};

    fn heading(level: u8, visible: bool) -> Heading {
        Heading {
            level,
            text: "Text".into(),
            selector: format!("h{level}"),
            visible,
        }
    }

    #[test]
    fn fires_when_only_h2s() {
        let p = page(DomFacts {
            headings: vec![heading(2, true)],
            ..Default::default()
        });
        assert_eq!(findings(&p, "semantics.h1-missing").len(), 1);
    }

    #[test]
    fn quiet_with_a_screen_reader_only_h1() {
        let p = page(DomFacts {
            headings: vec![heading(1, false), heading(2, true)],
            ..Default::default()
        });
        assert!(findings(&p, "semantics.h1-missing").is_empty());
    }

    #[test]
    fn quiet_on_a_404_page() {
        let mut p = page(DomFacts::default());
        p.status = Some(404);
        assert!(findings(&p, "semantics.h1-missing").is_empty());
    }
}
