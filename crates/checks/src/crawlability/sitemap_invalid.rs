use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use crate::{declare_check, evidence};

/// The sitemaps protocol's limits: 50,000 URLs and 50 MiB (uncompressed) per file.
pub const MAX_SITEMAP_URLS: usize = 50_000;
pub const MAX_SITEMAP_BYTES: u64 = 50 * 1024 * 1024;

declare_check! {
    /// A sitemap is malformed, of the wrong kind, or too big.
    pub struct SitemapInvalid {
        id: "crawlability.sitemap-invalid",
        severity: Medium,
        title: "Sitemap is invalid",
        fires_when: "a fetched sitemap is not well-formed XML, its root is not <urlset> or <sitemapindex>, it lists more than 50,000 URLs or exceeds 50 MB, it exceeds one of sitescan's parsing budgets (depth, element count, bytes; the evidence says which), or a sitemap named in robots.txt or a sitemap index answers non-2xx or fails. One finding per sitemap",
        description: "Search engines reject a sitemap they cannot parse or that breaks the protocol's limits, so none of its URLs are submitted; a sitemap announced in robots.txt that does not load is an error in Search Console.",
        remediation: "Serve the sitemap as well-formed UTF-8 XML in the sitemaps.org schema (<urlset> of <url><loc>, or a <sitemapindex>), split it into several files under a sitemap index above 50,000 URLs or 50 MB, and make every announced sitemap URL answer 200.",
        cwe: None,
        evidence: ["url", "value", "status", "limit"],
        help_url: Some("https://www.sitemaps.org/protocol.html"),
        site_requires: [Sitemaps],
    }
}

impl Check for SitemapInvalid {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for sitemap in site.sitemaps() {
            let ok = sitemap.status.is_some_and(|s| (200..300).contains(&s));
            let (reason, limit): (String, Option<u64>) = if let Some(budget) = &sitemap.limit {
                (format!("exceeds one of sitescan's budgets: {budget}"), None)
            } else if !ok {
                // An absent /sitemap.xml is sitemap-missing's business; an announced one must load.
                if sitemap.source == "default" {
                    continue;
                }
                match (&sitemap.error, sitemap.status) {
                    (Some(e), _) => (format!("announced sitemap fails to load: {e}"), None),
                    (None, Some(s)) => (format!("announced sitemap answers {s}"), None),
                    (None, None) => ("announced sitemap did not answer".to_string(), None),
                }
            } else if let Some(error) = &sitemap.parse_error {
                (format!("not well-formed XML: {error}"), None)
            } else if let Some(root) = sitemap
                .root
                .as_deref()
                .filter(|r| *r != "urlset" && *r != "sitemapindex")
            {
                (
                    format!("root element is <{root}>, not <urlset> or <sitemapindex>"),
                    None,
                )
            } else if sitemap.url_count > MAX_SITEMAP_URLS {
                (
                    format!("{} URLs", sitemap.url_count),
                    Some(MAX_SITEMAP_URLS as u64),
                )
            } else if sitemap.bytes > MAX_SITEMAP_BYTES {
                (format!("{} bytes", sitemap.bytes), Some(MAX_SITEMAP_BYTES))
            } else {
                continue;
            };
            out.report(evidence! {
                "url" => sitemap.url,
                "value" => reason,
                "status" => sitemap.status,
                "limit" => limit,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::site_findings;
    use crate::model::{SiteSnapshot, Sitemap};

    fn sitemap(source: &str, status: u16) -> Sitemap {
        Sitemap {
            url: format!("https://e.com/{source}.xml"),
            source: source.into(),
            status: Some(status),
            root: Some("urlset".into()),
            url_count: 10,
            bytes: 1000,
            ..Default::default()
        }
    }

    #[test]
    fn fires_on_bad_xml_wrong_root_oversize_and_broken_announced_sitemaps() {
        let mut bad_xml = sitemap("a", 200);
        bad_xml.parse_error = Some("unexpected end of file".into());
        let mut html = sitemap("b", 200);
        html.root = Some("html".into());
        let mut huge = sitemap("c", 200);
        huge.url_count = 50_001;
        let site = SiteSnapshot {
            sitemaps: vec![bad_xml, html, huge, sitemap("robots.txt", 404)],
            ..Default::default()
        };
        let f = site_findings(&site, "crawlability.sitemap-invalid");
        assert_eq!(f.len(), 4);
        assert!(f.iter().any(|x| x.evidence["limit"] == 50_000));
        assert!(
            f.iter()
                .any(|x| x.evidence["value"] == "announced sitemap answers 404")
        );
    }

    #[test]
    fn a_sitemap_over_a_budget_is_one_finding_naming_the_budget() {
        let mut deep = sitemap("robots.txt", 200);
        deep.limit = Some("elements nest deeper than sitescan's limit of 16".into());
        deep.parse_error = Some("unexpected end of document".into());
        let mut unread = sitemap("robots.txt", 200);
        unread.url = "https://e.com/late.xml".into();
        unread.status = None;
        unread.limit = Some("not read: the scan's sitemaps already reached sitescan's limit".into());
        let site = SiteSnapshot { sitemaps: vec![deep, unread], ..Default::default() };
        let f = site_findings(&site, "crawlability.sitemap-invalid");
        assert_eq!(f.len(), 2, "{f:?}");
        let says = |needle: &str| f.iter().any(|x| x.evidence["value"].as_str().is_some_and(|v| v.contains(needle)));
        assert!(says("nest deeper than sitescan's limit of 16"), "{f:?}");
        assert!(says("not read"), "{f:?}");
    }

    #[test]
    fn quiet_for_valid_indexes_and_an_absent_default() {
        let mut index = sitemap("robots.txt", 200);
        index.root = Some("sitemapindex".into());
        index.url_count = 50_000;
        let site = SiteSnapshot {
            sitemaps: vec![index, sitemap("default", 404)],
            ..Default::default()
        };
        assert!(site_findings(&site, "crawlability.sitemap-invalid").is_empty());
    }
}
