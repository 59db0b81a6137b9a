//! A finding: one defect found by one check, with the evidence that proves it.

use super::Severity;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The evidence key naming the other checks that found the same barrier (one barrier, one
/// finding: `checks::same_barrier`).
pub const ALSO: &str = "also_reported_as";

/// The ids a finding answers to: its own and those in `evidence.also_reported_as` (filters and
/// budgets that name either find it).
pub fn answers_to<'a>(check_id: &'a str, evidence: Option<&'a Map<String, Value>>) -> impl Iterator<Item = &'a str> {
    let also = evidence.and_then(|e| e.get(ALSO)).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str);
    std::iter::once(check_id).chain(also)
}

/// What a check reports. Stored findings add ids, scan and creation time (see `store`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub check_id: String,
    pub severity: Severity,
    pub title: String,
    pub description: String,
    pub remediation: String,
    pub cwe_id: Option<String>,
    /// Documented per check; always has `url` (the page the finding belongs to).
    pub evidence: Map<String, Value>,
}

impl Finding {
    /// The page URL the finding belongs to (`evidence.url`), if any.
    pub fn url(&self) -> Option<&str> {
        self.evidence.get("url").and_then(Value::as_str)
    }

    /// The element selector (`evidence.selector`), if any.
    pub fn selector(&self) -> Option<&str> {
        self.evidence.get("selector").and_then(Value::as_str)
    }

    /// The category: the check id's prefix.
    pub fn category(&self) -> &str {
        self.check_id.split_once('.').map_or(self.check_id.as_str(), |(c, _)| c)
    }

    /// The sort order findings come out in: most serious first, then check, page, selector.
    pub fn sort_key(&self) -> (std::cmp::Reverse<Severity>, &str, &str, &str) {
        (
            std::cmp::Reverse(self.severity),
            self.check_id.as_str(),
            self.url().unwrap_or(""),
            self.selector().unwrap_or(""),
        )
    }
}

/// Sorts findings in their canonical order (stable across runs).
pub fn sort_findings(findings: &mut [Finding]) {
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
}
