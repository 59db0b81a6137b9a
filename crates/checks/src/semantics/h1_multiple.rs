use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::html_document::is_html_document;
use crate::{declare_check, evidence};

declare_check! {
    /// The page shows more than one `<h1>`.
    pub struct H1Multiple {
        id: "semantics.h1-multiple",
        severity: Low,
        title: "Page has more than one h1 heading",
        fires_when: "more than one visible h1 on the page (hidden copies, such as a collapsed mobile menu, do not count)",
        description: "Several h1s blur what the page is about: assistive technology users lose the single entry point to the main content, and search engines get competing topic signals.",
        remediation: "Keep one <h1> for the page's main topic and turn the others into <h2>-<h6> that follow the outline of the content.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "value", "limit"],
        help_url: Some("https://developer.mozilla.org/en-US/docs/Web/HTML/Element/Heading_Elements#avoid_using_multiple_h1_elements_on_one_page"),
        requires: [Dom],
    }
}

impl Check for H1Multiple {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        let h1s: Vec<_> = page
            .dom()
            .headings
            .iter()
            .filter(|h| h.level == 1 && h.visible)
            .collect();
        if h1s.len() > 1 {
            // Point at the first extra h1: the first one is presumably the page's real title.
            for extra in &h1s[1..] {
                out.report(evidence! {
                    "url" => page.final_url,
                    "selector" => extra.selector,
                    "snippet" => extra.text,
                    "value" => h1s.len(),
                    "limit" => 1,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, page};
    use crate::model::{DomFacts, Heading};

    fn h1(selector: &str, visible: bool) -> Heading {
        Heading {
            level: 1,
            text: "Title".into(),
            selector: selector.into(),
            visible,
        }
    }

    #[test]
    fn fires_on_each_extra_visible_h1() {
        let p = page(DomFacts {
            headings: vec![h1("#a", true), h1("#b", true), h1("#c", true)],
            ..Default::default()
        });
        let f = findings(&p, "semantics.h1-multiple");
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].evidence["selector"], "#b");
        assert_eq!(f[0].evidence["value"], 3);
    }

    #[test]
    fn quiet_when_the_second_h1_is_hidden() {
        let p = page(DomFacts {
            headings: vec![h1("#a", true), h1("#menu h1", false)],
            ..Default::default()
        });
        assert!(findings(&p, "semantics.h1-multiple").is_empty());
    }
}
