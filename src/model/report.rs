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
    /// What sitescan's budgets cut from this report (absent when nothing was cut).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capped: Option<CappedCounts>,
    /// The budget's verdict, assertion by assertion (absent when no budget applied).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<super::BudgetResult>,
    /// Site checks that did not judge the site, and why (a site gatherer they need failed, or
    /// the check itself failed); absent when every site check ran. Their absence of findings is
    /// not a pass.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub site_checks_not_run: Vec<super::CheckNotRun>,
}

/// `report.summary.capped`: what the report's budgets left out, so a reader knows the report is
/// not the whole story (README "Limits").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CappedCounts {
    /// Findings stored with a value cut to the per-value or per-finding budget
    /// (`evidence.truncated`).
    pub findings_truncated: u64,
    /// Instances of a check on a page past the per-page cap, counted in the last kept one's
    /// `evidence.omitted`.
    pub instances_omitted: u64,
    /// Findings not stored at all because the scan reached its ceiling.
    pub findings_omitted: u64,
}

impl CappedCounts {
    /// Adds `other`'s counts.
    pub fn add(&mut self, other: CappedCounts) {
        self.findings_truncated += other.findings_truncated;
        self.instances_omitted += other.instances_omitted;
        self.findings_omitted += other.findings_omitted;
    }

    /// `Some(self)` when anything was cut.
    pub fn any(self) -> Option<CappedCounts> {
        (self != CappedCounts::default()).then_some(self)
    }

    /// What one run of the checks cut from `findings`.
    pub fn of_findings(findings: &[super::Finding]) -> CappedCounts {
        CappedCounts {
            findings_truncated: findings.iter().filter(|f| f.evidence.get("truncated") == Some(&serde_json::Value::Bool(true))).count() as u64,
            instances_omitted: findings.iter().filter_map(|f| f.evidence.get("omitted").and_then(serde_json::Value::as_u64)).sum(),
            findings_omitted: 0,
        }
    }
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
            capped: None,
            budget: None,
            site_checks_not_run: Vec::new(),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_checks_not_run_are_in_the_summary_only_when_some_did_not_run() {
        let mut summary = ReportSummary::empty();
        let json = serde_json::to_value(&summary).unwrap();
        assert!(json.get("site_checks_not_run").is_none(), "absent when every site check ran: {json}");
        summary.site_checks_not_run.push(super::super::CheckNotRun {
            check_id: "crawlability.sitemap-invalid".into(),
            reason: "the sitemaps gatherer failed: parser error".into(),
        });
        let json = serde_json::to_value(&summary).unwrap();
        assert_eq!(json["site_checks_not_run"][0]["check_id"], "crawlability.sitemap-invalid");
        let back: ReportSummary = serde_json::from_value(json).unwrap();
        assert_eq!(back.site_checks_not_run, summary.site_checks_not_run, "stored and read back");
        let old: ReportSummary = serde_json::from_value(serde_json::to_value(ReportSummary::empty()).unwrap()).unwrap();
        assert!(old.site_checks_not_run.is_empty(), "a report stored before the field reads as all run");
    }
}
