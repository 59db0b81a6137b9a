//! Workers: claim queued scans with a lease, renew it while scanning, store results as pages
//! finish, and complete, fail or (on shutdown) release the scan.

use super::error::ScanError;
use super::lease::LeaseGuard;
use super::options::{OwnershipPin, OwnershipRecheck, ScanOptions};
use super::recorder::{PROGRESS_EVERY, ProgressRecorder};
use super::scanner::{ProgressFn, ScanSink, ScanStats, SiteScanner};
use super::shared_crawl::SharedCrawl;
use crate::model::{Finding, ReportSummary, ScanMode, ScanStatus, StoredReport};
use crate::model::ReportPage;
use crate::model::crawl_store::CrawlStore;
use crate::store::{ScanRow, Store, StoreError};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use url::Url;
use uuid::Uuid;

/// How workers claim and hold scans.
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    pub lease: Duration,
    pub max_attempts: i32,
    pub poll: Duration,
    pub options: ScanOptions,
    pub ownership: Ownership,
    /// Scans of one organisation running at once across the fleet (0: no cap).
    pub max_running_per_org: usize,
    /// A scan's pages are shared with the fleet: its crawl lives in the store, idle workers
    /// take batches of its pages, and an interrupted attempt resumes where it stopped.
    pub page_sharing: bool,
}

/// Who proves ownership of an active scan's site.
#[derive(Debug, Clone)]
pub enum Ownership {
    /// The worker, right before scanning, against the site the scan belongs to (a service).
    Reverify(crate::sites::SiteService),
    /// The one-shot CLI, which proved it moments before and queued the scan in its own database;
    /// with the addresses it proved it at (`None` where the caller pins nothing: tests).
    ProvedByCaller(Option<OwnershipPin>),
}

/// Proves the ownership of an active scan's site again, right before it runs. A site that lost
/// it fails the scan (`ownership_unverified`), shows as unverified, and its organisation hears
/// `site.ownership_lost`.
/// Returns the site's host held to the proof's addresses, with a recheck for the probes.
async fn prove_ownership(store: &Store, scan: &ScanRow, ownership: &Ownership) -> Result<Option<OwnershipPin>, ScanError> {
    let sites = match ownership {
        Ownership::ProvedByCaller(pin) => return Ok(pin.clone()),
        Ownership::Reverify(sites) => sites,
    };
    let site = match scan.site_id {
        Some(id) => store.site_any_org(id).await.map_err(stored)?,
        None => None,
    };
    let Some(site) = site else {
        return Err(ScanError::OwnershipUnverified("an active scan must belong to a site of its organisation".into()));
    };
    let outcome = sites.reverify(&site).await.map_err(|e| match e {
        crate::sites::SiteError::Store(e) => stored(e),
        other => ScanError::OwnershipUnverified(other.to_string()),
    })?;
    match outcome {
        Ok(verified) => Ok(Some(OwnershipPin {
            host: verified.host,
            addrs: verified.addresses,
            recheck: Arc::new(SiteRecheck { sites: sites.clone(), site }),
        })),
        Err(e) => {
            if site.verified() {
                let now = crate::store::time::now_us();
                let event = crate::events::payloads::ownership_lost(now, site.id, &site.origin, scan.id, e.to_string());
                if let Err(e) = crate::events::webhooks::org_event(store, &site.org_id, "site.ownership_lost", &event, now).await {
                    tracing::warn!(error = %e, "could not queue site.ownership_lost");
                }
            }
            Err(ScanError::OwnershipUnverified(e.to_string()))
        }
    }
}

/// Proves a stored site's ownership again at the pinned addresses.
struct SiteRecheck {
    sites: crate::sites::SiteService,
    site: crate::store::SiteRow,
}

#[async_trait::async_trait]
impl OwnershipRecheck for SiteRecheck {
    async fn recheck(&self, addrs: &[std::net::IpAddr]) -> Result<(), String> {
        match self.sites.reverify_at(&self.site, addrs).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(e.to_string()),
            Err(e) => Err(e.to_string()),
        }
    }
}

