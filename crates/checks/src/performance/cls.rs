use super::super::page_view::PageView;
use super::super::check::{CheckMeta, Thresholds};
use super::metric::Metric;
use crate::model::Severity;
use crate::declare_check;
use serde_json::{Map, Value, json};

/// How many shifting elements the evidence names.
const MAX_SOURCES: usize = 5;

declare_check! {
    /// Cumulative Layout Shift is high.
    ///
    /// `metrics.cls` (the largest session window of shifts without recent input). The evidence
    /// names the elements that moved in the largest shifts (`sources`, up to 5).
    pub struct Cls {
        id: "performance.cls",
        severity: High,
        title: "Layout shifts a lot while loading (CLS)",
        fires_when: "Cumulative Layout Shift is over 0.25 (high) or over 0.1 (medium) (thresholds cls_high, cls_medium)",
        description: "Cumulative Layout Shift measures how much visible content jumps around while the page loads; a jump just as someone reads or taps makes them lose their place or hit the wrong button. It is a Core Web Vital and a search ranking signal.",
        remediation: "Reserve space for everything that arrives late: width and height (or aspect-ratio) on images, videos and iframes, fixed-size slots for ads and embeds, no content inserted above what is already shown, and `font-display: optional` or matched fallback metrics for web fonts. The evidence names the elements that moved.",
        cwe: None,
        evidence: ["url", "value", "limit", "sources"],
        help_url: Some("https://web.dev/articles/cls"),
        requires: [Metrics],
    }
}

impl Metric for Cls {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn value(&self, page: &PageView<'_>) -> Option<f64> {
        page.metrics().cls
    }

    fn limits(&self, t: &Thresholds) -> (f64, Severity, f64, Severity) {
        (t.cls_medium, Severity::Medium, t.cls_high, Severity::High)
    }

    fn unit(&self) -> Option<&'static str> {
        None
    }

    fn more_evidence(&self, page: &PageView<'_>, evidence: &mut Map<String, Value>) {
        let mut shifts: Vec<_> = page.metrics().layout_shifts.iter().collect();
        shifts.sort_by(|a, b| b.value.total_cmp(&a.value));
        let mut sources: Vec<&str> = Vec::new();
        for source in shifts.iter().flat_map(|s| s.sources.iter()) {
            if sources.len() < MAX_SOURCES && !sources.contains(&source.as_str()) {
                sources.push(source);
            }
        }
        evidence.insert("sources".into(), json!(sources));
    }
}

#[cfg(test)]
mod tests {
    use crate::model::PageSnapshot;
    use super::super::test_support::{page, run};
    use super::*;
    use crate::model::{LayoutShift, PageMetrics};

    fn with(cls: Option<f64>) -> PageSnapshot {
        let shift = |value: f64, sources: &[&str]| LayoutShift {
            start_ms: 500.0,
            value,
            sources: sources.iter().map(|s| s.to_string()).collect(),
        };
        page(
            PageMetrics {
                cls,
                layout_shifts: vec![
                    shift(0.02, &["footer"]),
                    shift(0.2, &["main > .ad", "main > p"]),
                    shift(0.1, &["main > p"]),
                ],
                ..Default::default()
            },
            vec![],
        )
    }

    #[test]
    fn two_levels_naming_the_biggest_movers_first() {
        let f = run(&Cls, &with(Some(0.32)));
        assert_eq!((f[0].severity, f[0].evidence["limit"].as_f64()), (Severity::High, Some(0.25)));
        assert_eq!(f[0].evidence["sources"], serde_json::json!(["main > .ad", "main > p", "footer"]));
        let f = run(&Cls, &with(Some(0.12)));
        assert_eq!((f[0].severity, f[0].evidence["value"].as_f64()), (Severity::Medium, Some(0.12)));
    }

    #[test]
    fn quiet_when_stable() {
        assert!(run(&Cls, &with(Some(0.1))).is_empty());
        assert!(run(&Cls, &with(Some(0.0))).is_empty());
        assert!(run(&Cls, &with(None)).is_empty());
    }
}
