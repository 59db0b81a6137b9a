//! One scan's pages across many workers. The worker that claimed the scan opens its crawl in
//! the store (robots.txt, sitemaps, the start page), then renders and judges pages from the
//! store's frontier; idle workers of the fleet claim batches of the same frontier and do the
//! same ([`help`]). Every page's results and facts are written with its frontier row in one
//! transaction, so a page is judged once; a worker that dies loses only the pages it held (their
//! leases expire and they are claimed again). When nothing is left to render, the scan's worker
//! reads every page's facts back and runs the journeys, probes and site checks once.
//!
//! Requests to the site's host pass a gate kept in the store ([`FleetGate`]): the per-host
//! concurrency and the interval between starts (`Crawl-delay`) hold for the fleet together.

use super::ceiling::{FindingCeiling, Source};
use super::error::ScanError;
use super::frontier::{Site, looks_like_page, normalize};
use super::options::ScanOptions;
use super::page_work::{JudgedPage, PageContext, PageFacts, final_url_of, judge};
use super::scanner::{Opened, Progress, ProgressFn, ScanSink, ScanStats, Scanner, crawl_interval};
use super::site_gather::{RobotsRules, SiteFacts, listed_pages};
use crate::browser::BrowserSession;
use crate::model::ScanPhase;
use crate::model::crawl_store::{ClaimCursor, CrawlStore, StorageError};
use super::in_flight::InFlight;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use url::Url;
use uuid::Uuid;

/// How often a worker waiting for others' pages looks at the frontier again.
const WAIT_POLL: Duration = Duration::from_millis(200);
/// How late (microseconds) a reserved start may be taken before it is reserved again.
const LATE_START_US: i64 = 5_000;
/// How many times a helper with nothing to render looks again before it leaves the crawl.
const HELPER_LINGER_POLLS: u32 = 5;
/// How often a helper looks whether another organisation's scan waits for a worker (then it
/// finishes the pages it holds and goes back to the queue).
const HELPER_YIELD_CHECK: Duration = Duration::from_secs(2);
/// How often a worker counts the crawl's pages for its progress, at least; and how many times
/// the count's own time it waits before counting again (a count reads the whole frontier: a
/// 100,000-page crawl's took 110-135 ms, a tenth of the database's time when taken every second).
const PROGRESS_COUNT_EVERY: Duration = Duration::from_secs(1);
const PROGRESS_COUNT_SHARE: u32 = 40;
/// How often a worker waiting for a host slot held by others tries again.
const SLOT_POLL: Duration = Duration::from_millis(50);

/// One scan's crawl in the store, as one worker takes part in it.
#[derive(Clone, Copy)]
pub struct SharedCrawl<'a> {
    pub store: &'a Arc<dyn CrawlStore>,
    pub scan_id: Uuid,
    pub org: &'a str,
    /// The worker's lease owner id (page claims and host slots are held under it).
    pub holder: &'a str,
    pub lease: Duration,
    /// The scans an organisation may have running (`--max-running-per-org`; `i64::MAX` for no
    /// cap): a helper leaves for another organisation's waiting scan only when that one could
    /// be claimed.
    pub org_cap: i64,
}

/// What every worker of a crawl judges its pages with, kept with the crawl.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrawlContext {
    pub start: String,
    /// The site's hosts (the start URL's, and where it redirected).
    pub site: Site,
    /// robots.txt as the crawl obeys it (absent: no rules).
    pub robots: Option<String>,
    /// The host whose gate every page request passes.
    pub host: String,
    pub host_concurrency: usize,
    pub interval_ms: u64,
    /// The start page is judged (until then only the scan's own worker renders).
    pub start_done: bool,
    /// The scan's page budget and link depth, as its own worker set them (a helper configured
    /// otherwise still keeps to them).
    pub max_pages: usize,
    pub max_depth: u32,
    /// No earlier scan of the target had completed when the crawl opened: every finding will be
    /// `new`, and the pages' findings are written so (the scan's completion then rewrites none
    /// of them; if an earlier scan completes meanwhile, it compares them all as usual). Set by
    /// [`open`].
    #[serde(default)]
    pub first: bool,
}

