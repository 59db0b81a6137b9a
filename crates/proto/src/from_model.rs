//! The model's values as the wire's: enums, timestamps and counts, for the API's answers and the
//! webhook deliveries alike.

use crate::model::budget::AssertionLevel;
use crate::model::{ChangeCounts, ScanMode, ScanStatus, Severity, SeverityCounts, TriggeredBy};
use super::v1 as pb;

/// A protobuf timestamp of microseconds since the epoch.
pub fn timestamp(us: i64) -> prost_types::Timestamp {
    prost_types::Timestamp { seconds: us.div_euclid(1_000_000), nanos: (us.rem_euclid(1_000_000) * 1000) as i32 }
}

/// Microseconds since the epoch of a protobuf timestamp.
pub fn timestamp_us(ts: &prost_types::Timestamp) -> i64 {
    ts.seconds * 1_000_000 + i64::from(ts.nanos) / 1000
}

pub fn status_to_proto(status: ScanStatus) -> pb::ScanStatus {
    match status {
        ScanStatus::Queued => pb::ScanStatus::Queued,
        ScanStatus::Running => pb::ScanStatus::Running,
        ScanStatus::Completed => pb::ScanStatus::Completed,
        ScanStatus::Failed => pb::ScanStatus::Failed,
    }
}

pub fn mode_to_proto(mode: ScanMode) -> pb::ScanMode {
    match mode {
        ScanMode::Passive => pb::ScanMode::Passive,
        ScanMode::Active => pb::ScanMode::Active,
    }
}

pub fn triggered_to_proto(t: TriggeredBy) -> pb::TriggeredBy {
    match t {
        TriggeredBy::Manual => pb::TriggeredBy::Manual,
        TriggeredBy::Api => pb::TriggeredBy::Api,
        TriggeredBy::Schedule => pb::TriggeredBy::Schedule,
        TriggeredBy::Monitor => pb::TriggeredBy::Monitor,
    }
}

pub fn severity_to_proto(s: Severity) -> pb::Severity {
    match s {
        Severity::Critical => pb::Severity::Critical,
        Severity::High => pb::Severity::High,
        Severity::Medium => pb::Severity::Medium,
        Severity::Low => pb::Severity::Low,
        Severity::Info => pb::Severity::Info,
    }
}

pub fn counts_to_proto(counts: &SeverityCounts) -> pb::SeverityCounts {
    pb::SeverityCounts { critical: counts.critical, high: counts.high, medium: counts.medium, low: counts.low, info: counts.info }
}

pub fn assertion_level_to_proto(level: AssertionLevel) -> pb::AssertionLevel {
    match level {
        AssertionLevel::Error => pb::AssertionLevel::Error,
        AssertionLevel::Warn => pb::AssertionLevel::Warn,
    }
}

/// `report.summary.changes`, as the report and the `scan.*` webhooks have it.
pub fn changes_to_proto(c: &ChangeCounts) -> pb::ScanChanges {
    pb::ScanChanges { new: c.new, fixed: c.fixed, persisting: c.persisting, baseline_scan_id: c.baseline_scan_id.clone() }
}
