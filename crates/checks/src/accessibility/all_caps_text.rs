use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

/// Capitals over at least this many letters...
pub const MIN_CAPS_LETTERS: usize = 100;
/// ...and this many sentence ends (prose, not a navigation bar or a label).
pub const MIN_CAPS_SENTENCES: usize = 2;

declare_check! {
    /// A passage of running text is set in capitals.
    ///
    /// Judged from the layout gatherer's reading facts (`Reading::all_caps`): a block of running
    /// text whose letters are 90% or more capitals (typed so, or by `text-transform: uppercase`),
    /// over 100 letters and two sentences or more. Headings, buttons and menus are short and
    /// pass. Advisory: a person judges whether the passage is meant to be read as running text
    /// (`needs_review`).
    pub struct AllCapsText {
        id: "accessibility.all-caps-text",
        severity: Info,
        title: "Long passage in capital letters",
        fires_when: "a block of running text of over 100 letters and two sentences or more is 90% capitals (typed or text-transform: uppercase) (needs review)",
        description: "Capitals take away the word shapes readers rely on: long passages in capitals are slow to read, especially for people with dyslexia or low vision, and screen readers may spell typed capitals out letter by letter. WCAG 2.2 advisory technique under 1.4.8 (Visual Presentation).",
        remediation: "Write running text in sentence case; keep capitals for short labels, and when capitals are wanted for style, type the text normally and use `text-transform: uppercase` on short runs only.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "text", "value", "needs_review", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/visual-presentation.html"),
        requires: [Layout],
        level: AAA,
        wcag: ["1.4.8"],
    }
}

impl Check for AllCapsText {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(layout) = page.layout() else { return };
        for run in layout.reading.all_caps.iter().filter(|r| r.letters >= MIN_CAPS_LETTERS && r.sentences >= MIN_CAPS_SENTENCES) {
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => run.selector,
                "snippet" => run.snippet,
                "text" => run.text,
                "value" => format!("{} letters in capitals ({})", run.letters, run.how),
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
    fn fires_on_prose_in_capitals_only() {
        let caps = |selector: &str, letters: usize, sentences: usize| TextRun { selector: selector.into(), letters, sentences, how: "literal".into(), ..Default::default() };
        let mut p = page(DomFacts::default());
        p.layout = Some(LayoutFacts {
            reading: Reading { all_caps: vec![caps("#terms", 400, 5), caps("#nav", 140, 0), caps("#short", 70, 3)], ..Default::default() },
            ..Default::default()
        });
        let f = run(&AllCapsText, &p);
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].evidence["selector"].as_str(), f[0].severity), (Some("#terms"), Severity::Info));
        assert_eq!(f[0].evidence["needs_review"], true);
    }
}
