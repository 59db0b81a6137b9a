use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

/// Justified blocks shorter than this (characters) or than `MIN_JUSTIFIED_LINES` are left alone.
pub const MIN_JUSTIFIED_CHARS: usize = 200;
pub const MIN_JUSTIFIED_LINES: usize = 3;

declare_check! {
    /// Running text is justified.
    ///
    /// Judged from the layout gatherer's reading facts (`Reading::justified`): a block of
    /// running text with a computed `text-align: justify`, of 200 characters and three lines or
    /// more.
    pub struct TextJustified {
        id: "accessibility.text-justified",
        severity: Info,
        title: "Text is justified",
        fires_when: "a block of running text of 200 characters and three lines or more has text-align: justify",
        description: "Justified text spreads words unevenly; the 'rivers' of white space it makes are hard to read for people with dyslexia and cognitive disabilities: WCAG 2.2 success criterion 1.4.8 (Visual Presentation, AAA).",
        remediation: "Align running text to the start (`text-align: start`) and let lines end ragged.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "text", "value", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/visual-presentation.html"),
        requires: [Layout],
        level: AAA,
        wcag: ["1.4.8"],
    }
}

impl Check for TextJustified {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(layout) = page.layout() else { return };
        for run in layout.reading.justified.iter().filter(|r| r.chars >= MIN_JUSTIFIED_CHARS && r.lines >= MIN_JUSTIFIED_LINES) {
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => run.selector,
                "snippet" => run.snippet,
                "text" => run.text,
                "value" => format!("text-align: justify over {} lines", run.lines),
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
    fn fires_on_long_justified_blocks_only() {
        let block = |selector: &str, chars: usize, lines: usize| TextRun { selector: selector.into(), chars, lines, ..Default::default() };
        let mut p = page(DomFacts::default());
        p.layout = Some(LayoutFacts {
            reading: Reading { justified: vec![block("#essay", 900, 8), block("#caption", 150, 2)], ..Default::default() },
            ..Default::default()
        });
        let f = run(&TextJustified, &p);
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].evidence["selector"].as_str(), f[0].severity), (Some("#essay"), Severity::Info));
    }
}
