//! What the scan engine asks of storage, as two traits the store implements: the shared crawl of
//! a running scan (`CrawlStore`: its frontier, page claims under a lease, each judged page's
//! results, host politeness across workers) and the region verdicts kept across scans of a site
//! (`RegionVerdictStore`). The engine names only these, never a database: a one-shot scan needs none.

use crate::{Change, Finding, ReportPage};
use std::time::Duration;
use uuid::Uuid;

/// Storage that failed under the engine (the database is unreachable, a stored value is corrupt).
/// Carries the storage's own error, for the logs.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct StorageError(Box<dyn std::error::Error + Send + Sync>);

impl StorageError {
    /// Wraps the storage's own error.
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        StorageError(Box::new(error))
    }

    /// A stored value the engine could not read back (`what`: which, and why).
    pub fn corrupt(what: impl Into<String>) -> Self {
        #[derive(Debug, thiserror::Error)]
        #[error("stored data is corrupt: {0}")]
        struct Corrupt(String);
        StorageError::new(Corrupt(what.into()))
    }

    /// The storage's own error, to look into.
    pub fn source_error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        self.0.as_ref()
    }
}

pub type StorageResult<T> = Result<T, StorageError>;

/// A page a worker claimed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimedPage {
    pub url: String,
    pub depth: u32,
}

/// Where one worker's claims of a scan's frontier stand (see [`CrawlStore::claim_pages_from`]).
/// Kept by the worker between claims; only the store reads or moves it.
#[derive(Debug, Clone, Default)]
pub struct ClaimCursor {
    /// The queue position (depth, ordinal) of the last page this worker took from the queue.
    pub after: Option<(i32, i64)>,
    /// When this worker last looked for pages whose holder's lease expired.
    pub expired_seen: Option<std::time::Instant>,
}

/// Where a scan's crawl stands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CrawlCounts {
    pub queued: u64,
    /// Claimed under a live lease.
    pub claimed: u64,
    /// Claimed under a lease that expired (its worker died): claimable again.
    pub abandoned: u64,
    pub done: u64,
}

impl CrawlCounts {
    /// Nothing left to render within `budget`, and nobody rendering.
    pub fn drained(&self, budget: u64) -> bool {
        self.claimed == 0 && (self.queued + self.abandoned == 0 || self.done >= budget)
    }
}

/// What an admission to the frontier did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Admission {
    /// Pages that joined.
    pub added: u64,
    /// The crawl's page budget is spent (it stays so: later links need not be offered).
    pub spent: bool,
}

/// A running scan's crawl, shared by every worker of the fleet that takes part in it.
#[async_trait::async_trait]
pub trait CrawlStore: Send + Sync {
    /// Opens a scan's shared crawl with `context` (what every worker needs to judge its pages
    /// alike). `false` when it was open already: an earlier attempt's crawl, to resume.
    async fn open_crawl(&self, scan_id: Uuid, context: &str) -> StorageResult<bool>;
    /// The crawl's context and when its post-crawl phase began (if it did).
    async fn crawl_context(&self, scan_id: Uuid) -> StorageResult<Option<(String, Option<i64>)>>;
    async fn set_crawl_context(&self, scan_id: Uuid, context: &str) -> StorageResult<()>;
    /// Marks the start of the post-crawl phase (journeys, site checks); when it began.
    async fn begin_site_phase(&self, scan_id: Uuid) -> StorageResult<i64>;
    /// Removes what an interrupted post-crawl phase wrote since `since` and reopens the crawl.
    async fn undo_site_phase(&self, scan_id: Uuid, since: i64) -> StorageResult<()>;
    /// True when the scan is its target's first (no earlier completed scan to compare with):
    /// its findings are all `new`.
    async fn first_of_target(&self, scan_id: Uuid) -> StorageResult<bool>;

