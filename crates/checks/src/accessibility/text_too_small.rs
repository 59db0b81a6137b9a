use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

/// Text set below this size (computed, CSS px) is too small to read.
pub const MIN_FONT_PX: f64 = 9.0;
/// Only runs of at least this many characters count (a footnote mark or a badge is no text to read).
pub const MIN_SMALL_RUN_CHARS: usize = 20;

declare_check! {
    /// Running text is set below 9 CSS px.
    ///
    /// Judged from the layout gatherer's reading facts (`Reading::small_text`): a visible element
    /// whose own text run holds at least 20 characters and whose computed font size is below
    /// 9 px. Visually hidden text, scripts, code and form controls are left out.
    pub struct TextTooSmall {
        id: "accessibility.text-too-small",
        severity: Low,
        title: "Text is too small to read",
        fires_when: "a visible text run of 20 characters or more has a computed font size below 9 CSS px",
        description: "Text below 9 px is hard to read for most people and unreadable for many with low vision, who then have to zoom the whole page for it. No WCAG criterion sets a minimum size, but it is an advisory technique under 1.4.4 (Resize Text) and 1.4.8 (Visual Presentation).",
        remediation: "Set running text at 16 px (1rem) or more and small print at no less than 12 px; size it in rem so it follows the reader's settings.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "text", "value", "limit"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/visual-presentation.html"),
        requires: [Layout],
    }
}

impl Check for TextTooSmall {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(layout) = page.layout() else { return };
        for run in layout.reading.small_text.iter().filter(|r| r.font_size_px < MIN_FONT_PX && r.chars >= MIN_SMALL_RUN_CHARS) {
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => run.selector,
                "snippet" => run.snippet,
                "text" => run.text,
                "value" => format!("{} px", run.font_size_px),
                "limit" => format!("{MIN_FONT_PX} px"),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{page, run};
    use super::*;
    use crate::model::{DomFacts, LayoutFacts, Reading, Severity, TextRun};

    #[test]
    fn fires_below_9_px_on_real_text_only() {
        let small = |selector: &str, px: f64, chars: usize| TextRun { selector: selector.into(), font_size_px: px, chars, ..Default::default() };
        let mut p = page(DomFacts::default());
        p.layout = Some(LayoutFacts {
            reading: Reading { small_text: vec![small("#fine", 7.5, 120), small("#nine", 9.0, 120), small("#mark", 6.0, 3)], ..Default::default() },
            ..Default::default()
        });
        let f = run(&TextTooSmall, &p);
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].evidence["selector"].as_str(), f[0].severity), (Some("#fine"), Severity::Low));
        assert_eq!(f[0].evidence["value"], "7.5 px");
    }
}
