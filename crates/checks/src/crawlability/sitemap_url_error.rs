use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::super::search::robots_directives::header_says_noindex;
use crate::{declare_check, evidence};

declare_check! {
    /// A URL listed in a sitemap does not answer 2xx directly, or is noindex.
    pub struct SitemapUrlError {
        id: "crawlability.sitemap-url-error",
        severity: Medium,
        title: "Sitemap lists a URL that is broken, redirects or is noindex",
        fires_when: "a URL listed in a sitemap answers non-2xx, fails to load, redirects, or carries noindex (X-Robots-Tag or, for crawled pages, a robots meta tag). One finding per URL",
        description: "A sitemap should list only the canonical, indexable URLs you want in search. Broken, redirecting or noindex entries waste crawl budget, are reported as errors in Search Console and make search engines trust the sitemap less.",
        remediation: "Regenerate the sitemap from the pages that answer 200 and are indexable: drop removed pages, replace redirected URLs with their final target, and leave out noindex pages.",
        cwe: None,
        evidence: ["url", "status", "value", "resource"],
        help_url: Some("https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap#general-guidelines"),
        site_requires: [Statuses, Pages],
    }
}

impl Check for SitemapUrlError {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        let mut seen: Vec<&str> = Vec::new();
        for status in site.sitemap_url_statuses() {
            if seen.contains(&status.url.as_str()) {
                continue;
            }
            seen.push(&status.url);
            let crawled_noindex = site.page(&status.url).is_some_and(|p| p.noindex);
            let reason = if let Some(error) = &status.error {
                format!("fails to load: {error}")
            } else if !status.redirects.is_empty()
                || status.status.is_some_and(|s| (300..400).contains(&s))
            {
                match &status.final_url {
                    Some(to) => format!("redirects to {to}"),
                    None => "redirects".to_string(),
                }
            } else if !status.is_success() {
                match status.status {
                    Some(code) => format!("answers {code}"),
                    None => "no response".to_string(),
                }
            } else if status
                .x_robots_tag
                .as_deref()
                .is_some_and(header_says_noindex)
                || crawled_noindex
            {
                "noindex".to_string()
            } else {
                continue;
            };
            out.report(evidence! {
                "url" => status.url,
                "status" => status.status,
                "value" => reason,
                "resource" => status.final_url,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{digest, site_findings};
    use crate::model::{PageDigest, RedirectHop, SiteSnapshot, UrlStatus};

    fn status(url: &str, code: u16) -> UrlStatus {
        UrlStatus {
            url: url.into(),
            status: Some(code),
            final_url: Some(url.into()),
            ..Default::default()
        }
    }

    #[test]
    fn fires_on_404_redirects_and_noindex() {
        let mut moved = status("https://e.com/old", 200);
        moved.redirects.push(RedirectHop {
            url: "https://e.com/old".into(),
            status: 301,
            location: Some("/new".into()),
        });
        moved.final_url = Some("https://e.com/new".into());
        let mut tagged = status("https://e.com/tagged", 200);
        tagged.x_robots_tag = Some("noindex".into());
        let site = SiteSnapshot {
            sitemap_url_statuses: vec![
                status("https://e.com/gone", 404),
                moved,
                tagged,
                status("https://e.com/meta", 200),
            ],
            pages: vec![PageDigest {
                noindex: true,
                ..digest("https://e.com/meta")
            }],
            ..Default::default()
        };
        let f = site_findings(&site, "crawlability.sitemap-url-error");
        assert_eq!(f.len(), 4);
        assert!(
            f.iter()
                .any(|x| x.evidence["value"] == "redirects to https://e.com/new")
        );
        assert!(
            f.iter()
                .any(|x| x.evidence["url"] == "https://e.com/meta"
                    && x.evidence["value"] == "noindex")
        );
    }

    #[test]
    fn quiet_for_indexable_200s() {
        let mut other_bot = status("https://e.com/b", 200);
        other_bot.x_robots_tag = Some("otherbot: noindex".into());
        let site = SiteSnapshot {
            sitemap_url_statuses: vec![status("https://e.com/a", 200), other_bot],
            ..Default::default()
        };
        assert!(site_findings(&site, "crawlability.sitemap-url-error").is_empty());
    }
}
