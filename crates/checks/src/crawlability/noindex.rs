use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::super::search::url_identity::same_url;
use crate::model::{PageDigest, Severity};
use crate::{declare_check, evidence};

declare_check! {
    /// A page carries noindex.
    pub struct Noindex {
        id: "crawlability.noindex",
        severity: Medium,
        title: "Page is excluded from search (noindex)",
        fires_when: "a crawled 2xx page carries noindex (or none) in a robots/googlebot meta tag or an X-Robots-Tag header; high when the page is also listed in a sitemap, which asks search engines to index it",
        description: "noindex removes the page from search results. That is right for thank-you pages or internal search, but a noindex left over from staging or a template silently hides real content; a noindex page in the sitemap sends contradictory signals.",
        remediation: "Remove the noindex (`<meta name=\"robots\" content=\"noindex\">` or the X-Robots-Tag header) from pages that should be found; for pages that should stay out of search, keep noindex and remove them from the sitemap.",
        cwe: None,
        evidence: ["url", "value", "in_sitemap"],
        help_url: Some("https://developers.google.com/search/docs/crawling-indexing/block-indexing"),
        site_requires: [Sitemaps, Statuses, Pages],
    }
}

/// True when a sitemap lists the page (its requested or final URL).
fn in_sitemap(site: &SiteView<'_>, page: &PageDigest) -> bool {
    let names = |u: &str| same_url(u, &page.url) || same_url(u, &page.final_url);
    site.sitemaps()
        .iter()
        .any(|s| s.urls.iter().any(|u| names(u)))
        || site.sitemap_url_statuses().iter().any(|s| names(&s.url))
}

impl Check for Noindex {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for page in site
            .pages()
            .iter()
            .filter(|p| p.noindex && p.status.is_some_and(|s| (200..300).contains(&s)))
        {
            let listed = in_sitemap(site, page);
            let severity = if listed {
                Severity::High
            } else {
                Self::META.severity
            };
            out.report_with(
                severity,
                evidence! {
                    "url" => page.final_url,
                    "value" => "noindex",
                    "in_sitemap" => listed,
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{digest, site_findings};
    use crate::model::{PageDigest, Severity, SiteSnapshot, Sitemap};

    #[test]
    fn fires_medium_and_high_when_in_a_sitemap() {
        let site = SiteSnapshot {
            pages: vec![
                PageDigest {
                    noindex: true,
                    ..digest("https://e.com/thanks")
                },
                PageDigest {
                    noindex: true,
                    ..digest("https://e.com/product")
                },
            ],
            sitemaps: vec![Sitemap {
                urls: vec!["https://e.com/product#x".into()],
                ..Default::default()
            }],
            ..Default::default()
        };
        let f = site_findings(&site, "crawlability.noindex");
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].severity, Severity::High);
        assert_eq!(f[0].evidence["url"], "https://e.com/product");
        assert_eq!(f[1].severity, Severity::Medium);
    }

    #[test]
    fn quiet_for_indexable_pages_and_noindex_error_pages() {
        let site = SiteSnapshot {
            pages: vec![
                digest("https://e.com/"),
                PageDigest {
                    noindex: true,
                    status: Some(404),
                    ..digest("https://e.com/404")
                },
            ],
            ..Default::default()
        };
        assert!(site_findings(&site, "crawlability.noindex").is_empty());
    }
}
