use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::link_referrers::first_referrer;
use crate::model::Severity;
use crate::{declare_check, evidence};

declare_check! {
    /// A crawled page answers 4xx or 5xx.
    pub struct HttpError {
        id: "crawlability.http-error",
        severity: High,
        title: "Page answers with an HTTP error",
        fires_when: "a crawled page's final response is 4xx or 5xx; critical when it is the start page. The evidence names a page linking to it when one is known",
        description: "Visitors and crawlers reaching the URL get an error instead of content: search engines drop 4xx pages from the index and crawl a site that answers 5xx more slowly; a broken start page takes the whole site out.",
        remediation: "Restore the page or its handler; for content that moved, answer 301 to the new URL; for content that is gone on purpose, remove links to it (and keep 404/410). Investigate 5xx in the server logs.",
        cwe: None,
        evidence: ["url", "status", "found_on"],
        help_url: Some("https://developers.google.com/search/docs/crawling-indexing/http-network-errors"),
        site_requires: [Pages],
    }
}

impl Check for HttpError {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for page in site.pages() {
            let Some(status) = page.status.filter(|s| *s >= 400) else {
                continue;
            };
            let is_start =
                page.url == site.start_url || page.final_url == site.start_url || page.depth == 0;
            let severity = if is_start {
                Severity::Critical
            } else {
                Self::META.severity
            };
            let found_on = first_referrer(site, &page.url).map(|(p, _)| p.final_url.clone());
            out.report_with(
                severity,
                evidence! {
                    "url" => page.url,
                    "status" => status,
                    "found_on" => found_on,
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{START, digest, site_findings};
    use crate::model::{LinkRef, PageDigest, Severity, SiteSnapshot};

    #[test]
    fn fires_high_for_pages_and_critical_for_the_start_page() {
        let mut home = digest(START);
        home.status = Some(503);
        let mut home_links = digest("https://e.com/about");
        home_links.depth = 1;
        home_links.internal_links.push(LinkRef {
            href: "https://e.com/gone".into(),
            selector: "a".into(),
            snippet: "<a>".into(),
        });
        let gone = PageDigest {
            status: Some(404),
            depth: 2,
            ..digest("https://e.com/gone")
        };
        let site = SiteSnapshot {
            start_url: START.into(),
            pages: vec![home, home_links, gone],
            ..Default::default()
        };
        let f = site_findings(&site, "crawlability.http-error");
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].severity, Severity::Critical);
        assert_eq!(f[1].severity, Severity::High);
        assert_eq!(f[1].evidence["found_on"], "https://e.com/about");
    }

    #[test]
    fn quiet_for_2xx_and_3xx() {
        let mut moved = digest("https://e.com/old");
        moved.status = Some(301);
        moved.depth = 1;
        let site = SiteSnapshot {
            start_url: START.into(),
            pages: vec![digest(START), moved],
            ..Default::default()
        };
        assert!(site_findings(&site, "crawlability.http-error").is_empty());
    }
}
