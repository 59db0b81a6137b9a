//! The comparison of a finished scan with its baseline (the previous completed scan of the same
//! target and mode in the organisation), run once when the scan completes.
//!
//! Computed at completion and stored, not at read time: the baseline is the scan that was
//! previous *then* (a later scan never rewrites an earlier report), reads stay one row and one
//! findings query, and the verdicts are there when the completion events go out.

use super::changes::{ChangeCounts, Coverage, Fingerprint, compare};
use crate::store::{PageRow, ScanRow, Store, StoreResult};
use crate::model::{ReportPage, StoredFinding};

/// What the comparison adds to the report.
#[derive(Debug, Clone, Default)]
pub struct ScanChanges {
    pub counts: ChangeCounts,
    /// The baseline's findings that went away, as the full report lists findings.
    pub fixed: Vec<StoredFinding>,
    /// The severity of each new finding (for `scan.regressed`).
    pub new_severities: Vec<crate::model::Severity>,
}

fn fingerprints(rows: &[StoredFinding]) -> Vec<Fingerprint> {
    rows.iter().map(|r| Fingerprint::new(&r.finding.check_id, Some(&r.finding.evidence))).collect()
}

fn report_pages(rows: &[PageRow]) -> Vec<ReportPage> {
    rows.iter().map(ReportPage::from).collect()
}

/// Compares `scan` (whose results are all stored) with its baseline and records each finding's
/// verdict; returns the counts and the fixed findings for the report.
/// `site_not_run`: the site checks that did not run this time (their earlier findings are not
/// fixed).
pub async fn compare_with_baseline(store: &Store, scan: &ScanRow, site_not_run: &[crate::model::CheckNotRun]) -> StoreResult<ScanChanges> {
    let Some(baseline) = store.baseline_scan(scan).await? else {
        // A first scan: every finding is new. Counted, not read (a big site's first scan has a
        // million findings).
        let mut new_severities = Vec::new();
        for (_, severity, n) in store.scan_check_counts(scan.id).await? {
            new_severities.extend(std::iter::repeat_n(severity, usize::try_from(n).unwrap_or(0)));
        }
        store.set_finding_changes(scan.id, &[]).await?;
        let counts = ChangeCounts { new: new_severities.len() as u64, ..ChangeCounts::default() };
        return Ok(ScanChanges { counts, fixed: Vec::new(), new_severities });
    };
    // What identifies each finding, a batch of whole rows at a time; the fixed ones are read
    // whole afterwards (the report lists them).
    let current = store.scan_findings_slim(scan.id).await?;
    let current_fp = fingerprints(&current);
    let previous = store.scan_findings_slim(baseline.id).await?;
    let previous_fp = fingerprints(&previous);
    let (previous_pages, _) = Coverage::pages_of(&report_pages(&store.scan_pages(baseline.id).await?));
    let pages_now = report_pages(&store.scan_pages(scan.id).await?);
    let (_, current_pages) = Coverage::pages_of(&pages_now);
    let not_run = Coverage::not_run_of(&pages_now);
    let site_not_run = site_not_run.iter().map(|n| n.check_id.clone()).collect();
    let coverage = Coverage { previous_pages, current_pages, not_run, site_not_run };
    let baseline_id = baseline.id.to_string();
    let comparison = compare(&current_fp, Some((&baseline_id, &previous_fp)), &coverage);
    let persisting: Vec<_> = current
        .iter()
        .zip(&comparison.current)
        .filter(|(_, c)| **c == super::changes::Change::Persisting)
        .map(|(r, _)| r.id)
        .collect();
    store.set_finding_changes(scan.id, &persisting).await?;
    let fixed_ids: Vec<uuid::Uuid> = comparison.fixed.iter().filter_map(|&i| previous.get(i).map(|r| r.id)).collect();
    let fixed = store.findings_by_ids(&fixed_ids).await?.into_iter().map(|r| StoredFinding { change: None, ..r }).collect();
    let new_severities = current
        .iter()
        .zip(&comparison.current)
        .filter(|(_, c)| **c == super::changes::Change::New)
        .map(|(r, _)| r.finding.severity)
        .collect();
    Ok(ScanChanges { counts: comparison.counts, fixed, new_severities })
}
