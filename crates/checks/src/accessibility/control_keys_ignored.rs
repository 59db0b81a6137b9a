use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::BarrierControl;
use crate::{declare_check, evidence};

declare_check! {
    /// A custom control takes focus but ignores Enter and Space.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`, with the listener record of
    /// `browser/hooks.js`, installed before the page's own scripts): a visible element in the Tab
    /// order (`tabindex` 0 or more) with a click listener of its own, that is no native control,
    /// has a widget role or the hand pointer, and has no key listener: none on it, none on any
    /// ancestor, none on the document or the window. Only a native control turns Enter or Space
    /// into a click, so nothing can handle the keys: a keyboard user focuses it and nothing
    /// happens. Decided, not guessed: `needs_review` is false.
    pub struct ControlKeysIgnored {
        id: "accessibility.control-keys-ignored",
        severity: High,
        title: "Custom control does nothing on Enter or Space",
        fires_when: "a focusable element with its own click listener is no native control and no key listener exists on it, its ancestors, the document or the window",
        description: "Keyboard users activate controls with Enter and Space. Browsers do that for native buttons and links only: a `div` or `span` given a role and a tabindex takes focus and is announced as a button, but pressing a key on it does nothing, so whatever it does is out of keyboard users' reach: WCAG 2.2 success criterion 2.1.1 (Keyboard).",
        remediation: "Use `<button type=\"button\">` (or `<a href>` for navigation), which answers Enter and Space by itself. If the custom element must stay, handle `keydown` for Enter and Space and run the same action as the click.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "role", "name", "needs_review", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Techniques/failures/F54"),
        requires: [Barriers],
        level: A,
        wcag: ["2.1.1"],
    }
}

/// Roles whose element a visitor activates.
const WIDGET_ROLES: &[&str] = &["button", "link", "checkbox", "switch", "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "radio", "option", "treeitem"];

fn looks_operable(control: &BarrierControl) -> bool {
    let role = control.role.as_deref().and_then(|r| r.split_ascii_whitespace().next()).map(str::to_ascii_lowercase);
    control.pointer || role.is_some_and(|r| WIDGET_ROLES.contains(&r.as_str()))
}

impl Check for ControlKeysIgnored {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        if facts.key_delegation != Some(false) {
            return;
        }
        for control in facts.controls.iter().filter(|c| c.focusable && !c.key_handler && looks_operable(c)) {
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => control.selector,
                "snippet" => control.snippet,
                "role" => control.role,
                "name" => control.name,
                "needs_review" => false,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_page, run};
    use super::*;
    use crate::model::BarrierFacts;

    fn c(selector: &str, role: Option<&str>, keys: bool) -> BarrierControl {
        BarrierControl { selector: selector.into(), role: role.map(str::to_string), tabindex: Some("0".into()), focusable: true, key_handler: keys, ..Default::default() }
    }

    #[test]
    fn fires_on_focusable_controls_no_key_reaches() {
        let facts = BarrierFacts {
            key_delegation: Some(false),
            controls: vec![
                c("#role-button", Some("button"), false),
                c("#handled", Some("button"), true),
                c("#no-role", None, false),
                BarrierControl { pointer: true, ..c("#pointer", None, false) },
                BarrierControl { focusable: false, tabindex: None, ..c("#unfocusable", Some("button"), false) },
            ],
            ..Default::default()
        };
        let f = run(&ControlKeysIgnored, &barrier_page(facts.clone()));
        let selectors: Vec<_> = f.iter().map(|f| f.evidence["selector"].as_str().unwrap_or_default()).collect();
        assert_eq!(selectors, ["#role-button", "#pointer"]);
        for delegation in [Some(true), None] {
            let facts = BarrierFacts { key_delegation: delegation, ..facts.clone() };
            assert!(run(&ControlKeysIgnored, &barrier_page(facts)).is_empty(), "keys may be handled by the document");
        }
    }
}
