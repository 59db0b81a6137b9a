use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

declare_check! {
    /// Tabbing to an element shows no visible focus indicator.
    ///
    /// Judged from the browser engine's keyboard walk (`PageSnapshot::keyboard`): each Tab stop
    /// whose rendering did not change when it gained focus (`FocusStep::visible_change == false`).
    /// The element judged is the deepest focused one: inside a web component's open shadow root,
    /// the inner button that has focus, not its host (selector `host >>> button`), so an outline
    /// drawn inside the shadow root counts. One finding per element, however often the walk
    /// passed it. Stops on `html`, `body` (focus
    /// back on the document) and `iframe` (focus moves into the frame's own document) are skipped.
    pub struct FocusNotVisible {
        id: "accessibility.focus-not-visible",
        severity: High,
        title: "Keyboard focus is not visible",
        fires_when: "tabbing to a focusable element produces no visible change (rendered pixels or computed outline, box-shadow, border or background)",
        description: "Keyboard users (and many screen-magnifier and switch users) follow the focus indicator to know where they are. Without one they cannot tell which link or button Enter will activate: WCAG 2.2 success criterion 2.4.7 (Focus Visible).",
        remediation: "Do not remove the focus outline without a replacement: drop `outline: none`/`outline: 0` on :focus, or give :focus-visible a clearly visible style, e.g. `:focus-visible { outline: 3px solid #1a5fb4; outline-offset: 2px; }`.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "method", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/focus-visible.html"),
        requires: [Keyboard],
        act_ids: ["oj04fd"],
        level: AA,
        wcag: ["2.4.7"],
    }
}

impl Check for FocusNotVisible {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(walk) = &page.keyboard() else { return };
        let mut seen: Vec<&str> = Vec::new();
        for step in &walk.steps {
            let tag = step.tag.to_ascii_lowercase();
            if step.visible_change || step.selector.is_empty() || matches!(tag.as_str(), "html" | "body" | "iframe") {
                continue;
            }
            if seen.contains(&step.selector.as_str()) {
                continue;
            }
            seen.push(&step.selector);
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => step.selector,
                "snippet" => step.snippet,
                "method" => step.method,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::PageSnapshot;
    use super::super::test_support::{page, run};
    use super::*;
    use crate::model::{DomFacts, FocusStep, KeyboardWalk};

    fn step(selector: &str, tag: &str, visible: bool) -> FocusStep {
        FocusStep {
            selector: selector.into(),
            snippet: format!("<{tag}>"),
            tag: tag.into(),
            visible_change: visible,
            method: "style".into(),
        }
    }

    fn walked(steps: Vec<FocusStep>) -> PageSnapshot {
        let mut p = page(DomFacts::default());
        p.keyboard = Some(KeyboardWalk { focusable_count: steps.len(), steps, ..Default::default() });
        p
    }

    #[test]
    fn fires_once_per_element_without_focus_style() {
        let p = walked(vec![
            step("#nav > a", "a", true),
            step("#buy", "button", false),
            step("#search", "input", true),
            // The walk wrapped around and met the same element again.
            step("#buy", "button", false),
        ]);
        let f = run(&FocusNotVisible, &p);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["selector"], "#buy");
        assert_eq!(f[0].evidence["method"], "style");
    }

    #[test]
    fn quiet_when_every_stop_shows_focus_or_is_the_document() {
        let p = walked(vec![step("a.skip", "a", true), step("body", "body", false), step("#video", "iframe", false)]);
        assert!(run(&FocusNotVisible, &p).is_empty());
        // No walk (the gatherer did not run): nothing to judge.
        assert!(run(&FocusNotVisible, &page(DomFacts::default())).is_empty());
    }
}
