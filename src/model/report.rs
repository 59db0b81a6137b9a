//! The report object's summary (DESIGN.md "The report object").

use super::category::{ACTIVE_ONLY_CATEGORIES, PASSIVE_CATEGORIES};
use super::scan_state::ScanMode;
use super::severity::{Severity, SeverityCounts};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Why a scan failed (`summary.error`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReportError {
    /// `target_unreachable`, `target_blocked`, `target_timeout`, `ownership_unverified` (active
    /// scans), `retries_exhausted`, `internal`.
    pub code: String,
    pub message: String,
}

/// `report.summary`: pages scanned, duration, counts per category (every category of the scan's
/// mode, zeros included) and the error of a failed scan. Read leniently: what is missing is zero
/// or absent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReportSummary {
    pub pages_scanned: u64,
    pub duration_ms: u64,
    pub categories: BTreeMap<String, SeverityCounts>,
    pub error: Option<ReportError>,
    /// What changed since the previous completed scan of the same target and mode (completed
    /// scans only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<ChangeCounts>,
    /// Why a schedule or monitor started the scan (absent otherwise), as it was stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<serde_json::Value>,
}

/// `report.summary.changes`: findings new since the baseline scan, persisting from it, and
/// fixed (gone from pages this scan rendered again).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ChangeCounts {
    pub new: u64,
    pub fixed: u64,
    pub persisting: u64,
    /// The scan compared with; `None` when there was none (every finding is then new).
    pub baseline_scan_id: Option<String>,
}

impl ReportSummary {
    /// A summary with every passive category at zero.
    pub fn empty() -> Self {
        ReportSummary {
            pages_scanned: 0,
            duration_ms: 0,
            categories: PASSIVE_CATEGORIES.iter().map(|c| (c.to_string(), SeverityCounts::default())).collect(),
            error: None,
            changes: None,
            trigger: None,
        }
    }

    /// A summary with every category of `mode` at zero (active adds `journeys` and `repository`).
    pub fn for_mode(mode: ScanMode) -> Self {
        let mut summary = Self::empty();
        if mode == ScanMode::Active {
            for c in ACTIVE_ONLY_CATEGORIES {
                summary.categories.insert(c.to_string(), SeverityCounts::default());
            }
        }
        summary
    }

    /// The summary of a scan that could not run.
    pub fn failed(code: &str, message: &str) -> Self {
        Self::failed_in(ScanMode::Passive, code, message)
    }

    /// The summary of a scan of `mode` that could not run.
    pub fn failed_in(mode: ScanMode, code: &str, message: &str) -> Self {
        ReportSummary { error: Some(ReportError { code: code.into(), message: message.into() }), ..Self::for_mode(mode) }
    }

    /// Adds `n` findings of `check_id` at `severity` to its category.
    pub fn count(&mut self, check_id: &str, severity: Severity, n: u64) {
        let category = check_id.split_once('.').map_or(check_id, |(c, _)| c);
        self.categories.entry(category.to_string()).or_default().add(severity, n);
    }

    /// The totals over every category.
    pub fn totals(&self) -> SeverityCounts {
        let mut total = SeverityCounts::default();
        for counts in self.categories.values() {
            for s in Severity::ALL {
                total.add(s, counts.get(s));
            }
        }
        total
    }
}
