//! Any two scans of one target compared, as the dashboard's compare view shows them: the
//! findings new in the head, fixed since the base and persisting (the same fingerprints and
//! coverage rules as the comparison with the baseline at completion), pages added and gone, and
//! each page's Core Web Vitals before and after.

use super::changes::{ChangeCounts, Coverage, Fingerprint, compare};
use crate::model::ReportPage;
use crate::store::{ScanRow, Store, StoreResult, StoredFinding};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// A page's vitals in the base and the head (`None`: not measured there).
#[derive(Debug, Clone, PartialEq)]
pub struct VitalsChange {
    pub url: String,
    pub lcp_ms: (Option<f64>, Option<f64>),
    pub cls: (Option<f64>, Option<f64>),
    pub tbt_ms: (Option<f64>, Option<f64>),
}

/// Two scans compared.
#[derive(Debug, Clone, Default)]
pub struct ScanDiff {
    pub counts: ChangeCounts,
    pub new: Vec<StoredFinding>,
    pub fixed: Vec<StoredFinding>,
    pub persisting: Vec<StoredFinding>,
    /// Findings per category: (category, base, head).
    pub categories: Vec<(String, u64, u64)>,
    pub pages_added: Vec<String>,
    pub pages_gone: Vec<String>,
    /// Pages in both, where a vital was measured in either.
    pub vitals: Vec<VitalsChange>,
}

fn fingerprints(rows: &[StoredFinding]) -> Vec<Fingerprint> {
    rows.iter().map(|r| Fingerprint::new(&r.finding.check_id, Some(&r.finding.evidence))).collect()
}

fn category_counts(rows: &[StoredFinding]) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for r in rows {
        *out.entry(r.finding.category().to_string()).or_default() += 1;
    }
    out
}

/// Compares `head` with `base` (read only: nothing is recorded).
pub async fn diff_scans(store: &Store, base: &ScanRow, head: &ScanRow) -> StoreResult<ScanDiff> {
    // Only what a comparison reads of each finding, a batch of whole rows at a time: two scans
    // of 50,000 findings of 16 KiB evidence each are not held whole.
    let previous = store.scan_findings_slim(base.id).await?;
    let current = store.scan_findings_slim(head.id).await?;
    let base_pages: Vec<ReportPage> = store.scan_pages(base.id).await?.iter().map(ReportPage::from).collect();
    let head_pages: Vec<ReportPage> = store.scan_pages(head.id).await?.iter().map(ReportPage::from).collect();
    let (previous_pages, _) = Coverage::pages_of(&base_pages);
    let (_, current_pages) = Coverage::pages_of(&head_pages);
    let site_not_run = head.summary().map(|s| s.site_checks_not_run.into_iter().map(|n| n.check_id).collect()).unwrap_or_default();
    let coverage = Coverage { previous_pages, current_pages, not_run: Coverage::not_run_of(&head_pages), site_not_run };
    let base_id = base.id.to_string();
    let comparison = compare(&fingerprints(&current), Some((&base_id, &fingerprints(&previous))), &coverage);
    let mut diff = ScanDiff { counts: comparison.counts.clone(), ..ScanDiff::default() };
    for (row, change) in current.iter().zip(&comparison.current) {
        match change {
            super::changes::Change::Persisting => diff.persisting.push(row.clone()),
            _ => diff.new.push(row.clone()),
        }
    }
    diff.fixed = comparison.fixed.iter().filter_map(|&i| previous.get(i).cloned()).collect();
    let (before, after) = (category_counts(&previous), category_counts(&current));
    let names: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    diff.categories = names.into_iter().map(|c| (c.clone(), before.get(c).copied().unwrap_or(0), after.get(c).copied().unwrap_or(0))).collect();
    let url_of = |p: &ReportPage| p.final_url.clone().unwrap_or_else(|| p.url.clone());
    let base_urls: BTreeMap<String, &ReportPage> = base_pages.iter().map(|p| (url_of(p), p)).collect();
    let head_urls: BTreeMap<String, &ReportPage> = head_pages.iter().map(|p| (url_of(p), p)).collect();
    diff.pages_added = head_urls.keys().filter(|u| !base_urls.contains_key(*u)).cloned().collect();
    diff.pages_gone = base_urls.keys().filter(|u| !head_urls.contains_key(*u)).cloned().collect();
    let metric = |p: &ReportPage, key: &str| p.metrics.get(key).and_then(Value::as_f64).filter(|v| v.is_finite());
    for (url, h) in &head_urls {
        let Some(b) = base_urls.get(url) else { continue };
        let change = VitalsChange {
            url: url.clone(),
            lcp_ms: (metric(b, "lcp_ms"), metric(h, "lcp_ms")),
            cls: (metric(b, "cls"), metric(h, "cls")),
            tbt_ms: (metric(b, "tbt_ms"), metric(h, "tbt_ms")),
        };
        let measured = |(x, y): (Option<f64>, Option<f64>)| x.is_some() || y.is_some();
        if measured(change.lcp_ms) || measured(change.cls) || measured(change.tbt_ms) {
            diff.vitals.push(change);
        }
    }
    Ok(diff)
}