/// Writes a scan's results to the store as they come, up to the scan's ceiling.
struct StoreSink {
    store: Store,
    scan_id: Uuid,
    org: String,
    ceiling: super::ceiling::FindingCeiling,
}

#[async_trait::async_trait]
impl ScanSink for StoreSink {
    async fn page(&mut self, record: ReportPage, findings: Vec<Finding>) -> Result<(), ScanError> {
        let findings = self.ceiling.admit(findings, super::ceiling::Source::Page);
        self.store.append_page_results(self.scan_id, &self.org, &record, &findings).await.map_err(stored)?;
        Ok(())
    }

    async fn site(&mut self, findings: Vec<Finding>) -> Result<(), ScanError> {
        let findings = self.ceiling.admit(findings, super::ceiling::Source::Site);
        self.store.insert_findings(self.scan_id, &self.org, &findings).await.map_err(stored)?;
        Ok(())
    }

    async fn screenshots(&mut self, journey: &str, shots: &[crate::model::journey::JourneyScreenshot]) -> Result<(), ScanError> {
        for shot in shots {
            let Some((step, png)) = screenshot_png(journey, shot) else { continue };
            let now = crate::store::time::now_us();
            self.store.insert_journey_screenshot(self.scan_id, &self.org, journey, step, &shot.name, png, now).await.map_err(stored)?;
        }
        Ok(())
    }
}

/// A journey screenshot's step and PNG, as kept with its scan (`None`, logged: not base64).
pub fn screenshot_png(journey: &str, shot: &crate::model::journey::JourneyScreenshot) -> Option<(i32, Vec<u8>)> {
    use base64::Engine;
    let Ok(png) = base64::engine::general_purpose::STANDARD.decode(&shot.png_base64) else {
        tracing::warn!(journey, step = shot.step, "a journey screenshot was not base64; not kept");
        return None;
    };
    Some((i32::try_from(shot.step).unwrap_or(i32::MAX), png))
}

/// What became of a claimed scan.
#[derive(Debug)]
pub enum Outcome {
    Completed(ScanStats),
    Failed(String),
    /// Released (shutdown) or lost (lease taken over): another worker finishes it.
    Interrupted,
}

/// A store error, as the scan's.
fn stored(e: StoreError) -> ScanError {
    ScanError::Store(e.into())
}

/// A unique owner id for leases: host, process, worker index.
pub fn owner_id(index: usize) -> String {
    format!("{}{}-{}", owner_prefix(std::process::id()), index, &Uuid::new_v4().simple().to_string()[..8])
}

/// What the owner ids of the workers of process `pid` on this host start with.
pub fn owner_prefix(pid: u32) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    format!("{}-{pid}-", host.trim())
}

/// `report.summary.trigger`: why a schedule or monitor started the scan (absent otherwise).
fn trigger_of(scan: &ScanRow) -> Option<crate::model::ScanTrigger> {
    scan.trigger.as_deref().and_then(|t| serde_json::from_str(t).ok())
}

/// The options a scan runs with: the worker's, within the scan's page budget and mode, with
/// the region verdicts of its organisation and site.
pub fn options_for(config: &WorkerConfig, scan: &ScanRow) -> ScanOptions {
    let mut options = config.options.clone();
    if let Some(max) = scan.max_pages.filter(|m| *m > 0) {
        options.max_pages = options.max_pages.min(max as usize);
    }
    options.active = scan.mode == ScanMode::Active;
    if let Some(level) = scan.level {
        options.thresholds.level = level;
    }
    if let Ok(start) = Url::parse(&scan.target_url) {
        options.region_cache = options.region_cache.map(|cache| cache.for_site(&scan.org_id, &start));
    }
    options
}

