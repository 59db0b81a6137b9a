use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::search::canonical_links::canonicals;
use super::super::search::url_identity::same_url;
use super::super::semantics::html_document::is_html_document;
use crate::{declare_check, evidence};

declare_check! {
    /// A page with hreflang alternates does not list itself.
    pub struct HreflangMissingSelf {
        id: "i18n.hreflang-missing-self",
        severity: Low,
        title: "hreflang set does not include the page itself",
        fires_when: "a page has <link rel=\"alternate\" hreflang> links but none of them points to the page itself (its URL or its canonical URL)",
        description: "Each language version must list every version including itself; without the self-reference search engines may not treat the set as a complete cluster and can show the wrong language version.",
        remediation: "Add a self-referencing alternate for the page's own language, e.g. on the English page `<link rel=\"alternate\" hreflang=\"en\" href=\"https://example.com/en/\">`, next to the other languages.",
        cwe: None,
        evidence: ["url", "value", "expected"],
        help_url: Some("https://developers.google.com/search/docs/specialty/international/localized-versions#html"),
        requires: [Dom],
    }
}

impl Check for HreflangMissingSelf {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) || !page.status.is_some_and(|s| (200..300).contains(&s)) {
            return;
        }
        let alternates: Vec<&str> = page
            .dom()
            .links
            .iter()
            .filter(|l| {
                l.in_head
                    && l.hreflang.is_some()
                    && l.rel
                        .split_ascii_whitespace()
                        .any(|r| r.eq_ignore_ascii_case("alternate"))
            })
            .filter_map(|l| l.href.as_deref())
            .collect();
        if alternates.is_empty() {
            return;
        }
        let mut own = vec![page.final_url.to_string(), page.requested_url.to_string()];
        own.extend(canonicals(page).into_iter().filter_map(|c| c.href));
        if alternates
            .iter()
            .any(|a| own.iter().any(|o| same_url(a, o)))
        {
            return;
        }
        out.report(evidence! {
            "url" => page.final_url,
            "value" => alternates.iter().take(10).collect::<Vec<_>>(),
            "expected" => page.final_url,
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, page};
    use crate::model::{DomFacts, LinkTag};

    fn link(rel: &str, hreflang: Option<&str>, href: &str) -> LinkTag {
        LinkTag {
            rel: rel.into(),
            hreflang: hreflang.map(str::to_string),
            href: Some(href.into()),
            in_head: true,
            ..Default::default()
        }
    }

    #[test]
    fn fires_when_only_other_languages_are_listed() {
        let p = page(DomFacts {
            links: vec![
                link("alternate", Some("de"), "https://example.com/de/page"),
                link("alternate", Some("fr"), "https://example.com/fr/page"),
            ],
            ..Default::default()
        });
        let f = findings(&p, "i18n.hreflang-missing-self");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["expected"], "https://example.com/page");
    }

    #[test]
    fn quiet_when_self_is_listed_via_the_canonical_url() {
        let mut p = page(DomFacts {
            links: vec![
                link("canonical", None, "https://example.com/en/page"),
                link("alternate", Some("en"), "https://example.com/en/page"),
                link("alternate", Some("de"), "https://example.com/de/page"),
            ],
            ..Default::default()
        });
        p.final_url = "https://example.com/en/page?utm_source=x".into();
        assert!(findings(&p, "i18n.hreflang-missing-self").is_empty());
        // Pages without hreflang are not judged.
        assert!(findings(&page(DomFacts::default()), "i18n.hreflang-missing-self").is_empty());
    }
}
