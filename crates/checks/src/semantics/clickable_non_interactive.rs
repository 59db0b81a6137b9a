use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::html_document::is_html_document;
use crate::{declare_check, evidence};

declare_check! {
    /// A div/span reacts to clicks but not to the keyboard.
    pub struct ClickableNonInteractive {
        id: "semantics.clickable-non-interactive",
        severity: Medium,
        title: "Clickable element that is not interactive",
        fires_when: "a div, span or other non-interactive element has a click handler but no role, no tabindex and no keyboard handler",
        description: "A click handler on a div or span makes a control only mouse and touch users can use: it cannot be reached with Tab, does not react to Enter or Space, and screen readers do not announce it as a button or link.",
        remediation: "Use a real <button> (actions) or <a href> (navigation). If that is impossible, add role=\"button\", tabindex=\"0\" and a keydown handler for Enter and Space.",
        cwe: None,
        evidence: ["url", "selector", "snippet"],
        help_url: Some("https://developer.mozilla.org/en-US/docs/Web/Accessibility/ARIA/Roles/button_role"),
        requires: [Dom],
    }
}

impl Check for ClickableNonInteractive {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        for el in &page.dom().clickable_non_interactive {
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => el.selector,
                "snippet" => el.snippet,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{element, findings, page};
    use crate::model::DomFacts;

    #[test]
    fn fires_per_clickable_div() {
        let p = page(DomFacts {
            clickable_non_interactive: vec![element(
                "div",
                "div.card",
                "<div class=\"card\" onclick=\"go()\">",
            )],
            ..Default::default()
        });
        let f = findings(&p, "semantics.clickable-non-interactive");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["selector"], "div.card");
    }

    #[test]
    fn quiet_when_the_collector_found_none() {
        assert!(
            findings(
                &page(DomFacts::default()),
                "semantics.clickable-non-interactive"
            )
            .is_empty()
        );
    }
}
