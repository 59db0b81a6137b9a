//! A scan as it stands, for the dashboard's live scan page: its row, the recorded progress with
//! the pages actually stored, the findings so far by severity and the newest of them.

use super::entity::scan_page;
use super::{FindingFilter, StoredFinding, ScanRow, Store, StoreResult};
use crate::model::{ScanProgressState, ScanStatus, SeverityCounts};
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use uuid::Uuid;

/// Newest findings a live view shows.
pub const LATEST_FINDINGS: u64 = 10;

/// One scan, live.
#[derive(Debug, Clone)]
pub struct LiveScan {
    pub scan: ScanRow,
    /// The worker's recorded phase and pages found; pages done counted from the store, so the
    /// numbers never run behind the pages the report will list.
    pub progress: ScanProgressState,
    pub counts: SeverityCounts,
    /// Newest first, at most `LATEST_FINDINGS`.
    pub latest: Vec<StoredFinding>,
}

impl LiveScan {
    pub fn finished(&self) -> bool {
        matches!(self.scan.status, ScanStatus::Completed | ScanStatus::Failed)
    }
}

impl Store {
    /// The organisation's scan `id` as it stands, or `None` (no such scan in the organisation).
    pub async fn live_scan(&self, org: &str, id: Uuid) -> StoreResult<Option<LiveScan>> {
        let Some(scan) = self.scan(org, id).await? else { return Ok(None) };
        let done = scan_page::Entity::find().filter(scan_page::Column::ScanId.eq(id)).count(self.conn()).await?;
        let mut progress = scan.progress().unwrap_or_default();
        progress.pages_done = done;
        progress.pages_found = progress.pages_found.max(done);
        let counts = self.scan_severity_counts(id).await?;
        let filter = FindingFilter { scan_id: Some(id), ..FindingFilter::default() };
        let latest = self.list_findings(org, &filter, LATEST_FINDINGS, None).await?.rows;
        Ok(Some(LiveScan { scan, progress, counts, latest }))
    }
}
