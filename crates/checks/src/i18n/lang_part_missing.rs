use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::page_view::PageView;
use super::scripts::{letters_by_script, scripts_of_language};
use crate::model::Severity;
use crate::{declare_check, evidence};

declare_check! {
    /// A passage in a script its declared language does not write: its language is not declared.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`, passages): the first text in a block
    /// (or an element with its own `lang`) that holds letters of a script other than Latin, against
    /// the scripts of the `lang` it inherits, read from the IANA registry's `Suppress-Script` (`en`
    /// is written in Latin, `ru` in Cyrillic, `ja` in Han, Hiragana and Katakana). Fires when four
    /// letters or more (two of Han, Hiragana, Katakana or Hangul) are in a script the language does
    /// not write: Arabic in an English page without `lang="ar"`, or under a `lang` that names
    /// another language. Latin words in a page of another script (brand names, code) are not judged,
    /// nor languages written in more than one script (`sr`) without a script subtag, nor text
    /// of unknown direction (`dir="auto"`, `<bdi>`: what visitors wrote). Fewer than
    /// eight letters may be a name, which WCAG exempts: `needs_review` is true then.
    pub struct LangPartMissing {
        id: "i18n.lang-part-missing",
        severity: Medium,
        title: "Text in another language has no lang of its own",
        fires_when: "a passage holds 4+ letters (2+ of Han, Kana or Hangul) of a script that the language it inherits from lang does not write (the IANA registry's Suppress-Script: en is Latin, ru Cyrillic, ar Arabic), e.g. Arabic in an English page with no lang=\"ar\" around it",
        description: "Screen readers pick their voice and pronunciation rules from the lang of the text they read: Arabic, Greek or Japanese inside an element that says it is English is read letter by letter, spelled out as code points, or skipped, and braille displays choose the wrong table. WCAG 2.2 success criterion 3.1.2 (Language of Parts, level AA), technique H58.",
        remediation: "Mark the passage with its language: `<p lang=\"ar\" dir=\"rtl\">…</p>`, `<span lang=\"el\">…</span>`; in a language switcher, give each language's name its own `lang` (`<a href=\"/fr/\" hreflang=\"fr\" lang=\"fr\">Français</a>`).",
        cwe: None,
        evidence: ["url", "selector", "snippet", "text", "script", "letters", "lang", "lang_declared_here", "needs_review", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Techniques/html/H58"),
        requires: [Barriers],
        level: AA,
        wcag: ["3.1.2"],
    }
}

/// Letters of one script a passage needs before its language is judged: a syllable of Han, Kana
/// or Hangul is a word, four letters of an alphabet are.
fn enough(script: &str, letters: usize) -> bool {
    letters >= if matches!(script, "Hani" | "Hira" | "Kana" | "Hang") { 2 } else { 4 }
}

impl Check for LangPartMissing {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        for passage in &facts.passages {
            let (Some(run), Some(lang)) = (passage.run.as_deref(), passage.lang.as_deref()) else { continue };
            // `dir="auto"` (or `<bdi>`) marks text of unknown direction, and so of unknown language:
            // what visitors wrote (names, comments), which the author cannot mark.
            if passage.dir_attr.as_deref().is_some_and(|d| d.trim().eq_ignore_ascii_case("auto")) {
                continue;
            }
            let Some(written) = scripts_of_language(lang) else { continue };
            let foreign = letters_by_script(run)
                .into_iter()
                .find(|(script, letters)| *script != "Latn" && !written.contains(script) && enough(script, *letters));
            let Some((script, letters)) = foreign else { continue };
            let review = letters < 8;
            out.report_with(
                if review { Severity::Low } else { Severity::Medium },
                evidence! {
                    "url" => page.final_url,
                    "selector" => passage.selector,
                    "snippet" => passage.snippet,
                    "text" => run,
                    "script" => script,
                    "letters" => letters,
                    "lang" => lang,
                    "lang_declared_here" => passage.lang_own,
                    "needs_review" => review,
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_kit::{page, run};
    use crate::model::{BarrierFacts, DomFacts, PageSnapshot, TextPassage};

    fn passage(selector: &str, run: &str, lang: Option<&str>) -> TextPassage {
        TextPassage { selector: selector.into(), text: run.into(), run: Some(run.into()), lang: lang.map(str::to_string), direction: "ltr".into(), ..Default::default() }
    }

    fn with(passages: Vec<TextPassage>) -> PageSnapshot {
        PageSnapshot { barriers: Some(BarrierFacts { passages, ..Default::default() }), ..page(DomFacts::default()) }
    }

    #[test]
    fn fires_on_text_its_language_does_not_write() {
        let found = run(&LangPartMissing, &with(vec![
            passage("#arabic", "الإعفاء الإلكتروني من التأشيرة", Some("en")),
            passage("#wrong-lang", "Ηλεκτρονική άδεια", Some("es")),
            passage("#name", "Путин", Some("en-GB")),
            passage("#kanji", "東京", Some("en")),
        ]));
        let got: Vec<_> = found.iter().map(|f| (f.evidence["selector"].as_str().unwrap(), f.evidence["script"].as_str().unwrap(), f.evidence["needs_review"].as_bool().unwrap())).collect();
        assert_eq!(got, [("#arabic", "Arab", false), ("#wrong-lang", "Grek", false), ("#name", "Cyrl", true), ("#kanji", "Hani", true)]);
        assert_eq!(found[0].severity, Severity::Medium);
        assert_eq!(found[2].severity, Severity::Low);
    }

    #[test]
    fn quiet_where_the_language_writes_it_or_cannot_say() {
        let found = run(&LangPartMissing, &with(vec![
            passage("#declared", "الإعفاء الإلكتروني من التأشيرة", Some("ar")),
            passage("#japanese", "東京タワーへようこそ", Some("ja")),
            passage("#serbian", "Добродошли", Some("sr")),
            passage("#no-lang", "Добродошли", None),
            passage("#pi", "π = 3.14, Δx", Some("en")),
            passage("#latin-in-arabic", "iPhone Pro Max", Some("ar")),
            TextPassage { dir_attr: Some("auto".into()), ..passage("#user-name", "مريم الحسيني", Some("en")) },
            TextPassage { selector: "#ltr-only".into(), text: "Hello".into(), lang: Some("en".into()), direction: "rtl".into(), ..Default::default() },
        ]));
        assert!(found.is_empty(), "{found:?}");
    }
}