/// The scans an organisation may have running, for the store's queries (`i64::MAX`: no cap).
fn org_cap(config: &WorkerConfig) -> i64 {
    if config.max_running_per_org == 0 { i64::MAX } else { i64::try_from(config.max_running_per_org).unwrap_or(i64::MAX) }
}

/// Takes a share of the pages of another worker's scan, if one wants help (fairly across
/// organisations); how many pages this worker judged.
async fn help_one(store: &Store, scanner: &dyn SiteScanner, owner: &str, config: &WorkerConfig, shutdown: &CancellationToken) -> Result<usize, ScanError> {
    // A helper counts against the organisation of the scan it helps, as a scan of its own would.
    let cap = org_cap(config);
    let Some(wanted) = store.help_wanted(cap).await.map_err(stored)? else { return Ok(0) };
    let Some(scan) = store.scan_any_org(wanted.scan_id).await.map_err(stored)? else { return Ok(0) };
    let span = tracing::info_span!("help", scan_id = %scan.id, target = %scan.target_url);
    let _enter = span.enter();
    let options = options_for(config, &scan);
    let shared: Arc<dyn CrawlStore> = Arc::new(store.clone());
    let crawl = SharedCrawl { store: &shared, scan_id: scan.id, org: &scan.org_id, holder: owner, lease: config.lease, org_cap: cap };
    let judged = scanner.help(crawl, &options, shutdown).await?;
    if judged > 0 {
        tracing::info!(pages = judged, "helped with another worker's scan");
    }
    Ok(judged)
}

/// Debug builds only, for the tests of the worker process's memory limit: a scan whose target
/// contains `SITESCAN_TEST_WORKER_BALLOON` makes its worker take memory until it cannot, as a
/// page that floods it would.
#[cfg(debug_assertions)]
fn balloon(target: &str) {
    if std::env::var("SITESCAN_TEST_WORKER_BALLOON").is_ok_and(|m| !m.is_empty() && target.contains(&m)) {
        tracing::warn!(target, "SITESCAN_TEST_WORKER_BALLOON: taking memory until none is left");
        let mut held: Vec<Vec<u8>> = Vec::new();
        loop {
            held.push(vec![1u8; 16 << 20]);
        }
    }
}

/// A completed scan's summary from what its crawl returned (`stats`), its stored findings'
/// counts per check and severity, the findings its ceiling left out (`omitted`) and each page's
/// checks that did not run; the comparison, the site budget's verdict and the trigger are the
/// caller's to add.
pub fn completed_summary(
    mode: ScanMode,
    options: &ScanOptions,
    stats: &ScanStats,
    duration: Duration,
    check_counts: &[(String, crate::model::Severity, u64)],
    omitted: u64,
    pages_not_run: &[(String, Vec<crate::model::CheckNotRun>)],
) -> ReportSummary {
    let mut summary = ReportSummary::for_mode(mode);
    for (check, severity, n) in check_counts {
        summary.count(check, *severity, *n);
    }
    summary.pages_scanned = stats.pages as u64;
    summary.level = Some(options.thresholds.level);
    summary.duration_ms = duration.as_millis() as u64;
    let mut capped = stats.capped;
    capped.findings_omitted += omitted;
    if capped.findings_omitted > 0 {
        tracing::warn!(omitted = capped.findings_omitted, "the scan reached its findings ceiling; the rest were not stored");
    }
    summary.capped = capped.any();
    summary.site_checks_not_run = stats.site_checks_not_run.clone();
    summary.checks_not_run = crate::model::ChecksNotRun::of(pages_not_run.iter().map(|(url, list)| (url.as_str(), list.as_slice())));
    if let Some(gaps) = &summary.checks_not_run {
        tracing::warn!(pages = gaps.pages, checks = gaps.checks, "the scan is incomplete: {}", gaps.headline());
    }
    summary
}