impl CrawlContext {
    fn encode(&self) -> Result<String, ScanError> {
        serde_json::to_string(self).map_err(|e| ScanError::Browser(format!("the crawl context: {e}")))
    }

    fn decode(text: &str) -> Result<CrawlContext, ScanError> {
        serde_json::from_str(text).map_err(|e| ScanError::Store(StorageError::corrupt(format!("the crawl context: {e}"))))
    }

    /// The host gate of the crawl, as `crawl`'s worker passes it.
    pub fn gate<'a>(&'a self, crawl: SharedCrawl<'a>) -> FleetGate<'a> {
        FleetGate {
            store: crawl.store.as_ref(),
            host: &self.host,
            slots: self.host_concurrency.max(1),
            interval: Duration::from_millis(self.interval_ms),
            holder: crawl.holder,
            lease: crawl.lease,
            next: AtomicU64::new(0),
        }
    }
}

/// The host gate of [`super::politeness::HostGate`], kept in the store for the fleet.
pub struct FleetGate<'a> {
    store: &'a dyn CrawlStore,
    host: &'a str,
    slots: usize,
    interval: Duration,
    holder: &'a str,
    lease: Duration,
    next: AtomicU64,
}

/// A host slot held for one request.
pub struct FleetPermit {
    slot: i32,
    holder: String,
}

impl FleetGate<'_> {
    /// Waits for a slot of the host and for its next start time; give the permit back with
    /// [`FleetGate::leave`] (a permit never given back expires with its lease).
    pub async fn enter(&self, cancel: &CancellationToken) -> Result<FleetPermit, ScanError> {
        let holder = format!("{}#{}", self.holder, self.next.fetch_add(1, Ordering::Relaxed));
        let slot = loop {
            if let Some(slot) = self.store.enter_host_slot(self.host, self.slots, &holder, self.lease).await? {
                break slot;
            }
            tokio::select! {
                _ = tokio::time::sleep(SLOT_POLL) => {}
                _ = cancel.cancelled() => return Err(ScanError::Interrupted),
            }
        };
        let permit = FleetPermit { slot, holder };
        if !self.interval.is_zero() {
            // A start reserved for a moment already past (the store answered late) would let
            // the next request follow this one too closely: reserve again.
            let mut wait = -1;
            for _ in 0..3 {
                let at = match self.store.reserve_host_start(self.host, self.interval).await {
                    Ok(at) => at,
                    Err(e) => {
                        self.leave(permit).await;
                        return Err(e.into());
                    }
                };
                wait = at - crate::model::time::now_us();
                if wait >= -LATE_START_US {
                    break;
                }
            }
            if wait > 0 {
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_micros(wait as u64)) => {}
                    _ = cancel.cancelled() => {
                        self.leave(permit).await;
                        return Err(ScanError::Interrupted);
                    }
                }
            }
        }
        Ok(permit)
    }

    pub async fn leave(&self, permit: FleetPermit) {
        if let Err(e) = self.store.leave_host_slot(self.host, permit.slot, &permit.holder).await {
            tracing::warn!(host = self.host, error = %e, "could not give back a host slot; it expires with its lease");
        }
    }
}

/// The pages (normalised URLs) a worker claimed of a scan and has not written yet.
type Held = Arc<std::sync::Mutex<std::collections::BTreeSet<String>>>;

/// Renews the leases of the pages a worker holds until stopped or dropped (a worker whose
/// task is gone renews nothing: its pages' leases expire and others take them).
struct PageLeases {
    stop: CancellationToken,
    handle: Option<tokio::task::JoinHandle<()>>,
}

