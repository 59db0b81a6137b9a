use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

declare_check! {
    /// Text is cut at the right edge of a 320 CSS px wide viewport.
    ///
    /// Judged from the layout gatherer's reflow step (`LayoutFacts::reflow`): the page is laid
    /// out at 320 x 256 CSS px (what a 1280 px wide window shows at 400% zoom) and every visible
    /// text that starts inside the viewport but ends beyond its right edge is traced to the
    /// outermost box that overflows (below a box that fits), which is reported. Content WCAG
    /// 1.4.10 lets need two dimensions is left out: text inside tables, `pre`/`code`, SVG, math,
    /// canvas, media, frames, maps, and toolbars, grids, tab lists and menu bars; so is text in a
    /// box that scrolls or clips sideways and itself fits the viewport (a scrolling code sample,
    /// a carousel), visually hidden text, and text entirely off screen (an off-canvas panel).
    pub struct ReflowOverflow {
        id: "accessibility.reflow-overflow",
        severity: Medium,
        title: "Content does not reflow at 320 CSS pixels",
        fires_when: "at a 320 x 256 CSS px viewport, visible text (outside tables, code, media, toolbars and boxes that scroll within the viewport) runs past the right edge",
        description: "People who zoom to 400% read the page in a window 320 CSS px wide. Text that does not wrap to that width has to be read by scrolling sideways for every line, or is cut off: WCAG 2.2 success criterion 1.4.10 (Reflow).",
        remediation: "Let the box shrink and its text wrap: use max-width instead of width in px, flexible grids (`minmax(0, 1fr)`, `flex-wrap: wrap`), `overflow-wrap: anywhere` for long words and URLs, and media queries that stack columns on narrow screens. Test at 320 px wide (or 400% zoom).",
        cwe: None,
        evidence: ["url", "selector", "snippet", "text", "value", "limit", "scroll_width", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/reflow.html"),
        requires: [Layout],
        level: AA,
        wcag: ["1.4.10"],
    }
}

impl Check for ReflowOverflow {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(reflow) = page.layout().and_then(|l| l.reflow.as_ref()) else { return };
        for o in &reflow.overflowing {
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => o.selector,
                "snippet" => o.snippet,
                "text" => o.text,
                "value" => format!("text ends at {} px", o.text_right_px.round()),
                "limit" => format!("{} px wide viewport", reflow.viewport_width),
                "scroll_width" => reflow.scroll_width,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{page, run};
    use super::*;
    use crate::model::{DomFacts, LayoutFacts, Overflow, PageSnapshot, Reflow, Severity};

    fn at_320(overflowing: Vec<Overflow>) -> PageSnapshot {
        let mut p = page(DomFacts::default());
        p.layout = Some(LayoutFacts { reflow: Some(Reflow { viewport_width: 320, scroll_width: 820, overflowing }), ..Default::default() });
        p
    }

    #[test]
    fn fires_on_text_cut_at_320_px() {
        let f = run(&ReflowOverflow, &at_320(vec![Overflow { selector: "#wide".into(), text: "A fixed width".into(), text_right_px: 812.4, width_px: 800.0, ..Default::default() }]));
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].severity, f[0].evidence["selector"].as_str()), (Severity::Medium, Some("#wide")));
        assert_eq!(f[0].evidence["value"], "text ends at 812 px");
        assert_eq!(f[0].evidence["scroll_width"], 820);
    }

    #[test]
    fn quiet_when_everything_reflows_or_was_not_measured() {
        assert!(run(&ReflowOverflow, &at_320(vec![])).is_empty());
        let mut p = page(DomFacts::default());
        p.layout = Some(LayoutFacts::default());
        assert!(run(&ReflowOverflow, &p).is_empty());
    }
}
