use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::semantics::html_document::is_html_document;
use crate::{declare_check, evidence};

declare_check! {
    /// `<html>` has no lang attribute.
    pub struct LangMissing {
        id: "i18n.lang-missing",
        severity: High,
        title: "Page language not declared",
        fires_when: "the <html> element has no lang attribute, or an empty one",
        description: "Screen readers choose their voice and pronunciation rules from the page language; without it they read the page with the user's default language. Browsers also use it for translation prompts, hyphenation, quotes and font selection (WCAG 3.1.1, level A).",
        remediation: "Declare the language of the content on the root element, e.g. `<html lang=\"en\">` or `<html lang=\"pt-BR\">`, and mark passages in other languages with their own lang attribute.",
        cwe: None,
        evidence: ["url", "selector", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/language-of-page.html"),
        requires: [Dom],
        level: A,
        wcag: ["3.1.1"],
    }
}

impl Check for LangMissing {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if is_html_document(page)
            && page
                .dom()
                .html_lang
                .as_deref()
                .is_none_or(|l| l.trim().is_empty())
        {
            out.report(evidence! { "url" => page.final_url, "selector" => "html" });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, page};
    use crate::model::DomFacts;

    #[test]
    fn fires_when_absent_or_empty() {
        assert_eq!(
            findings(&page(DomFacts::default()), "i18n.lang-missing").len(),
            1
        );
        let p = page(DomFacts {
            html_lang: Some(" ".into()),
            ..Default::default()
        });
        assert_eq!(findings(&p, "i18n.lang-missing").len(), 1);
    }

    #[test]
    fn quiet_with_any_lang_value() {
        // An invalid value is i18n.lang-invalid's business, not this check's.
        let p = page(DomFacts {
            html_lang: Some("en_US".into()),
            ..Default::default()
        });
        assert!(findings(&p, "i18n.lang-missing").is_empty());
    }
}
