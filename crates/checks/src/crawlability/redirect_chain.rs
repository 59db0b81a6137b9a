use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::link_referrers::first_referrer;
use super::redirect_path::{chain, loops};
use crate::{declare_check, evidence};

declare_check! {
    /// A URL needs more than one redirect hop.
    pub struct RedirectChain {
        id: "crawlability.redirect-chain",
        severity: Medium,
        title: "Redirect chain",
        fires_when: "reaching a crawled page, or following an internal link, takes more than one redirect hop (loops are crawlability.redirect-loop's)",
        description: "Every hop costs a round trip (often hundreds of milliseconds on mobile), and search engines follow only a few hops per crawl and may not pass all signals along long chains.",
        remediation: "Redirect each old URL straight to its final destination in one 301/308 hop (e.g. http://example.com/a -> https://www.example.com/a/ in one step), and update internal links to point to the final URL.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "resource", "value", "limit", "chain"],
        help_url: Some("https://developers.google.com/search/docs/crawling-indexing/301-redirects"),
        site_requires: [Statuses, Pages],
    }
}

impl Check for RedirectChain {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, thresholds: &Thresholds, out: &mut Findings<'_>) {
        if page.redirects.len() > 1
            && !loops(page.redirects, thresholds.redirect_max_hops)
            && page.error.is_none()
        {
            out.report(evidence! {
                "url" => page.final_url,
                "resource" => page.requested_url,
                "value" => page.redirects.len(),
                "limit" => 1,
                "chain" => chain(page.redirects, Some(page.final_url)),
            });
        }
    }

    fn site(&self, site: &SiteView<'_>, thresholds: &Thresholds, out: &mut Findings<'_>) {
        for status in site.link_statuses() {
            // Rendered pages were judged by `page` above.
            if site.pages().iter().any(|p| p.url == status.url) {
                continue;
            }
            if status.redirects.len() <= 1 || loops(&status.redirects, thresholds.redirect_max_hops)
            {
                continue;
            }
            let referrer = first_referrer(site, &status.url);
            out.report(evidence! {
                "url" => referrer.map_or(status.url.clone(), |(p, _)| p.final_url.clone()),
                "selector" => referrer.map(|(_, l)| l.selector.clone()),
                "snippet" => referrer.map(|(_, l)| l.snippet.clone()),
                "resource" => status.url,
                "value" => status.redirects.len(),
                "limit" => 1,
                "chain" => chain(&status.redirects, status.final_url.as_deref()),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{digest, findings, page_at, site_findings};
    use crate::model::{DomFacts, LinkRef, RedirectHop, SiteSnapshot, UrlStatus};

    fn hop(url: &str) -> RedirectHop {
        RedirectHop {
            url: url.into(),
            status: 301,
            location: None,
        }
    }

    #[test]
    fn fires_on_a_two_hop_page() {
        let mut p = page_at("https://www.e.com/a/", DomFacts::default());
        p.requested_url = "http://e.com/a".into();
        p.redirects = vec![hop("http://e.com/a"), hop("https://e.com/a")];
        let f = findings(&p, "crawlability.redirect-chain");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["value"], 2);
        assert_eq!(
            f[0].evidence["chain"],
            serde_json::json!(["http://e.com/a", "https://e.com/a", "https://www.e.com/a/"])
        );
    }

    #[test]
    fn fires_on_a_linked_url_with_its_link() {
        let mut home = digest("https://e.com/");
        home.internal_links.push(LinkRef {
            href: "https://e.com/old".into(),
            selector: "nav a".into(),
            snippet: "<a>".into(),
        });
        let site = SiteSnapshot {
            pages: vec![home],
            link_statuses: vec![UrlStatus {
                url: "https://e.com/old".into(),
                status: Some(200),
                final_url: Some("https://e.com/new/".into()),
                redirects: vec![hop("https://e.com/old"), hop("https://e.com/new")],
                ..Default::default()
            }],
            ..Default::default()
        };
        let f = site_findings(&site, "crawlability.redirect-chain");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["selector"], "nav a");
        assert_eq!(f[0].evidence["url"], "https://e.com/");
    }

    #[test]
    fn quiet_for_a_single_hop_and_for_loops() {
        let mut p = page_at("https://e.com/", DomFacts::default());
        p.redirects = vec![hop("http://e.com/")];
        assert!(findings(&p, "crawlability.redirect-chain").is_empty());
        p.redirects = vec![
            hop("https://e.com/a"),
            hop("https://e.com/b"),
            hop("https://e.com/a"),
        ];
        assert!(findings(&p, "crawlability.redirect-chain").is_empty());
    }
}
