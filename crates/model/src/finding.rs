//! A finding: one defect found by one check, with the evidence that proves it.

use super::Severity;
use super::scan_report::{Change, timestamp};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};
use uuid::Uuid;

/// The evidence key naming the other checks that found the same barrier (one barrier, one
/// finding: `checks::same_barrier`).
pub const ALSO: &str = "also_reported_as";

/// The ids a finding answers to: its own and those in `evidence.also_reported_as` (filters and
/// budgets that name either find it).
pub fn answers_to<'a>(check_id: &'a str, evidence: Option<&'a Map<String, Value>>) -> impl Iterator<Item = &'a str> {
    let also = evidence.and_then(|e| e.get(ALSO)).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str);
    std::iter::once(check_id).chain(also)
}

/// What a check reports. A stored finding ([`StoredFinding`]) adds its id, scan, creation time
/// and change. Read back from a report body, a missing or null text is empty.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    #[serde(default, deserialize_with = "null_as_default")]
    pub check_id: String,
    #[serde(default)]
    pub severity: Severity,
    #[serde(default, deserialize_with = "null_as_default")]
    pub title: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub description: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub remediation: String,
    #[serde(default)]
    pub cwe_id: Option<String>,
    /// Where to read more about the defect: the check's reference (its catalogue entry's).
    #[serde(default)]
    pub help_url: Option<String>,
    /// Documented per check; always has `url` (the page the finding belongs to).
    #[serde(default, deserialize_with = "null_as_default")]
    pub evidence: Map<String, Value>,
}

/// A finding as stored, and as every report, export, page, webhook and message reads it: the
/// finding a check made, its id, its scan, when it was written and, once the scan was compared
/// with its baseline, whether it is new. Its serde form is the spec's Finding (`change` added
/// once compared).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StoredFinding {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<Change>,
    pub id: Uuid,
    pub scan_id: Uuid,
    #[serde(flatten)]
    pub finding: Finding,
    #[serde(with = "timestamp")]
    pub created_at: DateTime<Utc>,
}

impl StoredFinding {
    /// A string of the evidence (`url`, `selector`, ...), if it has one.
    pub fn evidence_str(&self, key: &str) -> Option<&str> {
        self.finding.evidence.get(key)?.as_str()
    }

    /// The creation time in microseconds (the store's and the cursors' unit).
    pub fn created_at_us(&self) -> i64 {
        self.created_at.timestamp_micros()
    }
}

/// A value that may be written as `null`, read as its default.
fn null_as_default<'de, D: Deserializer<'de>, T: Default + Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
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
