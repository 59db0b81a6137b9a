//! Language tags: BCP 47 validity against the IANA Language Subtag Registry (the `language-tags`
//! crate carries the registry), hreflang's narrower form, and right-to-left languages.

use language_tags::LanguageTag;

/// Why a language tag is not valid BCP 47, or `Ok` when it is (well-formed, and every subtag in
/// the IANA registry).
pub fn check_bcp47(tag: &str) -> Result<LanguageTag, String> {
    let trimmed = tag.trim();
    if trimmed.contains('_') {
        return Err(format!(
            "\"{trimmed}\" uses '_' where BCP 47 uses '-' (write \"{}\")",
            trimmed.replace('_', "-")
        ));
    }
    let parsed = LanguageTag::parse(trimmed)
        .map_err(|e| format!("\"{trimmed}\" is not a well-formed BCP 47 tag: {e}"))?;
    parsed
        .validate()
        .map_err(|e| format!("\"{trimmed}\" is not a valid BCP 47 tag: {e}"))?;
    Ok(parsed)
}

/// Why the language of a `lang` value cannot be determined, or `Ok`: its primary language subtag
/// (the text before the first `-`) must be a language of the IANA Language Subtag Registry, which is
/// what browsers and assistive technologies read to pick a voice and rules (WCAG 3.1.1). Subtags
/// after a known language (`en-US-GB`, `en-UK`) leave the language determinable and are not judged;
/// irregular grandfathered tags (`i-lux`) have no language subtag. A private-use tag (`x-...`) is
/// judged as a whole tag.
pub fn check_primary_language(tag: &str) -> Result<(), String> {
    let trimmed = tag.trim();
    let primary = trimmed.split('-').next().unwrap_or_default();
    if primary.eq_ignore_ascii_case("x") {
        return check_bcp47(trimmed).map(|_| ());
    }
    if primary.contains('_') {
        return Err(format!(
            "\"{trimmed}\" uses '_' where BCP 47 uses '-' (write \"{}\")",
            trimmed.replace('_', "-")
        ));
    }
    if !(2..=8).contains(&primary.len()) || !primary.chars().all(|c| c.is_ascii_alphabetic()) {
        return Err(format!("\"{trimmed}\" does not start with a language subtag (2 to 8 letters)"));
    }
    LanguageTag::parse(primary)
        .ok()
        .filter(|t| t.validate().is_ok() && t.primary_language().eq_ignore_ascii_case(primary))
        .map(|_| ())
        .ok_or_else(|| format!("\"{primary}\" (in \"{trimmed}\") is not a language of the IANA Language Subtag Registry"))
}

/// Why an hreflang value is not usable, or `Ok`: `x-default`, or a valid BCP 47 tag of the form
/// language[-script][-region] (what search engines accept: ISO 639 language, ISO 15924 script,
/// ISO 3166-1 region), e.g. `en`, `en-GB`, `zh-Hant-TW`, `es-419`.
pub fn check_hreflang(value: &str) -> Result<(), String> {
    let trimmed = value.trim();
    if trimmed.eq_ignore_ascii_case("x-default") {
        return Ok(());
    }
    let tag = check_bcp47(trimmed)?;
    if tag.private_use().is_some()
        || tag.variant().is_some()
        || tag.extension().is_some()
        || tag.extended_language().is_some()
    {
        return Err(format!(
            "\"{trimmed}\" is valid BCP 47 but hreflang takes only language[-script][-region]"
        ));
    }
    let language = tag.primary_language();
    if !(2..=3).contains(&language.len()) {
        return Err(format!(
            "\"{trimmed}\" must start with an ISO 639 language code"
        ));
    }
    Ok(())
}

/// Scripts written right to left (ISO 15924).
const RTL_SCRIPTS: &[&str] = &[
    "adlm", "arab", "aran", "armi", "avst", "chrs", "cprt", "elym", "hatr", "hebr", "hung", "khar",
    "lydi", "mand", "mani", "mend", "merc", "mero", "narb", "nbat", "nkoo", "orkh", "ougr", "palm",
    "phli", "phlp", "phnx", "prti", "rohg", "samr", "sarb", "sogd", "sogo", "syrc", "thaa", "yezi",
];

/// Languages whose usual script is right to left (CLDR likely subtags).
const RTL_LANGUAGES: &[&str] = &[
    "ar", "arc", "azb", "bal", "bgn", "ckb", "dv", "fa", "glk", "he", "iw", "ji", "khw", "lrc",
    "mzn", "nqo", "pnb", "prs", "ps", "sd", "sdh", "skr", "syr", "ug", "ur", "yi",
];

/// True when a script (an ISO 15924 code, any case) is written right to left.
pub fn is_rtl_script(script: &str) -> bool {
    RTL_SCRIPTS.contains(&script.to_ascii_lowercase().as_str())
}

/// True when text in this language is written right to left: by its script subtag when there is
/// one (`az-Arab` yes, `ku-Latn` no), else by the language's usual script.
pub fn is_rtl(tag: &str) -> bool {
    let Ok(parsed) = LanguageTag::parse(tag.trim()) else {
        return false;
    };
    if let Some(script) = parsed.script() {
        return is_rtl_script(script);
    }
    RTL_LANGUAGES.contains(&parsed.primary_language().to_ascii_lowercase().as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validates_against_the_registry() {
        for ok in [
            "en",
            "en-US",
            "de-CH-1996",
            "zh-Hant-TW",
            "es-419",
            "sr-Latn",
            "fil",
            "EN-gb",
            "x-klingon",
        ] {
            assert!(check_bcp47(ok).is_ok(), "{ok}");
        }
        for bad in ["en_US", "english", "e", "xx", "en-UK", "", "en--US", "eng"] {
            assert!(check_bcp47(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn primary_language_decides_whether_the_language_is_known() {
        // The language is known whatever follows it; region or variant slips are not judged.
        for ok in ["en", "EN-gb", "en-US-GB", "en-UK", "fr-CA", "fil", "zh-Hant-TW", "x-klingon"] {
            assert!(check_primary_language(ok).is_ok(), "{ok}");
        }
        // No language: unregistered, ISO 639-2 where a 639-1 code exists, underscores, numbers,
        // irregular grandfathered tags, empty.
        for bad in ["xq", "eng", "en_US", "english", "123", "i-lux", "", "q-en"] {
            assert!(check_primary_language(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn hreflang_takes_language_script_region() {
        for ok in [
            "x-default",
            "X-Default",
            "en",
            "en-GB",
            "zh-Hant",
            "pt-BR",
            "es-419",
        ] {
            assert!(check_hreflang(ok).is_ok(), "{ok}");
        }
        for bad in [
            "en-UK",
            "uk-UA-x-foo",
            "us",
            "en_GB",
            "de-CH-1996",
            "english",
        ] {
            assert!(check_hreflang(bad).is_err(), "{bad}");
        }
        // "us" is not a language; "uk" (Ukrainian) is.
        assert!(check_hreflang("uk").is_ok());
    }

    #[test]
    fn knows_right_to_left() {
        assert!(
            is_rtl("ar") && is_rtl("he-IL") && is_rtl("fa") && is_rtl("ur-PK") && is_rtl("az-Arab")
        );
        assert!(
            !is_rtl("en")
                && !is_rtl("az")
                && !is_rtl("uz-Latn")
                && !is_rtl("ar-Latn")
                && !is_rtl("bogus tag")
        );
    }
}
