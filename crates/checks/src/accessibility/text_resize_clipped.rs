use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

declare_check! {
    /// Text is cut off at 200% text size.
    ///
    /// Judged from the layout gatherer's text-size experiment (`LayoutFacts::text_resize`): at
    /// the page's own viewport every element's computed font size is doubled (as a browser's
    /// text-only zoom does: lengths in px, such as a fixed height, stay), and a box that clips its
    /// content (`overflow: hidden` or `clip` on that axis) is reported when its text now reaches
    /// more than 3 px beyond its padding box where before it fitted. The same exclusions as
    /// `accessibility.text-spacing-clipped` apply. WCAG lets a page rely on full-page zoom, which
    /// scales boxes with the text: a person confirms the loss with the browser's zoom, so each
    /// finding carries `needs_review`.
    pub struct TextResizeClipped {
        id: "accessibility.text-resize-clipped",
        severity: Medium,
        title: "Text is cut off at 200% text size",
        fires_when: "with every font size doubled, text in a box with overflow hidden or clip reaches more than 3 px beyond the box, where before it fitted (needs review)",
        description: "People with low vision enlarge text to 200%. A box of fixed height or width that hides its overflow then cuts off the text it holds: WCAG 2.2 success criterion 1.4.4 (Resize Text).",
        remediation: "Size boxes that hold text so they grow with it: min-height instead of height, sizes in em or rem rather than px, no overflow: hidden on text containers. Check the page with text-only zoom and with browser zoom at 200%.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "text", "axis", "value", "limit", "needs_review", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/resize-text.html"),
        requires: [Layout],
        level: AA,
        wcag: ["1.4.4"],
    }
}

impl Check for TextResizeClipped {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(layout) = page.layout() else { return };
        for c in &layout.text_resize.clipped {
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => c.selector,
                "snippet" => c.snippet,
                "text" => c.text,
                "axis" => c.axis,
                "value" => format!("text reaches {} px beyond the box", c.lost_px.round()),
                "limit" => format!("{} px box, overflow hidden", c.box_px.round()),
                "needs_review" => true,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{page, run};
    use super::*;
    use crate::model::{ClipTest, ClippedText, DomFacts, LayoutFacts, Severity};

    #[test]
    fn fires_on_text_cut_at_200_percent_for_review() {
        let mut p = page(DomFacts::default());
        let cut = ClippedText { selector: "#badge".into(), axis: "horizontal".into(), lost_px: 40.0, box_px: 60.0, how: "text-200".into(), ..Default::default() };
        p.layout = Some(LayoutFacts { text_resize: ClipTest { clipped: vec![cut], boxes: 1, skipped: None }, ..Default::default() });
        let f = run(&TextResizeClipped, &p);
        assert_eq!((f.len(), f[0].severity), (1, Severity::Medium));
        assert_eq!((f[0].evidence["axis"].as_str(), f[0].evidence["needs_review"].as_bool()), (Some("horizontal"), Some(true)));
        p.layout = Some(LayoutFacts { text_resize: ClipTest { skipped: Some("no box clips its content".into()), ..Default::default() }, ..Default::default() });
        assert!(run(&TextResizeClipped, &p).is_empty());
    }
}
