use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::link_referrers::first_referrer;
use super::redirect_path::{chain, loops};
use crate::{declare_check, evidence};

declare_check! {
    /// Redirects never settle.
    pub struct RedirectLoop {
        id: "crawlability.redirect-loop",
        severity: High,
        title: "Redirect loop",
        fires_when: "a URL's redirects revisit a URL, exceed 10 hops (threshold redirect_max_hops), or the browser gave up with a redirect-loop error",
        description: "A redirect loop makes the page unreachable: browsers show ERR_TOO_MANY_REDIRECTS and crawlers give up, so the URL drops out of search.",
        remediation: "Follow the chain in the evidence and fix the rule that sends a URL back to an earlier one (typical causes: http/https or www/non-www rules fighting, a trailing-slash rule against the CMS's own, or a login redirect to itself). Each URL should reach a 200 page in at most one hop.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "resource", "value", "limit", "chain"],
        help_url: Some("https://developers.google.com/search/docs/crawling-indexing/301-redirects"),
        site_requires: [Statuses, Pages],
    }
}

/// True when a fetch error text names a redirect loop.
fn is_loop_error(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    t.contains("too_many_redirects")
        || t.contains("too many redirects")
        || t.contains("redirect loop")
        || t.contains("redirect_loop")
}

/// The chain up to the first URL it revisits (the loop once, not the browser's 20 hops).
fn first_cycle(mut urls: Vec<String>) -> Vec<String> {
    if let Some(end) = (0..urls.len()).find(|&i| urls[..i].contains(&urls[i])) {
        urls.truncate(end + 1);
    }
    urls
}

impl Check for RedirectLoop {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, thresholds: &Thresholds, out: &mut Findings<'_>) {
        let errored = page
            .error
            .as_ref()
            .is_some_and(|e| e.kind == "redirect_loop" || is_loop_error(&e.message));
        if errored || loops(page.redirects, thresholds.redirect_max_hops) {
            // A loop has no final page: the finding belongs to the URL that was asked for (the
            // final URL is wherever the browser happened to give up).
            out.report(evidence! {
                "url" => page.requested_url,
                "resource" => page.requested_url,
                "value" => page.redirects.len(),
                "limit" => thresholds.redirect_max_hops,
                "chain" => first_cycle(chain(page.redirects, None)),
            });
        }
    }

    fn site(&self, site: &SiteView<'_>, thresholds: &Thresholds, out: &mut Findings<'_>) {
        for status in site.link_statuses() {
            // Rendered pages, and the URL a rendered loop ended on, were judged by `page`.
            if site.pages().iter().any(|p| p.url == status.url || p.final_url == status.url) {
                continue;
            }
            let errored = status.error.as_deref().is_some_and(is_loop_error);
            if !errored && !loops(&status.redirects, thresholds.redirect_max_hops) {
                continue;
            }
            let referrer = first_referrer(site, &status.url);
            out.report(evidence! {
                "url" => referrer.map_or(status.url.clone(), |(p, _)| p.final_url.clone()),
                "selector" => referrer.map(|(_, l)| l.selector.clone()),
                "snippet" => referrer.map(|(_, l)| l.snippet.clone()),
                "resource" => status.url,
                "value" => status.redirects.len(),
                "limit" => thresholds.redirect_max_hops,
                "chain" => first_cycle(chain(&status.redirects, None)),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, page_at, site_findings};
    use crate::model::{DomFacts, PageError, RedirectHop, SiteSnapshot, UrlStatus};

    fn hop(url: &str) -> RedirectHop {
        RedirectHop {
            url: url.into(),
            status: 302,
            location: None,
        }
    }

    #[test]
    fn fires_on_revisits_and_browser_errors() {
        let mut p = page_at("https://e.com/a", DomFacts::default());
        p.redirects = vec![
            hop("https://e.com/a"),
            hop("https://e.com/b"),
            hop("https://e.com/a"),
        ];
        assert_eq!(findings(&p, "crawlability.redirect-loop").len(), 1);
        let mut p = page_at("https://e.com/x", DomFacts::default());
        p.status = None;
        p.error = Some(PageError {
            kind: "navigation".into(),
            message: "net::ERR_TOO_MANY_REDIRECTS".into(),
        });
        assert_eq!(findings(&p, "crawlability.redirect-loop").len(), 1);
        let site = SiteSnapshot {
            link_statuses: vec![UrlStatus {
                url: "https://e.com/l".into(),
                redirects: (0..11)
                    .map(|i| hop(&format!("https://e.com/{i}")))
                    .collect(),
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(
            site_findings(&site, "crawlability.redirect-loop")[0].evidence["value"],
            11
        );
    }

    #[test]
    fn quiet_for_a_long_but_settling_chain() {
        let mut p = page_at("https://e.com/f", DomFacts::default());
        p.redirects = (0..10)
            .map(|i| hop(&format!("https://e.com/{i}")))
            .collect();
        assert!(findings(&p, "crawlability.redirect-loop").is_empty());
    }

    #[test]
    fn a_rendered_loop_is_one_finding_on_the_requested_url() {
        use crate::{Thresholds, run_page_checks, run_site_checks};
        use crate::model::PageDigest;
        // The browser gave up on /b after bouncing a <-> b; the crawl also recorded /b's status.
        let mut p = page_at("https://e.com/a", DomFacts::default());
        p.final_url = "https://e.com/b".into();
        p.redirects = (0..6).map(|i| hop(if i % 2 == 0 { "https://e.com/a" } else { "https://e.com/b" })).collect();
        p.error = Some(PageError { kind: "redirect_loop".into(), message: "net::ERR_TOO_MANY_REDIRECTS".into() });
        let found: Vec<_> = run_page_checks(&p, &Thresholds::default()).findings
            .into_iter()
            .filter(|f| f.check_id == "crawlability.redirect-loop")
            .collect();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].evidence["url"], "https://e.com/a");
        assert_eq!(found[0].evidence["chain"], serde_json::json!(["https://e.com/a", "https://e.com/b", "https://e.com/a"]));
        let site = SiteSnapshot {
            pages: vec![PageDigest { url: "https://e.com/a".into(), final_url: "https://e.com/b".into(), ..Default::default() }],
            link_statuses: vec![UrlStatus {
                url: "https://e.com/b".into(),
                error: Some("redirect_loop: net::ERR_TOO_MANY_REDIRECTS".into()),
                ..Default::default()
            }],
            ..Default::default()
        };
        assert!(run_site_checks(&site, &Thresholds::default()).findings.iter().all(|f| f.check_id != "crawlability.redirect-loop"));
    }
}
