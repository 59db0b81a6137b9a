use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::page_view::PageView;
use super::super::semantics::html_document::is_html_document;
use super::scripts::{letters_by_script, scripts_of_language};
use crate::{declare_check, evidence};

declare_check! {
    /// The page's `lang` names another language than the one its text is written in.
    ///
    /// Judged from the page's rendered text (`page_text`) and `<html lang>`: the text's language
    /// is detected with the `whatlang` crate (trigram statistics over 69 languages) when it holds
    /// 200 letters or more, and a finding is made when the detection is reliable and names another
    /// language than the tag's primary subtag. Languages whatlang does not know (Irish, Welsh,
    /// Basque, ...) are never judged, nor languages close enough to be taken for each other
    /// (Danish, Norwegian and Swedish; Czech and Slovak; Serbian, Croatian, Bosnian, Slovenian and
    /// Macedonian; Malay and Indonesian; Spanish, Portuguese, Galician and Catalan; Russian,
    /// Ukrainian, Belarusian and Bulgarian; Hindi, Marathi and Nepali; Afrikaans and Dutch;
    /// Arabic, Persian and Urdu; Chinese and Japanese). A detection of a language of another
    /// script is set aside while two letters in five are in the declared language's own scripts
    /// (Japanese with English menus). A statistical reading: `needs_review`.
    pub struct LangWrong {
        id: "i18n.lang-wrong",
        severity: Medium,
        title: "Page's lang names another language than its text",
        fires_when: "the page's text holds 200+ letters, its language is detected reliably (whatlang, 69 languages) and differs from <html lang>'s primary language; languages whatlang does not know and languages easily taken for each other (da/nb/sv, cs/sk, sr/hr/bs/sl/mk, ms/id, es/pt/gl/ca, ru/uk/be/bg, hi/mr/ne, af/nl, ar/fa/ur, zh/ja) are not judged",
        description: "Screen readers choose their voice and pronunciation rules by the page's lang: a German page that says it is English is read with English sounds, word by word unintelligible, braille is translated with the wrong table, and browsers offer to translate from the wrong language. A theme or template's default `lang=\"en\"` left on pages in another language is the common cause. WCAG 2.2 success criterion 3.1.1 (Language of Page), failure of technique H57.",
        remediation: "Set `<html lang>` to the language the page is written in (`<html lang=\"de\">`); in a template or CMS, take it from the page's language setting rather than a default. Passages in another language get their own `lang`.",
        cwe: None,
        evidence: ["url", "selector", "lang", "detected", "detected_name", "confidence", "letters", "needs_review", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Techniques/html/H57"),
        requires: [Dom, PageText],
        level: A,
        wcag: ["3.1.1"],
    }
}

/// Letters a page's text needs before its language is judged.
const MIN_LETTERS: usize = 200;

/// whatlang's languages (ISO 639-3) as the primary subtag a `lang` would use (ISO 639-1 where
/// there is one).
const SUBTAGS: &[(&str, &str)] = &[
    ("afr", "af"), ("aka", "ak"), ("amh", "am"), ("ara", "ar"), ("aze", "az"), ("bel", "be"), ("ben", "bn"),
    ("bul", "bg"), ("cat", "ca"), ("ces", "cs"), ("cmn", "zh"), ("dan", "da"), ("deu", "de"), ("ell", "el"),
    ("eng", "en"), ("epo", "eo"), ("est", "et"), ("fin", "fi"), ("fra", "fr"), ("guj", "gu"), ("heb", "he"),
    ("hin", "hi"), ("hrv", "hr"), ("hun", "hu"), ("hye", "hy"), ("ind", "id"), ("ita", "it"), ("jav", "jv"),
    ("jpn", "ja"), ("kan", "kn"), ("kat", "ka"), ("khm", "km"), ("kor", "ko"), ("lat", "la"), ("lav", "lv"),
    ("lit", "lt"), ("mal", "ml"), ("mar", "mr"), ("mkd", "mk"), ("mya", "my"), ("nep", "ne"), ("nld", "nl"),
    ("nob", "nb"), ("ori", "or"), ("pan", "pa"), ("pes", "fa"), ("pol", "pl"), ("por", "pt"), ("ron", "ro"),
    ("rus", "ru"), ("sin", "si"), ("slk", "sk"), ("slv", "sl"), ("sna", "sn"), ("spa", "es"), ("srp", "sr"),
    ("swe", "sv"), ("tam", "ta"), ("tel", "te"), ("tgl", "tl"), ("tha", "th"), ("tuk", "tk"), ("tur", "tr"),
    ("ukr", "uk"), ("urd", "ur"), ("uzb", "uz"), ("vie", "vi"), ("yid", "yi"), ("zul", "zu"),
];

/// Languages easily taken for each other by their letters' statistics: never told apart.
const CLOSE: &[&[&str]] = &[
    &["nb", "da", "sv"],
    &["cs", "sk"],
    &["sr", "hr", "bs", "sl", "mk"],
    &["id", "ms"],
    &["es", "pt", "gl", "ca"],
    &["ru", "uk", "be", "bg"],
    &["hi", "mr", "ne"],
    &["af", "nl"],
    &["ar", "fa", "ur"],
    &["zh", "ja"],
];

/// The primary subtag of a `lang`, lowercase, with the registry's synonyms folded (`iw` is `he`,
/// `no` and `nn` are taken as `nb`, `fil` as `tl`, `cmn` as `zh`).
fn primary(lang: &str) -> String {
    let p = lang.trim().split(['-', '_']).next().unwrap_or_default().to_ascii_lowercase();
    match p.as_str() {
        "iw" => "he".into(),
        "in" => "id".into(),
        "ji" => "yi".into(),
        "no" | "nn" => "nb".into(),
        "fil" => "tl".into(),
        "cmn" => "zh".into(),
        "prs" => "fa".into(),
        _ => p,
    }
}

fn known(subtag: &str) -> bool {
    SUBTAGS.iter().any(|(_, s)| *s == subtag) || subtag == "ms" || subtag == "bs" || subtag == "gl"
}

fn close(a: &str, b: &str) -> bool {
    a == b || CLOSE.iter().any(|group| group.contains(&a) && group.contains(&b))
}

/// True when the detection names a language of another script than the declared one while the
/// text is largely (two letters in five or more) in the declared language's scripts: a Japanese
/// page with English menus, whose Latin letters outnumber each of Han, Hiragana and Katakana
/// alone (which is how whatlang picks a script), is a Japanese page.
fn written_largely_as_declared(text: &str, declared: &str, detected: &str) -> bool {
    let (Some(own), Some(other)) = (scripts_of_language(declared), scripts_of_language(detected)) else { return false };
    if own.iter().any(|s| other.contains(s)) {
        return false;
    }
    let counts = letters_by_script(text);
    let all: usize = counts.iter().map(|(_, n)| n).sum();
    let mine: usize = counts.iter().filter(|(s, _)| own.contains(s)).map(|(_, n)| n).sum();
    mine * 5 >= all * 2
}

impl Check for LangWrong {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) || !page.rendered() {
            return;
        }
        let Some(lang) = page.dom().html_lang.as_deref().filter(|l| !l.trim().is_empty()) else { return };
        let declared = primary(lang);
        if !known(&declared) {
            return;
        }
        let Some(text) = page.page_text().map(|t| t.text.as_str()) else { return };
        let letters = text.chars().filter(|c| c.is_alphabetic()).count();
        if letters < MIN_LETTERS {
            return;
        }
        let Some(info) = whatlang::detect(text) else { return };
        if !info.is_reliable() {
            return;
        }
        let Some((_, detected)) = SUBTAGS.iter().find(|(code, _)| *code == info.lang().code()) else { return };
        if close(&declared, detected) || written_largely_as_declared(text, &declared, detected) {
            return;
        }
        out.report(evidence! {
            "url" => page.final_url,
            "selector" => "html",
            "lang" => lang,
            "detected" => *detected,
            "detected_name" => info.lang().eng_name(),
            "confidence" => (info.confidence() * 100.0).round() / 100.0,
            "letters" => letters,
            "needs_review" => true,
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, page};
    use crate::model::{DomFacts, PageSnapshot, PageText};

    const ENGLISH: &str = "This page has a lang attribute set to the wrong language. The page has no title element and no first level heading; a block is styled to look like a heading instead. Screen readers read the words of this page with the rules of the language the page says it is in, so they need to be told the truth about it.";
    const GERMAN: &str = "Diese Seite ist auf Deutsch geschrieben, aber ihr Sprachattribut sagt, sie sei englisch. Ein Bildschirmleser liest die Wörter deshalb mit englischer Aussprache vor, und niemand versteht, was gemeint ist. Vorlagen und Themen setzen diesen Wert oft als Voreinstellung, und niemand ändert ihn später.";

    fn with(lang: &str, text: &str) -> PageSnapshot {
        let mut p = page(DomFacts { html_lang: Some(lang.into()), ..Default::default() });
        p.page_text = Some(PageText { text: text.into(), ..Default::default() });
        p
    }

    #[test]
    fn fires_when_the_text_is_reliably_another_language() {
        let f = findings(&with("fr", ENGLISH), "i18n.lang-wrong");
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].evidence["detected"].as_str(), f[0].evidence["lang"].as_str()), (Some("en"), Some("fr")));
        assert_eq!(f[0].evidence["needs_review"], true);
        assert_eq!(findings(&with("en-GB", GERMAN), "i18n.lang-wrong")[0].evidence["detected"], "de");
    }

    #[test]
    fn quiet_when_it_matches_is_short_unknown_or_close() {
        assert!(findings(&with("en-US", ENGLISH), "i18n.lang-wrong").is_empty());
        assert!(findings(&with("DE", GERMAN), "i18n.lang-wrong").is_empty());
        assert!(findings(&with("fr", "Hello, and welcome to our shop."), "i18n.lang-wrong").is_empty(), "too short");
        assert!(findings(&with("cy", ENGLISH), "i18n.lang-wrong").is_empty(), "Welsh is not a language whatlang knows");
        assert!(findings(&with("", ENGLISH), "i18n.lang-wrong").is_empty(), "no lang: i18n.lang-missing");
        assert!(super::close(&super::primary("nn"), "da"));
        // Japanese with English menus: more Latin letters than any one Japanese script, yet Japanese.
        let japanese = "Raspberry Pi競合 Ubuntuが動く「UP Core」を見る ZDNet Japan menu search login category Japan Edition ZDNet is available in the following editions Australia Asia China France Germany United Kingdom USA Blog News Reviews Downloads ベトナムでビジネス 日本株展望 企業決算 アップル15の大失態を振り返る 折れ曲がり疑惑から ドコモ 2019年度は新料金プランで大幅な減収減益に 出資も ニコニコ超会議2019 会場来場者は今回も16万人超え ネット来場者も増加 小児眼科医に聞く 子どもが使ってもいい年齢 日本のニュースと技術情報を毎日お届けします ";
        assert!(super::written_largely_as_declared(japanese, "ja", "en"));
        assert!(!super::written_largely_as_declared(ENGLISH, "ja", "en"));
        assert!(!super::written_largely_as_declared(GERMAN, "en", "de"), "one script: whatlang decides");
    }
}
