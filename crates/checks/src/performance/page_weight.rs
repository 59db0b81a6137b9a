use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::Severity;
use crate::{declare_check, evidence};

/// How many of the largest resources the evidence lists.
const MAX_LARGEST: usize = 5;

declare_check! {
    /// The page transfers too many bytes.
    ///
    /// `metrics.transfer_bytes` (everything the page and its subresources transferred), else the
    /// sum of the requests' `encoded_bytes`. Medium above `page_weight_medium_bytes` (4 MiB), low
    /// above `page_weight_low_bytes` (2 MiB). The evidence lists the five largest transfers.
    pub struct PageWeight {
        id: "performance.page-weight",
        severity: Medium,
        title: "Page is too heavy",
        fires_when: "the page and its subresources transfer more than 4 MB (medium) or 2 MB (low) (thresholds page_weight_medium_bytes, page_weight_low_bytes)",
        description: "Every megabyte costs load time on slow connections, money on metered mobile plans, and battery; heavy pages load slowly for exactly the visitors with the weakest connections.",
        remediation: "Start with the largest transfers in the evidence: resize and recompress images (WebP/AVIF), lazy-load what is below the fold, remove unused JavaScript and CSS (and third-party tags), subset web fonts, and compress text responses.",
        cwe: None,
        evidence: ["url", "value", "limit", "largest"],
        help_url: Some("https://developer.chrome.com/docs/lighthouse/performance/total-byte-weight"),
        requires: [Metrics, Network],
    }
}

impl Check for PageWeight {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let bytes = match page.metrics().transfer_bytes {
            0 => page.requests().iter().filter_map(|r| r.encoded_bytes).sum(),
            n => n,
        };
        let (severity, limit) = if bytes > thresholds.page_weight_medium_bytes {
            (Severity::Medium, thresholds.page_weight_medium_bytes)
        } else if bytes > thresholds.page_weight_low_bytes {
            (Severity::Low, thresholds.page_weight_low_bytes)
        } else {
            return;
        };
        let mut by_size: Vec<_> = page.requests().iter().filter(|r| r.encoded_bytes.is_some_and(|b| b > 0)).collect();
        by_size.sort_by(|a, b| b.encoded_bytes.cmp(&a.encoded_bytes).then_with(|| a.url.cmp(&b.url)));
        let largest: Vec<_> = by_size
            .iter()
            .take(MAX_LARGEST)
            .map(|r| serde_json::json!({"resource": r.url, "bytes": r.encoded_bytes, "resource_type": r.resource_type}))
            .collect();
        out.report_with(
            severity,
            evidence! {
                "url" => page.final_url,
                "value" => bytes,
                "limit" => limit,
                "largest" => largest,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{page, response, run};
    use super::*;
    use crate::model::PageMetrics;

    const MB: u64 = 1024 * 1024;

    #[test]
    fn two_levels_listing_largest_transfers() {
        let requests = vec![
            response("https://example.com/video-poster.jpg", "image", "image/jpeg", 3 * MB, &[]),
            response("https://example.com/app.js", "script", "text/javascript", 2 * MB, &[]),
            response("https://example.com/style.css", "stylesheet", "text/css", 20_000, &[]),
        ];
        let f = run(&PageWeight, &page(PageMetrics { transfer_bytes: 5 * MB, ..Default::default() }, requests.clone()));
        assert_eq!((f[0].severity, f[0].evidence["limit"].as_u64()), (Severity::Medium, Some(4 * MB)));
        assert_eq!(f[0].evidence["largest"][0]["resource"], "https://example.com/video-poster.jpg");
        assert_eq!(f[0].evidence["largest"].as_array().map(Vec::len), Some(3));
        // No transfer total from the browser: the requests are summed (5 MiB + 750 header bytes).
        let f = run(&PageWeight, &page(PageMetrics::default(), requests));
        assert_eq!(f[0].severity, Severity::Medium);
        let f = run(&PageWeight, &page(PageMetrics { transfer_bytes: 3 * MB, ..Default::default() }, vec![]));
        assert_eq!((f[0].severity, f[0].evidence["value"].as_u64()), (Severity::Low, Some(3 * MB)));
    }

    #[test]
    fn quiet_for_a_light_page() {
        assert!(
            run(&PageWeight, &page(PageMetrics { transfer_bytes: 2 * MB, ..Default::default() }, vec![])).is_empty()
        );
        assert!(run(&PageWeight, &page(PageMetrics::default(), vec![])).is_empty());
    }
}
