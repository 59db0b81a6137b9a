use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

declare_check! {
    /// Text is cut off once the WCAG text spacing is applied.
    ///
    /// Judged from the layout gatherer's text-spacing experiment (`LayoutFacts::text_spacing`):
    /// the style sheet of the WCAG 1.4.12 bookmarklet (line height 1.5, paragraph spacing 2em,
    /// letter spacing 0.12em, word spacing 0.16em, all `!important`) is added, and a box that
    /// clips its content (`overflow: hidden` or `clip` on that axis) is reported when its text
    /// now reaches more than 3 px beyond its padding box where before it fitted (within 1 px).
    /// Text measured is the text nodes' own extent (not margins or empty space); boxes that
    /// truncate on purpose (`text-overflow: ellipsis`, a line clamp), boxes that already cut
    /// their text (carousels) and visually hidden text are left out.
    pub struct TextSpacingClipped {
        id: "accessibility.text-spacing-clipped",
        severity: Medium,
        title: "Text is cut off when text spacing is increased",
        fires_when: "with WCAG 1.4.12 text spacing applied, text in a box with overflow hidden or clip reaches more than 3 px beyond the box, where before it fitted",
        description: "People with dyslexia or low vision override line, letter, word and paragraph spacing to read. A box sized for the original spacing then hides part of its text: WCAG 2.2 success criterion 1.4.12 (Text Spacing).",
        remediation: "Let boxes holding text grow with it: use min-height instead of height, avoid overflow: hidden on text containers (or size them in em/lh so they grow with the spacing), and let lines wrap. Test with the text spacing bookmarklet.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "text", "axis", "value", "limit", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/text-spacing.html"),
        requires: [Layout],
        level: AA,
        wcag: ["1.4.12"],
    }
}

impl Check for TextSpacingClipped {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(layout) = page.layout() else { return };
        for c in &layout.text_spacing.clipped {
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => c.selector,
                "snippet" => c.snippet,
                "text" => c.text,
                "axis" => c.axis,
                "value" => format!("text reaches {} px beyond the box", c.lost_px.round()),
                "limit" => format!("{} px box, overflow hidden", c.box_px.round()),
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
    fn fires_on_text_cut_by_spacing_and_not_otherwise() {
        let mut p = page(DomFacts::default());
        let cut = ClippedText { selector: "#card".into(), axis: "vertical".into(), lost_px: 17.6, box_px: 48.0, how: "text-spacing".into(), ..Default::default() };
        p.layout = Some(LayoutFacts { text_spacing: ClipTest { clipped: vec![cut], boxes: 3, skipped: None }, ..Default::default() });
        let f = run(&TextSpacingClipped, &p);
        assert_eq!((f.len(), f[0].severity), (1, Severity::Medium));
        assert_eq!(f[0].evidence["selector"], "#card");
        assert_eq!(f[0].evidence["value"], "text reaches 18 px beyond the box");
        p.layout = Some(LayoutFacts::default());
        assert!(run(&TextSpacingClipped, &p).is_empty());
    }
}
