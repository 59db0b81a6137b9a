use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

/// Lines averaging more characters than this are too long (WCAG 1.4.8 asks for 80; this leaves
/// room for the estimate).
pub const MAX_CHARS_PER_LINE: usize = 100;

declare_check! {
    /// Paragraph lines are longer than about 100 characters.
    ///
    /// Judged from the layout gatherer's reading facts (`Reading::long_lines`) at the 1350 px
    /// desktop viewport: a block of running text (display block, list item or table cell, not a
    /// flex or grid row) of two lines or more whose characters per line (its characters over
    /// its content height divided by its line height) average more than 100. CJK text is left
    /// out (WCAG's limit there is 40 characters, counted differently).
    pub struct LineTooLong {
        id: "accessibility.line-too-long",
        severity: Info,
        title: "Lines of text are too long",
        fires_when: "a block of running text of two lines or more averages more than 100 characters a line at the desktop viewport",
        description: "Long lines make it hard to find the start of the next line, above all for people with reading or visual-tracking difficulties: WCAG 2.2 success criterion 1.4.8 (Visual Presentation, AAA) asks for lines of at most 80 characters.",
        remediation: "Limit the measure of running text, e.g. `max-width: 70ch` on paragraphs or their container.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "text", "value", "limit", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/visual-presentation.html"),
        requires: [Layout],
        level: AAA,
        wcag: ["1.4.8"],
    }
}

impl Check for LineTooLong {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(layout) = page.layout() else { return };
        for run in layout.reading.long_lines.iter().filter(|r| r.lines >= 2 && r.chars_per_line > MAX_CHARS_PER_LINE) {
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => run.selector,
                "snippet" => run.snippet,
                "text" => run.text,
                "value" => format!("{} characters a line over {} lines", run.chars_per_line, run.lines),
                "limit" => format!("{MAX_CHARS_PER_LINE} characters a line"),
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
    fn fires_on_long_lines_of_several_lines_only() {
        let block = |selector: &str, cpl: usize, lines: usize| TextRun { selector: selector.into(), chars_per_line: cpl, lines, chars: cpl * lines, ..Default::default() };
        let mut p = page(DomFacts::default());
        p.layout = Some(LayoutFacts {
            reading: Reading { long_lines: vec![block("#wide", 160, 4), block("#measured", 90, 6), block("#one", 140, 1)], ..Default::default() },
            ..Default::default()
        });
        let f = run(&LineTooLong, &p);
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].evidence["selector"].as_str(), f[0].severity), (Some("#wide"), Severity::Info));
    }
}
