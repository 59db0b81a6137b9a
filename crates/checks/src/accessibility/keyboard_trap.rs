use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

declare_check! {
    /// Tab presses cannot move focus away from one element.
    ///
    /// Judged from the keyboard walk: `KeyboardWalk::trapped_at` is set by the browser engine when
    /// focus could leave neither by Tab nor by Shift+Tab: Tab kept it on one element (or cycled it
    /// among elements already visited) and Shift+Tab presses never took it out either. Widgets
    /// whose focus moves inside them while they stay `document.activeElement` (date and time
    /// inputs, `<video controls>`, `<audio controls>`, selects, custom elements) are walked
    /// through, frames are never judged, open shadow roots are followed to the focused element,
    /// and a region inside an open modal dialog is not judged. A page with a single focusable
    /// element cannot trap anything (focus has nowhere else to go), so it stays quiet.
    pub struct KeyboardTrap {
        id: "accessibility.keyboard-trap",
        severity: Critical,
        title: "Keyboard focus gets trapped",
        fires_when: "tabbing through the page gets stuck on one element (or a cycle of elements) that Shift+Tab cannot leave either, while other focusable elements exist",
        description: "A keyboard user whose focus cannot leave an element (a widget that swallows Tab, a script that refocuses on blur) cannot reach the rest of the page at all: WCAG 2.2 success criterion 2.1.2 (No Keyboard Trap), a blocker for keyboard and switch users.",
        remediation: "Let Tab and Shift+Tab leave the element: do not call preventDefault() on Tab keydown or refocus the element on blur. Modal dialogs may keep focus inside them only while open, and must close on Escape and via a visible close button.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "value", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/no-keyboard-trap.html"),
        requires: [Keyboard],
        act_ids: ["80af7b"],
        level: A,
        wcag: ["2.1.2"],
    }
}

impl Check for KeyboardTrap {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(walk) = &page.keyboard() else { return };
        let Some(selector) = walk.trapped_at.as_deref() else {
            return;
        };
        if walk.focusable_count <= 1 {
            return;
        }
        let snippet = walk
            .trapped_snippet
            .clone()
            .or_else(|| walk.steps.iter().find(|s| s.selector == selector).map(|s| s.snippet.clone()))
            .unwrap_or_default();
        out.report(evidence! {
            "url" => page.final_url,
            "selector" => selector,
            "snippet" => snippet,
            "value" => walk.focusable_count,
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::model::PageSnapshot;
    use super::super::test_support::{page, run};
    use super::*;
    use crate::model::{DomFacts, KeyboardWalk, Severity};

    fn walk(trapped: Option<&str>, focusable: usize) -> PageSnapshot {
        let mut p = page(DomFacts::default());
        p.keyboard = Some(KeyboardWalk {
            trapped_at: trapped.map(str::to_string),
            trapped_snippet: trapped.map(|_| "<div tabindex=\"0\" id=\"editor\">".to_string()),
            focusable_count: focusable,
            ..Default::default()
        });
        p
    }

    #[test]
    fn fires_when_focus_is_stuck() {
        let f = run(&KeyboardTrap, &walk(Some("#editor"), 12));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].severity, Severity::Critical);
        assert_eq!(f[0].evidence["selector"], "#editor");
        assert_eq!(f[0].evidence["snippet"], "<div tabindex=\"0\" id=\"editor\">");
    }

    #[test]
    fn quiet_without_trap_or_with_a_single_focusable_element() {
        assert!(run(&KeyboardTrap, &walk(None, 12)).is_empty());
        // Only one focusable element: staying on it is not a trap.
        assert!(run(&KeyboardTrap, &walk(Some("#only"), 1)).is_empty());
    }
}
