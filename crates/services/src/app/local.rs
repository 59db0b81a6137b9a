//! A one-shot scan in this process (`sitescan scan URL`): the same engine and the same store
//! code as the service, on an in-memory database of its own.

use crate::model::{ReportSummary, ScanMode, ScanReport, ScanRow, StoredReport, Target, TriggeredBy};
use crate::crawl::{Outcome, ProgressFn, RegionCache, ScanError, SiteScanner, WorkerConfig, run_claimed};
use crate::store::{CreateOutcome, Store, StoreError};
use tokio_util::sync::CancellationToken;

/// The organisation a local scan belongs to.
const LOCAL_ORG: &str = "local";

/// One scan, created and claimed by this process.
#[derive(Debug)]
pub struct LocalScan {
    store: Store,
    claimed: ScanRow,
    owner: String,
}

/// Opens the region cache kept in the SQLite file at `path` (`--cache FILE`).
pub async fn region_cache_file(path: &std::path::Path) -> Result<RegionCache, StoreError> {
    let url = format!("sqlite://{}?mode=rwc", path.display());
    Ok(RegionCache::new(std::sync::Arc::new(Store::open(&url, true).await?)))
}

impl LocalScan {
    /// Creates the scan of `target` on a fresh in-memory database and claims it for this
    /// process (no quota applies).
    pub async fn create(target: &Target, mode: ScanMode, max_pages: usize, lease: std::time::Duration) -> Result<LocalScan, StoreError> {
        let store = Store::open("sqlite::memory:", true).await?;
        store.set_org(LOCAL_ORG, Some(i64::MAX)).await?;
        let max_pages = i32::try_from(max_pages).unwrap_or(i32::MAX);
        let scan = match store.create_scan(LOCAL_ORG, target, mode, TriggeredBy::Manual, Some(max_pages)).await? {
            CreateOutcome::Created(row) => row,
            CreateOutcome::QuotaExceeded(_) => return Err(StoreError::Invalid("unexpected quota refusal".into())),
        };
        let owner = crate::crawl::worker::owner_id(0);
        let claimed = store.claim_scan(&owner, lease, 1).await?.ok_or(StoreError::NotFound("scan"))?;
        debug_assert_eq!(claimed.id, scan.id);
        Ok(LocalScan { store, claimed, owner })
    }

    /// Ends the scan as failed before it ran (ownership not proved), with `summary`.
    pub async fn fail(&self, summary: ReportSummary) -> Result<(), StoreError> {
        self.store.fail_scan(self.claimed.id, &self.owner, &StoredReport::of(summary)).await?;
        Ok(())
    }

    /// Runs the scan to its end (or until `cancel`).
    pub async fn run(&self, scanner: &dyn SiteScanner, config: &WorkerConfig, cancel: &CancellationToken, progress: Option<ProgressFn>) -> Result<Outcome, ScanError> {
        run_claimed(&self.store, scanner, self.claimed.clone(), &self.owner, config, cancel, progress).await
    }

    /// The scan's report with its findings (the body of
    /// `GET /api/v1/scans/{id}?include_findings=true`).
    pub async fn report(&self) -> Result<ScanReport, StoreError> {
        self.store.scan_report(LOCAL_ORG, self.claimed.id, true).await?.ok_or(StoreError::NotFound("scan"))
    }

    /// The journeys' screenshots in order: (journey, step, name, PNG).
    pub async fn screenshots(&self) -> Result<Vec<(String, i32, String, Vec<u8>)>, StoreError> {
        let mut out = Vec::new();
        for shot in self.store.list_journey_screenshots(LOCAL_ORG, self.claimed.id).await? {
            if let Some(png) = self.store.journey_screenshot_png(LOCAL_ORG, self.claimed.id, shot.id).await? {
                out.push((shot.journey, shot.step, shot.name, png));
            }
        }
        Ok(out)
    }
}
