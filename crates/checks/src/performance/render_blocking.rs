use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::grade::round_ms;
use crate::model::NetworkRequest;
use crate::{declare_check, evidence};

declare_check! {
    /// A render-blocking script or stylesheet holds back the first paint.
    ///
    /// Which requests block rendering:
    /// - Chromium's own classification when the snapshot has it (`NetworkRequest::render_blocking`,
    ///   from `renderBlockingBehavior`): `Some(true)` blocks, `Some(false)` does not;
    /// - otherwise a stylesheet loaded by a `<link rel=stylesheet>` in `<head>` whose `media` is
    ///   absent, `all` or `screen` (scripts are only judged through Chromium's flag: the snapshot
    ///   does not say whether a head script is `async`, `defer` or a module).
    ///
    /// How much a request delays the first paint: the time from the document's first byte
    /// (`metrics.ttfb_ms`, else the document request's `start_ms + ttfb_ms`) to the end of this
    /// request, i.e. how long the browser had HTML to show but still waited for this resource.
    /// Requests that ended after First Contentful Paint evidently did not hold it back and are
    /// skipped. One finding per request whose delay exceeds `render_blocking_ms` (500 ms).
    pub struct RenderBlocking {
        id: "performance.render-blocking",
        severity: Medium,
        title: "Render-blocking resource delays first paint",
        fires_when: "a synchronous script or stylesheet in the head finishes more than 500 ms after the HTML's first byte and before First Contentful Paint, so the browser had to wait for it to paint (threshold render_blocking_ms)",
        description: "Browsers do not paint anything until every stylesheet and synchronous script in the head has been downloaded and run; a slow one keeps the screen blank for everyone, however fast the HTML arrived.",
        remediation: "Inline the CSS needed for the first screen and load the rest without blocking (`<link rel=\"preload\" as=\"style\" onload=\"this.rel='stylesheet'\">` or media queries), mark head scripts `defer` (or `async` when order does not matter), move third-party scripts out of the head, and serve these files from your own origin with compression and caching.",
        cwe: None,
        evidence: ["url", "resource", "resource_type", "value", "limit", "fcp_ms"],
        help_url: Some("https://developer.chrome.com/docs/lighthouse/performance/render-blocking-resources"),
        requires: [Dom, Metrics, Network],
    }
}

/// Tolerance when comparing a request's end with FCP (timestamps come from different clocks).
const FCP_TOLERANCE_MS: f64 = 50.0;

/// True when the request blocks rendering (see the check's documentation).
fn blocks_rendering(page: &PageView<'_>, request: &NetworkRequest) -> bool {
    if request.is_navigation {
        return false;
    }
    match request.render_blocking {
        Some(flag) => flag,
        None => {
            request.resource_type == "stylesheet"
                && page.dom().links.iter().any(|l| {
                    let rels: Vec<String> = l.rel.split_ascii_whitespace().map(str::to_ascii_lowercase).collect();
                    let media = l.media.as_deref().unwrap_or("").trim().to_ascii_lowercase();
                    l.in_head
                        && rels.iter().any(|r| r == "stylesheet")
                        && !rels.iter().any(|r| r == "alternate")
                        && l.href.as_deref() == Some(request.url.as_str())
                        && matches!(media.as_str(), "" | "all" | "screen")
                })
        }
    }
}

/// When the document's first byte arrived (ms from navigation start).
fn document_first_byte(page: &PageView<'_>) -> Option<f64> {
    page.metrics().ttfb_ms.or_else(|| {
        let doc = page.requests().iter().find(|r| r.is_navigation)?;
        Some(doc.start_ms.unwrap_or(0.0) + doc.ttfb_ms?)
    })
}

impl Check for RenderBlocking {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(first_byte) = document_first_byte(page) else {
            return;
        };
        let fcp = page.metrics().fcp_ms;
        for request in page.requests().iter().filter(|r| blocks_rendering(page, r)) {
            let Some(end) = request.end_ms else { continue };
            if fcp.is_some_and(|fcp| end > fcp + FCP_TOLERANCE_MS) {
                continue;
            }
            let delay = end - first_byte;
            if delay <= thresholds.render_blocking_ms {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "resource" => request.url,
                "resource_type" => request.resource_type,
                "value" => round_ms(delay),
                "limit" => thresholds.render_blocking_ms,
                "fcp_ms" => fcp,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::PageSnapshot;
    use super::super::test_support::{page, response, run};
    use super::*;
    use crate::model::{LinkTag, PageMetrics};

    fn timed(url: &str, kind: &str, end: f64, blocking: Option<bool>) -> NetworkRequest {
        let mime = if kind == "script" { "text/javascript" } else { "text/css" };
        NetworkRequest {
            start_ms: Some(150.0),
            end_ms: Some(end),
            render_blocking: blocking,
            ..response(url, kind, mime, 20_000, &[])
        }
    }

    fn loaded(requests: Vec<NetworkRequest>) -> PageSnapshot {
        page(PageMetrics { ttfb_ms: Some(100.0), fcp_ms: Some(1500.0), ..Default::default() }, requests)
    }

    #[test]
    fn fires_for_slow_blocking_resources_before_fcp() {
        let p = loaded(vec![
            timed("https://cdn.test/framework.js", "script", 1400.0, Some(true)),
            timed("https://example.com/site.css", "stylesheet", 300.0, Some(true)),
        ]);
        let f = run(&RenderBlocking, &p);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["resource"], "https://cdn.test/framework.js");
        assert_eq!(f[0].evidence["value"], 1300.0);
        assert_eq!(f[0].evidence["limit"], 500.0);
    }

    #[test]
    fn head_stylesheet_counts_when_chromium_gave_no_flag() {
        let mut p = loaded(vec![timed("https://example.com/site.css", "stylesheet", 1200.0, None)]);
        p.dom.links.push(LinkTag {
            rel: "stylesheet".into(),
            href: Some("https://example.com/site.css".into()),
            in_head: true,
            selector: "link".into(),
            ..Default::default()
        });
        assert_eq!(run(&RenderBlocking, &p).len(), 1);
        // The same stylesheet for print only does not block rendering.
        p.dom.links[0].media = Some("print".into());
        assert!(run(&RenderBlocking, &p).is_empty());
    }

    #[test]
    fn quiet_for_async_late_or_fast_resources() {
        let p = loaded(vec![
            // Chromium says it does not block (async/defer script).
            timed("https://cdn.test/analytics.js", "script", 1400.0, Some(false)),
            // Ended after FCP: it did not hold the first paint back.
            timed("https://example.com/late.css", "stylesheet", 2500.0, Some(true)),
            // Blocking but fast.
            timed("https://example.com/site.css", "stylesheet", 550.0, Some(true)),
            // No flag and no head <link> for it (a body script).
            timed("https://example.com/widget.js", "script", 1400.0, None),
        ]);
        assert!(run(&RenderBlocking, &p).is_empty());
    }
}