impl Drop for PageLeases {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl PageLeases {
    fn start(store: Arc<dyn CrawlStore>, scan_id: Uuid, holder: String, lease: Duration, held: Held) -> PageLeases {
        let stop = CancellationToken::new();
        let handle = {
            let stop = stop.clone();
            tokio::spawn(async move {
                let every = (lease / 3).max(Duration::from_millis(200));
                loop {
                    tokio::select! {
                        _ = tokio::time::sleep(every) => {}
                        _ = stop.cancelled() => return,
                    }
                    let urls: Vec<String> = held.lock().map(|held| held.iter().cloned().collect()).unwrap_or_default();
                    if urls.is_empty() {
                        continue;
                    }
                    if let Err(e) = store.renew_pages(scan_id, &holder, lease, &urls).await {
                        tracing::warn!(error = %e, "could not renew the leases of this worker's pages");
                    }
                }
            })
        };
        PageLeases { stop, handle: Some(handle) }
    }

    async fn stop(mut self) {
        self.stop.cancel();
        if let Some(handle) = self.handle.take() {
            let _ = handle.await;
        }
    }
}

/// How a worker of a shared crawl renders a page: the browser in the product; the scale
/// simulation (`bench/scale`) puts a model of a page in its place, so that everything around the
/// browser (claims, leases, the host gate, the writes) is measured as it runs.
#[async_trait::async_trait]
pub trait PageRender: Send + Sync {
    async fn render(&self, url: &Url) -> crate::model::PageSnapshot;

    /// Keeps what this worker judged so far in `cache`, where workers joining the crawl find it.
    async fn share_verdicts(&self, _cache: &crate::crawl::RegionCache) {}
}

#[async_trait::async_trait]
impl PageRender for BrowserSession {
    async fn render(&self, url: &Url) -> crate::model::PageSnapshot {
        self.capture(url.as_str()).await
    }

    async fn share_verdicts(&self, cache: &crate::crawl::RegionCache) {
        cache.save(self).await;
    }
}

/// The site a page just rendered is judged with: `site` as it is now, with where the start page
/// redirected when `url` is the start (`example.com` to `www.example.com`: its links are the
/// site's, and so are those of every page judged after it).
fn judging_site(site: &RwLock<Site>, start: &Url, url: &Url, snapshot: &crate::model::PageSnapshot) -> Site {
    if url == start {
        let reached = final_url_of(url, snapshot);
        if reached != *url {
            match site.write() {
                Ok(mut site) => site.add(&reached),
                Err(poisoned) => poisoned.into_inner().add(&reached),
            }
        }
    }
    read_site(site)
}

/// The site's hosts as they are now.
fn read_site(site: &RwLock<Site>) -> Site {
    match site.read() {
        Ok(site) => site.clone(),
        Err(poisoned) => poisoned.into_inner().clone(),
    }
}

/// What a worker's page loop does when the frontier has nothing for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Until {
    /// The scan's own worker: waits for the others' pages until the crawl is drained.
    Drained,
    /// A helper: returns.
    NothingClaimable,
}

/// One worker's part in a crawl: claims pages, renders and judges them, writes them.
struct PageLoop<'a> {
    crawl: SharedCrawl<'a>,
    render: &'a dyn PageRender,
    gate: &'a FleetGate<'a>,
    start: Url,
    /// The site's hosts: the start page's render adds where it redirected, and every page
    /// judged after it sees that.
    site: Arc<RwLock<Site>>,
    rules: Arc<RobotsRules>,
    options: &'a ScanOptions,
    ceiling: FindingCeiling,
    /// Where this worker's claims of the frontier stand.
    cursor: ClaimCursor,
    /// The pages it claimed and has not written: their leases are renewed.
    held: Held,
    /// The crawl's page budget was found spent: the links of later pages are not offered.
    budget_spent: bool,
    /// A first scan's crawl: findings are written `new` ([`CrawlContext::first`]).
    first: bool,
    /// Pages this worker judged and wrote.
    judged: usize,
    render_ms: u64,
    checks_ms: u64,
    store_ms: u64,
}

