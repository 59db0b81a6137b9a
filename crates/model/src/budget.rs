//! Budgets: what a scan must stay within, written close to Lighthouse CI's `assertions` (a map
//! from what is measured to `[level, options]`), judged against a scan's report. One budget
//! serves the CLI (`--budget FILE`), a site's recurring scans and the API; the report carries
//! the verdict as `summary.budget`.
//!
//! ```json
//! {"assertions": {
//!   "accessibility.color-contrast": ["error", {"maxCount": 0}],
//!   "categories:security": ["warn", {"maxCount": 3, "minSeverity": "medium"}],
//!   "findings": ["error", {"minSeverity": "high", "maxCount": 0}],
//!   "new-findings": ["error", {"minSeverity": "high", "maxCount": 0}],
//!   "metrics.lcp-p75": ["warn", {"maxNumericValue": 2500}]
//! }}
//! ```
//!
//! What can be asserted: a check id (its findings), `categories:<name>` (a category's findings),
//! `findings` (all), `new-findings` (not persisting from the baseline) — each counted with
//! `maxCount` (default 0) and optionally only at or above `minSeverity`; and
//! `metrics.<name>-p75` / `metrics.<name>-max` over the pages that measured it, with
//! `maxNumericValue` (`<name>`: lcp, fcp, ttfb, tbt in ms, cls, transfer-bytes, requests). A
//! level is `error` (fails the budget), `warn` (reported, never fails) or `off`. A bare level
//! (`"accessibility.image-alt": "error"`) means `maxCount: 0`.

use super::category::{ACTIVE_ONLY_CATEGORIES, PASSIVE_CATEGORIES};
use super::finding::StoredFinding;
use super::scan_report::ReportPage;
use super::{Change, Severity};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Most assertions a budget may hold.
pub const MAX_ASSERTIONS: usize = 200;
/// Largest budget document accepted.
pub const MAX_BUDGET_BYTES: usize = 64 * 1024;

/// The metrics a budget can name: (budget name, the page metric's key).
pub const METRICS: &[(&str, &str)] = &[
    ("lcp", "lcp_ms"),
    ("fcp", "fcp_ms"),
    ("ttfb", "ttfb_ms"),
    ("tbt", "tbt_ms"),
    ("cls", "cls"),
    ("transfer-bytes", "transfer_bytes"),
    ("requests", "requests"),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AssertionLevel {
    Error,
    Warn,
}

impl AssertionLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            AssertionLevel::Error => "error",
            AssertionLevel::Warn => "warn",
        }
    }
}

/// What an assertion measures.
#[derive(Debug, Clone, PartialEq)]
pub enum Subject {
    Check(String),
    Category(String),
    Findings,
    NewFindings,
    /// A page metric's key, at the 75th percentile (`false`: the maximum).
    Metric { key: &'static str, p75: bool },
}

/// One assertion of a budget.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetAssertion {
    /// As written (`accessibility.color-contrast`, `metrics.lcp-p75`).
    pub name: String,
    pub level: AssertionLevel,
    pub subject: Subject,
    /// `maxCount` or `maxNumericValue`.
    pub max: f64,
    pub min_severity: Option<Severity>,
}

/// A parsed budget (assertions in the order of their names).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Budget {
    pub assertions: Vec<BudgetAssertion>,
}

/// `summary.budget`: the verdict of each assertion and of the whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BudgetResult {
    /// False when an `error` assertion failed (`warn` ones never fail the budget).
    pub passed: bool,
    pub assertions: Vec<AssertionResult>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssertionResult {
    pub assertion: String,
    pub level: AssertionLevel,
    /// The most allowed: a count, or the metric's value.
    pub max: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_severity: Option<Severity>,
    /// What the scan measured (`None`: no page measured the metric).
    pub actual: Option<f64>,
    pub passed: bool,
    /// One line a person reads: what was measured against what.
    pub message: String,
}

impl BudgetResult {
    /// The `error` assertions that failed.
    pub fn failed(&self) -> impl Iterator<Item = &AssertionResult> {
        self.assertions.iter().filter(|a| !a.passed && a.level == AssertionLevel::Error)
    }
}

