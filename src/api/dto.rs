//! The REST bodies, exactly as the spec shapes them (explicit nulls, lowercase enums, RFC 3339),
//! serialised from the scan service's typed answers: rows and the typed report.

use crate::model::{ScanInfo, ScanReport, SeverityCounts, report_numbers};
use crate::scans::History;
use crate::scans::HistoryPoint;
use crate::model::time::{to_datetime, to_rfc3339};
use crate::scans::{FindingRow, Page, ScanRow};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// The spec's Scan: the typed report's scan, whose serde form is that object.
pub type ScanDto = ScanInfo;

#[derive(Debug, Serialize)]
pub struct FindingDto {
    pub id: String,
    pub scan_id: String,
    pub check_id: String,
    pub severity: &'static str,
    pub title: Option<String>,
    pub description: Option<String>,
    pub evidence: Option<Value>,
    pub remediation: Option<String>,
    pub cwe_id: Option<String>,
    pub created_at: String,
}

#[derive(Debug, Serialize)]
pub struct CreateScanDto {
    pub id: String,
    pub status: &'static str,
    pub target: String,
    pub mode: &'static str,
}

#[derive(Debug, Serialize)]
pub struct ListScansDto {
    pub scans: Vec<ScanDto>,
    pub next_cursor: Option<String>,
}

/// `GET /api/v1/scans/{id}`: the scan in the spec's key order, and the report object with its
/// keys sorted (as clients have always read it).
#[derive(Debug, Serialize)]
pub struct GetScanDto {
    pub scan: ScanDto,
    pub report: Option<Value>,
}

/// One completed scan in a site's history.
#[derive(Debug, Serialize)]
pub struct HistoryScanDto {
    pub scan_id: String,
    pub target: String,
    pub mode: &'static str,
    pub completed_at: String,
    pub findings_count: SeverityCounts,
    pub categories: BTreeMap<String, u64>,
    pub lcp_p75_ms: Option<f64>,
    pub cls_p75: Option<f64>,
    pub tbt_p75_ms: Option<f64>,
}

/// `GET /api/v1/history`
#[derive(Debug, Serialize)]
pub struct HistoryDto {
    pub origin: String,
    pub scans: Vec<HistoryScanDto>,
    pub next_cursor: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct ListFindingsDto {
    pub findings: Vec<FindingDto>,
    pub next_cursor: Option<String>,
}

impl From<&FindingRow> for FindingDto {
    fn from(f: &FindingRow) -> Self {
        FindingDto {
            id: f.id.to_string(),
            scan_id: f.scan_id.to_string(),
            check_id: f.check_id.clone(),
            severity: f.severity.as_str(),
            title: f.title.clone(),
            description: f.description.clone(),
            evidence: f.evidence_json().filter(Value::is_object).map(report_numbers),
            remediation: f.remediation.clone(),
            cwe_id: f.cwe_id.clone(),
            created_at: to_datetime(f.created_at).to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
        }
    }
}

impl From<&ScanRow> for CreateScanDto {
    fn from(r: &ScanRow) -> Self {
        CreateScanDto { id: r.id.to_string(), status: r.status.as_str(), target: r.target_url.clone(), mode: r.mode.as_str() }
    }
}

impl From<Page<ScanRow>> for ListScansDto {
    fn from(p: Page<ScanRow>) -> Self {
        ListScansDto { scans: p.rows.iter().map(ScanDto::from).collect(), next_cursor: p.next_cursor }
    }
}

impl From<ScanReport> for GetScanDto {
    fn from(r: ScanReport) -> Self {
        GetScanDto { report: r.report.as_ref().and_then(|report| serde_json::to_value(report).ok()), scan: r.scan }
    }
}

impl From<&HistoryPoint> for HistoryScanDto {
    fn from(p: &HistoryPoint) -> Self {
        HistoryScanDto {
            scan_id: p.scan_id.to_string(),
            target: p.target.clone(),
            mode: p.mode.as_str(),
            completed_at: to_rfc3339(p.completed_at),
            findings_count: p.counts.clone(),
            categories: p.categories.clone(),
            lcp_p75_ms: p.lcp_p75_ms,
            cls_p75: p.cls_p75,
            tbt_p75_ms: p.tbt_p75_ms,
        }
    }
}

impl From<History> for HistoryDto {
    fn from(h: History) -> Self {
        HistoryDto { origin: h.origin, scans: h.page.rows.iter().map(HistoryScanDto::from).collect(), next_cursor: h.page.next_cursor }
    }
}

impl From<Page<FindingRow>> for ListFindingsDto {
    fn from(p: Page<FindingRow>) -> Self {
        ListFindingsDto { findings: p.rows.iter().map(FindingDto::from).collect(), next_cursor: p.next_cursor }
    }
}
