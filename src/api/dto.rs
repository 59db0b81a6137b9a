//! The REST bodies, exactly as the spec shapes them (explicit nulls, lowercase enums, RFC 3339),
//! converted from the protobuf responses of the one service implementation.

use super::convert::{rfc3339, struct_to_json};
use crate::proto::v1 as pb;
use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Serialize)]
pub struct SeverityCountsDto {
    pub critical: u64,
    pub high: u64,
    pub medium: u64,
    pub low: u64,
    pub info: u64,
}

#[derive(Debug, Serialize)]
pub struct ScanDto {
    pub id: String,
    pub target_url: String,
    pub target_hostname: String,
    pub mode: &'static str,
    pub status: &'static str,
    pub started_at: Option<String>,
    pub completed_at: Option<String>,
    pub findings_count: SeverityCountsDto,
    pub triggered_by: &'static str,
    pub created_at: String,
}

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

pub fn status_str(v: i32) -> &'static str {
    match pb::ScanStatus::try_from(v) {
        Ok(pb::ScanStatus::Queued) => "queued",
        Ok(pb::ScanStatus::Running) => "running",
        Ok(pb::ScanStatus::Completed) => "completed",
        Ok(pb::ScanStatus::Failed) => "failed",
        _ => "queued",
    }
}

pub fn mode_str(v: i32) -> &'static str {
    match pb::ScanMode::try_from(v) {
        Ok(pb::ScanMode::Active) => "active",
        _ => "passive",
    }
}

fn triggered_str(v: i32) -> &'static str {
    match pb::TriggeredBy::try_from(v) {
        Ok(pb::TriggeredBy::Manual) => "manual",
        Ok(pb::TriggeredBy::Schedule) => "schedule",
        Ok(pb::TriggeredBy::Monitor) => "monitor",
        _ => "api",
    }
}

pub fn severity_str(v: i32) -> &'static str {
    match pb::Severity::try_from(v) {
        Ok(pb::Severity::Critical) => "critical",
        Ok(pb::Severity::High) => "high",
        Ok(pb::Severity::Medium) => "medium",
        Ok(pb::Severity::Low) => "low",
        _ => "info",
    }
}

fn ts(t: &Option<prost_types::Timestamp>) -> Option<String> {
    t.as_ref().map(rfc3339)
}

impl From<&pb::Scan> for ScanDto {
    fn from(s: &pb::Scan) -> Self {
        let c = s.findings_count.clone().unwrap_or_default();
        ScanDto {
            id: s.id.clone(),
            target_url: s.target_url.clone(),
            target_hostname: s.target_hostname.clone(),
            mode: mode_str(s.mode),
            status: status_str(s.status),
            started_at: ts(&s.started_at),
            completed_at: ts(&s.completed_at),
            findings_count: SeverityCountsDto {
                critical: c.critical,
                high: c.high,
                medium: c.medium,
                low: c.low,
                info: c.info,
            },
            triggered_by: triggered_str(s.triggered_by),
            created_at: ts(&s.created_at).unwrap_or_default(),
        }
    }
}

impl From<&pb::Finding> for FindingDto {
    fn from(f: &pb::Finding) -> Self {
        FindingDto {
            id: f.id.clone(),
            scan_id: f.scan_id.clone(),
            check_id: f.check_id.clone(),
            severity: severity_str(f.severity),
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
        CreateScanDto { id: r.id, status: status_str(r.status), target: r.target, mode: mode_str(r.mode) }
    }
}

impl From<pb::ListScansResponse> for ListScansDto {
    fn from(r: pb::ListScansResponse) -> Self {
        ListScansDto { scans: r.scans.iter().map(ScanDto::from).collect(), next_cursor: r.next_cursor }
    }
}

impl From<pb::GetScanResponse> for GetScanDto {
    fn from(r: pb::GetScanResponse) -> Self {
        GetScanDto {
            scan: ScanDto::from(&r.scan.unwrap_or_default()),
            report: r.report.as_ref().map(struct_to_json),
        }
    }
}

impl From<pb::ListFindingsResponse> for ListFindingsDto {
    fn from(r: pb::ListFindingsResponse) -> Self {
        ListFindingsDto { findings: r.findings.iter().map(FindingDto::from).collect(), next_cursor: r.next_cursor }
    }
}
