use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

declare_check! {
    /// An element that does nothing is put in the tab order.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`, where the listener record of
    /// `hooks.js` is there): a visible element with `tabindex` 0 or more that is no native
    /// control, has no widget, region or document role, no click or key listener of its own or
    /// on an ancestor, is no scrollable box (which the keyboard needs to reach to scroll), holds
    /// no control and describes nothing with `aria-describedby`. When the document or window
    /// listens to clicks or keys, the page may handle the element there, so the finding asks for
    /// review. A best practice: WCAG does not forbid a needless stop.
    pub struct FocusStopIdle {
        id: "accessibility.focus-stop-idle",
        severity: Low,
        title: "Tab stop on an element that does nothing",
        fires_when: "a visible element that is no control, has no widget role, listener or scrolling is put in the tab order with tabindex >= 0",
        description: "Every tab stop costs a keyboard user a key press, and a screen-reader user hears the element announced as if it could be used; a stop that does nothing slows them down and suggests a control that is not there (\"My favourite car\" reached by Tab and then nothing happens).",
        remediation: "Remove the `tabindex` from text and containers; to move focus to a heading or region from script, use `tabindex=\"-1\"`, which allows focus without adding a tab stop. If the element is meant to act, make it a `<button>` or a link.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "tabindex", "role", "text", "needs_review"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/focus-order.html"),
        requires: [Barriers],
    }
}

impl Check for FocusStopIdle {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        let delegated = facts.click_delegation == Some(true) || facts.key_delegation == Some(true);
        for stop in &facts.idle_stops {
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => stop.selector,
                "snippet" => stop.snippet,
                "tabindex" => stop.tabindex,
                "role" => stop.role,
                "text" => stop.text,
                "needs_review" => delegated,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_page, run};
    use super::*;
    use crate::model::{BarrierFacts, IdleTabStop};

    #[test]
    fn reports_each_idle_stop_and_asks_for_review_when_the_page_delegates() {
        let stop = IdleTabStop { selector: "p#car".into(), tabindex: Some("0".into()), text: "My favourite car".into(), ..Default::default() };
        let facts = BarrierFacts { idle_stops: vec![stop.clone()], click_delegation: Some(false), key_delegation: Some(false), ..Default::default() };
        let f = run(&FocusStopIdle, &barrier_page(facts));
        assert_eq!((f.len(), f[0].evidence["needs_review"].as_bool()), (1, Some(false)));
        let delegated = BarrierFacts { idle_stops: vec![stop], click_delegation: Some(true), ..Default::default() };
        assert_eq!(run(&FocusStopIdle, &barrier_page(delegated))[0].evidence["needs_review"], true);
    }
}