impl<'a> PageLoop<'a> {
    /// Renders and judges pages until `until`. With `start_pending` (the scan's own worker, the
    /// start page not judged yet: the sitemap's pages) the sitemap's pages join the frontier
    /// after the start page and render beside it, as in a crawl in memory; once the start page is
    /// written the site is known (with where it redirected) and helpers may join.
    async fn run(&mut self, until: Until, cancel: &CancellationToken, progress: &(dyn Fn(Progress) + Send + Sync), mut start_pending: Option<Vec<Url>>) -> Result<(), ScanError> {
        let budget = self.options.max_pages.max(1);
        let concurrency = self.options.page_concurrency.max(1);
        // Claims, writes and progress counts are awaited while the pages in flight go on.
        let mut pending = InFlight::default();
        let mut last_count: Option<Instant> = None;
        let mut count_every = PROGRESS_COUNT_EVERY;
        let mut idle = 0;
        // A helper serves another worker's scan only while no other organisation's scan waits.
        let (mut yielding, mut yield_checked): (bool, Option<Instant>) = (false, None);
        if let Some(sitemap) = &start_pending {
            self.enqueue_sitemap(sitemap).await?;
            if self.crawl.store.crawl_page_done(self.crawl.scan_id, self.start.as_str()).await? {
                // An interrupted attempt judged the start page but did not say so.
                let sitemap = start_pending.take().unwrap_or_default();
                self.open_after_start(sitemap).await?;
            }
        }
        loop {
            let room = concurrency;
            if until == Until::NothingClaimable && !yielding && yield_checked.is_none_or(|t| t.elapsed() >= HELPER_YIELD_CHECK) {
                yield_checked = Some(Instant::now());
                yielding = pending.meanwhile(self.crawl.store.scan_waits_beside(self.crawl.org, self.crawl.org_cap)).await?;
                if yielding {
                    tracing::info!("another organisation's scan waits: this helper finishes its pages and goes back to the queue");
                }
            }
            if pending.len() < room && !cancel.is_cancelled() && !yielding {
                let crawl = self.crawl;
                let claimed = pending.meanwhile(crawl.store.claim_pages_from(crawl.scan_id, crawl.holder, crawl.lease, room - pending.len(), &mut self.cursor)).await?;
                for page in claimed {
                    let Some(url) = normalize(&page.url, None) else { continue };
                    if let Ok(mut held) = self.held.lock() {
                        held.insert(url.to_string());
                    }
                    progress(Progress::PageStarted { url: url.to_string(), budget });
                    let (render, gate, options) = (self.render, self.gate, self.options);
                    let (start, site, rules) = (self.start.clone(), self.site.clone(), self.rules.clone());
                    pending.push(async move {
                        let permit = gate.enter(cancel).await?;
                        let t = Instant::now();
                        let snapshot = render.render(&url).await;
                        let took = t.elapsed();
                        gate.leave(permit).await;
                        crate::metrics::metrics().pages_scanned.inc();
                        crate::metrics::metrics().page_duration.observe(took.as_secs_f64());
                        let site = judging_site(&site, &start, &url, &snapshot);
                        let cx = PageContext { start: &start, site: &site, rules: &rules, options };
                        let judged = judge(snapshot, url, page.depth, &cx).await;
                        Ok::<_, ScanError>((judged, took))
                    });
                }
            }
            if pending.is_empty() {
                if cancel.is_cancelled() {
                    return Err(ScanError::Interrupted);
                }
                if yielding {
                    self.crawl.store.release_pages(self.crawl.scan_id, self.crawl.holder).await?;
                    return Ok(());
                }
                if until == Until::NothingClaimable {
                    // A helper waits a moment for the pages others are about to add (a
                    // frontier is often empty for an instant) before it looks elsewhere.
                    idle += 1;
                    if idle > HELPER_LINGER_POLLS {
                        // Nothing is in flight: anything still claimed in this worker's name
                        // (a write a database crash lost) is given back at once.
                        self.crawl.store.release_pages(self.crawl.scan_id, self.crawl.holder).await?;
                        return Ok(());
                    }
                    tokio::select! {
                        _ = tokio::time::sleep(WAIT_POLL) => {}
                        _ = cancel.cancelled() => return Err(ScanError::Interrupted),
                    }
                    continue;
                }
                let counts = self.crawl.store.crawl_counts(self.crawl.scan_id).await?;
                if counts.drained(budget as u64) {
                    return Ok(());
                }
                if counts.claimed > 0 {
                    // Nothing is in flight here, so a page still claimed in this worker's name
                    // is one whose write a database crash lost: it goes back to the queue.
                    self.crawl.store.release_pages(self.crawl.scan_id, self.crawl.holder).await?;
                }
                tokio::select! {
                    _ = tokio::time::sleep(WAIT_POLL) => {}
                    _ = cancel.cancelled() => return Err(ScanError::Interrupted),
                }
                continue;
            }
            let next = tokio::select! {
                n = pending.next() => n,
                _ = cancel.cancelled() => return Err(ScanError::Interrupted),
            };
            let Some(next) = next else { continue };
            idle = 0;
            let (judged, took) = next?;
            self.render_ms += took.as_millis() as u64;
            self.checks_ms += judged.checks_took.as_millis() as u64;
            let url = judged.url.clone();
            let t = Instant::now();
            if url == self.start
                && let Some(sitemap) = start_pending.take()
            {
                // The start page is judged: the site is known (with where the start redirected)
                // and helpers may join.
                pending.meanwhile(self.open_after_start(sitemap)).await?;
            }
            let written = pending.meanwhile(self.write(judged, budget)).await?;
            self.store_ms += t.elapsed().as_millis() as u64;
            if written {
                self.judged += 1;
                // The fleet's progress, read now and then (counting a big frontier per page
                // would cost more than the page).
                if until == Until::Drained && last_count.is_none_or(|t: Instant| t.elapsed() >= count_every) {
                    let began = Instant::now();
                    let crawl = self.crawl;
                    let counts = pending.meanwhile(crawl.store.crawl_counts(crawl.scan_id)).await?;
                    last_count = Some(Instant::now());
                    count_every = PROGRESS_COUNT_EVERY.max(began.elapsed() * PROGRESS_COUNT_SHARE);
                    let done = counts.done as usize;
                    let found = ((counts.done + counts.claimed + counts.queued) as usize).min(budget).max(done);
                    progress(Progress::PageDone { url: url.to_string(), done, found, budget });
                }
            }
        }
    }

