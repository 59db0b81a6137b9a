use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::Severity;
use crate::{declare_check, evidence};

declare_check! {
    /// The DOM has too many elements.
    ///
    /// `metrics.dom_elements`: low above `dom_size_low` (1,500), medium above `dom_size_medium`
    /// (3,000). The evidence adds the deepest nesting (`depth`).
    pub struct DomSize {
        id: "performance.dom-size",
        severity: Low,
        title: "DOM is very large",
        fires_when: "the rendered page has more than 1,500 elements (low) or more than 3,000 (medium) (thresholds dom_size_low, dom_size_medium)",
        description: "A large DOM costs memory and makes every style recalculation and layout slower, so scrolling and interactions lag, especially on low-end phones; it often comes from rendering long lists or hidden menus and tabs up front.",
        remediation: "Render less up front: paginate or virtualise long lists and tables, build off-screen menus, tabs and dialogs when they are opened, flatten wrapper-heavy markup, and keep hidden variants (mobile/desktop copies) out of the DOM.",
        cwe: None,
        evidence: ["url", "value", "limit", "depth"],
        help_url: Some("https://developer.chrome.com/docs/lighthouse/performance/dom-size"),
        requires: [Dom, Metrics],
    }
}

impl Check for DomSize {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let elements = page.metrics().dom_elements;
        let (severity, limit) = if elements > thresholds.dom_size_medium {
            (Severity::Medium, thresholds.dom_size_medium)
        } else if elements > thresholds.dom_size_low {
            (Severity::Low, thresholds.dom_size_low)
        } else {
            return;
        };
        out.report_with(
            severity,
            evidence! {
                "url" => page.final_url,
                "value" => elements,
                "limit" => limit,
                "depth" => page.metrics().dom_max_depth,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::model::PageSnapshot;
    use super::super::test_support::{page, run};
    use super::*;
    use crate::model::PageMetrics;

    fn with(n: u64) -> PageSnapshot {
        page(PageMetrics { dom_elements: n, dom_max_depth: 14, ..Default::default() }, vec![])
    }

    #[test]
    fn two_levels() {
        let f = run(&DomSize, &with(3001));
        assert_eq!((f[0].severity, f[0].evidence["limit"].as_u64()), (Severity::Medium, Some(3000)));
        let f = run(&DomSize, &with(1501));
        assert_eq!((f[0].severity, f[0].evidence["value"].as_u64()), (Severity::Low, Some(1501)));
        assert_eq!(f[0].evidence["depth"], 14);
    }

    #[test]
    fn quiet_for_a_normal_page() {
        assert!(run(&DomSize, &with(1500)).is_empty());
        assert!(run(&DomSize, &with(0)).is_empty());
    }
}