/// Runs one claimed scan to its end.
pub async fn run_claimed(
    store: &Store,
    scanner: &dyn SiteScanner,
    scan: ScanRow,
    owner: &str,
    config: &WorkerConfig,
    shutdown: &CancellationToken,
    progress: Option<ProgressFn>,
) -> Result<Outcome, ScanError> {
    let span = tracing::info_span!("scan", scan_id = %scan.id, target = %scan.target_url, attempt = scan.attempts);
    let _enter = span.enter();
    #[cfg(debug_assertions)]
    balloon(&scan.target_url);
    let began = Instant::now();
    let resume = config.page_sharing && store.crawl_context(scan.id).await.map_err(stored)?.is_some();
    if !resume {
        // An earlier attempt died or was released part-way: start clean so nothing is
        // duplicated. (A shared crawl keeps its judged pages and resumes.)
        store.delete_scan_results(scan.id).await.map_err(stored)?;
        store.drop_crawl(scan.id).await.map_err(stored)?;
    }
    let cancel = shutdown.child_token();
    let lease = LeaseGuard::start(store.clone(), scan.id, owner.to_string(), config.lease, cancel.clone());
    let mut options = options_for(config, &scan);
    let mode = scan.mode;
    let mut sink = StoreSink { store: store.clone(), scan_id: scan.id, org: scan.org_id.clone(), ceiling: Default::default() };
    let (recorder, progress) = ProgressRecorder::start(store.clone(), scan.id, owner.to_string(), progress, PROGRESS_EVERY);
    let proved = if options.active { prove_ownership(store, &scan, &config.ownership).await } else { Ok(None) };
    let proved = proved.map(|pin| options.pin = pin);
    if options.active && proved.is_ok() {
        // This scan's site's journeys with their secrets (never the worker's shared options).
        if let (Ownership::Reverify(sites), Some(site_id)) = (&config.ownership, scan.site_id) {
            match sites.journey_specs(site_id).await {
                Ok(specs) => options.journeys = specs,
                Err(crate::sites::SiteError::Store(e)) => return Err(stored(e)),
                Err(e) => tracing::warn!(error = %e, "the site's journeys cannot run"),
            }
        }
    }
    let result = match (proved, Url::parse(&scan.target_url)) {
        (Err(e), _) => Err(e),
        (Ok(()), Ok(start)) => {
            if config.page_sharing {
                let shared: Arc<dyn CrawlStore> = Arc::new(store.clone());
                let crawl = SharedCrawl { store: &shared, scan_id: scan.id, org: &scan.org_id, holder: owner, lease: config.lease, org_cap: org_cap(config) };
                scanner.run_shared(crawl, &start, &options, &mut sink, Some(progress), cancel.clone()).await
            } else {
                scanner.run(&start, &options, &mut sink, Some(progress), cancel.clone()).await
            }
        }
        (Ok(()), Err(e)) => Err(ScanError::TargetUnreachable(format!("the stored target is not a URL: {e}"))),
    };
    recorder.stop().await;
    // The lease is renewed until the scan's end is stored: a big scan's completion (its site
    // checks' findings compared with the baseline's, its report) can outlast a lease, and a
    // lease that expired meanwhile would hand the finished scan to another worker to complete
    // again, and again.
    let lease_lost = lease.lost();
    // A failed scan ends here: its frontier and pages' facts are not needed. A completed one's
    // go once the completion is stored; a lost lease keeps them, so that the next attempt
    // resumes the crawl instead of rendering every page again.
    if config.page_sharing && !lease_lost && matches!(&result, Err(e) if !matches!(e, ScanError::Interrupted | ScanError::Store(_))) {
        forget_crawl(store, scan.id).await;
    }
    match result {
        Ok(stats) => {
            let check_counts = store.scan_check_counts(scan.id).await.map_err(stored)?;
            let not_run = store.scan_pages_not_run(scan.id).await.map_err(stored)?;
            let mut summary = completed_summary(mode, &options, &stats, began.elapsed(), &check_counts, sink.ceiling.omitted(), &not_run);
            let counts = summary.totals();
            let changes = crate::compare::compare_with_baseline(store, &scan, &stats.site_checks_not_run).await.map_err(stored)?;
            summary.changes = Some(changes.counts.clone());
            let verdict = super::site_budget::judge_site_budget(store, &scan).await.map_err(stored)?;
            summary.budget = verdict.as_ref().map(|v| v.result.clone());
            summary.trigger = trigger_of(&scan);
            let report = StoredReport { summary, fixed: Some(changes.fixed) };
            let completed = store.complete_scan(scan.id, owner, &report).await.map_err(stored)?;
            lease.stop().await;
            if completed {
                if config.page_sharing {
                    forget_crawl(store, scan.id).await;
                }
                let now = crate::store::time::now_us();
                if let Err(e) =
                    crate::events::webhooks::scan_finished(store, &scan, true, Some(&changes.counts), &changes.new_severities, report.summary.checks_not_run.as_ref(), now).await
                {
                    tracing::warn!(error = %e, "could not queue the webhook events of the scan");
                }
                if let Some(verdict) = &verdict
                    && let Err(e) = super::site_budget::announce_verdict(store, &scan, verdict, now).await
                {
                    tracing::warn!(error = %e, "could not queue scan.budget_failed");
                }
                tracing::info!(
                    pages = stats.pages,
                    duration_ms = report.summary.duration_ms,
                    render_ms = stats.render_ms,
                    checks_ms = stats.checks_ms,
                    store_ms = stats.store_ms,
                    site_ms = stats.site_ms,
                    findings = counts.total(),
                    "scan completed"
                );
                Ok(Outcome::Completed(stats))
            } else {
                Ok(Outcome::Interrupted)
            }
        }
        Err(ScanError::Interrupted) => {
            if !lease.stop().await {
                store.release_scan(scan.id, owner).await.map_err(stored)?;
                tracing::info!("scan released for another worker");
            }
            Ok(Outcome::Interrupted)
        }
        Err(ScanError::Store(e)) => Err(ScanError::Store(e)),
        Err(e) => {
            let mut summary = ReportSummary::failed_in(mode, e.code(), &e.to_string());
            summary.duration_ms = began.elapsed().as_millis() as u64;
            summary.trigger = trigger_of(&scan);
            let failed = store.fail_scan(scan.id, owner, &StoredReport::of(summary)).await.map_err(stored)?;
            lease.stop().await;
            if failed {
                let now = crate::store::time::now_us();
                if let Err(e) = crate::events::webhooks::scan_finished(store, &scan, false, None, &[], None, now).await {
                    tracing::warn!(error = %e, "could not queue the webhook events of the scan");
                }
            }
            tracing::warn!(code = e.code(), error = %e, "scan failed");
            Ok(Outcome::Failed(e.to_string()))
        }
    }
}

