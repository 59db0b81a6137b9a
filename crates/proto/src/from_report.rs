//! The typed report (`model::Report`) and its findings as the wire's messages: what `GetScan`
//! answers over gRPC and, written by `json`, over REST.

use crate::from_model::{assertion_level_to_proto, changes_to_proto, counts_to_proto, severity_to_proto, timestamp};
use crate::json::{json_to_value, map_to_struct};
use crate::model::{BudgetResult, Change, ChecksNotRun, Report, ReportPage, ReportSummary, ScanTrigger, StoredFinding};
use crate::v1 as pb;
use chrono::{DateTime, Utc};
use serde_json::Value;

/// A timestamp of the model as a protobuf timestamp.
pub fn timestamp_of(t: &DateTime<Utc>) -> prost_types::Timestamp {
    timestamp(t.timestamp_micros())
}

// `copy_finding_fields`: the fields named and typed alike in `model::Finding` and the message.
include!(concat!(env!("OUT_DIR"), "/finding_fields.rs"));

/// A stored finding as the `Finding` message of `/api/v1/findings` (no `change`: that is the
/// report's verdict against its baseline, [`report_finding_to_proto`]). The fields listed here
/// are those the build script leaves to this hand (`FINDING_FIELDS_BY_HAND`); every other field
/// is copied by name.
pub fn finding_to_proto(stored: &StoredFinding) -> pb::Finding {
    let f = &stored.finding;
    let text = |s: &str| Some(s.to_string()).filter(|s| !s.is_empty());
    let mut message = pb::Finding {
        id: stored.id.to_string(),
        scan_id: stored.scan_id.to_string(),
        check_id: f.check_id.clone(),
        severity: severity_to_proto(f.severity) as i32,
        title: text(&f.title),
        description: text(&f.description),
        evidence: (!f.evidence.is_empty()).then(|| map_to_struct(&f.evidence)),
        remediation: text(&f.remediation),
        created_at: Some(timestamp_of(&stored.created_at)),
        change: None,
        ..pb::Finding::default()
    };
    copy_finding_fields(f, &mut message);
    message
}

/// A finding of a report: the `Finding` message with its `change` once the scan was compared.
pub fn report_finding_to_proto(stored: &StoredFinding) -> pb::Finding {
    let change = stored.change.map(|c| match c {
        Change::New => pb::FindingChange::New,
        Change::Persisting => pb::FindingChange::Persisting,
    } as i32);
    pb::Finding { change, ..finding_to_proto(stored) }
}

/// The report as its message.
pub fn report_to_proto(report: &Report) -> pb::Report {
    let findings = |list: &Option<Vec<StoredFinding>>| list.as_ref().map(|l| pb::ReportFindings { items: l.iter().map(report_finding_to_proto).collect() });
    pb::Report {
        summary: Some(summary_to_proto(&report.summary)),
        pages: report.pages.as_ref().map(|pages| pb::ReportPages { items: pages.iter().map(page_to_proto).collect() }),
        findings: findings(&report.findings),
        fixed: findings(&report.fixed),
    }
}

fn summary_to_proto(s: &ReportSummary) -> pb::ReportSummary {
    pb::ReportSummary {
        pages_scanned: s.pages_scanned,
        duration_ms: s.duration_ms,
        categories: s.categories.iter().map(|(k, v)| (k.clone(), counts_to_proto(v))).collect(),
        error: s.error.as_ref().map(|e| pb::ScanError { code: e.code.clone(), message: e.message.clone() }),
        changes: s.changes.as_ref().map(changes_to_proto),
        trigger: s.trigger.as_ref().map(trigger_to_proto),
        capped: s.capped.map(|c| pb::CappedCounts { findings_truncated: c.findings_truncated, instances_omitted: c.instances_omitted, findings_omitted: c.findings_omitted }),
        budget: s.budget.as_ref().map(budget_to_proto),
        site_checks_not_run: s.site_checks_not_run.iter().map(check_not_run).collect(),
        checks_not_run: s.checks_not_run.as_ref().map(checks_not_run_to_proto),
        level: s.level.map(|l| l.as_str().to_string()),
    }
}

fn check_not_run(n: &crate::model::CheckNotRun) -> pb::CheckNotRun {
    pb::CheckNotRun { check_id: n.check_id.clone(), reason: n.reason.clone() }
}

