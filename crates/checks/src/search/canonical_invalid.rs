use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::super::semantics::html_document::is_html_document;
use super::canonical_links::canonicals;
use super::url_identity::{is_absolute_http, normalized, same_url};
use crate::{declare_check, evidence};

declare_check! {
    /// The canonical declaration is ambiguous, malformed or points to a URL that does not work.
    ///
    /// Only canonicals in `<head>` and `Link` headers are read: search engines ignore one in
    /// `<body>`, so it can neither conflict nor be malformed (Lighthouse agrees).
    pub struct CanonicalInvalid {
        id: "search.canonical-invalid",
        severity: Medium,
        title: "Canonical URL is invalid",
        fires_when: "a page declares canonicals that disagree (several <link rel=canonical> or Link headers with different targets), a relative, protocol-relative, empty or malformed canonical, or a canonical whose target answers non-2xx (a redirect included) or fails",
        description: "Search engines ignore a canonical that is ambiguous, outside <head> or unusable, and one that points to a broken or redirecting URL sends them to the wrong page: the preferred URL you meant to consolidate on is not the one that gets indexed.",
        remediation: "Declare exactly one canonical per page, in <head>, as an absolute https:// URL of a page that answers 200 directly (no redirect), e.g. `<link rel=\"canonical\" href=\"https://example.com/shoes/\">`.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "value", "resource", "status"],
        help_url: Some("https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls#rel-canonical-link-method"),
        requires: [Dom],
        site_requires: [Statuses, Pages],
    }
}