/// Removes a finished scan's crawl (frontier and pages' facts); a failure only leaves rows behind.
async fn forget_crawl(store: &Store, scan_id: Uuid) {
    if let Err(e) = store.drop_crawl(scan_id).await {
        tracing::warn!(error = %e, "could not remove the scan's crawl");
    }
}

/// Scan workers running in this process.
pub struct Workers {
    shutdown: CancellationToken,
    handles: Vec<JoinHandle<()>>,
    /// Each loop's lease owner id, by the index of its handle.
    owners: Vec<String>,
    scanner: Arc<dyn SiteScanner>,
}

impl Workers {
    /// Starts `count` worker loops.
    pub fn spawn(store: Store, scanner: Arc<dyn SiteScanner>, count: usize, config: WorkerConfig) -> Workers {
        let shutdown = CancellationToken::new();
        let owners: Vec<String> = (0..count.max(1)).map(owner_id).collect();
        let handles = owners
            .iter()
            .map(|owner| {
                let (store, scanner, config, shutdown, owner) = (store.clone(), scanner.clone(), config.clone(), shutdown.clone(), owner.clone());
                tokio::spawn(async move { worker_loop(owner, store, scanner, config, shutdown).await })
            })
            .collect::<Vec<_>>();
        let mut handles = handles;
        if let Some(pool) = scanner.pool().cloned() {
            let stop = shutdown.clone();
            handles.push(tokio::spawn(async move {
                // Browser pool gauges for /metrics.
                loop {
                    let s = pool.stats();
                    let m = crate::metrics::metrics();
                    m.browsers.set(s.browsers as i64);
                    m.busy_pages.set(s.busy_pages as i64);
                    m.browser_crashes.set(s.crashes as i64);
                    m.browser_restarts.set(s.restarts as i64);
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_secs(2)) => {}
                        _ = stop.cancelled() => return,
                    }
                }
            }));
        }
        Workers { shutdown, handles, owners, scanner }
    }

    /// The lease owner ids of the worker loops (a scan's `lease_owner` names one).
    pub fn owners(&self) -> &[String] {
        &self.owners
    }

    /// Ends the worker loop `owner` at once, as if its process had died: nothing is released
    /// or written, its leases (the scan's, its pages') expire and other workers take over. For
    /// the scale simulation and tests. `false` when no such loop is running.
    pub fn kill(&mut self, owner: &str) -> bool {
        let Some(i) = self.owners.iter().position(|o| o == owner) else { return false };
        if self.handles[i].is_finished() {
            return false;
        }
        self.handles[i].abort();
        true
    }

    /// Stops claiming, releases the scans in progress, closes the browsers.
    pub async fn shutdown(self) {
        self.shutdown.cancel();
        for h in self.handles {
            let _ = h.await;
        }
        if let Some(pool) = self.scanner.pool() {
            pool.shutdown().await;
        }
    }
}

