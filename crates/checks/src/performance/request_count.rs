use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};
use std::collections::BTreeMap;

declare_check! {
    /// The page makes too many requests.
    ///
    /// `metrics.requests` (the document included), else the number of captured requests; fires
    /// above `max_requests` (100). The evidence counts requests per resource type.
    pub struct RequestCount {
        id: "performance.request-count",
        severity: Low,
        title: "Page makes too many requests",
        fires_when: "the page makes more than 100 requests, the document included (threshold max_requests)",
        description: "Each request costs a round trip and some bandwidth and competes with the others for the connection; pages with hundreds of requests load slowly on mobile networks, and the count usually reveals piles of third-party tags, unbundled scripts or sprites of small images.",
        remediation: "Look at the types with the most requests in the evidence: remove unused third-party tags, bundle small scripts and stylesheets, inline tiny icons as SVG, lazy-load below-the-fold images, and avoid polling requests during load.",
        cwe: None,
        evidence: ["url", "value", "limit", "by_type"],
        help_url: Some("https://developer.chrome.com/docs/lighthouse/performance/resource-summary"),
        requires: [Metrics, Network],
    }
}

impl Check for RequestCount {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let count = match page.metrics().requests {
            0 => page.requests().len() as u64,
            n => n,
        };
        if count <= thresholds.max_requests {
            return;
        }
        let mut by_type: BTreeMap<&str, u64> = BTreeMap::new();
        for r in page.requests() {
            let kind = if r.resource_type.is_empty() { "other" } else { r.resource_type.as_str() };
            *by_type.entry(kind).or_default() += 1;
        }
        out.report(evidence! {
            "url" => page.final_url,
            "value" => count,
            "limit" => thresholds.max_requests,
            "by_type" => by_type,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{page, response, run};
    use super::*;
    use crate::model::PageMetrics;

    fn requests(n: usize) -> Vec<crate::model::NetworkRequest> {
        (0..n).map(|i| response(&format!("https://example.com/i{i}.png"), "image", "image/png", 500, &[])).collect()
    }

    #[test]
    fn fires_above_the_limit_with_counts_per_type() {
        let f = run(&RequestCount, &page(PageMetrics::default(), requests(101)));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["value"], 101);
        assert_eq!(f[0].evidence["by_type"]["image"], 101);
        let f = run(&RequestCount, &page(PageMetrics { requests: 150, ..Default::default() }, requests(3)));
        assert_eq!(f[0].evidence["value"], 150);
    }

    #[test]
    fn quiet_at_the_limit() {
        assert!(run(&RequestCount, &page(PageMetrics::default(), requests(100))).is_empty());
    }
}