    /// Adds `pages` (URL, depth) to the frontier, within the crawl's page `budget`.
    async fn enqueue_pages(&self, scan_id: Uuid, pages: &[(String, u32)], budget: usize) -> StorageResult<Admission>;
    /// Records that the crawl reached `url` (a redirect's end) so no link claims it again.
    async fn mark_reached(&self, scan_id: Uuid, url: &str, depth: u32) -> StorageResult<()>;
    /// Claims up to `max` pages for `holder` under `lease`, searching from `cursor`.
    async fn claim_pages_from(&self, scan_id: Uuid, holder: &str, lease: Duration, max: usize, cursor: &mut ClaimCursor) -> StorageResult<Vec<ClaimedPage>>;
    /// Extends the lease of the `urls` `holder` still holds; how many it did.
    async fn renew_pages(&self, scan_id: Uuid, holder: &str, lease: Duration, urls: &[String]) -> StorageResult<u64>;
    /// Gives back every page `holder` holds unfinished; how many.
    async fn release_pages(&self, scan_id: Uuid, holder: &str) -> StorageResult<u64>;
    /// Writes a judged page (its facts for the site checks, its record and findings) and marks
    /// it done, all at once. `false`: `holder` no longer held it, and nothing was written.
    #[allow(clippy::too_many_arguments)]
    async fn complete_page(
        &self,
        scan_id: Uuid,
        org: &str,
        url: &str,
        holder: &str,
        facts: &str,
        page: &ReportPage,
        findings: &[Finding],
        change: Option<Change>,
    ) -> StorageResult<bool>;
    /// Whether `url` was judged already.
    async fn crawl_page_done(&self, scan_id: Uuid, url: &str) -> StorageResult<bool>;
    async fn crawl_counts(&self, scan_id: Uuid) -> StorageResult<CrawlCounts>;
    /// Every judged page's facts, with the holder that judged it.
    async fn crawl_facts(&self, scan_id: Uuid) -> StorageResult<Vec<(String, String)>>;
    /// How many findings the scan has written so far.
    async fn scan_findings_stored(&self, scan_id: Uuid) -> StorageResult<u64>;
    /// True when another organisation's scan waits for a worker (and `org` runs at its `cap`).
    async fn scan_waits_beside(&self, org: &str, cap: i64) -> StorageResult<bool>;

    /// Takes one of `host`'s `slots` for `holder` under `lease`; which, or `None` when all are held.
    async fn enter_host_slot(&self, host: &str, slots: usize, holder: &str, lease: Duration) -> StorageResult<Option<i32>>;
    async fn leave_host_slot(&self, host: &str, slot: i32, holder: &str) -> StorageResult<()>;
    /// Reserves the next start on `host`, `interval` after the last: when it may start (µs).
    async fn reserve_host_start(&self, host: &str, interval: Duration) -> StorageResult<i64>;
}

/// How much of a site's verdicts is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerdictBounds {
    /// Rows per site at most (the most recently used are kept).
    pub max_entries: usize,
    /// Bytes of findings per site at most, as stored (compressed).
    pub max_bytes: u64,
    /// A verdict not given back for this long is dropped (microseconds).
    pub expiry_us: i64,
}

/// One site's verdicts: `org_id` and the origin its scans start from.
#[derive(Debug, Clone, Copy)]
pub struct VerdictSite<'a> {
    pub org_id: &'a str,
    pub origin: &'a str,
    /// The generation a verdict must have to be given back (`browser::region_generation`).
    pub generation: &'a str,
}

/// The region verdicts of earlier scans of a site (`RegionCache` in the engine).
#[async_trait::async_trait]
pub trait RegionVerdictStore: Send + Sync + std::fmt::Debug {
    /// The site's verdicts of its generation (fingerprint, entry), most recently used first,
    /// within `bounds`.
    async fn region_verdicts(&self, site: VerdictSite<'_>, bounds: VerdictBounds, now: i64) -> StorageResult<Vec<(String, String)>>;
    /// Keeps what a scan judged for the first time (`fresh`), marks what it gave back again
    /// (`used`) as used at `now`, and drops what is past `bounds`.
    async fn save_region_verdicts(&self, site: VerdictSite<'_>, fresh: &[(String, String)], used: &[String], bounds: VerdictBounds, now: i64) -> StorageResult<()>;
    /// Closes the storage (a cache file is then whole, ready to be copied).
    async fn close(&self);
}