async fn worker_loop(owner: String, store: Store, scanner: Arc<dyn SiteScanner>, config: WorkerConfig, shutdown: CancellationToken) {
    tracing::info!(worker = %owner, "worker started");
    while !shutdown.is_cancelled() {
        let cap = if config.max_running_per_org == 0 { usize::MAX } else { config.max_running_per_org };
        match store.claim_scan_fair(&owner, config.lease, config.max_attempts, cap).await {
            Ok(Some(scan)) => {
                let id = scan.id;
                match run_claimed(&store, scanner.as_ref(), scan, &owner, &config, &shutdown, None).await {
                    Ok(outcome) => {
                        let label = match outcome {
                            Outcome::Completed(_) => "completed",
                            Outcome::Failed(_) => "failed",
                            Outcome::Interrupted => "interrupted",
                        };
                        crate::metrics::metrics().scans_finished.with_label_values(&[label]).inc();
                    }
                    Err(e) => {
                        tracing::error!(scan_id = %id, error = %e, "scan aborted; its lease will expire and it will be retried");
                        tokio::time::sleep(config.poll).await;
                    }
                }
            }
            Ok(None) => {
                let helped = if config.page_sharing {
                    match help_one(&store, scanner.as_ref(), &owner, &config, &shutdown).await {
                        Ok(n) => n,
                        Err(ScanError::Interrupted) => 0,
                        Err(e) => {
                            tracing::warn!(error = %e, "could not help with another worker's scan");
                            0
                        }
                    }
                } else {
                    0
                };
                if helped == 0 {
                    tokio::select! {
                        _ = tokio::time::sleep(config.poll) => {}
                        _ = shutdown.cancelled() => {}
                    }
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "could not claim a scan; retrying");
                tokio::select! {
                    _ = tokio::time::sleep(config.poll.max(Duration::from_secs(1))) => {}
                    _ = shutdown.cancelled() => {}
                }
            }
        }
    }
    tracing::info!(worker = %owner, "worker stopped");
}

/// True when the scan has reached an end state.
pub fn is_finished(scan: &ScanRow) -> bool {
    matches!(scan.status, ScanStatus::Completed | ScanStatus::Failed)
}
