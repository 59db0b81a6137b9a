use super::super::page_view::PageView;
use super::super::check::{CheckMeta, Thresholds};
use super::metric::Metric;
use crate::model::Severity;
use crate::declare_check;

declare_check! {
    /// First Contentful Paint is slow.
    pub struct Fcp {
        id: "performance.fcp",
        severity: Medium,
        title: "First Contentful Paint is slow",
        fires_when: "First Contentful Paint is over 3.0 s (medium) or over 1.8 s (low) (thresholds fcp_medium_ms, fcp_low_ms)",
        description: "First Contentful Paint is when the visitor first sees anything of the page; until then they stare at a blank screen and wonder whether the site works.",
        remediation: "Get the first pixels out sooner: reduce server response time, inline the critical CSS and load the rest without blocking, `defer` scripts in the head, and avoid font loading that hides text (`font-display: swap`).",
        cwe: None,
        evidence: ["url", "value", "limit", "unit"],
        help_url: Some("https://web.dev/articles/fcp"),
        requires: [Metrics],
    }
}

impl Metric for Fcp {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn value(&self, page: &PageView<'_>) -> Option<f64> {
        page.metrics().fcp_ms
    }

    fn limits(&self, t: &Thresholds) -> (f64, Severity, f64, Severity) {
        (t.fcp_low_ms, Severity::Low, t.fcp_medium_ms, Severity::Medium)
    }
}

#[cfg(test)]
mod tests {
    use crate::model::PageSnapshot;
    use super::super::test_support::{page, run};
    use super::*;
    use crate::model::PageMetrics;

    fn with(ms: Option<f64>) -> PageSnapshot {
        page(PageMetrics { fcp_ms: ms, ..Default::default() }, vec![])
    }

    #[test]
    fn two_levels() {
        let f = run(&Fcp, &with(Some(3500.0)));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].severity, Severity::Medium);
        assert_eq!(f[0].evidence["limit"], 3000.0);
        assert_eq!(f[0].evidence["value"], 3500.0);
        let f = run(&Fcp, &with(Some(2000.0)));
        assert_eq!((f[0].severity, f[0].evidence["limit"].as_f64()), (Severity::Low, Some(1800.0)));
    }

    #[test]
    fn quiet_at_the_limit_or_unknown() {
        assert!(run(&Fcp, &with(Some(1800.0))).is_empty());
        assert!(run(&Fcp, &with(None)).is_empty());
    }
}
