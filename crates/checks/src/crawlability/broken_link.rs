use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use crate::{declare_check, evidence};

declare_check! {
    /// An internal link leads to an error.
    pub struct BrokenLink {
        id: "crawlability.broken-link",
        severity: High,
        title: "Broken internal link",
        fires_when: "an internal link (a[href]) of a crawled page points to a URL that answers 4xx/5xx or fails with a network error. One finding per link element",
        description: "Broken links strand visitors on error pages, waste crawl budget, and stop search engines from reaching (and passing ranking signals to) the pages behind them.",
        remediation: "Update the link to the page's current URL, or remove it; when a page moved, also answer its old URL with a 301 redirect to the new one.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "resource", "status", "value"],
        help_url: Some("https://developers.google.com/search/docs/crawling-indexing/links-crawlable"),
        site_requires: [Statuses, Pages],
    }
}

impl Check for BrokenLink {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for page in site.pages() {
            for link in &page.internal_links {
                let (status, error) = match site.status_of(&link.href) {
                    Some(s) => (s.status, s.error.clone()),
                    None => match site.page(&link.href) {
                        Some(target) => (target.status, None),
                        None => continue,
                    },
                };
                let broken = match status {
                    Some(code) => code >= 400,
                    None => error.is_some(),
                };
                if broken {
                    out.report(evidence! {
                        "url" => page.final_url,
                        "selector" => link.selector,
                        "snippet" => link.snippet,
                        "resource" => link.href,
                        "status" => status,
                        "value" => error,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{digest, site_findings};
    use crate::model::{LinkRef, SiteSnapshot, UrlStatus};

    fn link(href: &str) -> LinkRef {
        LinkRef {
            href: href.into(),
            selector: format!("a[href=\"{href}\"]"),
            snippet: format!("<a href=\"{href}\">x</a>"),
        }
    }

    fn status(url: &str, code: Option<u16>, error: Option<&str>) -> UrlStatus {
        UrlStatus {
            url: url.into(),
            status: code,
            error: error.map(str::to_string),
            ..Default::default()
        }
    }

    #[test]
    fn fires_per_broken_link_element() {
        let mut home = digest("https://e.com/");
        home.internal_links = vec![
            link("https://e.com/gone"),
            link("https://e.com/down"),
            link("https://e.com/ok"),
        ];
        let site = SiteSnapshot {
            pages: vec![home],
            link_statuses: vec![
                status("https://e.com/gone", Some(404), None),
                status("https://e.com/down", None, Some("connection reset")),
                status("https://e.com/ok", Some(200), None),
            ],
            ..Default::default()
        };
        let f = site_findings(&site, "crawlability.broken-link");
        assert_eq!(f.len(), 2);
        assert!(f.iter().any(|x| x.evidence["status"] == 404
            && x.evidence["selector"] == "a[href=\"https://e.com/gone\"]"));
    }

    #[test]
    fn quiet_for_redirects_and_unchecked_links() {
        let mut home = digest("https://e.com/");
        home.internal_links = vec![link("https://e.com/moved"), link("https://e.com/unknown")];
        let site = SiteSnapshot {
            pages: vec![home],
            link_statuses: vec![status("https://e.com/moved", Some(301), None)],
            ..Default::default()
        };
        assert!(site_findings(&site, "crawlability.broken-link").is_empty());
    }
}
