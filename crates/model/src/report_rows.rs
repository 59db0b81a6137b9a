//! The report's parts read from the stored rows: a scan's stored summary and fixed findings, its
//! pages and its findings as the report every edge renders (`ScanInfo`, `ReportPage`,
//! `StoredFinding`).

use crate::records::{PageRow, ScanRow};
use crate::time::to_datetime;
use crate::{CheckNotRun, ReportPage, ReportSummary, ScanInfo, SeverityCounts, StoredReport, report_numbers};
use serde_json::Value;

impl ScanRow {
    /// The summary stored when the scan ended (`None` before, or when it cannot be read).
    pub fn summary(&self) -> Option<ReportSummary> {
        stored(self).ok().flatten().map(|report| report.summary)
    }

    /// The report stored when the scan ended: its summary and the findings fixed since the
    /// baseline (`None` until the scan has run; an error when the stored text cannot be read).
    pub fn stored_report(&self) -> Result<Option<StoredReport>, serde_json::Error> {
        stored(self)
    }
}

/// The report stored when the scan ended: its summary and the findings fixed since the baseline
/// (`None` until the scan has run).
/// Reports stored before the report was typed went through protobuf `Struct` (every number a
/// double); their free-form values are read with the report's numbers.
fn stored(row: &ScanRow) -> Result<Option<StoredReport>, serde_json::Error> {
    let Some(text) = row.report.as_deref() else { return Ok(None) };
    let StoredReport { summary, fixed } = serde_json::from_str(text)?;
    let fixed = fixed.map(|list| {
        list.into_iter()
            .map(|mut f| {
                f.finding.evidence = std::mem::take(&mut f.finding.evidence).into_iter().map(|(k, v)| (k, report_numbers(v))).collect();
                f
            })
            .collect()
    });
    Ok(Some(StoredReport { summary, fixed }))
}

/// A stored JSON column, with the report's numbers.
pub fn json_column(text: Option<&str>) -> Option<Value> {
    text.and_then(|t| serde_json::from_str(t).ok()).map(report_numbers)
}

impl From<&ScanRow> for ScanInfo {
    fn from(row: &ScanRow) -> Self {
        ScanInfo {
            id: row.id.to_string(),
            target_url: row.target_url.clone(),
            target_hostname: row.target_hostname.clone(),
            mode: row.mode,
            status: row.status,
            started_at: row.started_at.map(to_datetime),
            completed_at: row.completed_at.map(to_datetime),
            findings_count: row.findings_count.as_deref().and_then(|c| serde_json::from_str::<SeverityCounts>(c).ok()).unwrap_or_default(),
            triggered_by: row.triggered_by,
            created_at: to_datetime(row.created_at),
        }
    }
}

impl From<&PageRow> for ReportPage {
    fn from(p: &PageRow) -> Self {
        ReportPage {
            url: p.url.clone(),
            final_url: p.final_url.clone(),
            status: p.status.and_then(|s| u16::try_from(s).ok()),
            title: p.title.clone(),
            metrics: json_column(p.metrics.as_deref()).unwrap_or(Value::Null),
            error: json_column(p.error.as_deref()).filter(|e| !e.is_null()),
            checks_not_run: p
                .checks_not_run
                .as_deref()
                .and_then(|c| serde_json::from_str::<Vec<CheckNotRun>>(c).ok())
                .unwrap_or_default(),
        }
    }
}
