use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::BarrierControl;
use crate::{declare_check, evidence};

declare_check! {
    /// Something acts on a mouse click but the keyboard cannot reach it.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`, with the listener record of
    /// `browser/hooks.js`): a visible element with a click listener of its own that is no native
    /// control (link, button, form field, summary, label), sits in none, holds none, has no
    /// `tabindex`, is smaller than a quarter of the viewport, shows the hand pointer and is in no
    /// composite widget that moves focus itself (listbox, menu, grid, tree, tab list,
    /// aria-activedescendant). Tab never reaches it. A listener may do something no visitor
    /// needs (analytics), so `needs_review` is true.
    pub struct ControlNotFocusable {
        id: "accessibility.control-not-focusable",
        severity: Medium,
        title: "Clickable element cannot be reached with the keyboard",
        fires_when: "a visible element with its own click listener and a hand pointer is no native control, has no tabindex and is in no widget that manages focus",
        description: "People who use a keyboard, a switch or voice control move by focus: an element that only listens for clicks and cannot take focus is out of their reach, and screen readers do not announce it as something to activate: WCAG 2.2 success criteria 2.1.1 (Keyboard) and 4.1.2 (Name, Role, Value).",
        remediation: "Use a native control: `<button type=\"button\">` for an action, `<a href>` for navigation; both take focus and answer Enter (and Space) by themselves. If a custom element must stay, give it `tabindex=\"0\"`, a role, and key handlers for Enter and Space.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "role", "name", "needs_review", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/keyboard.html"),
        requires: [Barriers],
        level: A,
        wcag: ["2.1.1", "4.1.2"],
    }
}

/// True for an element the keyboard cannot reach that looks clickable.
pub fn unreachable(control: &BarrierControl) -> bool {
    !control.focusable && control.tabindex.is_none() && control.pointer
}

impl Check for ControlNotFocusable {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        for control in facts.controls.iter().filter(|c| unreachable(c)) {
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => control.selector,
                "snippet" => control.snippet,
                "role" => control.role,
                "name" => control.name,
                "needs_review" => true,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_page, run};
    use super::*;
    use crate::model::BarrierFacts;

    #[test]
    fn fires_on_clickable_elements_out_of_the_tab_order() {
        let c = |selector: &str, tabindex: Option<&str>, pointer: bool| BarrierControl {
            selector: selector.into(),
            tabindex: tabindex.map(str::to_string),
            focusable: tabindex.is_some_and(|t| t != "-1"),
            pointer,
            ..Default::default()
        };
        let facts = BarrierFacts {
            controls: vec![c("#div-button", None, true), c("#focusable", Some("0"), true), c("#managed", Some("-1"), true), c("#no-pointer", None, false)],
            ..Default::default()
        };
        let f = run(&ControlNotFocusable, &barrier_page(facts));
        let selectors: Vec<_> = f.iter().map(|f| f.evidence["selector"].as_str().unwrap_or_default()).collect();
        assert_eq!(selectors, ["#div-button"]);
        assert_eq!(f[0].evidence["needs_review"], true);
    }
}
