//! The scan report as one typed value (the report object of `GET /api/v1/scans/{id}`, `docs/architecture.md` "The wire contract"): the scan, and once it has
//! run its summary, pages, findings and the findings fixed since the baseline. Built once from the
//! store (`Store::scan_report`); every edge renders it: the REST body and the gRPC message
//! (`api`), HTML, SARIF, JUnit and text (`report`), the dashboard and `sitescan scan`.
//!
//! Its serde form is the body of `GET /api/v1/scans/{id}` (`?include_findings=true` adds pages,
//! findings and `fixed`). Reading one back (`ScanReport::from_body`: a saved `--format json`,
//! a baseline, a test fixture) takes anything missing inside as absent.

use super::report::ReportSummary;
use super::scan_state::{ScanMode, ScanStatus, TriggeredBy, string_enum};
use super::severity::SeverityCounts;
use super::finding::StoredFinding;
use super::snapshot::CheckNotRun;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

/// A scan and its report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScanReport {
    pub scan: ScanInfo,
    /// `None` until the scan has run (the body's `"report": null`).
    pub report: Option<Report>,
}

/// The spec's Scan object, in its key order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ScanInfo {
    pub id: String,
    pub target_url: String,
    pub target_hostname: String,
    pub mode: ScanMode,
    pub status: ScanStatus,
    #[serde(with = "timestamp_opt")]
    pub started_at: Option<DateTime<Utc>>,
    #[serde(with = "timestamp_opt")]
    pub completed_at: Option<DateTime<Utc>>,
    pub findings_count: SeverityCounts,
    pub triggered_by: TriggeredBy,
    #[serde(with = "timestamp")]
    pub created_at: DateTime<Utc>,
}

/// `report`: the summary, and with findings the pages, the findings and the fixed ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub summary: ReportSummary,
    /// Every page the scan rendered, in crawl order (with findings only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<Vec<ReportPage>>,
    /// As stored, in the order the checks reported them (with findings only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub findings: Option<Vec<StoredFinding>>,
    /// Findings of the baseline scan that went away (with findings, once compared).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixed: Option<Vec<StoredFinding>>,
}

/// `report.pages[]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportPage {
    pub url: String,
    #[serde(default)]
    pub final_url: Option<String>,
    #[serde(default)]
    pub status: Option<u16>,
    #[serde(default)]
    pub title: Option<String>,
    /// `ttfb_ms`, `fcp_ms`, `lcp_ms`, `cls`, `tbt_ms`, `transfer_bytes`, `requests` (as measured).
    #[serde(default)]
    pub metrics: Value,
    /// `{"kind", "message"}` when the page could not be rendered.
    #[serde(default)]
    pub error: Option<Value>,
    /// Checks that did not judge the page, and why.
    #[serde(default)]
    pub checks_not_run: Vec<CheckNotRun>,
}

/// The report a scan leaves when it ends, as the store keeps it with the scan: its summary, and
/// the baseline's findings that went away (a completed scan compared with its baseline). Its
/// pages and findings are rows of their own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StoredReport {
    #[serde(default)]
    pub summary: ReportSummary,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixed: Option<Vec<StoredFinding>>,
}

impl StoredReport {
    /// A report of its summary alone (a failed scan).
    pub fn of(summary: ReportSummary) -> Self {
        StoredReport { summary, fixed: None }
    }
}

/// A finding's verdict against the baseline scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Change {
    New,
    Persisting,
}

string_enum!(Change { New => "new", Persisting => "persisting" });

impl ScanReport {
    /// Reads a body of `GET /api/v1/scans/{id}` (or `sitescan scan --format json`). Fails only
    /// when it is not such a body at all (no `scan` object, or a value of the wrong kind).
    pub fn from_body(body: &Value) -> Result<ScanReport, String> {
        if !body.get("scan").is_some_and(Value::is_object) {
            return Err("not a report body: expected an object with a `scan` object (GET /api/v1/scans/{id}?include_findings=true)".into());
        }
        ScanReport::deserialize(body).map_err(|e| format!("not a report body: {e}"))
    }

