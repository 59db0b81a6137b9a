//! The metric checks (FCP, LCP, TTFB, TBT, CLS) written once: each names its value and its two
//! limits; grading, rounding and the evidence shape live here.

use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::grade::{grade, round_ms};
use crate::evidence;
use crate::model::Severity;
use serde_json::{Map, Value};

/// A number per page graded against two limits (needs improvement, poor).
pub trait Metric: Sync + Send {
    fn meta(&self) -> &'static CheckMeta;

    /// The page's value, when it was measured.
    fn value(&self, page: &PageView<'_>) -> Option<f64>;

    /// `(lower limit, its severity, upper limit, its severity)`.
    fn limits(&self, thresholds: &Thresholds) -> (f64, Severity, f64, Severity);

    /// `Some("ms")` for times (evidence `unit`, rounded to 0.1 ms); `None` for a unitless score
    /// (rounded to 0.001).
    fn unit(&self) -> Option<&'static str> {
        Some("ms")
    }

    /// Evidence beyond `url`, `value`, `limit` and `unit` (the element behind it, ...).
    fn more_evidence(&self, _page: &PageView<'_>, _evidence: &mut Map<String, Value>) {}
}

impl<M: Metric> Check for M {
    fn meta(&self) -> &'static CheckMeta {
        Metric::meta(self)
    }

    fn page(&self, page: &PageView<'_>, thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(value) = self.value(page) else { return };
        let (lower, lower_severity, upper, upper_severity) = self.limits(thresholds);
        let Some((severity, limit)) = grade(value, lower, lower_severity, upper, upper_severity) else {
            return;
        };
        let mut ev = evidence! { "url" => page.final_url, "limit" => limit };
        match self.unit() {
            Some(unit) => {
                ev.insert("value".into(), Value::from(round_ms(value)));
                ev.insert("unit".into(), Value::from(unit));
            }
            None => {
                ev.insert("value".into(), Value::from((value * 1000.0).round() / 1000.0));
            }
        }
        self.more_evidence(page, &mut ev);
        out.report_with(severity, ev);
    }
}
