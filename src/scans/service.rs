//! The scan service (see the module comment of `scans`).

use super::query::{self, FINDINGS_LIMIT, FindingsQuery, Issue, ListQuery, SCANS_LIMIT};
use crate::events::ScanProgress;
use crate::model::{AddressPolicy, OrgId, ScanMode, ScanReport, Target, TriggeredBy};
use crate::store::{CreateOutcome, CursorKind, FindingRow, Page, QuotaExceeded, ScanRow, Store, StoreError, StoreResult};
use tokio::sync::mpsc;
use uuid::Uuid;

/// Why a request was refused.
#[derive(Debug, thiserror::Error)]
pub enum ScanServiceError {
    /// Every rule the input breaks, by field.
    #[error("invalid input: {}", .0.iter().map(|i| format!("{}: {}", i.path, i.message)).collect::<Vec<_>>().join("; "))]
    Invalid(Vec<Issue>),
    /// No such scan in the organisation (or an id that is none).
    #[error("no such scan")]
    NotFound,
    #[error("the organisation's monthly scan quota ({}) is used up", .0.limit)]
    QuotaExceeded(QuotaExceeded),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl ScanServiceError {
    fn invalid(path: &str, message: impl Into<String>) -> Self {
        ScanServiceError::Invalid(vec![Issue::new(path, message)])
    }
}

fn refused_if(issues: Vec<Issue>) -> Result<(), ScanServiceError> {
    if issues.is_empty() { Ok(()) } else { Err(ScanServiceError::Invalid(issues)) }
}

/// Scans over the store, under the address policy targets are held to.
#[derive(Debug, Clone)]
pub struct ScanService {
    store: Store,
    policy: AddressPolicy,
}

impl ScanService {
    pub fn new(store: Store, policy: AddressPolicy) -> Self {
        ScanService { store, policy }
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn policy(&self) -> &AddressPolicy {
        &self.policy
    }

    /// Queues a passive scan of `target` (held to the address policy), within the
    /// organisation's monthly quota.
    pub async fn create(&self, org: OrgId<'_>, target: &str, triggered_by: TriggeredBy) -> Result<ScanRow, ScanServiceError> {
        let target = Target::parse(target, &self.policy).map_err(|e| ScanServiceError::invalid("target", e.to_string()))?;
        match self.store.create_scan(org.as_str(), &target, ScanMode::Passive, triggered_by, None).await? {
            CreateOutcome::Created(row) => Ok(row),
            CreateOutcome::QuotaExceeded(q) => {
                crate::metrics::metrics().quota_exceeded.inc();
                Err(ScanServiceError::QuotaExceeded(q))
            }
        }
    }

    /// The organisation's scans, newest first, a page at a time.
    pub async fn list(&self, org: OrgId<'_>, page: &ListQuery) -> Result<Page<ScanRow>, ScanServiceError> {
        let mut issues = Vec::new();
        let limit = query::limit(page.limit, SCANS_LIMIT, &mut issues);
        let cursor = query::cursor(self.store.cursors(), CursorKind::Scans, page.cursor.as_deref(), &mut issues);
        refused_if(issues)?;
        Ok(self.store.list_scans(org.as_str(), limit, cursor).await?)
    }

    /// One scan of the organisation (an id of another organisation's scan, or no id at all, is
    /// `NotFound`).
    pub async fn get(&self, org: OrgId<'_>, scan_id: &str) -> Result<ScanRow, ScanServiceError> {
        let id = Uuid::parse_str(scan_id.trim()).map_err(|_| ScanServiceError::NotFound)?;
        self.store.scan(org.as_str(), id).await?.ok_or(ScanServiceError::NotFound)
    }

    /// A scan's typed report, with its findings or their per-category summary.
    pub async fn report(&self, org: OrgId<'_>, scan_id: &str, include_findings: bool) -> Result<ScanReport, ScanServiceError> {
        let id = Uuid::parse_str(scan_id.trim()).map_err(|_| ScanServiceError::NotFound)?;
        self.store.scan_report(org.as_str(), id, include_findings).await?.ok_or(ScanServiceError::NotFound)
    }

    /// The organisation's findings, newest first, filtered, a page at a time.
    pub async fn findings(&self, org: OrgId<'_>, q: &FindingsQuery) -> Result<Page<FindingRow>, ScanServiceError> {
        let (filter, limit, cursor) = self.findings_filter(q)?;
        Ok(self.store.list_findings(org.as_str(), &filter, limit, cursor).await?)
    }

    /// The first `max` findings `q` selects (its page ignored), newest first: an export.
    pub async fn all_findings(&self, org: OrgId<'_>, q: &FindingsQuery, max: usize) -> Result<Vec<FindingRow>, ScanServiceError> {
        let (filter, _, _) = self.findings_filter(q)?;
        let mut out = Vec::new();
        let mut cursor = None;
        while out.len() < max {
            let page = self.store.list_findings(org.as_str(), &filter, FINDINGS_LIMIT.2 as u64, cursor).await?;
            out.extend(page.rows);
            let Some(next) = page.next_cursor else { break };
            cursor = Some(self.store.cursors().decode(CursorKind::Findings, &next).map_err(|e| StoreError::Corrupt(format!("a cursor the store made: {e}")))?);
        }
        out.truncate(max);
        Ok(out)
    }

    fn findings_filter(&self, q: &FindingsQuery) -> Result<(crate::store::FindingFilter, u64, Option<crate::store::Position>), ScanServiceError> {
        let mut issues = Vec::new();
        let filter = q.filter(&mut issues);
        let limit = query::limit(q.page.limit, FINDINGS_LIMIT, &mut issues);
        let cursor = query::cursor(self.store.cursors(), CursorKind::Findings, q.page.cursor.as_deref(), &mut issues);
        refused_if(issues)?;
        Ok((filter, limit, cursor))
    }

    /// Follows a scan of the organisation until it ends: its state, then every change.
    pub async fn watch(&self, org: OrgId<'_>, scan_id: &str) -> Result<mpsc::Receiver<StoreResult<ScanProgress>>, ScanServiceError> {
        let scan = self.get(org, scan_id).await?;
        Ok(crate::events::watch(self.store.clone(), scan, crate::events::WATCH_POLL))
    }
}
