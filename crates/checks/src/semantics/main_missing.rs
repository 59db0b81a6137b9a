use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::html_document::is_html_document;
use crate::{declare_check, evidence};

declare_check! {
    /// No `<main>` landmark.
    pub struct MainMissing {
        id: "semantics.main-missing",
        severity: Low,
        title: "Page has no main landmark",
        fires_when: "the page has neither a <main> element nor an element with role=main",
        description: "The main landmark marks where the page's own content starts. Screen-reader and keyboard users jump straight to it past headers and navigation; reader modes and crawlers use it to separate content from boilerplate.",
        remediation: "Wrap the page's primary content (not header, navigation or footer) in one <main> element.",
        cwe: None,
        evidence: ["url"],
        help_url: Some("https://developer.mozilla.org/en-US/docs/Web/HTML/Element/main"),
        requires: [Dom],
    }
}

impl Check for MainMissing {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if is_html_document(page) && !page.dom().landmarks.iter().any(|l| l.role == "main") {
            out.report(evidence! { "url" => page.final_url });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, page};
    use crate::model::{DomFacts, Landmark};

    fn landmark(role: &str) -> Landmark {
        Landmark {
            role: role.into(),
            selector: role.into(),
        }
    }

    #[test]
    fn fires_with_only_navigation() {
        let p = page(DomFacts {
            landmarks: vec![landmark("navigation"), landmark("banner")],
            ..Default::default()
        });
        assert_eq!(findings(&p, "semantics.main-missing").len(), 1);
    }

    #[test]
    fn quiet_with_role_main() {
        let p = page(DomFacts {
            landmarks: vec![landmark("navigation"), landmark("main")],
            ..Default::default()
        });
        assert!(findings(&p, "semantics.main-missing").is_empty());
    }
}
