//! The body of every webhook delivery, built as its message of `proto/sitescan/v1/webhooks.proto`
//! and written by the REST API's JSON conventions (`proto::json`): the served OpenAPI document's
//! `webhooks:` are generated from the same messages, so what is sent and what is documented
//! cannot drift apart. Chat endpoints get the standard body with a few more fields in `data`
//! (what their message shows); those stay internal, never sent as JSON.

use super::webhooks::WebhookError;
use crate::model::{ChangeCounts, ChecksNotRun, ScanRow, Severity, SeverityCounts};
use crate::proto::from_model::{assertion_level_to_proto, changes_to_proto, counts_to_proto, mode_to_proto, severity_to_proto, status_to_proto, timestamp};
use crate::proto::v1 as pb;
use serde_json::{Map, Value};
use uuid::Uuid;

/// At most this many reasons in `checks_not_run` (the report's summary has them all).
const MAX_REASONS: usize = 5;

/// The JSON body of `event`, with `extra` fields added to its `data` (chat endpoints only).
pub fn body<M: prost::Message + prost::Name>(event: &M, extra: Option<&Map<String, Value>>) -> Result<String, WebhookError> {
    let mut value = crate::proto::json::to_value(event).map_err(|e| WebhookError::Invalid(format!("the {} body could not be written: {e}", M::NAME)))?;
    if let (Some(extra), Some(data)) = (extra, value.get_mut("data").and_then(Value::as_object_mut)) {
        data.extend(extra.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    Ok(value.to_string())
}

/// The `data` of `scan.completed`, `scan.failed` and `scan.regressed` (the last adds
/// [`regressed`]'s fields).
pub fn scan_data(scan: &ScanRow, completed: bool, findings_count: Option<SeverityCounts>, changes: Option<&ChangeCounts>, gaps: Option<&ChecksNotRun>) -> pb::ScanEventData {
    let status = if completed { crate::model::ScanStatus::Completed } else { crate::model::ScanStatus::Failed };
    pb::ScanEventData {
        scan_id: scan.id.to_string(),
        target_url: scan.target_url.clone(),
        mode: mode_to_proto(scan.mode) as i32,
        status: status_to_proto(status) as i32,
        findings_count: findings_count.as_ref().map(counts_to_proto),
        changes: changes.map(changes_to_proto),
        checks_not_run: gaps.map(|g| pb::ChecksNotRunCounts {
            pages: g.pages,
            checks: g.checks,
            reasons: g.reasons.iter().take(MAX_REASONS).map(|r| pb::NotRunReasonCount { reason: r.reason.clone(), pages: r.pages }).collect(),
        }),
        min_severity: None,
        new_at_or_above: None,
    }
}

/// `data` of `scan.regressed`: `data` with the endpoint's minimum severity and how many new
/// findings reach it.
pub fn regressed(data: &pb::ScanEventData, min: Severity, reached: usize) -> pb::ScanEventData {
    pb::ScanEventData { min_severity: Some(severity_to_proto(min) as i32), new_at_or_above: Some(reached as u64), ..data.clone() }
}

/// A scan event of `kind` (`scan.completed`, ...) at `now` (microseconds).
pub fn scan_event(kind: &str, now: i64, data: pb::ScanEventData) -> pb::ScanEvent {
    pb::ScanEvent { r#type: kind.to_string(), timestamp: Some(timestamp(now)), data: Some(data) }
}

/// `scan.budget_failed`: the failing `error` assertions of a site's budget and where to look.
pub fn budget_failed(now: i64, scan_id: Uuid, target_url: &str, site_id: Uuid, failed: &[&crate::model::budget::AssertionResult]) -> pb::BudgetFailedEvent {
    pb::BudgetFailedEvent {
        r#type: "scan.budget_failed".into(),
        timestamp: Some(timestamp(now)),
        data: Some(pb::BudgetFailedData {
            scan_id: scan_id.to_string(),
            target_url: target_url.to_string(),
            site_id: site_id.to_string(),
            failed_assertions: failed
                .iter()
                .map(|a| pb::FailedAssertion { assertion: a.assertion.clone(), level: assertion_level_to_proto(a.level) as i32, max: a.max, actual: a.actual, message: a.message.clone() })
                .collect(),
            links: Some(pb::ScanLinks { scan: format!("/scans/{scan_id}"), api: format!("/api/v1/scans/{scan_id}") }),
        }),
    }
}

/// `monitor.triggered`: the monitor, the scan it started and the fields that changed.
pub fn monitor_triggered(now: i64, monitor_id: Uuid, scan: &ScanRow, changed_fields: Vec<String>) -> pb::MonitorTriggeredEvent {
    pb::MonitorTriggeredEvent {
        r#type: "monitor.triggered".into(),
        timestamp: Some(timestamp(now)),
        data: Some(pb::MonitorTriggeredData {
            monitor_id: monitor_id.to_string(),
            site_id: scan.site_id.map(|s| s.to_string()),
            scan_id: scan.id.to_string(),
            target_url: scan.target_url.clone(),
            changed_fields,
        }),
    }
}

/// `site.ownership_lost`: the site, the scan that found out, and why.
pub fn ownership_lost(now: i64, site_id: Uuid, origin: &str, scan_id: Uuid, reason: String) -> pb::OwnershipLostEvent {
    pb::OwnershipLostEvent {
        r#type: "site.ownership_lost".into(),
        timestamp: Some(timestamp(now)),
        data: Some(pb::OwnershipLostData { site_id: site_id.to_string(), origin: origin.to_string(), scan_id: scan_id.to_string(), reason }),
    }
}

/// `webhook.test`.
pub fn test_event(now: i64, webhook_id: Uuid, org: &str) -> pb::TestEvent {
    pb::TestEvent { r#type: "webhook.test".into(), timestamp: Some(timestamp(now)), data: Some(pb::TestEventData { webhook_id: webhook_id.to_string(), org: org.to_string() }) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_scan_event_is_written_as_documented() {
        let data = pb::ScanEventData {
            scan_id: "s1".into(),
            target_url: "https://a.test/".into(),
            mode: pb::ScanMode::Passive as i32,
            status: pb::ScanStatus::Completed as i32,
            findings_count: Some(pb::SeverityCounts { high: 2, ..Default::default() }),
            ..Default::default()
        };
        let body: Value = serde_json::from_str(&body(&scan_event("scan.regressed", 1_700_000_000_000_001, regressed(&data, Severity::High, 2)), None).unwrap()).unwrap();
        assert_eq!(body["type"], "scan.regressed");
        assert_eq!(body["timestamp"], "2023-11-14T22:13:20.000001Z");
        assert_eq!(
            body["data"],
            json!({"scan_id": "s1", "target_url": "https://a.test/", "mode": "passive", "status": "completed",
                "findings_count": {"critical": 0, "high": 2, "medium": 0, "low": 0, "info": 0},
                "changes": null, "checks_not_run": null, "min_severity": "high", "new_at_or_above": 2})
        );
    }

    #[test]
    fn chat_fields_join_the_data() {
        let extra: Map<String, Value> = [("error".to_string(), json!("it broke"))].into_iter().collect();
        let body: Value = serde_json::from_str(&body(&test_event(0, Uuid::nil(), "acme"), Some(&extra)).unwrap()).unwrap();
        assert_eq!(body["data"], json!({"webhook_id": Uuid::nil().to_string(), "org": "acme", "error": "it broke"}));
        assert_eq!(body["timestamp"], "1970-01-01T00:00:00.000000Z");
    }
}