    /// Writes a judged page with its facts and frontier row; `false` when another worker had
    /// taken the page over (nothing written). Where it redirected and the links it found join
    /// the frontier first, while the page is still claimed: the crawl is never seen drained
    /// between a page's write and its links'.
    async fn write(&mut self, judged: JudgedPage, budget: usize) -> Result<bool, ScanError> {
        let JudgedPage { url, final_url, depth, next, record, findings, mut facts, capped, .. } = judged;
        let before = self.ceiling.omitted();
        // Other workers of this scan store findings too: the ceiling is the scan's.
        let stored = self.crawl.store.scan_findings_stored(self.crawl.scan_id).await?;
        self.ceiling.sync(usize::try_from(stored).unwrap_or(usize::MAX));
        let findings = self.ceiling.admit(findings, Source::Page);
        facts.capped = capped;
        facts.capped.findings_omitted += self.ceiling.omitted() - before;
        let text = serde_json::to_string(&facts).map_err(|e| ScanError::Browser(format!("a page's facts: {e}")))?;
        let store = self.crawl.store;
        if final_url != url {
            store.mark_reached(self.crawl.scan_id, final_url.as_str(), depth).await?;
        }
        if !self.budget_spent {
            let links: Vec<(String, u32)> = next.into_iter().map(|u| (u.to_string(), depth + 1)).collect();
            self.budget_spent = store.enqueue_pages(self.crawl.scan_id, &links, budget).await?.spent;
        }
        let change = self.first.then_some(crate::model::Change::New);
        let completed = store.complete_page(self.crawl.scan_id, self.crawl.org, url.as_str(), self.crawl.holder, &text, &record, &findings, change).await;
        if let Ok(mut held) = self.held.lock() {
            held.remove(url.as_str());
        }
        if !completed? {
            tracing::warn!(url = %url, "another worker took this page over (its lease expired); this render is dropped");
            return Ok(false);
        }
        Ok(true)
    }

