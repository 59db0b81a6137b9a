use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use crate::{declare_check, evidence};

declare_check! {
    /// A line of robots.txt cannot be parsed.
    pub struct RobotsTxtInvalid {
        id: "crawlability.robots-txt-invalid",
        severity: Low,
        title: "robots.txt line cannot be parsed",
        fires_when: "a line of a 2xx robots.txt has an unknown or misspelled directive, no ':' separator, a rule before any User-agent line, a path not starting with '/' or '*', a relative Sitemap URL, a non-numeric Crawl-delay, or the file is an HTML page. One finding per line",
        description: "Crawlers skip lines they cannot parse, so the rule you meant (often a Disallow for private areas, or a Sitemap) silently does not apply; a misspelling that Google forgives may still be ignored by other search engines.",
        remediation: "Fix the reported line: use only User-agent, Allow, Disallow and Sitemap (plus Crawl-delay where you need it), start every group with a User-agent line, write paths from the root (`Disallow: /admin/`), and give Sitemap an absolute URL.",
        cwe: None,
        evidence: ["url", "line", "snippet", "value"],
        help_url: Some("https://www.rfc-editor.org/rfc/rfc9309.html#name-formal-syntax"),
        site_requires: [Robots],
    }
}

impl Check for RobotsTxtInvalid {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        let Some(robots) = &site.robots() else { return };
        let Some(parsed) = robots.rules() else { return };
        for problem in &parsed.problems {
            out.report(evidence! {
                "url" => robots.url,
                "line" => problem.line,
                "snippet" => problem.text,
                "value" => problem.reason,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{site_findings, site_with_robots};

    #[test]
    fn fires_per_bad_line() {
        let site = site_with_robots("User-agent: *\nDisalow: /private\nDisallow /tmp\n");
        let f = site_findings(&site, "crawlability.robots-txt-invalid");
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].evidence["line"], 2);
        assert_eq!(f[0].evidence["snippet"], "Disalow: /private");
    }

    #[test]
    fn quiet_on_a_valid_file_with_comments_wildcards_and_extensions() {
        let site = site_with_robots(
            "\u{feff}# robots\nUser-agent: *\nDisallow: /search?*q=\nAllow: /*.css$\nCrawl-delay: 2.5\n\nuser-AGENT: Bingbot\ndisallow:\n\nSitemap: https://e.com/sitemap.xml\nHost: e.com\n",
        );
        assert!(site_findings(&site, "crawlability.robots-txt-invalid").is_empty());
    }
}