fn subject(name: &str, known_check: &dyn Fn(&str) -> bool) -> Result<Subject, String> {
    if name == "findings" {
        return Ok(Subject::Findings);
    }
    if name == "new-findings" {
        return Ok(Subject::NewFindings);
    }
    if let Some(category) = name.strip_prefix("categories:") {
        return match PASSIVE_CATEGORIES.iter().chain(ACTIVE_ONLY_CATEGORIES.iter()).find(|c| **c == category) {
            Some(c) => Ok(Subject::Category((*c).to_string())),
            None => Err(format!("unknown category {category:?}")),
        };
    }
    if let Some(metric) = name.strip_prefix("metrics.") {
        let (metric, p75) = match (metric.strip_suffix("-p75"), metric.strip_suffix("-max")) {
            (Some(m), _) => (m, true),
            (_, Some(m)) => (m, false),
            _ => return Err("a metric is named metrics.<name>-p75 or metrics.<name>-max".into()),
        };
        return match METRICS.iter().find(|(n, _)| *n == metric) {
            Some((_, key)) => Ok(Subject::Metric { key, p75 }),
            None => Err(format!("unknown metric {metric:?}: expected one of {}", METRICS.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "))),
        };
    }
    if known_check(name) { Ok(Subject::Check(name.to_string())) } else { Err("is not a check id, a category (categories:<name>), findings, new-findings or a metric (metrics.<name>-p75)".into()) }
}

fn assertion(name: &str, value: &Value, known_check: &dyn Fn(&str) -> bool) -> Result<Option<BudgetAssertion>, String> {
    let (level, options) = match value {
        Value::String(level) => (level.as_str(), None),
        Value::Array(items) => match items.as_slice() {
            [Value::String(level)] => (level.as_str(), None),
            [Value::String(level), Value::Object(o)] => (level.as_str(), Some(o)),
            _ => return Err("must be a level or [level, {options}]".into()),
        },
        _ => return Err("must be a level or [level, {options}]".into()),
    };
    let level = match level {
        "error" => AssertionLevel::Error,
        "warn" => AssertionLevel::Warn,
        "off" => return Ok(None),
        other => return Err(format!("unknown level {other:?}: expected error, warn or off")),
    };
    let subject = subject(name, known_check)?;
    let mut max = None;
    let mut min_severity = None;
    for (key, v) in options.into_iter().flatten() {
        match (key.as_str(), &subject) {
            ("maxCount", Subject::Metric { .. }) | ("minSeverity", Subject::Metric { .. }) => return Err(format!("{key} is for counts: a metric takes maxNumericValue")),
            ("maxNumericValue", Subject::Metric { .. }) => max = Some(v.as_f64().filter(|n| n.is_finite() && *n >= 0.0).ok_or("maxNumericValue must be a number, 0 or more")?),
            ("maxNumericValue", _) => return Err("maxNumericValue is for metrics: a count takes maxCount".into()),
            ("maxCount", _) => max = Some(v.as_u64().ok_or("maxCount must be a whole number, 0 or more")? as f64),
            ("minSeverity", _) => min_severity = Some(v.as_str().and_then(|s| s.parse::<Severity>().ok()).ok_or("minSeverity must be one of critical, high, medium, low, info")?),
            (other, _) => return Err(format!("unknown option {other:?}")),
        }
    }
    let max = match (max, &subject) {
        (Some(m), _) => m,
        (None, Subject::Metric { .. }) => return Err("a metric needs maxNumericValue".into()),
        (None, _) => 0.0,
    };
    Ok(Some(BudgetAssertion { name: name.to_string(), level, subject, max, min_severity }))
}

impl Budget {
    /// Reads a budget from JSON or YAML: `{"assertions": {...}}` or the assertions map itself.
    /// `known_check` says whether a name is a check id. Every broken assertion is reported.
    pub fn parse(text: &str, known_check: &dyn Fn(&str) -> bool) -> Result<Budget, Vec<String>> {
        if text.len() > MAX_BUDGET_BYTES {
            return Err(vec![format!("the budget is larger than {MAX_BUDGET_BYTES} bytes")]);
        }
        let doc: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            // Anchors, aliases, deep nesting and too many values are refused before expanding.
            Err(json) => super::tenant_yaml::parse(text, MAX_BUDGET_BYTES).map_err(|yaml| vec![format!("neither JSON ({json}) nor YAML ({yaml})")])?,
        };
        let map = match doc.get("assertions").unwrap_or(&doc) {
            Value::Object(m) => m.clone(),
            _ => return Err(vec!["a budget is an object of assertions: {\"assertions\": {\"<what>\": [\"error\", {\"maxCount\": 0}]}}".into()]),
        };
        if map.len() > MAX_ASSERTIONS {
            return Err(vec![format!("at most {MAX_ASSERTIONS} assertions")]);
        }
        let mut out = Budget::default();
        let mut errors = Vec::new();
        for (name, value) in &map {
            match assertion(name, value, known_check) {
                Ok(Some(a)) => out.assertions.push(a),
                Ok(None) => {}
                Err(e) => errors.push(format!("{name}: {e}")),
            }
        }
        if errors.is_empty() { Ok(out) } else { Err(errors) }
    }

    /// Judges `findings` (each standing for itself and its `evidence.omitted` instances) and
    /// `pages` (their metrics). With no comparison made, every finding is new.
    pub fn judge(&self, findings: &[StoredFinding], pages: &[ReportPage]) -> BudgetResult {
        let assertions: Vec<AssertionResult> = self.assertions.iter().map(|a| judge_one(a, findings, pages)).collect();
        BudgetResult { passed: !assertions.iter().any(|a| !a.passed && a.level == AssertionLevel::Error), assertions }
    }
}

/// Instances a finding stands for: itself and those the per-page cap folded into it.
fn instances(f: &StoredFinding) -> f64 {
    1.0 + f.finding.evidence.get("omitted").and_then(Value::as_u64).unwrap_or(0) as f64
}

fn judge_one(a: &BudgetAssertion, findings: &[StoredFinding], pages: &[ReportPage]) -> AssertionResult {
    let at_least = |f: &&StoredFinding| a.min_severity.is_none_or(|m| f.finding.severity >= m);
    let count = |keep: &dyn Fn(&StoredFinding) -> bool| findings.iter().filter(at_least).filter(|f| keep(f)).map(instances).sum::<f64>();
    let severity = a.min_severity.map(|s| format!(" at or above {s}")).unwrap_or_default();
    let (actual, what) = match &a.subject {
        // A finding merged with another check's (one barrier, one finding) answers to both ids.
        Subject::Check(id) => (
            Some(count(&|f| super::finding::answers_to(&f.finding.check_id, Some(&f.finding.evidence)).any(|c| c == id))),
            format!("findings{severity} of {id}"),
        ),
        Subject::Category(c) => (Some(count(&|f| f.finding.check_id.split_once('.').is_some_and(|(x, _)| x == c))), format!("{c} findings{severity}")),
        Subject::Findings => (Some(count(&|_| true)), format!("findings{severity}")),
        Subject::NewFindings => (Some(count(&|f| f.change != Some(Change::Persisting))), format!("new findings{severity}")),
        Subject::Metric { key, p75 } => {
            let mut values: Vec<f64> = pages.iter().filter_map(|p| p.metrics.get(*key).and_then(Value::as_f64)).filter(|v| v.is_finite()).collect();
            let value = if *p75 { super::percentile::p75(&mut values) } else { values.into_iter().reduce(f64::max) };
            (value, format!("{key} ({})", if *p75 { "75th percentile of the pages" } else { "the slowest page" }))
        }
    };
    let passed = actual.is_none_or(|v| v <= a.max);
    let message = match actual {
        None => format!("{}: not measured on any page", a.name),
        Some(v) => format!("{}: {} {what}, {} {}", a.name, trim(v), if passed { "within" } else { "over the limit of" }, trim(a.max)),
    };
    AssertionResult { assertion: a.name.clone(), level: a.level, max: a.max, min_severity: a.min_severity, actual, passed, message }
}

fn trim(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 { format!("{}", v as i64) } else { format!("{v:.3}") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Finding;

    fn known(id: &str) -> bool {
        matches!(id, "accessibility.color-contrast" | "search.title-missing")
    }

    fn finding(check: &str, severity: Severity, change: Option<Change>, omitted: u64) -> StoredFinding {
        let mut evidence = serde_json::Map::new();
        if omitted > 0 {
            evidence.insert("omitted".into(), omitted.into());
        }
        StoredFinding { change, finding: Finding { check_id: check.into(), severity, evidence, ..Finding::default() }, ..StoredFinding::default() }
    }

    fn page(lcp: f64) -> ReportPage {
        ReportPage { url: "https://e.com/".into(), final_url: None, status: Some(200), title: None, metrics: serde_json::json!({"lcp_ms": lcp}), error: None, checks_not_run: Vec::new() }
    }

    #[test]
    fn a_lighthouse_ci_style_budget_is_judged_assertion_by_assertion() {
        let text = r#"{"assertions": {
            "accessibility.color-contrast": ["error", {"maxCount": 2}],
            "categories:search": "warn",
            "new-findings": ["error", {"minSeverity": "high", "maxCount": 0}],
            "metrics.lcp-p75": ["error", {"maxNumericValue": 2500}],
            "metrics.cls-max": ["warn", {"maxNumericValue": 0.1}],
            "findings": "off"
        }}"#;
        let budget = Budget::parse(text, &known).unwrap();
        assert_eq!(budget.assertions.len(), 5);
        let findings = [
            finding("accessibility.color-contrast", Severity::Medium, None, 2),
            finding("search.title-missing", Severity::High, Some(Change::Persisting), 0),
        ];
        let result = budget.judge(&findings, &[page(1000.0), page(2000.0), page(3000.0), page(4000.0)]);
        let by = |n: &str| result.assertions.iter().find(|a| a.assertion == n).unwrap().clone();
        assert_eq!(by("accessibility.color-contrast").actual, Some(3.0), "a finding counts the instances folded into it");
        assert!(!by("accessibility.color-contrast").passed);
        assert!(!by("categories:search").passed && by("categories:search").level == AssertionLevel::Warn);
        assert!(by("new-findings").passed, "the high one persists");
        assert_eq!(by("metrics.lcp-p75").actual, Some(3000.0));
        assert!(!by("metrics.lcp-p75").passed);
        assert!(by("metrics.lcp-p75").message.contains("over the limit of 2500"), "{}", by("metrics.lcp-p75").message);
        assert_eq!(by("metrics.cls-max").actual, None);
        assert!(by("metrics.cls-max").passed);
        assert!(!result.passed);
        assert_eq!(result.failed().count(), 2);
    }

    #[test]
    fn yaml_works_and_warnings_never_fail() {
        let budget = Budget::parse("search.title-missing: [warn, {maxCount: 0}]\n", &known).unwrap();
        let result = budget.judge(&[finding("search.title-missing", Severity::High, None, 0)], &[]);
        assert!(result.passed);
        assert!(!result.assertions[0].passed);
    }

    #[test]
    fn every_mistake_is_named() {
        let text = r#"{"accessibility.colour-contrast": "error", "metrics.lcp": ["error", {"maxNumericValue": 1}],
            "metrics.lcp-p75": "error", "findings": ["fatal"], "categories:nope": "warn",
            "search.title-missing": ["error", {"maxCount": -1}], "new-findings": ["error", {"minSeverity": "urgent"}],
            "metrics.speed-p75": ["warn", {"maxNumericValue": 1}]}"#;
        let errors = Budget::parse(text, &known).unwrap_err();
        assert_eq!(errors.len(), 8, "{errors:#?}");
        assert!(errors.iter().any(|e| e.starts_with("accessibility.colour-contrast: is not a check id")));
        assert!(Budget::parse("[1, 2]", &known).is_err());
        assert!(Budget::parse("{: nope", &known).is_err());
        assert!(Budget::parse(&"x".repeat(MAX_BUDGET_BYTES + 1), &known).is_err());
    }
}