    /// The body as JSON (every object's keys sorted).
    pub fn to_body(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The summary, once the scan has run.
    pub fn summary(&self) -> Option<&ReportSummary> {
        self.report.as_ref().map(|r| &r.summary)
    }

    /// The findings (none without a report or when read without findings).
    pub fn findings(&self) -> &[StoredFinding] {
        self.report.as_ref().and_then(|r| r.findings.as_deref()).unwrap_or_default()
    }

    /// The pages (none without a report or when read without findings).
    pub fn pages(&self) -> &[ReportPage] {
        self.report.as_ref().and_then(|r| r.pages.as_deref()).unwrap_or_default()
    }

    /// The baseline's findings that went away.
    pub fn fixed(&self) -> &[StoredFinding] {
        self.report.as_ref().and_then(|r| r.fixed.as_deref()).unwrap_or_default()
    }
}

/// A JSON value with its numbers as the report has always shown them: a whole number within
/// 2^53 as an integer, any other as a double. (The report went through protobuf `Struct`, whose
/// numbers are doubles, before it was typed; stored evidence and metrics keep that form.)
pub fn report_numbers(value: Value) -> Value {
    match value {
        Value::Number(n) => json_number(n.as_f64().unwrap_or(0.0)),
        Value::Array(items) => Value::Array(items.into_iter().map(report_numbers).collect()),
        Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, report_numbers(v))).collect()),
        other => other,
    }
}

/// A number as the API shows it: whole numbers within 2^53 as integers (`3`, not `3.0`), others
/// as they are.
pub fn json_number(n: f64) -> Value {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if n.fract() == 0.0 && n.abs() < EXACT {
        Value::Number(Number::from(n as i64))
    } else {
        Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

/// RFC 3339 with microseconds and `Z`, the API's timestamp form.
pub fn rfc3339(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}

/// Serde of a timestamp as `rfc3339` writes it (any RFC 3339 text reads).
pub(crate) mod timestamp {
    use chrono::{DateTime, Utc};
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::rfc3339(t))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
        Ok(super::timestamp_opt::parse(Option::<String>::deserialize(d)?).unwrap_or(DateTime::<Utc>::UNIX_EPOCH))
    }
}

/// `timestamp`, nullable.
mod timestamp_opt {
    use chrono::{DateTime, Utc};
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(t: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => s.serialize_str(&super::rfc3339(t)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
        Ok(parse(Option::<String>::deserialize(d)?))
    }

    pub(super) fn parse(text: Option<String>) -> Option<DateTime<Utc>> {
        DateTime::parse_from_rfc3339(text?.trim()).ok().map(|t| t.with_timezone(&Utc))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_read_as_the_report_shows_them() {
        let v = report_numbers(json!({"a": 4300.0, "b": 0.05, "c": [-0.0, 3], "d": {"e": 9_007_199_254_740_993u64}}));
        assert_eq!(v.to_string(), r#"{"a":4300,"b":0.05,"c":[0,3],"d":{"e":9007199254740992.0}}"#);
    }

    #[test]
    fn a_body_reads_back_as_written() {
        let body = json!({
            "scan": {"id": "s", "target_url": "https://a.test/", "status": "completed", "mode": "active",
                     "triggered_by": "schedule", "started_at": "2026-01-31T10:00:00.123456Z"},
            "report": {"summary": {"pages_scanned": 1, "duration_ms": 5, "categories": {}, "error": null},
                       "findings": [{"check_id": "search.x", "severity": "low", "change": "new", "evidence": {"url": "https://a.test/"}}]}
        });
        let report = ScanReport::from_body(&body).unwrap();
        assert_eq!(report.scan.status, ScanStatus::Completed);
        assert_eq!(report.scan.triggered_by, TriggeredBy::Schedule);
        assert_eq!(report.findings()[0].change, Some(Change::New));
        assert_eq!(report.findings()[0].evidence_str("url"), Some("https://a.test/"));
        let again = report.to_body();
        assert_eq!(again["scan"]["started_at"], "2026-01-31T10:00:00.123456Z");
        assert_eq!(again["report"]["findings"][0]["severity"], "low");
        assert!(again["report"].get("pages").is_none(), "absent lists stay absent");
        assert!(ScanReport::from_body(&json!({"findings": []})).is_err());
        assert!(ScanReport::from_body(&json!({"scan": {"status": "paused"}})).is_err(), "an unknown status is no body");
    }
}
