use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

/// Italic passages longer than this many lines...
pub const MAX_ITALIC_LINES: usize = 3;
/// ...and at least this many characters are reported.
pub const MIN_ITALIC_CHARS: usize = 200;

declare_check! {
    /// A long passage is set in italics.
    ///
    /// Judged from the layout gatherer's reading facts (`Reading::italic`): a block of running
    /// text, 80% of it in a computed italic or oblique style, of more than three lines and 200
    /// characters or more. Advisory (`needs_review`).
    pub struct ItalicText {
        id: "accessibility.italic-text",
        severity: Info,
        title: "Long passage in italics",
        fires_when: "a block of running text of more than three lines and 200 characters or more is 80% italic or oblique (needs review)",
        description: "Italic letter forms are harder to read in long passages, above all for people with dyslexia or low vision. WCAG 2.2 advisory technique under 1.4.8 (Visual Presentation).",
        remediation: "Keep italics for short emphasis and titles; set quotations and notes upright and mark them another way (indentation, a border, a label).",
        cwe: None,
        evidence: ["url", "selector", "snippet", "text", "value", "needs_review", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/visual-presentation.html"),
        requires: [Layout],
        level: AAA,
        wcag: ["1.4.8"],
    }
}

impl Check for ItalicText {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(layout) = page.layout() else { return };
        for run in layout.reading.italic.iter().filter(|r| r.lines > MAX_ITALIC_LINES && r.chars >= MIN_ITALIC_CHARS) {
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => run.selector,
                "snippet" => run.snippet,
                "text" => run.text,
                "value" => format!("{} lines in italics", run.lines),
                "needs_review" => true,
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
    fn fires_on_long_italic_passages_only() {
        let block = |selector: &str, chars: usize, lines: usize| TextRun { selector: selector.into(), chars, lines, ..Default::default() };
        let mut p = page(DomFacts::default());
        p.layout = Some(LayoutFacts {
            reading: Reading { italic: vec![block("#quote", 600, 6), block("#aside", 250, 3)], ..Default::default() },
            ..Default::default()
        });
        let f = run(&ItalicText, &p);
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].evidence["selector"].as_str(), f[0].severity), (Some("#quote"), Severity::Info));
    }
}
