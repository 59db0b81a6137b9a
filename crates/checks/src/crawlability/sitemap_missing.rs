use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use crate::{declare_check, evidence};

declare_check! {
    /// No sitemap listed in robots.txt and none at /sitemap.xml.
    pub struct SitemapMissing {
        id: "crawlability.sitemap-missing",
        severity: Low,
        title: "No XML sitemap found",
        fires_when: "robots.txt lists no Sitemap and /sitemap.xml does not answer 2xx (judged only when robots.txt was fetched, so the site-level gathering ran)",
        description: "A sitemap tells search engines which URLs exist and when they changed. Without one, pages reachable only through search forms, JavaScript or deep pagination may never be discovered, and changes are picked up later.",
        remediation: "Publish an XML sitemap of your canonical, indexable URLs (most CMSs generate one) and announce it in robots.txt with `Sitemap: https://example.com/sitemap.xml`.",
        cwe: None,
        evidence: ["url", "expected"],
        help_url: Some("https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap"),
        site_requires: [Robots, Sitemaps],
    }
}

impl Check for SitemapMissing {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        let Some(robots) = &site.robots() else { return };
        let listed =
            !robots.sitemaps.is_empty() || site.sitemaps().iter().any(|s| s.source == "robots.txt");
        let found = site
            .sitemaps()
            .iter()
            .any(|s| s.status.is_some_and(|c| (200..300).contains(&c)));
        if listed || found {
            return;
        }
        let expected = url::Url::parse(site.start_url)
            .and_then(|u| u.join("/sitemap.xml"))
            .map(|u| u.to_string())
            .unwrap_or_else(|_| "/sitemap.xml".to_string());
        out.report(evidence! { "url" => site.start_url, "expected" => expected });
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{site_findings, site_with_robots};
    use crate::model::Sitemap;

    #[test]
    fn fires_when_neither_listed_nor_at_the_default_path() {
        let mut site = site_with_robots("User-agent: *\nDisallow:\n");
        site.sitemaps.push(Sitemap {
            url: "https://e.com/sitemap.xml".into(),
            source: "default".into(),
            status: Some(404),
            ..Default::default()
        });
        let f = site_findings(&site, "crawlability.sitemap-missing");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["expected"], "https://e.com/sitemap.xml");
    }

    #[test]
    fn quiet_when_listed_or_found_or_robots_not_gathered() {
        let mut site = site_with_robots("Sitemap: https://e.com/s.xml\n");
        site.robots
            .as_mut()
            .unwrap()
            .sitemaps
            .push("https://e.com/s.xml".into());
        assert!(site_findings(&site, "crawlability.sitemap-missing").is_empty());
        let mut site = site_with_robots("");
        site.sitemaps.push(Sitemap {
            url: "https://e.com/sitemap.xml".into(),
            source: "default".into(),
            status: Some(200),
            ..Default::default()
        });
        assert!(site_findings(&site, "crawlability.sitemap-missing").is_empty());
        let mut site = site_with_robots("");
        site.robots = None;
        assert!(site_findings(&site, "crawlability.sitemap-missing").is_empty());
    }
}
