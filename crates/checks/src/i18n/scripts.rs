//! Which writing systems a passage uses, and which ones its declared language writes: the letters
//! of a text counted by Unicode script (ISO 15924 codes, from the `unicode-script` crate), and a
//! language's usual script read from the IANA Language Subtag Registry's `Suppress-Script` (the
//! `language-tags` crate carries it: `en-Latn` canonicalizes to `en` because English is written
//! in Latin unless a tag says otherwise).

use language_tags::LanguageTag;
use unicode_script::{Script, UnicodeScript};

use super::language_tag::is_rtl_script;

/// The letters of a text, counted by script (ISO 15924 code), most first; digits, punctuation,
/// symbols, emoji and marks belong to no script here.
pub fn letters_by_script(text: &str) -> Vec<(&'static str, usize)> {
    let mut counts: Vec<(&'static str, usize)> = Vec::new();
    for c in text.chars().filter(|c| c.is_alphabetic()) {
        let script = c.script();
        if matches!(script, Script::Common | Script::Inherited | Script::Unknown) {
            continue;
        }
        let code = script.short_name();
        match counts.iter_mut().find(|(s, _)| *s == code) {
            Some((_, n)) => *n += 1,
            None => counts.push((code, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    counts
}

/// The scripts a registry script code stands for: `Jpan` is Han with Hiragana and Katakana,
/// `Kore` Hangul with Han, `Hans` and `Hant` are Han.
fn expand(code: &str) -> &'static [&'static str] {
    match code.to_ascii_lowercase().as_str() {
        "jpan" => &["Hani", "Hira", "Kana"],
        "kore" => &["Hang", "Hani"],
        "hans" | "hant" | "hani" => &["Hani"],
        _ => &[],
    }
}

/// Scripts a language's `Suppress-Script` can name (the registry's 134 entries use these).
const SUPPRESSED: &[&str] = &[
    "Latn", "Cyrl", "Arab", "Hebr", "Grek", "Deva", "Beng", "Jpan", "Kore", "Thai", "Ethi", "Geor",
    "Armn", "Thaa", "Tibt", "Taml", "Telu", "Knda", "Mlym", "Gujr", "Guru", "Orya", "Sinh", "Khmr",
    "Laoo", "Mymr", "Hang", "Hira", "Kana",
];

/// True when `tag` (a language subtag alone) drops `script` when canonicalized: the script is the
/// language's usual one.
fn suppresses(primary: &str, script: &str) -> bool {
    LanguageTag::parse(&format!("{primary}-{script}"))
        .ok()
        .and_then(|t| t.canonicalize().ok())
        .is_some_and(|t| t.script().is_none())
}

/// The scripts text in this language is written in (ISO 15924 codes), or `None` when the tag does
/// not say: no script subtag and no single usual script in the registry (`sr`, `zh` without
/// `Hans`/`Hant` aside, which is written in Han), or not a language tag at all.
pub fn scripts_of_language(tag: &str) -> Option<Vec<&'static str>> {
    let parsed = LanguageTag::parse(tag.trim()).ok()?;
    let primary = parsed.primary_language().to_ascii_lowercase();
    if let Some(script) = parsed.script() {
        let expanded = expand(script);
        if !expanded.is_empty() {
            return Some(expanded.to_vec());
        }
        return SUPPRESSED.iter().chain(["Syrc", "Nkoo", "Mong", "Tfng", "Cher", "Cans", "Vaii"].iter()).find(|s| s.eq_ignore_ascii_case(script)).map(|s| vec![*s]);
    }
    if matches!(primary.as_str(), "zh" | "yue" | "cmn" | "wuu" | "hak" | "nan" | "gan" | "hsn" | "lzh") {
        return Some(vec!["Hani", "Bopo"]);
    }
    let usual = SUPPRESSED.iter().find(|s| suppresses(&primary, s))?;
    let expanded = expand(usual);
    Some(if expanded.is_empty() { vec![*usual] } else { expanded.to_vec() })
}

/// True when a script (ISO 15924 code) is written right to left.
pub fn is_rtl(script: &str) -> bool {
    is_rtl_script(script)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_letters_by_script_and_ignores_the_rest() {
        assert_eq!(letters_by_script("Visa: الإعفاء 2024!"), [("Arab", 7), ("Latn", 4)]);
        assert_eq!(letters_by_script("¡¿ 42 ✓ 😀 — …"), []);
        assert_eq!(letters_by_script("東京タワー"), [("Hani", 2), ("Kana", 2)]);
    }

    #[test]
    fn reads_a_languages_usual_script_from_the_registry() {
        assert_eq!(scripts_of_language("en-GB"), Some(vec!["Latn"]));
        assert_eq!(scripts_of_language("ru"), Some(vec!["Cyrl"]));
        assert_eq!(scripts_of_language("ar"), Some(vec!["Arab"]));
        assert_eq!(scripts_of_language("he"), Some(vec!["Hebr"]));
        assert_eq!(scripts_of_language("el"), Some(vec!["Grek"]));
        assert_eq!(scripts_of_language("ja"), Some(vec!["Hani", "Hira", "Kana"]));
        assert_eq!(scripts_of_language("ko-KR"), Some(vec!["Hang", "Hani"]));
        assert_eq!(scripts_of_language("zh-Hant-TW"), Some(vec!["Hani"]));
        assert_eq!(scripts_of_language("zh"), Some(vec!["Hani", "Bopo"]));
        assert_eq!(scripts_of_language("sr-Latn"), Some(vec!["Latn"]));
        assert_eq!(scripts_of_language("sr"), None, "Serbian is written in two scripts");
        assert_eq!(scripts_of_language("not a tag"), None);
        assert!(is_rtl("Arab") && is_rtl("Hebr") && !is_rtl("Latn"));
    }
}