    /// The sitemap's pages on the site, at depth 1: to the frontier (a page already there stays
    /// as it is).
    async fn enqueue_sitemap(&self, sitemap: &[Url]) -> Result<(), ScanError> {
        let seeds: Vec<(String, u32)> = sitemap
            .iter()
            .filter(|u| read_site(&self.site).contains(u) && looks_like_page(u) && self.rules.allowed(u))
            .map(|u| (u.to_string(), 1))
            .collect();
        self.crawl.store.enqueue_pages(self.crawl.scan_id, &seeds, self.options.max_pages.max(1)).await?;
        Ok(())
    }

    /// The start page is judged: the site is known, the context says so (helpers may join),
    /// and the sitemap's pages on hosts the start redirected to join the frontier too.
    async fn open_after_start(&mut self, sitemap: Vec<Url>) -> Result<(), ScanError> {
        let store = self.crawl.store;
        let Some((text, _)) = store.crawl_context(self.crawl.scan_id).await? else {
            return Err(ScanError::Interrupted);
        };
        // The start page's regions (on most sites the header, navigation and footer of every
        // page) are kept first, so that helpers start with them judged.
        if let Some(cache) = &self.options.region_cache {
            self.render.share_verdicts(cache).await;
        }
        let mut context = CrawlContext::decode(&text)?;
        context.site = read_site(&self.site);
        context.start_done = true;
        store.set_crawl_context(self.crawl.scan_id, &context.encode()?).await?;
        self.enqueue_sitemap(&sitemap).await
    }
}

/// What one worker's part in a crawl came to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Part {
    /// Pages this worker judged and wrote.
    pub judged: usize,
    pub render_ms: u64,
    pub checks_ms: u64,
    pub store_ms: u64,
}

/// Opens the scan's crawl with `context` and its start page, or finds the crawl an interrupted
/// attempt left (whose judged pages stay; what its post-crawl phase wrote is removed). The
/// context the crawl goes on with.
pub async fn open(crawl: SharedCrawl<'_>, mut context: CrawlContext) -> Result<CrawlContext, ScanError> {
    let store = crawl.store;
    context.first = store.first_of_target(crawl.scan_id).await?;
    let context = if store.open_crawl(crawl.scan_id, &context.encode()?).await? {
        context
    } else {
        let Some((text, site_phase)) = store.crawl_context(crawl.scan_id).await? else {
            return Err(ScanError::Interrupted);
        };
        if let Some(since) = site_phase {
            store.undo_site_phase(crawl.scan_id, since).await?;
        }
        let counts = store.crawl_counts(crawl.scan_id).await?;
        tracing::info!(done = counts.done, queued = counts.queued + counts.abandoned, "resuming the crawl of an interrupted attempt");
        CrawlContext::decode(&text)?
    };
    store.enqueue_pages(crawl.scan_id, &[(context.start.clone(), 0)], context.max_pages.max(1)).await?;
    Ok(context)
}

