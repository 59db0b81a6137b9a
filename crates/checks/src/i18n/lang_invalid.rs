use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::semantics::html_document::is_html_document;
use super::language_tag::check_primary_language;
use crate::{declare_check, evidence};

declare_check! {
    /// The lang attribute names no known language.
    ///
    /// Judged on the primary language subtag (`check_primary_language`): what browsers and
    /// assistive technologies read to choose a voice (WCAG 3.1.1, ACT bf051a). A slip after a
    /// known language (`en-UK`, `en-US-GB`) still lets them speak English, so it is not reported
    /// here: only tags whose language cannot be determined (`english`, `en_US`, `eng`, `i-lux`).
    pub struct LangInvalid {
        id: "i18n.lang-invalid",
        severity: Medium,
        title: "Page language is not a valid BCP 47 tag",
        fires_when: "the <html lang> value is not a valid BCP 47 tag in its language: its primary language subtag is missing from the IANA Language Subtag Registry or malformed (e.g. en_US, english, eng, i-lux); subtags after a known language (en-UK) are not judged",
        description: "Browsers, screen readers and search engines only understand registered language tags: an invalid one is treated like no language at all, so text is read with the wrong pronunciation and may be mis-targeted in search.",
        remediation: "Use a registered tag: language (ISO 639-1 where one exists) optionally followed by region (ISO 3166-1), e.g. `en`, `en-GB` (not en-UK), `pt-BR`, `zh-Hant`.",
        cwe: None,
        evidence: ["url", "selector", "value", "expected", "wcag"],
        help_url: Some("https://www.w3.org/International/articles/language-tags/"),
        requires: [Dom],
        act_ids: ["bf051a"],
        level: A,
        wcag: ["3.1.1"],
    }
}

impl Check for LangInvalid {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        let Some(lang) = page
            .dom()
            .html_lang
            .as_deref()
            .filter(|l| !l.trim().is_empty())
        else {
            return;
        };
        if let Err(reason) = check_primary_language(lang) {
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => "html",
                "value" => lang,
                "expected" => reason,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, page};
    use crate::model::DomFacts;

    fn lang(l: &str) -> crate::model::PageSnapshot {
        page(DomFacts {
            html_lang: Some(l.into()),
            ..Default::default()
        })
    }

    #[test]
    fn fires_when_the_language_cannot_be_determined() {
        for bad in ["en_US", "english", "eng", "i-lux", "zz-GB"] {
            let f = findings(&lang(bad), "i18n.lang-invalid");
            assert_eq!(f.len(), 1, "{bad}");
            assert_eq!(f[0].evidence["value"], bad);
        }
    }

    #[test]
    fn quiet_on_valid_tags_in_any_case() {
        for ok in ["EN-us", "zh-Hant-TW", "es-419", "sr-Latn-RS"] {
            assert!(findings(&lang(ok), "i18n.lang-invalid").is_empty(), "{ok}");
        }
    }

    #[test]
    fn quiet_when_a_known_language_carries_a_malformed_or_unregistered_tail() {
        // A made-up page: <html lang="de-DE-AT"> is German whatever the stray region says.
        for ok in ["de-DE-AT", "en-UK", "nl-NL-"] {
            assert!(findings(&lang(ok), "i18n.lang-invalid").is_empty(), "{ok}");
        }
    }
}
