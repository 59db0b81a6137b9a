//! Stored rows and the typed report to protobuf messages, protobuf enums to the model's, and
//! JSON to and from `google.protobuf.Struct`.

use crate::model::{ScanInfo, ScanReport, StoredFinding};
use crate::proto::from_model::{counts_to_proto, mode_to_proto, severity_to_proto, status_to_proto, timestamp, timestamp_us, triggered_to_proto};
use crate::proto::from_report::{report_to_proto, timestamp_of};
pub use crate::proto::from_report::finding_to_proto;
use crate::proto::v1 as pb;
pub use crate::proto::json::{json_to_struct, map_to_struct};
use crate::model::time::to_datetime;
use crate::model::ScanRow;
use crate::scans::Page;
use chrono::{DateTime, Utc};

/// A protobuf timestamp as a timestamp of the typed report.
pub fn datetime(ts: &prost_types::Timestamp) -> DateTime<Utc> {
    to_datetime(timestamp_us(ts))
}

pub fn scan_to_proto(row: &ScanRow) -> pb::Scan {
    scan_info_to_proto(&ScanInfo::from(row))
}

pub fn scan_info_to_proto(scan: &ScanInfo) -> pb::Scan {
    let counts = scan.findings_count;
    pb::Scan {
        id: scan.id.clone(),
        target_url: scan.target_url.clone(),
        target_hostname: scan.target_hostname.clone(),
        mode: mode_to_proto(scan.mode) as i32,
        status: status_to_proto(scan.status) as i32,
        started_at: scan.started_at.as_ref().map(timestamp_of),
        completed_at: scan.completed_at.as_ref().map(timestamp_of),
        findings_count: Some(counts_to_proto(&counts)),
        triggered_by: Some(triggered_to_proto(scan.triggered_by) as i32),
        created_at: Some(timestamp_of(&scan.created_at)),
    }
}

/// `GetScanResponse` of the typed report: the scan and its report (REST writes the same
/// message).
pub fn get_scan_to_proto(report: &ScanReport) -> pb::GetScanResponse {
    pb::GetScanResponse { scan: Some(scan_info_to_proto(&report.scan)), report: report.report.as_ref().map(report_to_proto) }
}

/// `CreateScanResponse` of the scan just created.
pub fn created_to_proto(row: &ScanRow) -> pb::CreateScanResponse {
    pb::CreateScanResponse {
        id: row.id.to_string(),
        status: status_to_proto(row.status) as i32,
        target: row.target_url.clone(),
        mode: mode_to_proto(row.mode) as i32,
    }
}

/// A page of scans.
pub fn scans_page_to_proto(page: &Page<ScanRow>) -> pb::ListScansResponse {
    pb::ListScansResponse { scans: page.rows.iter().map(scan_to_proto).collect(), next_cursor: page.next_cursor.clone() }
}

/// A page of findings.
pub fn findings_page_to_proto(page: &Page<StoredFinding>) -> pb::ListFindingsResponse {
    pb::ListFindingsResponse { findings: page.rows.iter().map(finding_to_proto).collect(), next_cursor: page.next_cursor.clone() }
}

/// RFC 3339 (microseconds, `Z`) of a protobuf timestamp.
pub fn rfc3339(ts: &prost_types::Timestamp) -> String {
    to_datetime(timestamp_us(ts)).to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}


/// A page of a site's history.
pub fn history_to_proto(h: &crate::scans::History) -> pb::ListScanHistoryResponse {
    pb::ListScanHistoryResponse {
        origin: h.origin.clone(),
        scans: h
            .page
            .rows
            .iter()
            .map(|p| pb::HistoryScan {
                scan_id: p.scan_id.to_string(),
                target: p.target.clone(),
                mode: mode_to_proto(p.mode) as i32,
                completed_at: Some(timestamp(p.completed_at)),
                findings_count: Some(counts_to_proto(&p.counts)),
                categories: p.categories.iter().map(|(k, v)| (k.clone(), *v)).collect(),
                lcp_p75_ms: p.lcp_p75_ms,
                cls_p75: p.cls_p75,
                tbt_p75_ms: p.tbt_p75_ms,
            })
            .collect(),
        next_cursor: h.page.next_cursor.clone(),
    }
}

/// Two scans compared.
pub fn comparison_to_proto(c: &crate::compare::ScanComparison) -> pb::CompareScansResponse {
    use crate::compare::view::{BeforeAfter, CheckGroup, ComparedScan};
    let side = |s: &ComparedScan| pb::ComparedScan {
        id: s.id.clone(),
        target: s.target.clone(),
        mode: mode_to_proto(s.mode) as i32,
        completed_at: chrono::DateTime::parse_from_rfc3339(&s.completed_at).ok().map(|t| timestamp(t.timestamp_micros())),
    };
    let groups = |gs: &[CheckGroup]| -> Vec<pb::CheckGroup> {
        gs.iter()
            .map(|g| pb::CheckGroup {
                check_id: g.check_id.clone(),
                severity: severity_to_proto(g.severity) as i32,
                count: g.count,
                findings: g
                    .findings
                    .iter()
                    .map(|f| pb::ComparedFinding { finding_id: f.finding_id.clone(), severity: severity_to_proto(f.severity) as i32, page_url: f.page_url.clone(), locator: f.locator.clone() })
                    .collect(),
                omitted: g.omitted,
            })
            .collect()
    };
    let pair = |v: BeforeAfter| Some(pb::BeforeAfter { base: v.base, head: v.head });
    pb::CompareScansResponse {
        base: Some(side(&c.base)),
        head: Some(side(&c.head)),
        counts: Some(pb::ComparisonCounts { new: c.counts.new, fixed: c.counts.fixed, persisting: c.counts.persisting }),
        new: groups(&c.new),
        fixed: groups(&c.fixed),
        persisting: groups(&c.persisting),
        categories: c.categories.iter().map(|x| pb::CategoryChange { category: x.category.clone(), base: x.base, head: x.head }).collect(),
        pages_added: c.pages_added.clone(),
        pages_gone: c.pages_gone.clone(),
        vitals: c.vitals.iter().map(|v| pb::PageVitals { url: v.url.clone(), lcp_ms: pair(v.lcp_ms), cls_score: pair(v.cls_score), tbt_ms: pair(v.tbt_ms) }).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn struct_round_trip_keeps_integers() {
        let v = json!({"a": 1, "b": 0.25, "c": [1, "x", null, true], "d": {"e": 1700000000}});
        assert_eq!(crate::proto::json::struct_to_json(&json_to_struct(&v).unwrap()), v);
        assert_eq!(timestamp_us(&timestamp(-1_500_001)), -1_500_001);
        assert_eq!(rfc3339(&timestamp(1_700_000_000_000_001)), "2023-11-14T22:13:20.000001Z");
    }
}
