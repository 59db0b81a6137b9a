use super::super::page_view::PageView;
use super::super::check::{CheckMeta, Thresholds};
use super::metric::Metric;
use crate::model::Severity;
use crate::declare_check;

declare_check! {
    /// Total Blocking Time is high.
    pub struct Tbt {
        id: "performance.tbt",
        severity: High,
        title: "Total Blocking Time is high",
        fires_when: "Total Blocking Time is over 600 ms (high) or over 200 ms (medium) (thresholds tbt_high_ms, tbt_medium_ms)",
        description: "Total Blocking Time adds up how long the main thread was blocked by long JavaScript tasks after the first paint; while it is blocked, clicks and key presses get no response. It is the lab stand-in for Interaction to Next Paint, a Core Web Vital.",
        remediation: "Ship less JavaScript and run less of it at load: split bundles and load non-critical code later (`defer`, dynamic `import()`), remove unused third-party scripts, and break long tasks into chunks that yield to the browser (`scheduler.yield()` or `setTimeout`).",
        cwe: None,
        evidence: ["url", "value", "limit", "unit"],
        help_url: Some("https://web.dev/articles/tbt"),
        requires: [Metrics],
    }
}

impl Metric for Tbt {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn value(&self, page: &PageView<'_>) -> Option<f64> {
        page.metrics().tbt_ms
    }

    fn limits(&self, t: &Thresholds) -> (f64, Severity, f64, Severity) {
        (t.tbt_medium_ms, Severity::Medium, t.tbt_high_ms, Severity::High)
    }
}

#[cfg(test)]
mod tests {
    use crate::model::PageSnapshot;
    use super::super::test_support::{page, run};
    use super::*;
    use crate::model::PageMetrics;

    fn with(ms: Option<f64>) -> PageSnapshot {
        page(PageMetrics { tbt_ms: ms, ..Default::default() }, vec![])
    }

    #[test]
    fn two_levels() {
        let f = run(&Tbt, &with(Some(700.0)));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].severity, Severity::High);
        assert_eq!(f[0].evidence["limit"], 600.0);
        assert_eq!(f[0].evidence["value"], 700.0);
        let f = run(&Tbt, &with(Some(300.0)));
        assert_eq!((f[0].severity, f[0].evidence["limit"].as_f64()), (Severity::Medium, Some(200.0)));
    }

    #[test]
    fn quiet_at_the_limit_or_unknown() {
        assert!(run(&Tbt, &with(Some(200.0))).is_empty());
        assert!(run(&Tbt, &with(None)).is_empty());
    }
}
