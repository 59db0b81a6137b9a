use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::page_view::PageView;
use crate::model::Severity;
use crate::{declare_check, evidence};

declare_check! {
    /// Content shown in another order than the source's, which is the order screen readers read
    /// and Tab moves in.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`, reordered): two neighbouring children
    /// of an element, on one line with at least one more of its children, both with text or
    /// something to focus and neither positioned out of the flow, where the later in the source
    /// stands before the earlier (left of it, in a left-to-right container). A reading of the
    /// layout whose effect on meaning a person judges: `needs_review` is true. Two links or
    /// controls out of order are Medium (the focus order leaves the visual one), text Low.
    pub struct ReadingOrderMismatch {
        id: "accessibility.reading-order-mismatch",
        severity: Low,
        title: "Content shown in another order than the source's",
        fires_when: "two neighbouring children of an element stand on one line (with 3+ of its children on it), both with text or a focusable element, in the flow, and the later in the source is shown before the earlier (float: right, row-reverse, order, grid placement)",
        description: "Screen readers read and the Tab key moves in the order of the source, sighted readers in the order they see: when a style sheet shows items in another order (floated right, a reversed flex row, an `order` or grid placement), keyboard focus jumps across the line and back, and a screen reader user hears steps, prices or links in a sequence that no one sees. WCAG 2.2 success criteria 1.3.2 (Meaningful Sequence) and 2.4.3 (Focus Order), failures F1 and F44.",
        remediation: "Put the elements in the source in the order they are meant to be read, then lay them out without reordering (normal flow, a flex row that is not reversed, no `order`); to place an item at the end of a line use `margin-left: auto` (or `margin-inline-start: auto`) on it, not `float: right` on items before it.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "first_selector", "first_text", "second_selector", "second_text", "focusable", "cause", "needs_review", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Techniques/failures/F1"),
        requires: [Barriers],
        level: A,
        wcag: ["1.3.2", "2.4.3"],
    }
}

impl Check for ReadingOrderMismatch {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        for pair in &facts.reordered {
            out.report_with(
                if pair.focusable { Severity::Medium } else { Severity::Low },
                evidence! {
                    "url" => page.final_url,
                    "selector" => pair.selector,
                    "snippet" => pair.snippet,
                    "first_selector" => pair.first_selector,
                    "first_text" => pair.first_text,
                    "second_selector" => pair.second_selector,
                    "second_text" => pair.second_text,
                    "focusable" => pair.focusable,
                    "cause" => pair.cause,
                    "needs_review" => true,
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_page, run};
    use super::*;
    use crate::model::{BarrierFacts, ReorderedSiblings};

    #[test]
    fn reports_each_reordered_line_for_review() {
        let pair = |selector: &str, focusable: bool| ReorderedSiblings { selector: selector.into(), first_selector: "a.second".into(), second_selector: "a.third".into(), focusable, cause: "float: right".into(), ..Default::default() };
        let f = run(&ReadingOrderMismatch, &barrier_page(BarrierFacts { reordered: vec![pair("#links", true), pair("#steps", false)], ..Default::default() }));
        let got: Vec<_> = f.iter().map(|f| (f.evidence["selector"].as_str().unwrap(), f.severity, f.evidence["needs_review"].as_bool().unwrap())).collect();
        assert_eq!(got, [("#links", Severity::Medium, true), ("#steps", Severity::Low, true)]);
        assert_eq!(ReadingOrderMismatch::META.wcag_tags(), ["wcag2a", "wcag132", "wcag243"]);
        assert!(run(&ReadingOrderMismatch, &barrier_page(BarrierFacts::default())).is_empty());
    }
}
