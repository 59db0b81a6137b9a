use super::super::page_view::PageView;
use super::super::check::{CheckMeta, Thresholds};
use super::metric::Metric;
use crate::model::Severity;
use crate::declare_check;

declare_check! {
    /// Server responds slowly (TTFB).
    ///
    /// The page's `metrics.ttfb_ms`, else the main document request's `ttfb_ms`.
    pub struct Ttfb {
        id: "performance.ttfb",
        severity: Medium,
        title: "Server responds slowly (TTFB)",
        fires_when: "Time To First Byte of the page is over 1.8 s (medium) or over 0.8 s (low) (thresholds ttfb_medium_ms, ttfb_low_ms)",
        description: "Nothing can render before the first byte of HTML arrives, so a slow server response delays every other metric; it usually points at slow back-end work, missing caching, or redirects before the page.",
        remediation: "Cache rendered pages (or their expensive parts) on the server or a CDN, speed up slow database queries and back-end calls, avoid redirect hops before the page, and serve from a region close to the visitors.",
        cwe: None,
        evidence: ["url", "value", "limit", "unit"],
        help_url: Some("https://web.dev/articles/ttfb"),
        requires: [Metrics, Network],
    }
}

impl Metric for Ttfb {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn value(&self, page: &PageView<'_>) -> Option<f64> {
        page.metrics().ttfb_ms.or_else(|| page.requests().iter().find(|r| r.is_navigation).and_then(|r| r.ttfb_ms))
    }

    fn limits(&self, t: &Thresholds) -> (f64, Severity, f64, Severity) {
        (t.ttfb_low_ms, Severity::Low, t.ttfb_medium_ms, Severity::Medium)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{page, response, run};
    use super::*;
    use crate::model::PageMetrics;

    #[test]
    fn two_levels_from_metrics_or_the_document_request() {
        let f = run(&Ttfb, &page(PageMetrics { ttfb_ms: Some(2100.0), ..Default::default() }, vec![]));
        assert_eq!((f[0].severity, f[0].evidence["limit"].as_f64()), (Severity::Medium, Some(1800.0)));
        let mut doc = response(super::super::test_support::URL, "document", "text/html", 5000, &[]);
        doc.is_navigation = true;
        doc.ttfb_ms = Some(950.0);
        let f = run(&Ttfb, &page(PageMetrics::default(), vec![doc]));
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].severity, f[0].evidence["value"].as_f64()), (Severity::Low, Some(950.0)));
    }

    #[test]
    fn quiet_for_a_fast_server() {
        assert!(run(&Ttfb, &page(PageMetrics { ttfb_ms: Some(120.0), ..Default::default() }, vec![])).is_empty());
        assert!(run(&Ttfb, &page(PageMetrics::default(), vec![])).is_empty());
    }
}