/// Takes part in the crawl: claims pages, renders them with `render`, judges and writes them,
/// until `until`. `sitemap`: the scan's own worker of a crawl whose start page is not judged yet
/// (the start page is then rendered alone first; the sitemap's pages follow it).
#[allow(clippy::too_many_arguments)]
pub async fn take_part(
    crawl: SharedCrawl<'_>,
    context: &CrawlContext,
    render: &dyn PageRender,
    rules: RobotsRules,
    options: &ScanOptions,
    until: Until,
    sitemap: Option<Vec<Url>>,
    progress: &(dyn Fn(Progress) + Send + Sync),
    cancel: &CancellationToken,
) -> Result<Part, ScanError> {
    let start = Url::parse(&context.start).map_err(|e| ScanError::TargetUnreachable(format!("the crawl's start is not a URL: {e}")))?;
    let options = &ScanOptions { max_pages: context.max_pages, max_depth: context.max_depth, ..options.clone() };
    let stored = usize::try_from(crawl.store.scan_findings_stored(crawl.scan_id).await?).unwrap_or(usize::MAX);
    let held = Held::default();
    let leases = PageLeases::start(crawl.store.clone(), crawl.scan_id, crawl.holder.to_string(), crawl.lease, held.clone());
    let fleet_gate = context.gate(crawl);
    let mut pages = PageLoop {
        crawl,
        render,
        gate: &fleet_gate,
        start,
        site: Arc::new(RwLock::new(context.site.clone())),
        rules: Arc::new(rules),
        options,
        ceiling: FindingCeiling::with_stored(stored),
        cursor: ClaimCursor::default(),
        held,
        budget_spent: false,
        first: context.first,
        judged: 0,
        render_ms: 0,
        checks_ms: 0,
        store_ms: 0,
    };
    let ran = pages.run(until, cancel, progress, sitemap).await;
    let part = Part { judged: pages.judged, render_ms: pages.render_ms, checks_ms: pages.checks_ms, store_ms: pages.store_ms };
    drop(pages);
    leases.stop().await;
    if let Err(e) = ran {
        if let Err(e) = crawl.store.release_pages(crawl.scan_id, crawl.holder).await {
            tracing::warn!(error = %e, "could not give back this worker's pages; their leases expire");
        }
        return Err(e);
    }
    Ok(part)
}

/// The crawl is drained: marks the start of the post-crawl phase and adds every judged page's
/// facts to `facts`. How many pages, per worker, and what the budgets cut on them.
pub async fn gather_facts(crawl: SharedCrawl<'_>, facts: &mut SiteFacts) -> Result<(BTreeMap<String, usize>, crate::model::CappedCounts), ScanError> {
    crawl.store.begin_site_phase(crawl.scan_id).await?;
    let mut by_worker: BTreeMap<String, usize> = BTreeMap::new();
    let mut capped = crate::model::CappedCounts::default();
    for (text, by) in crawl.store.crawl_facts(crawl.scan_id).await? {
        let page: PageFacts =
            serde_json::from_str(&text).map_err(|e| ScanError::Store(StorageError::corrupt(format!("a page's facts: {e}"))))?;
        capped.add(page.capped);
        page.add_to(facts);
        *by_worker.entry(by).or_default() += 1;
    }
    Ok((by_worker, capped))
}

/// A helper's share of another worker's crawl, once that crawl is open to others: the crawl's
/// context and robots.txt rules, or `None` when there is nothing to help with.
pub async fn join(crawl: SharedCrawl<'_>) -> Result<Option<(CrawlContext, RobotsRules)>, ScanError> {
    let Some((text, site_phase)) = crawl.store.crawl_context(crawl.scan_id).await? else { return Ok(None) };
    let context = CrawlContext::decode(&text)?;
    if !context.start_done || site_phase.is_some() {
        return Ok(None);
    }
    let rules = match context.robots.clone() {
        Some(body) => tokio::task::spawn_blocking(move || RobotsRules::parse(body.as_bytes()))
            .await
            .map_err(|e| ScanError::Browser(format!("the robots.txt parser failed: {e}")))?,
        None => RobotsRules::default(),
    };
    Ok(Some((context, rules)))
}

