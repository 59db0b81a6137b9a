use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use crate::{declare_check, evidence};

declare_check! {
    /// An internal link points to a URL that robots.txt disallows.
    pub struct BlockedByRobots {
        id: "crawlability.blocked-by-robots",
        severity: Low,
        title: "Internal link to a URL blocked by robots.txt",
        fires_when: "an internal link of a crawled page points to a URL that robots.txt disallows for the scanner's user agent (one finding per link and page)",
        description: "Crawlers will not fetch a disallowed URL, so whatever it links to is not discovered through it, and the URL can still be indexed without content (\"No information is available for this page\") when others link to it. Often a Disallow rule is broader than intended.",
        remediation: "If the target should be found in search, narrow the Disallow rule that matches it; if it should not, consider nofollow-free alternatives: keep the link for users but make sure the page itself carries noindex rather than relying on robots.txt.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "resource"],
        help_url: Some("https://developers.google.com/search/docs/crawling-indexing/robots/intro"),
        site_requires: [Robots, Pages],
    }
}

impl Check for BlockedByRobots {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        let mut seen: Vec<(&str, &str)> = Vec::new();
        for (link, found_on) in site.robots_blocked_links() {
            if seen.contains(&(link.as_str(), found_on.as_str())) {
                continue;
            }
            seen.push((link, found_on));
            let element = site
                .page(found_on)
                .and_then(|p| p.internal_links.iter().find(|l| l.href == *link));
            out.report(evidence! {
                "url" => site.page(found_on).map_or(found_on.clone(), |p| p.final_url.clone()),
                "selector" => element.map(|l| l.selector.clone()),
                "snippet" => element.map(|l| l.snippet.clone()),
                "resource" => link,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{digest, site_findings};
    use crate::model::{LinkRef, SiteSnapshot};

    #[test]
    fn fires_per_blocked_link_with_its_element() {
        let mut home = digest("https://e.com/");
        home.internal_links.push(LinkRef {
            href: "https://e.com/private/x".into(),
            selector: "footer a".into(),
            snippet: "<a>x</a>".into(),
        });
        let pair = (
            "https://e.com/private/x".to_string(),
            "https://e.com/".to_string(),
        );
        let site = SiteSnapshot {
            pages: vec![home],
            robots_blocked_links: vec![pair.clone(), pair],
            ..Default::default()
        };
        let f = site_findings(&site, "crawlability.blocked-by-robots");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["selector"], "footer a");
    }

    #[test]
    fn quiet_when_nothing_is_blocked() {
        let site = SiteSnapshot {
            pages: vec![digest("https://e.com/")],
            ..Default::default()
        };
        assert!(site_findings(&site, "crawlability.blocked-by-robots").is_empty());
    }
}
