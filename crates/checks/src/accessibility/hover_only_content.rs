use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::Severity;
use crate::{declare_check, evidence};

declare_check! {
    /// Content that only a mouse can reveal.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`): a style-sheet rule with `:hover`
    /// shows content (display, visibility or opacity) that is hidden now inside a visible
    /// element, and no rule of the page gives the same selector with `:focus`, `:focus-within`
    /// or `:focus-visible`. Menus whose sub-items open on hover (`li:hover > ul`) are the usual
    /// case: hidden links cannot take focus, so the keyboard never reaches them. Severity Medium
    /// when the revealed content holds links or controls, Low for text (a tooltip). Where a
    /// script listens to focus it may reveal the content itself: `needs_review` is then true.
    /// Rules of another origin's style sheets cannot be read and are not judged.
    pub struct HoverOnlyContent {
        id: "accessibility.hover-only-content",
        severity: Medium,
        title: "Content appears on mouse hover only",
        fires_when: "a :hover rule reveals hidden content (a submenu, a tooltip) and no :focus, :focus-within or :focus-visible rule of the same selector does",
        description: "Keyboard, switch and many screen-reader users never hover: a submenu that opens only on hover keeps its links out of their reach, and a tooltip that shows only on hover keeps its text from them: WCAG 2.2 success criteria 2.1.1 (Keyboard) and 1.4.13 (Content on Hover or Focus).",
        remediation: "Reveal the same content on keyboard focus: add the `:focus-within` selector to the rule (`li:hover > ul, li:focus-within > ul { display: block }`), or use a disclosure button (`aria-expanded`) that opens the submenu on Enter; for tooltips, also show them on `:focus` and let Escape dismiss them.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "rule", "revealed", "revealed_text", "needs_review", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/content-on-hover-or-focus.html"),
        requires: [Barriers],
        level: A,
        wcag: ["2.1.1", "1.4.13"],
    }
}

impl Check for HoverOnlyContent {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        let review = facts.focus_watched != Some(false);
        // Something to miss: text or controls (a decorative overlay is none).
        for hover in facts.hover_only.iter().filter(|h| h.revealed_controls || !h.revealed_text.trim().is_empty()) {
            let severity = if hover.revealed_controls { Severity::Medium } else { Severity::Low };
            out.report_with(
                severity,
                evidence! {
                    "url" => page.final_url,
                    "selector" => hover.selector,
                    "snippet" => hover.snippet,
                    "rule" => hover.rule,
                    "revealed" => hover.revealed,
                    "revealed_text" => hover.revealed_text,
                    "needs_review" => review,
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_page, run};
    use super::*;
    use crate::model::{BarrierFacts, HoverOnly};

    #[test]
    fn menus_are_medium_tooltips_low_and_focus_scripts_need_review() {
        let hover = |selector: &str, controls: bool, text: &str| HoverOnly { selector: selector.into(), revealed_controls: controls, revealed_text: text.into(), ..Default::default() };
        let facts = BarrierFacts {
            focus_watched: Some(false),
            hover_only: vec![hover("#menu", true, "Shoes Boots"), hover("#tip", false, "Opens at 9"), hover("#overlay", false, " ")],
            ..Default::default()
        };
        let f = run(&HoverOnlyContent, &barrier_page(facts.clone()));
        let got: Vec<_> = f.iter().map(|f| (f.evidence["selector"].as_str().unwrap_or_default(), f.severity, f.evidence["needs_review"].clone())).collect();
        assert_eq!(got, [("#menu", Severity::Medium, false.into()), ("#tip", Severity::Low, false.into())]);
        let f = run(&HoverOnlyContent, &barrier_page(BarrierFacts { focus_watched: Some(true), ..facts }));
        assert!(f.iter().all(|f| f.evidence["needs_review"] == true));
    }
}
