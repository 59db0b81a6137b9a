use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::semantics::html_document::is_html_document;
use super::language_tag::check_hreflang;
use crate::{declare_check, evidence};

declare_check! {
    /// An hreflang value is not a valid language(-region) code or x-default.
    pub struct HreflangInvalid {
        id: "i18n.hreflang-invalid",
        severity: Medium,
        title: "Invalid hreflang value",
        fires_when: "a <link rel=\"alternate\" hreflang> value is neither x-default nor a valid language[-script][-region] tag: en_GB, en-UK, english, us, de-CH-1996 ...",
        description: "Search engines silently ignore alternates with an hreflang they cannot parse, so the localized version is not shown to the users it was made for and duplicates may compete in results.",
        remediation: "Use an ISO 639-1 language code, optionally followed by an ISO 3166-1 alpha-2 region (`en`, `en-GB`, `pt-BR`, `es-419`), or `x-default` for the fallback page.",
        cwe: None,
        evidence: ["url", "selector", "value", "expected", "resource"],
        help_url: Some("https://developers.google.com/search/docs/specialty/international/localized-versions#language-codes"),
        requires: [Dom],
    }
}

impl Check for HreflangInvalid {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        for link in &page.dom().links {
            // Search engines read hreflang alternates in <head> only (and Lighthouse agrees).
            let Some(hreflang) = link.hreflang.as_deref().filter(|_| link.in_head) else {
                continue;
            };
            if !link
                .rel
                .split_ascii_whitespace()
                .any(|r| r.eq_ignore_ascii_case("alternate"))
            {
                continue;
            }
            if let Err(reason) = check_hreflang(hreflang) {
                out.report(evidence! {
                    "url" => page.final_url,
                    "selector" => link.selector,
                    "value" => hreflang,
                    "expected" => reason,
                    "resource" => link.href,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, page};
    use crate::model::{DomFacts, LinkTag};

    fn alternate(hreflang: &str) -> LinkTag {
        LinkTag {
            rel: "alternate".into(),
            hreflang: Some(hreflang.into()),
            href: Some(format!("https://example.com/{hreflang}/")),
            selector: format!("link[hreflang=\"{hreflang}\"]"),
            in_head: true,
            ..Default::default()
        }
    }

    #[test]
    fn fires_per_bad_value() {
        let p = page(DomFacts {
            links: vec![alternate("en_GB"), alternate("en-UK"), alternate("en")],
            ..Default::default()
        });
        let f = findings(&p, "i18n.hreflang-invalid");
        assert_eq!(f.len(), 2);
        assert!(
            f.iter()
                .any(|x| x.evidence["selector"] == "link[hreflang=\"en_GB\"]")
        );
    }

    #[test]
    fn quiet_for_x_default_regions_and_scripts() {
        let p = page(DomFacts {
            links: vec![
                alternate("x-default"),
                alternate("en-gb"),
                alternate("zh-Hant"),
                alternate("es-419"),
            ],
            ..Default::default()
        });
        assert!(findings(&p, "i18n.hreflang-invalid").is_empty());
    }
}
