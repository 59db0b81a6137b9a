//! The scan service (see the module comment of `scans`).

use super::query::{self, FINDINGS_LIMIT, FindingsQuery, Issue, ListQuery, SCANS_LIMIT};
use super::streams::{StreamCaps, StreamGate, StreamLimits, StreamPermit, StreamRefusal};
use crate::events::ScanProgress;
use crate::model::{AddressPolicy, OrgId, ScanMode, ScanReport, Target, TriggeredBy};
use crate::store::{CreateOutcome, CursorKind, LiveScan, Page, QuotaExceeded, ScanExtras, ScanRow, ScreenshotRow, Store, StoreError, StoredFinding, StoreResult};
use std::time::Duration;
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
    /// A cap on live streams (the holder's, the organisation's or the process's) is full.
    #[error(transparent)]
    TooManyStreams(StreamRefusal),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Why a watch ended before its scan did (its last item).
#[derive(Debug, thiserror::Error)]
pub enum WatchEnd {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Nothing new for the idle limit.
    #[error("nothing new for {} s: the watch ended; watch again to go on", .0.as_secs())]
    Idle(Duration),
    /// Open for the total limit.
    #[error("the watch reached its limit of {} s; watch again to go on", .0.as_secs())]
    TooLong(Duration),
}

impl ScanServiceError {
    fn invalid(path: &str, message: impl Into<String>) -> Self {
        ScanServiceError::Invalid(vec![Issue::new(path, message)])
    }
}

fn refused_if(issues: Vec<Issue>) -> Result<(), ScanServiceError> {
    if issues.is_empty() { Ok(()) } else { Err(ScanServiceError::Invalid(issues)) }
}

/// Scans over the store, under the address policy targets are held to, with the gates of the
/// live streams (clones share them).
#[derive(Debug, Clone)]
pub struct ScanService {
    store: Store,
    policy: AddressPolicy,
    live_views: StreamGate,
    watches: StreamGate,
}

impl ScanService {
    /// The service with the default stream caps (`StreamCaps::default()`).
    pub fn new(store: Store, policy: AddressPolicy) -> Self {
        Self::with_stream_caps(store, policy, StreamCaps::default())
    }

    pub fn with_stream_caps(store: Store, policy: AddressPolicy, caps: StreamCaps) -> Self {
        ScanService { store, policy, live_views: StreamGate::new(caps.live_views), watches: StreamGate::new(caps.watches) }
    }

    /// A place for one live view of the dashboard for `user_id` of `org`, or the cap that is full.
    pub fn open_live_view(&self, org: OrgId<'_>, user_id: &str) -> Result<StreamPermit, StreamRefusal> {
        self.live_views.try_open(org.as_str(), user_id)
    }

    /// The cap that would refuse `user_id` one more live view now, if any.
    pub fn live_view_refusal(&self, org: OrgId<'_>, user_id: &str) -> Option<StreamRefusal> {
        self.live_views.refusal(org.as_str(), user_id)
    }

    /// How many live views, and for how long.
    pub fn live_view_limits(&self) -> StreamLimits {
        self.live_views.limits()
    }

    /// The store, for the service's own modules (`history`); no edge reaches it.
    pub(super) fn store(&self) -> &Store {
        &self.store
    }

    pub fn policy(&self) -> &AddressPolicy {
        &self.policy
    }

