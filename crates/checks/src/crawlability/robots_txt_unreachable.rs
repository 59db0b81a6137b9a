use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use crate::{declare_check, evidence};

declare_check! {
    /// /robots.txt answers 5xx or does not answer.
    pub struct RobotsTxtUnreachable {
        id: "crawlability.robots-txt-unreachable",
        severity: High,
        title: "robots.txt is unreachable",
        fires_when: "/robots.txt answers 5xx (or 429) or the request fails or times out. A 404 is fine: it means no rules. The scan itself goes on as if there were no rules",
        description: "When robots.txt answers with a server error or not at all, Google and other search engines assume the whole site is disallowed and stop crawling it until it recovers (Google falls back to the last cached copy, and after 30 days of errors may treat the site as fully disallowed).",
        remediation: "Make /robots.txt answer 200 with its rules (or 404 if you have none) quickly and reliably, including from CDNs and firewalls that may block crawler user agents.",
        cwe: None,
        evidence: ["url", "status", "value"],
        help_url: Some("https://developers.google.com/search/docs/crawling-indexing/robots/robots_txt#handling-http-result-codes"),
        site_requires: [Robots],
    }
}

impl Check for RobotsTxtUnreachable {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        let Some(robots) = &site.robots() else { return };
        let unreachable = match robots.status {
            Some(status) => status >= 500 || status == 429,
            None => robots.error.is_some(),
        };
        if unreachable {
            out.report(evidence! {
                "url" => robots.url,
                "status" => robots.status,
                "value" => robots.error,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{site_findings, site_with_robots};

    #[test]
    fn fires_on_5xx_and_timeouts() {
        let mut site = site_with_robots("");
        site.robots.as_mut().unwrap().status = Some(503);
        assert_eq!(
            site_findings(&site, "crawlability.robots-txt-unreachable")[0].evidence["status"],
            503
        );
        let robots = site.robots.as_mut().unwrap();
        robots.status = None;
        robots.error = Some("timeout".into());
        assert_eq!(
            site_findings(&site, "crawlability.robots-txt-unreachable").len(),
            1
        );
    }

    #[test]
    fn quiet_on_404_and_200() {
        let mut site = site_with_robots("");
        assert!(site_findings(&site, "crawlability.robots-txt-unreachable").is_empty());
        site.robots.as_mut().unwrap().status = Some(404);
        assert!(site_findings(&site, "crawlability.robots-txt-unreachable").is_empty());
    }
}
