use super::super::page_view::PageView;
use super::super::check::{CheckMeta, Thresholds};
use super::metric::Metric;
use crate::model::Severity;
use crate::declare_check;
use serde_json::{Map, Value, json};

declare_check! {
    /// Largest Contentful Paint is slow.
    ///
    /// The evidence names the LCP element (selector, snippet, image URL) when the browser knew it.
    pub struct Lcp {
        id: "performance.lcp",
        severity: High,
        title: "Largest Contentful Paint is slow",
        fires_when: "Largest Contentful Paint is over 4.0 s (high) or over 2.5 s (medium) (thresholds lcp_high_ms, lcp_medium_ms)",
        description: "Largest Contentful Paint is when the main content (the biggest image or text block of the first screen) appears; it is a Core Web Vital that search engines use as a ranking signal. Past 2.5 s visitors perceive the page as slow, past 4 s many leave before it shows.",
        remediation: "Make the LCP element (named in the evidence) arrive sooner: serve the HTML fast (caching, CDN), preload or `fetchpriority=\"high\"` the LCP image and never lazy-load it, compress and resize it, and remove render-blocking CSS and JavaScript ahead of it.",
        cwe: None,
        evidence: ["url", "value", "limit", "unit", "selector", "snippet", "resource"],
        help_url: Some("https://web.dev/articles/lcp"),
        requires: [Metrics],
    }
}

impl Metric for Lcp {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn value(&self, page: &PageView<'_>) -> Option<f64> {
        page.metrics().lcp_ms
    }

    fn limits(&self, t: &Thresholds) -> (f64, Severity, f64, Severity) {
        (t.lcp_medium_ms, Severity::Medium, t.lcp_high_ms, Severity::High)
    }

    fn more_evidence(&self, page: &PageView<'_>, evidence: &mut Map<String, Value>) {
        let element = page.metrics().lcp_element.as_ref();
        evidence.insert("selector".into(), json!(element.and_then(|e| e.selector.as_deref())));
        evidence.insert("snippet".into(), json!(element.and_then(|e| e.snippet.as_deref())));
        evidence.insert("resource".into(), json!(element.and_then(|e| e.url.as_deref())));
    }
}

#[cfg(test)]
mod tests {
    use crate::model::PageSnapshot;
    use super::super::test_support::{page, run, run_with};
    use super::*;
    use crate::model::{LcpElement, PageMetrics};

    fn lcp(ms: Option<f64>) -> PageSnapshot {
        page(
            PageMetrics {
                lcp_ms: ms,
                lcp_element: Some(LcpElement {
                    selector: Some("main > img.hero".into()),
                    snippet: Some("<img class=\"hero\">".into()),
                    url: Some("https://example.com/hero.jpg".into()),
                    is_image: true,
                    ..Default::default()
                }),
                ..Default::default()
            },
            vec![],
        )
    }

    #[test]
    fn two_levels_with_the_lcp_element() {
        let f = run(&Lcp, &lcp(Some(4500.0)));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].severity, Severity::High);
        assert_eq!(f[0].evidence["value"], 4500.0);
        assert_eq!(f[0].evidence["limit"], 4000.0);
        assert_eq!(f[0].evidence["selector"], "main > img.hero");
        let f = run(&Lcp, &lcp(Some(3000.0)));
        assert_eq!((f[0].severity, f[0].evidence["limit"].as_f64()), (Severity::Medium, Some(2500.0)));
    }

    #[test]
    fn quiet_when_good_unknown_or_not_rendered() {
        assert!(run(&Lcp, &lcp(Some(2500.0))).is_empty());
        assert!(run(&Lcp, &lcp(None)).is_empty());
        let mut failed = lcp(Some(9000.0));
        failed.status = None;
        assert!(run(&Lcp, &failed).is_empty());
        // Thresholds are configurable.
        let strict = Thresholds { lcp_medium_ms: 1000.0, ..Thresholds::default() };
        assert_eq!(run_with(&Lcp, &lcp(Some(1200.0)), &strict).len(), 1);
    }
}