impl Scanner {
    /// Scans the site at `start` as the scan's own worker of a shared crawl: opens the crawl (or
    /// resumes an interrupted attempt's: its judged pages stay), takes its share of the pages,
    /// waits for the other workers' pages, then finishes the site once.
    pub async fn run_shared(
        &self,
        crawl: SharedCrawl<'_>,
        start: &Url,
        options: &ScanOptions,
        sink: &mut dyn ScanSink,
        progress: Option<ProgressFn>,
        cancel: CancellationToken,
    ) -> Result<ScanStats, ScanError> {
        let began = Instant::now();
        let notify = super::scanner::notifier(&progress);
        let Opened { mut facts, rules, gate } = self.open_site(start, options, &cancel).await?;
        let context = CrawlContext {
            start: start.to_string(),
            site: Site::new(start),
            robots: facts.robots.body.clone(),
            host: start.host_str().unwrap_or_default().to_ascii_lowercase(),
            host_concurrency: options.host_concurrency,
            interval_ms: crawl_interval(facts.robots.crawl_delay_s, options).as_millis() as u64,
            start_done: false,
            max_pages: options.max_pages,
            max_depth: options.max_depth,
            first: false,
        };
        let context = open(crawl, context).await?;
        let sitemap: Vec<Url> = listed_pages(&facts.sitemaps).filter_map(|u| normalize(u, None)).collect();
        let sitemap = (!context.start_done).then_some(sitemap);

        let session = self.pool().session().await.map_err(|e| ScanError::Browser(e.to_string()))?;
        if let Some(cache) = &options.region_cache {
            cache.seed(&session).await;
        }
        notify(Progress::Phase(ScanPhase::Crawling));
        let part = match take_part(crawl, &context, &session, rules, options, Until::Drained, sitemap, &notify, &cancel).await {
            Ok(part) => part,
            Err(e) => {
                session.close().await;
                return Err(e);
            }
        };
        let mut stats = ScanStats { render_ms: part.render_ms, checks_ms: part.checks_ms, store_ms: part.store_ms, ..ScanStats::default() };
        let (by_worker, capped) = gather_facts(crawl, &mut facts).await?;
        stats.capped.add(capped);
        let judged: usize = by_worker.values().sum();
        // Each worker's share, as `holder=pages` pairs (the fleet benchmark reads them here: a
        // helper may still be lingering for more when the scan completes).
        let shares = by_worker.iter().map(|(by, n)| format!("{by}={n}")).collect::<Vec<_>>().join(",");
        tracing::info!(pages = judged, own = part.judged, workers = by_worker.len(), shares = %shares, "crawl drained; finishing the site");
        self.finish_site(session, facts, &gate, start, options, sink, &notify, &cancel, &mut stats).await?;
        stats.pages = judged;
        stats.duration_ms = began.elapsed().as_millis() as u64;
        Ok(stats)
    }

    /// Takes a share of another worker's scan: claims batches of its pages, renders, judges and
    /// writes them, until none is left to claim. How many pages this worker judged.
    pub async fn help(&self, crawl: SharedCrawl<'_>, options: &ScanOptions, cancel: &CancellationToken) -> Result<usize, ScanError> {
        let Some((context, rules)) = join(crawl).await? else { return Ok(0) };
        let session = self.pool().session().await.map_err(|e| ScanError::Browser(e.to_string()))?;
        if let Some(cache) = &options.region_cache {
            cache.seed(&session).await;
        }
        let part = take_part(crawl, &context, &session, rules, options, Until::NothingClaimable, None, &|_| {}, cancel).await;
        if let Some(cache) = &options.region_cache {
            cache.save(&session).await;
        }
        session.close().await;
        part.map(|p| p.judged)
    }
}
