use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use crate::model::robots::blocks_all;
use crate::{declare_check, evidence};

/// The agents whose full block this check reports.
const AGENTS: [&str; 2] = ["*", "googlebot"];

declare_check! {
    /// robots.txt disallows the whole site for every crawler or for Googlebot.
    pub struct RobotsTxtBlocksAll {
        id: "crawlability.robots-txt-blocks-all",
        severity: Critical,
        title: "robots.txt blocks the whole site",
        fires_when: "the rules for User-agent * (or for Googlebot) contain Disallow: / (or /*) and no Allow that opens any path again. One finding per agent",
        description: "A site-wide Disallow stops search engines from crawling any page: the site drops out of search results (at best URLs appear without a description). It is usually a staging robots.txt that went live.",
        remediation: "Remove `Disallow: /` from the `User-agent: *` (and Googlebot) group of the production robots.txt; disallow only the paths that must not be crawled, e.g. `Disallow: /admin/`. Keep staging sites out of search with authentication instead.",
        cwe: None,
        evidence: ["url", "line", "snippet", "value"],
        help_url: Some("https://developers.google.com/search/docs/crawling-indexing/robots/create-robots-txt"),
        site_requires: [Robots],
    }
}

impl Check for RobotsTxtBlocksAll {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        let Some(robots) = &site.robots() else { return };
        let Some(parsed) = robots.rules() else { return };
        for agent in AGENTS {
            let Some(rules) = parsed.rules_for(agent) else {
                continue;
            };
            if let Some(rule) = blocks_all(&rules) {
                out.report(evidence! {
                    "url" => robots.url,
                    "line" => rule.line,
                    "snippet" => rule.text,
                    "value" => format!("User-agent: {agent}"),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{site_findings, site_with_robots};

    #[test]
    fn fires_for_star_and_googlebot() {
        let f = site_findings(
            &site_with_robots("User-agent: *\nDisallow: /\n"),
            "crawlability.robots-txt-blocks-all",
        );
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["value"], "User-agent: *");
        assert_eq!(f[0].evidence["line"], 2);
        let f = site_findings(
            &site_with_robots(
                "User-agent: Googlebot\nDisallow: /*\n\nUser-agent: *\nDisallow: /tmp/\n",
            ),
            "crawlability.robots-txt-blocks-all",
        );
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["value"], "User-agent: googlebot");
    }

    #[test]
    fn quiet_for_partial_blocks_other_bots_and_empty_disallow() {
        let body = "User-agent: BadBot\nDisallow: /\n\nUser-agent: *\nDisallow:\n\nUser-agent: Googlebot\nDisallow: /\nAllow: /public/\n";
        assert!(
            site_findings(
                &site_with_robots(body),
                "crawlability.robots-txt-blocks-all"
            )
            .is_empty()
        );
    }
}