    /// Queues a passive scan of `target` (held to the address policy), within the
    /// organisation's monthly quota, judged against `level` (`A`, `AA` or `AAA`, any case);
    /// without one, against the level of the organisation's site of the target's origin, else
    /// the service's default.
    pub async fn create(&self, org: OrgId<'_>, target: &str, level: Option<&str>, triggered_by: TriggeredBy) -> Result<ScanRow, ScanServiceError> {
        let level = match level.map(str::trim).filter(|l| !l.is_empty()) {
            Some(l) => Some(l.parse::<crate::model::Level>().map_err(|e| ScanServiceError::invalid("level", e.to_string()))?),
            None => None,
        };
        let target = Target::parse(target, &self.policy).map_err(|e| ScanServiceError::invalid("target", e.to_string()))?;
        let level = match level {
            Some(l) => Some(l),
            None => self.store.site_by_origin(org.as_str(), &target.url().origin().ascii_serialization()).await?.and_then(|site| site.level()),
        };
        let extras = ScanExtras { level, ..ScanExtras::default() };
        let created = self.store.create_scan_with(org.as_str(), &target, ScanMode::Passive, triggered_by, None, extras).await?;
        match created.ok_or(StoreError::NotFound("scan"))? {
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

    /// The organisation's newest `n` scans (the dashboard's list).
    pub async fn recent(&self, org: OrgId<'_>, n: u64) -> Result<Page<ScanRow>, ScanServiceError> {
        Ok(self.store.list_scans(org.as_str(), n, None).await?)
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
    pub async fn findings(&self, org: OrgId<'_>, q: &FindingsQuery) -> Result<Page<StoredFinding>, ScanServiceError> {
        let (filter, limit, cursor) = self.findings_filter(q)?;
        Ok(self.store.list_findings(org.as_str(), &filter, limit, cursor).await?)
    }

    /// The first `max` findings `q` selects (its page ignored), newest first: an export.
    pub async fn all_findings(&self, org: OrgId<'_>, q: &FindingsQuery, max: usize) -> Result<Vec<StoredFinding>, ScanServiceError> {
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

    /// One scan of the organisation as it stands (its progress, counts and newest findings),
    /// for the dashboard's live view.
    pub async fn live(&self, org: OrgId<'_>, id: Uuid) -> Result<LiveScan, ScanServiceError> {
        self.store.live_scan(org.as_str(), id).await?.ok_or(ScanServiceError::NotFound)
    }

    /// The screenshots the journeys of a scan of the organisation took, in order.
    pub async fn screenshots(&self, org: OrgId<'_>, id: Uuid) -> Result<Vec<ScreenshotRow>, ScanServiceError> {
        Ok(self.store.list_journey_screenshots(org.as_str(), id).await?)
    }

    /// One journey screenshot (PNG) of a scan of the organisation.
    pub async fn screenshot_png(&self, org: OrgId<'_>, id: Uuid, shot: Uuid) -> Result<Vec<u8>, ScanServiceError> {
        self.store.journey_screenshot_png(org.as_str(), id, shot).await?.ok_or(ScanServiceError::NotFound)
    }

    /// The dashboard's live view of a scan of the organisation: the scan as it stands after
    /// every change the one watch loop ([`crate::events::watch`], the loop `WatchScan` follows
    /// too) reports, until the scan ends, the viewer leaves, or the stream's limits end it
    /// (its last item is then the `WatchEnd`). `permit` is the viewer's place
    /// ([`ScanService::open_live_view`]), held as long.
    pub async fn live_updates(&self, org: OrgId<'_>, id: Uuid, permit: StreamPermit) -> Result<mpsc::Receiver<Result<LiveScan, WatchEnd>>, ScanServiceError> {
        let scan = self.store.scan(org.as_str(), id).await?.ok_or(ScanServiceError::NotFound)?;
        let limits = self.live_views.limits();
        let mut changes = time_limited(crate::events::watch(self.store.clone(), scan, crate::events::WATCH_POLL), permit, limits);
        let (tx, rx) = mpsc::channel(8);
        let store = self.store.clone();
        let org = org.as_str().to_string();
        tokio::spawn(async move {
            loop {
                let change = tokio::select! {
                    change = changes.recv() => change,
                    _ = tx.closed() => return,
                };
                let Some(change) = change else { return };
                if let Err(end) = change {
                    let _ = tx.send(Err(end)).await;
                    return;
                }
                // A burst of changes (a page batch) is one read of the scan as it stands.
                while let Ok(more) = changes.try_recv() {
                    if let Err(end) = more {
                        let _ = tx.send(Err(end)).await;
                        return;
                    }
                }
                let live = match store.live_scan(&org, id).await {
                    Ok(Some(live)) => live,
                    Ok(None) => return,
                    Err(e) => {
                        let _ = tx.send(Err(WatchEnd::Store(e))).await;
                        return;
                    }
                };
                let finished = live.finished();
                if tx.send(Ok(live)).await.is_err() || finished {
                    return;
                }
            }
        });
        Ok(rx)
    }

    /// Follows a scan of the organisation until it ends: its state, then every change. The
    /// watch holds one of `holder`'s places (an API token's id) while it runs; when a cap is full
    /// it is refused. It ends early, with a `WatchEnd` as its last item, when nothing new came
    /// for the idle limit or it ran for the total limit.
    pub async fn watch(&self, org: OrgId<'_>, scan_id: &str, holder: &str) -> Result<mpsc::Receiver<Result<ScanProgress, WatchEnd>>, ScanServiceError> {
        let scan = self.get(org, scan_id).await?;
        let permit = self.watches.try_open(org.as_str(), holder).map_err(ScanServiceError::TooManyStreams)?;
        let limits = self.watches.limits();
        let inner = crate::events::watch(self.store.clone(), scan, crate::events::WATCH_POLL);
        Ok(time_limited(inner, permit, limits))
    }
}

/// Forwards `inner` until it ends, its receiver goes, nothing came for `limits.idle`, or
/// `limits.max` passed; `permit` is held as long.
fn time_limited(
    mut inner: mpsc::Receiver<StoreResult<ScanProgress>>,
    permit: StreamPermit,
    limits: StreamLimits,
) -> mpsc::Receiver<Result<ScanProgress, WatchEnd>> {
    let (tx, rx) = mpsc::channel(64);
    tokio::spawn(async move {
        let _permit = permit;
        let deadline = tokio::time::Instant::now() + limits.max;
        loop {
            let quiet_until = (tokio::time::Instant::now() + limits.idle).min(deadline);
            tokio::select! {
                item = inner.recv() => {
                    let Some(item) = item else { return };
                    let failed = item.is_err();
                    if tx.send(item.map_err(WatchEnd::Store)).await.is_err() || failed {
                        return;
                    }
                }
                _ = tokio::time::sleep_until(quiet_until) => {
                    let why = if tokio::time::Instant::now() >= deadline { WatchEnd::TooLong(limits.max) } else { WatchEnd::Idle(limits.idle) };
                    tracing::debug!(reason = %why, "a watch ended early");
                    let _ = tx.send(Err(why)).await;
                    return;
                }
                _ = tx.closed() => return,
            }
        }
    });
    rx
}