fn checks_not_run_to_proto(c: &ChecksNotRun) -> pb::ChecksNotRun {
    pb::ChecksNotRun {
        pages: c.pages,
        checks: c.checks,
        reasons: c
            .reasons
            .iter()
            .map(|r| pb::NotRunReason { reason: r.reason.clone(), pages: r.pages, check_ids: r.check_ids.clone(), example_url: r.example_url.clone() })
            .collect(),
    }
}

fn budget_to_proto(b: &BudgetResult) -> pb::BudgetVerdict {
    pb::BudgetVerdict {
        passed: b.passed,
        assertions: b
            .assertions
            .iter()
            .map(|a| pb::AssertionResult {
                assertion: a.assertion.clone(),
                level: assertion_level_to_proto(a.level) as i32,
                max: a.max,
                min_severity: a.min_severity.map(|s| severity_to_proto(s) as i32),
                actual: a.actual,
                passed: a.passed,
                message: a.message.clone(),
            })
            .collect(),
    }
}

/// An RFC 3339 text as a timestamp (`None` when it is not one).
fn parsed_time(text: &Option<String>) -> Option<prost_types::Timestamp> {
    let t = DateTime::parse_from_rfc3339(text.as_deref()?).ok()?;
    Some(timestamp(t.timestamp_micros()))
}

fn trigger_to_proto(t: &ScanTrigger) -> pb::ScanTrigger {
    pb::ScanTrigger {
        kind: t.kind.clone(),
        schedule_id: t.schedule_id.clone(),
        cron: t.cron.clone(),
        timezone: t.timezone.clone(),
        due_at: parsed_time(&t.due_at),
        monitor_id: t.monitor_id.clone(),
        detected_at: parsed_time(&t.detected_at),
        changes: t
            .changes
            .iter()
            .map(|c| pb::MonitorChange { field: c.field.clone(), before: Some(json_to_value(&c.before)), after: Some(json_to_value(&c.after)) })
            .collect(),
    }
}

fn page_to_proto(p: &ReportPage) -> pb::ReportPage {
    let number = |key: &str| p.metrics.get(key).and_then(Value::as_f64);
    let count = |key: &str| p.metrics.get(key).and_then(Value::as_u64);
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).unwrap_or_default().to_string();
    pb::ReportPage {
        url: p.url.clone(),
        final_url: p.final_url.clone(),
        status: p.status.map(u32::from),
        title: p.title.clone(),
        metrics: p.metrics.is_object().then(|| pb::PageMetrics {
            ttfb_ms: number("ttfb_ms"),
            fcp_ms: number("fcp_ms"),
            lcp_ms: number("lcp_ms"),
            cls: number("cls"),
            tbt_ms: number("tbt_ms"),
            transfer_bytes: count("transfer_bytes"),
            requests: count("requests"),
        }),
        error: p.error.as_ref().filter(|e| e.is_object()).map(|e| pb::PageError { kind: text(e, "kind"), message: text(e, "message") }),
        checks_not_run: p.checks_not_run.iter().map(check_not_run).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Finding, Severity};

    #[test]
    #[allow(clippy::needless_update, reason = "a field added to Finding is held here at its default")]
    fn the_finding_message_says_what_the_stored_finding_serialises_to() {
        let stored = StoredFinding {
            change: Some(Change::New),
            id: uuid::Uuid::now_v7(),
            scan_id: uuid::Uuid::now_v7(),
            finding: Finding {
                check_id: "forms.insecure-action".into(),
                severity: Severity::High,
                title: "Form submits over http".into(),
                description: "d".into(),
                remediation: "r".into(),
                cwe_id: Some("CWE-319".into()),
                help_url: Some("https://developer.mozilla.org/".into()),
                evidence: serde_json::json!({"url": "https://a.test/", "selector": "form"}).as_object().cloned().unwrap(),
                ..Finding::default()
            },
            created_at: chrono::DateTime::from_timestamp_micros(1_700_000_000_000_001).unwrap(),
        };
        let serde = serde_json::to_value(&stored).unwrap();
        let wire = crate::json::to_value(&report_finding_to_proto(&stored)).unwrap();
        // Every key of the model's finding, those copied by name included, reaches the wire alike.
        for (key, want) in serde.as_object().unwrap() {
            assert_eq!(&wire[key], want, "{key}");
        }
        assert_eq!(wire.as_object().unwrap().len(), serde.as_object().unwrap().len(), "{wire}");
    }
}
