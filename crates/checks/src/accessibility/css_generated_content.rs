use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

declare_check! {
    /// Words that carry meaning are written into the page by a style sheet.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`): a visible element whose `::before`
    /// or `::after` shows a string with letters or digits (`content: "Pizza"`, `content: "New"`),
    /// read from the page's own style sheets and confirmed on the element's computed style.
    /// Punctuation, arrows, bullets, icon-font glyphs, counters and `attr()` are left alone. Style
    /// sheets served from another origin cannot be read, so their rules are not judged. Whether
    /// the words matter (a label, a price, a warning) or only decorate (a flourish, a repeated
    /// "Menu") is for a person to say: the finding asks for review.
    pub struct CssGeneratedContent {
        id: "accessibility.css-generated-content",
        severity: Low,
        title: "Text inserted with CSS",
        fires_when: "a visible element shows letters or digits from a style sheet's ::before/::after content",
        description: "Text written by CSS is not part of the document: screen readers differ on whether they read it, it cannot be selected, copied or translated, and it disappears when a reader turns styles off or applies their own. Meaning carried only there is lost for some people: WCAG 2.2 success criterion 1.3.1 (Info and Relationships), failure F87.",
        remediation: "Put words that carry meaning in the HTML (`<p>My favourite food is pizza</p>`), and keep CSS-generated content for decoration (quotation marks, icons with a text alternative in the markup).",
        cwe: None,
        evidence: ["url", "selector", "snippet", "value", "pseudo", "rule", "needs_review", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Techniques/failures/F87"),
        requires: [Barriers],
        level: A,
        wcag: ["1.3.1"],
    }
}

impl Check for CssGeneratedContent {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        for generated in &facts.generated_text {
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => generated.selector,
                "snippet" => generated.snippet,
                "value" => generated.text,
                "pseudo" => generated.pseudo,
                "rule" => generated.rule,
                "needs_review" => true,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_page, run};
    use super::*;
    use crate::model::{BarrierFacts, GeneratedText};

    #[test]
    fn reports_each_element_with_generated_words() {
        let text = |selector: &str, value: &str| GeneratedText { selector: selector.into(), pseudo: "::after".into(), text: value.into(), ..Default::default() };
        let facts = BarrierFacts { generated_text: vec![text("#food", "Pizza"), text(".badge", "New")], ..Default::default() };
        let f = run(&CssGeneratedContent, &barrier_page(facts));
        let got: Vec<_> = f.iter().map(|f| (f.evidence["selector"].as_str().unwrap_or_default(), f.evidence["value"].as_str().unwrap_or_default())).collect();
        assert_eq!(got, [("#food", "Pizza"), (".badge", "New")]);
        assert!(run(&CssGeneratedContent, &barrier_page(BarrierFacts::default())).is_empty());
    }
}
