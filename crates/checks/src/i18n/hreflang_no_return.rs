use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::super::search::url_identity::same_url;
use crate::model::PageDigest;
use crate::{declare_check, evidence};

declare_check! {
    /// Page A lists B as an alternate, but B does not list A back.
    pub struct HreflangNoReturn {
        id: "i18n.hreflang-no-return",
        severity: Medium,
        title: "hreflang alternate does not link back",
        fires_when: "a crawled page A lists page B as an hreflang alternate, B was crawled and answered 2xx, and none of B's hreflang links points back to A (A's URL, final URL or canonical). Alternates that were not crawled are not judged",
        description: "Search engines only trust hreflang pairs confirmed from both sides, so that no site can claim to be another's translation. A one-way link is ignored, and users may get the wrong language version.",
        remediation: "Put the same complete set of hreflang links on every language version: each page lists all versions, itself included. Generate the set from one source so it cannot drift.",
        cwe: None,
        evidence: ["url", "resource", "value", "expected"],
        help_url: Some("https://developers.google.com/search/docs/specialty/international/localized-versions#all-method-guidelines"),
        site_requires: [Pages],
    }
}

/// True when `url` names this page (its requested URL, final URL or canonical).
fn names(page: &PageDigest, url: &str) -> bool {
    same_url(url, &page.url)
        || same_url(url, &page.final_url)
        || page.canonical.as_deref().is_some_and(|c| same_url(url, c))
}

impl Check for HreflangNoReturn {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for a in site.pages() {
            if !a.status.is_some_and(|s| (200..300).contains(&s)) || a.dom_failed {
                continue;
            }
            for (lang, href) in &a.hreflang {
                if names(a, href) {
                    continue;
                }
                let Some(b) = site
                    .pages()
                    .iter()
                    .find(|p| same_url(href, &p.url) || same_url(href, &p.final_url))
                else {
                    continue;
                };
                // A page whose DOM was not read lists no alternates, which says nothing.
                if !b.status.is_some_and(|s| (200..300).contains(&s)) || b.dom_failed || names(b, &a.final_url) {
                    continue;
                }
                if !b.hreflang.iter().any(|(_, back)| names(a, back)) {
                    out.report(evidence! {
                        "url" => a.final_url,
                        "resource" => href,
                        "value" => lang,
                        "expected" => format!("{} lists {} as an hreflang alternate", b.final_url, a.final_url),
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::site_findings;
    use crate::model::{PageDigest, SiteSnapshot};

    fn page(url: &str, alternates: &[(&str, &str)]) -> PageDigest {
        PageDigest {
            url: url.into(),
            final_url: url.into(),
            status: Some(200),
            hreflang: alternates
                .iter()
                .map(|(l, h)| (l.to_string(), h.to_string()))
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn fires_on_a_one_way_alternate() {
        let site = SiteSnapshot {
            pages: vec![
                page(
                    "https://e.com/en/",
                    &[("en", "https://e.com/en/"), ("de", "https://e.com/de/")],
                ),
                page("https://e.com/de/", &[("de", "https://e.com/de/")]),
            ],
            ..Default::default()
        };
        let f = site_findings(&site, "i18n.hreflang-no-return");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["url"], "https://e.com/en/");
        assert_eq!(f[0].evidence["resource"], "https://e.com/de/");

        // The same pair where the German page's DOM was not read: its alternates are unknown.
        let mut unread = site.clone();
        unread.pages[1].dom_failed = true;
        unread.pages[1].hreflang.clear();
        assert!(site_findings(&unread, "i18n.hreflang-no-return").is_empty());
    }

    #[test]
    fn quiet_for_confirmed_pairs_uncrawled_targets_and_redirected_urls() {
        let mut en = page(
            "https://e.com/en",
            &[
                ("en", "https://e.com/en/"),
                ("de", "https://e.com/de/"),
                ("fr", "https://e.com/fr/"),
            ],
        );
        en.final_url = "https://e.com/en/".into();
        let site = SiteSnapshot {
            pages: vec![
                en,
                page(
                    "https://e.com/de/",
                    &[("en", "https://E.com/en/"), ("de", "https://e.com/de/")],
                ),
            ],
            ..Default::default()
        };
        assert!(site_findings(&site, "i18n.hreflang-no-return").is_empty());
    }
}
