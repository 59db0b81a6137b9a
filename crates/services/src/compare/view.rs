//! Two scans compared, as people read it: the dashboard's compare page and the API's
//! `CompareScans` both show this one shape. Findings new, fixed and persisting grouped by check
//! (each group's instances listed up to [`MAX_GROUP_ITEMS`], the rest counted), findings per
//! category before and after, pages added and gone, and each page's vitals before and after.

use super::diff::ScanDiff;
use crate::model::{ChangeCounts, Severity};
use crate::store::StoredFinding;
use crate::store::time::to_rfc3339;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// Instances listed per check group; the rest are counted in `omitted`.
pub const MAX_GROUP_ITEMS: usize = 200;

/// One side of the comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComparedScan {
    pub id: String,
    pub target: String,
    pub mode: crate::model::ScanMode,
    /// RFC 3339.
    pub completed_at: String,
}

/// One instance of a check: where it is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComparedFinding {
    /// The finding (of the head for new and persisting, of the base for fixed).
    pub finding_id: String,
    pub severity: Severity,
    pub page_url: Option<String>,
    /// The CSS selector or resource the finding points at, when it has one.
    pub locator: Option<String>,
}

/// A check's findings on one side of the change.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckGroup {
    pub check_id: String,
    /// The most severe of its findings.
    pub severity: Severity,
    pub count: u64,
    pub findings: Vec<ComparedFinding>,
    /// Instances not listed (beyond [`MAX_GROUP_ITEMS`]).
    pub omitted: u64,
}

/// Findings of one category in the base and in the head.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CategoryChange {
    pub category: String,
    pub base: u64,
    pub head: u64,
}

/// A measurement in the base and in the head (`None`: not measured there).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BeforeAfter {
    pub base: Option<f64>,
    pub head: Option<f64>,
}

/// A page's Core Web Vitals in both scans.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PageVitals {
    pub url: String,
    pub lcp_ms: BeforeAfter,
    /// Cumulative Layout Shift (named so that no generated client's `cls` parameter shadows it).
    pub cls_score: BeforeAfter,
    pub tbt_ms: BeforeAfter,
}

/// Counts of the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ComparisonCounts {
    pub new: u64,
    pub fixed: u64,
    pub persisting: u64,
}

/// Two scans of one site compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScanComparison {
    pub base: ComparedScan,
    pub head: ComparedScan,
    pub counts: ComparisonCounts,
    pub new: Vec<CheckGroup>,
    pub fixed: Vec<CheckGroup>,
    pub persisting: Vec<CheckGroup>,
    pub categories: Vec<CategoryChange>,
    pub pages_added: Vec<String>,
    pub pages_gone: Vec<String>,
    pub vitals: Vec<PageVitals>,
}

impl From<&ChangeCounts> for ComparisonCounts {
    fn from(c: &ChangeCounts) -> Self {
        ComparisonCounts { new: c.new, fixed: c.fixed, persisting: c.persisting }
    }
}

/// The CSS selector or resource a finding points at.
pub fn locator(evidence: &serde_json::Map<String, Value>) -> Option<String> {
    let at = |k: &str| evidence.get(k).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
    at("selector").or_else(|| at("resource"))
}

/// Findings grouped by check id (in check id order), each group's instances in report order.
pub fn group_by_check(rows: &[StoredFinding]) -> Vec<CheckGroup> {
    let mut by: BTreeMap<&str, CheckGroup> = BTreeMap::new();
    for r in rows {
        let f = &r.finding;
        let group = by.entry(&f.check_id).or_insert_with(|| CheckGroup { check_id: f.check_id.clone(), severity: f.severity, count: 0, findings: Vec::new(), omitted: 0 });
        group.count += 1;
        if f.severity > group.severity {
            group.severity = f.severity;
        }
        if group.findings.len() < MAX_GROUP_ITEMS {
            group.findings.push(ComparedFinding { finding_id: r.id.to_string(), severity: f.severity, page_url: f.url().map(str::to_string), locator: locator(&f.evidence) });
        } else {
            group.omitted += 1;
        }
    }
    by.into_values().collect()
}

impl ScanComparison {
    /// The comparison of `diff`, between scans `base` and `head`.
    pub fn of(base: &crate::store::ScanRow, head: &crate::store::ScanRow, diff: &ScanDiff) -> Self {
        let side = |r: &crate::store::ScanRow| ComparedScan { id: r.id.to_string(), target: r.target_url.clone(), mode: r.mode, completed_at: to_rfc3339(r.completed_at.unwrap_or(r.created_at)) };
        let pair = |(base, head): (Option<f64>, Option<f64>)| BeforeAfter { base, head };
        ScanComparison {
            base: side(base),
            head: side(head),
            counts: ComparisonCounts::from(&diff.counts),
            new: group_by_check(&diff.new),
            fixed: group_by_check(&diff.fixed),
            persisting: group_by_check(&diff.persisting),
            categories: diff.categories.iter().map(|(c, b, h)| CategoryChange { category: c.clone(), base: *b, head: *h }).collect(),
            pages_added: diff.pages_added.clone(),
            pages_gone: diff.pages_gone.clone(),
            vitals: diff.vitals.iter().map(|v| PageVitals { url: v.url.clone(), lcp_ms: pair(v.lcp_ms), cls_score: pair(v.cls), tbt_ms: pair(v.tbt_ms) }).collect(),
        }
    }
}
