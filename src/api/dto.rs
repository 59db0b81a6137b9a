//! The REST bodies, exactly as the spec shapes them (explicit nulls, lowercase enums, RFC 3339):
//! `GetScan` from the typed report, the others from the protobuf responses of the one service
//! implementation.

use super::convert::{datetime, mode_from_proto, rfc3339, severity_from_proto, status_from_proto, struct_to_json, triggered_from_proto};
use crate::model::{ScanInfo, ScanReport, SeverityCounts};
use crate::proto::v1 as pb;
use serde::Serialize;
use serde_json::Value;

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

#[derive(Debug, Serialize)]
pub struct ListFindingsDto {
    pub findings: Vec<FindingDto>,
    pub next_cursor: Option<String>,
}

fn ts(t: &Option<prost_types::Timestamp>) -> Option<String> {
    t.as_ref().map(rfc3339)
}

impl From<&pb::Scan> for ScanDto {
    fn from(s: &pb::Scan) -> Self {
        let c = s.findings_count.clone().unwrap_or_default();
        ScanInfo {
            id: s.id.clone(),
            target_url: s.target_url.clone(),
            target_hostname: s.target_hostname.clone(),
            mode: mode_from_proto(s.mode),
            status: status_from_proto(s.status),
            started_at: s.started_at.as_ref().map(datetime),
            completed_at: s.completed_at.as_ref().map(datetime),
            findings_count: SeverityCounts { critical: c.critical, high: c.high, medium: c.medium, low: c.low, info: c.info },
            triggered_by: triggered_from_proto(s.triggered_by),
            created_at: s.created_at.as_ref().map(datetime).unwrap_or_default(),
        }
    }
}

impl From<&pb::Finding> for FindingDto {
    fn from(f: &pb::Finding) -> Self {
        FindingDto {
            id: f.id.clone(),
            scan_id: f.scan_id.clone(),
            check_id: f.check_id.clone(),
            severity: severity_from_proto(f.severity).as_str(),
            title: f.title.clone(),
            description: f.description.clone(),
            evidence: f.evidence.as_ref().map(struct_to_json),
            remediation: f.remediation.clone(),
            cwe_id: f.cwe_id.clone(),
            created_at: ts(&f.created_at).unwrap_or_default(),
        }
    }
}

impl From<pb::CreateScanResponse> for CreateScanDto {
    fn from(r: pb::CreateScanResponse) -> Self {
        CreateScanDto { id: r.id, status: status_from_proto(r.status).as_str(), target: r.target, mode: mode_from_proto(r.mode).as_str() }
    }
}

impl From<pb::ListScansResponse> for ListScansDto {
    fn from(r: pb::ListScansResponse) -> Self {
        ListScansDto { scans: r.scans.iter().map(ScanDto::from).collect(), next_cursor: r.next_cursor }
    }
}

impl From<ScanReport> for GetScanDto {
    fn from(r: ScanReport) -> Self {
        GetScanDto { report: r.report.as_ref().and_then(|report| serde_json::to_value(report).ok()), scan: r.scan }
    }
}

impl From<pb::ListFindingsResponse> for ListFindingsDto {
    fn from(r: pb::ListFindingsResponse) -> Self {
        ListFindingsDto { findings: r.findings.iter().map(FindingDto::from).collect(), next_cursor: r.next_cursor }
    }
}
