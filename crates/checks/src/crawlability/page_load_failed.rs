use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

declare_check! {
    /// A crawled page could not be loaded at all: no response, a timeout, a crash, or the egress
    /// guard refused where it leads. (Beyond CHECKS.md: without it, such a page would vanish from
    /// the report silently.)
    pub struct PageLoadFailed {
        id: "crawlability.page-load-failed",
        severity: High,
        title: "Page could not be loaded",
        fires_when: "rendering a crawled page ends without a usable response: a network error (DNS, connection refused or reset, TLS), no answer within the navigation or page time budget, the browser tab crashing, a redirect loop, or the egress guard refusing the address it leads to",
        description: "Visitors and crawlers following a link to this URL get nothing: search engines treat repeated failures as a dead page, and users see a browser error. A page that hangs or crashes the tab (runaway scripts, huge allocations) is also one users abandon.",
        remediation: "Open the URL yourself and read the evidence's `kind` and `message`: fix DNS, TLS or the server for network errors; find what never finishes loading (a hanging request, an endless script) for timeouts; look for runaway memory or loops for crashes; point links at public addresses for guard refusals.",
        cwe: None,
        evidence: ["url", "kind", "message", "status"],
        help_url: Some("https://developers.google.com/search/docs/crawling-indexing/http-network-errors"),
    }
}

impl Check for PageLoadFailed {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        let Some(error) = &page.error else { return };
        // An HTTP error status with a body is crawlability.http-error's, not a load failure.
        if error.kind == "internal" && page.status.is_some() {
            return;
        }
        let url = if page.final_url.is_empty() { &page.requested_url } else { &page.final_url };
        out.report(evidence! {
            "url" => url,
            "kind" => error.kind,
            "message" => error.message,
            "status" => page.status,
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::{Thresholds, run_page_checks};
    use crate::model::{PageError, PageSnapshot};

    fn page(error: Option<(&str, &str)>, status: Option<u16>) -> PageSnapshot {
        PageSnapshot {
            requested_url: "https://e.com/slow".into(),
            final_url: "https://e.com/slow".into(),
            status,
            error: error.map(|(k, m)| PageError { kind: k.into(), message: m.into() }),
            ..Default::default()
        }
    }

    fn ids(p: &PageSnapshot) -> Vec<serde_json::Value> {
        run_page_checks(p, &Thresholds::default()).findings
            .into_iter()
            .filter(|f| f.check_id == "crawlability.page-load-failed")
            .map(|f| serde_json::Value::Object(f.evidence))
            .collect()
    }

    #[test]
    fn fires_on_timeouts_crashes_and_network_errors() {
        for kind in ["timeout", "crashed", "navigation", "blocked", "redirect_loop"] {
            let f = ids(&page(Some((kind, "net::ERR_SOMETHING")), None));
            assert_eq!(f.len(), 1, "{kind}");
            assert_eq!(f[0]["kind"], kind);
            assert_eq!(f[0]["url"], "https://e.com/slow");
        }
    }

    #[test]
    fn quiet_on_pages_that_loaded_even_with_errors_status() {
        assert!(ids(&page(None, Some(200))).is_empty());
        assert!(ids(&page(None, Some(500))).is_empty(), "a 500 is http-error's");
    }
}
