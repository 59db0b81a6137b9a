use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::page_view::PageView;
use super::language_tag::is_rtl as language_is_rtl;
use super::scripts::{is_rtl, letters_by_script};
use crate::{declare_check, evidence};

declare_check! {
    /// A passage laid out in the other direction than its text is written in.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`, passages) and the computed
    /// `direction` of each block: right-to-left text (six letters in ten or more in Arabic,
    /// Hebrew, Syriac, Thaana, N'Ko, ..., four at least) laid out left to right, or text with no
    /// right-to-left letter in a language written left to right (its `lang`) laid out right to
    /// left. Blocks that take their direction from their text (`dir="auto"`, `unicode-bidi:
    /// plaintext`) are not judged, nor a whole page in a right-to-left language without a
    /// direction (`i18n.dir-missing` names that once), nor a word or two inline with no
    /// punctuation or digits, which read the same in either direction (a language switcher's
    /// "العربية").
    pub struct TextDirectionWrong {
        id: "i18n.text-direction-wrong",
        severity: Medium,
        title: "Text laid out in the wrong direction",
        fires_when: "a block of mostly right-to-left letters (Arabic, Hebrew, ...) has a computed direction of ltr, or a block of left-to-right text whose lang is a left-to-right language has direction rtl; dir=\"auto\" and unicode-bidi: plaintext are not judged",
        description: "The base direction decides where a line starts, where its punctuation and numbers go and in which order runs of different scripts are shown: Arabic or Hebrew laid out left to right ends its sentence with the full stop at the wrong end and reorders mixed phrases, and English laid out right to left does the same in reverse. Readers, and screen readers reading the visual order, meet the words in the wrong sequence: WCAG 2.2 success criterion 1.3.2 (Meaningful Sequence), technique H56.",
        remediation: "Set the direction with the language: `<p lang=\"ar\" dir=\"rtl\">…</p>` for a right-to-left passage in a left-to-right page, `dir=\"ltr\"` for an English passage in a right-to-left page, or `dir=\"auto\"` where the text is not known in advance (user content).",
        cwe: None,
        evidence: ["url", "selector", "snippet", "text", "direction", "expected", "lang", "rtl_letters", "letters", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Techniques/html/H56"),
        requires: [Barriers, Dom],
        level: A,
        wcag: ["1.3.2"],
    }
}

/// Combining marks (Arabic and Hebrew vowel points, ...): part of the letters they sit on.
fn is_mark(c: char) -> bool {
    matches!(c as u32, 0x0300..=0x036F | 0x0591..=0x05C7 | 0x0610..=0x061A | 0x064B..=0x065F | 0x0670 | 0x06D6..=0x06ED | 0x200C..=0x200F)
}

impl Check for TextDirectionWrong {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        // A page in a right-to-left language laid out left to right: `i18n.dir-missing`.
        let page_rtl_undirected = page.dom().html_lang.as_deref().is_some_and(language_is_rtl)
            && !page.dom().html_dir.as_deref().is_some_and(|d| d.trim().eq_ignore_ascii_case("rtl"));
        for passage in &facts.passages {
            if passage.plaintext || passage.dir_attr.as_deref().is_some_and(|d| d.trim().eq_ignore_ascii_case("auto")) {
                continue;
            }
            let counts = letters_by_script(&passage.text);
            let letters: usize = counts.iter().map(|(_, n)| n).sum();
            let rtl: usize = counts.iter().filter(|(s, _)| is_rtl(s)).map(|(_, n)| n).sum();
            // Only where the direction shows: punctuation, digits or a run of the other direction
            // (placed by the base direction), or a block's alignment. A word or two of one script
            // inline reads the same either way.
            let shows = passage.text.chars().any(|c| !c.is_alphabetic() && !c.is_whitespace() && !is_mark(c))
                || (!passage.inline && passage.text.split_whitespace().count() >= 2);
            if !shows {
                continue;
            }
            let expected = match passage.direction.as_str() {
                "ltr" if rtl >= 4 && rtl * 10 >= letters * 6 && !page_rtl_undirected => "rtl",
                "rtl" if rtl == 0 && letters >= 4 && passage.lang.as_deref().is_some_and(|l| !language_is_rtl(l)) => "ltr",
                _ => continue,
            };
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => passage.selector,
                "snippet" => passage.snippet,
                "text" => passage.text,
                "direction" => passage.direction,
                "expected" => expected,
                "lang" => passage.lang,
                "rtl_letters" => rtl,
                "letters" => letters,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_kit::{page, run};
    use crate::model::{BarrierFacts, DomFacts, PageSnapshot, TextPassage};

    fn passage(selector: &str, text: &str, lang: &str, direction: &str) -> TextPassage {
        TextPassage { selector: selector.into(), text: text.into(), lang: Some(lang.into()), direction: direction.into(), ..Default::default() }
    }

    fn with(html_lang: &str, passages: Vec<TextPassage>) -> PageSnapshot {
        let dom = DomFacts { html_lang: Some(html_lang.into()), ..Default::default() };
        PageSnapshot { barriers: Some(BarrierFacts { passages, ..Default::default() }), ..page(dom) }
    }

    #[test]
    fn fires_on_text_laid_out_against_its_direction() {
        let found = run(&TextDirectionWrong, &with("en", vec![
            passage("#arabic-ltr", "الإعفاء الإلكتروني من التأشيرة", "ar", "ltr"),
            passage("#english-rtl", "Electronic visa waiver", "en", "rtl"),
        ]));
        let got: Vec<_> = found.iter().map(|f| (f.evidence["selector"].as_str().unwrap(), f.evidence["expected"].as_str().unwrap())).collect();
        assert_eq!(got, [("#arabic-ltr", "rtl"), ("#english-rtl", "ltr")]);
        // An inline link whose punctuation the base direction places.
        let inline = TextPassage { inline: true, ..passage("#inline", "العربية (مصر)", "ar", "ltr") };
        assert_eq!(run(&TextDirectionWrong, &with("en", vec![inline])).len(), 1);
    }

    #[test]
    fn quiet_when_direction_fits_or_comes_from_the_text() {
        let mut auto = passage("#auto", "שלום עולם", "he", "ltr");
        auto.dir_attr = Some("auto".into());
        let mut plain = passage("#plaintext", "שלום עולם", "he", "ltr");
        plain.plaintext = true;
        let found = run(&TextDirectionWrong, &with("en", vec![
            passage("#arabic-rtl", "الإعفاء الإلكتروني", "ar", "rtl"),
            passage("#mixed", "The word تأشيرة means visa in English", "en", "ltr"),
            passage("#brand-in-arabic-page", "iPhone Pro", "ar", "rtl"),
            passage("#short", "שלו", "he", "ltr"),
            TextPassage { inline: true, ..passage("#switcher-link", "العربية", "ar", "ltr") },
            TextPassage { inline: true, ..passage("#switcher-two-words", "الشرق الأوسط", "en", "ltr") },
            auto,
            plain,
        ]));
        assert!(found.is_empty(), "{found:?}");
        // A whole Arabic page without dir is `i18n.dir-missing`'s, once.
        let page_wide = run(&TextDirectionWrong, &with("ar", vec![passage("#p", "الإعفاء الإلكتروني", "ar", "ltr")]));
        assert!(page_wide.is_empty());
    }
}