impl Check for CanonicalInvalid {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        let declared = canonicals(page);
        let mut report = |c: &super::canonical_links::Canonical, reason: &str| {
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => c.selector.clone().unwrap_or_else(|| "Link header".to_string()),
                "snippet" => c.raw.clone().unwrap_or_default(),
                "value" => reason,
                "resource" => c.href,
            });
        };
        let mut targets: Vec<String> = Vec::new();
        for c in &declared {
            let raw = c.raw.as_deref().unwrap_or("").trim();
            let has_scheme = raw.split_once(':').is_some_and(|(scheme, _)| {
                !scheme.is_empty()
                    && scheme
                        .chars()
                        .all(|ch| ch.is_ascii_alphanumeric() || "+-.".contains(ch))
            });
            if raw.is_empty() {
                report(c, "empty href");
            } else if !has_scheme {
                report(c, "relative URL (use an absolute https:// URL)");
            } else if !is_absolute_http(raw) || c.href.as_deref().and_then(normalized).is_none() {
                report(c, "malformed URL");
            }
            if let Some(n) = c.href.as_deref().and_then(normalized)
                && !targets.contains(&n)
            {
                targets.push(n);
            }
        }
        if targets.len() > 1
            && let Some(second) = declared.get(1)
        {
            report(
                second,
                &format!(
                    "{} canonicals with different targets: {}",
                    declared.len(),
                    targets.join(", ")
                ),
            );
        }
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for page in site.pages() {
            let Some(canonical) = page.canonical.as_deref() else {
                continue;
            };
            if !page.status.is_some_and(|s| (200..300).contains(&s))
                || same_url(canonical, &page.final_url)
            {
                continue; // a self-canonical answers what the page answered
            }
            let status = site
                .status_of(canonical)
                .map(|s| (s.status, s.error.clone(), !s.redirects.is_empty()))
                .or_else(|| {
                    site.page(canonical)
                        .map(|p| (p.status, None, p.final_url != p.url))
                });
            let Some((code, error, redirected)) = status else {
                continue;
            };
            let reason = match (code, error) {
                (Some(c), _) if (300..400).contains(&c) => format!("target redirects ({c})"),
                (Some(c), _) if !(200..300).contains(&c) => format!("target answers {c}"),
                (Some(_), _) if redirected => "target redirects".to_string(),
                (None, Some(e)) => format!("target fails: {e}"),
                _ => continue,
            };
            out.report(evidence! {
                "url" => page.final_url,
                "value" => reason,
                "resource" => canonical,
                "status" => code,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{digest, findings, page, site_findings};
    use crate::model::{DomFacts, LinkTag, PageDigest, RedirectHop, SiteSnapshot, UrlStatus};

    fn canonical(raw: &str, href: Option<&str>, in_head: bool) -> LinkTag {
        LinkTag {
            rel: "canonical".into(),
            href_raw: Some(raw.into()),
            href: href.map(str::to_string),
            in_head,
            selector: format!("link[href=\"{raw}\"]"),
            ..Default::default()
        }
    }

    #[test]
    fn fires_on_relative_and_conflicting_canonicals() {
        let p = page(DomFacts {
            links: vec![canonical("/page", Some("https://example.com/page"), true)],
            ..Default::default()
        });
        let f = findings(&p, "search.canonical-invalid");
        assert_eq!(f.len(), 1);
        assert!(
            f[0].evidence["value"]
                .as_str()
                .unwrap()
                .starts_with("relative")
        );

        let p = page(DomFacts {
            links: vec![
                canonical("https://example.com/a", Some("https://example.com/a"), true),
                canonical("https://example.com/b", Some("https://example.com/b"), true),
            ],
            ..Default::default()
        });
        let f = findings(&p, "search.canonical-invalid");
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].evidence["selector"],
            "link[href=\"https://example.com/b\"]"
        );

    }

    #[test]
    fn quiet_on_canonicals_in_the_body_which_search_engines_ignore() {
        // Lighthouse's seo fixture: a conflicting canonical in <body> does not count.
        let p = page(DomFacts {
            links: vec![
                canonical("https://example.com/a", Some("https://example.com/a"), true),
                canonical("https://example.com/b", Some("https://example.com/b"), false),
                canonical("/relative", Some("https://example.com/relative"), false),
            ],
            ..Default::default()
        });
        assert!(findings(&p, "search.canonical-invalid").is_empty());
    }

    #[test]
    fn quiet_on_one_absolute_canonical_repeated_identically() {
        let c = canonical(
            "https://example.com/page",
            Some("https://example.com/page"),
            true,
        );
        let p = page(DomFacts {
            links: vec![c.clone(), c],
            ..Default::default()
        });
        assert!(findings(&p, "search.canonical-invalid").is_empty());
    }

    #[test]
    fn fires_when_the_target_redirects_or_is_gone() {
        let mut a = digest("https://e.com/a");
        a.canonical = Some("https://e.com/gone".into());
        let mut b = digest("https://e.com/b");
        b.canonical = Some("https://e.com/moved".into());
        let site = SiteSnapshot {
            pages: vec![a, b],
            resource_statuses: vec![
                UrlStatus {
                    url: "https://e.com/gone".into(),
                    status: Some(404),
                    ..Default::default()
                },
                UrlStatus {
                    url: "https://e.com/moved".into(),
                    status: Some(200),
                    redirects: vec![RedirectHop {
                        url: "https://e.com/moved".into(),
                        status: 301,
                        location: Some("/new".into()),
                    }],
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let f = site_findings(&site, "search.canonical-invalid");
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].evidence["status"], 404);
        assert_eq!(f[1].evidence["value"], "target redirects");
    }

    #[test]
    fn quiet_for_self_canonicals_and_working_targets() {
        let mut a = digest("https://e.com/a?ref=x");
        a.canonical = Some("https://e.com/a".into());
        let mut b = digest("https://e.com/b");
        b.canonical = Some("https://e.com/b#top".into());
        let site = SiteSnapshot {
            pages: vec![
                a,
                b,
                PageDigest {
                    canonical: Some("https://e.com/a".into()),
                    ..digest("https://e.com/a")
                },
            ],
            ..Default::default()
        };
        assert!(site_findings(&site, "search.canonical-invalid").is_empty());
    }
}
