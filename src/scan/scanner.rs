//! One scan, start to end: preflight, robots.txt and sitemaps, a breadth-first crawl rendered by
//! the browser pool, page checks as pages finish, link and resource statuses, then site checks.

use super::digest::{digest, page_record};
use super::error::ScanError;
use super::frontier::{Frontier, Site, looks_like_page, normalize};
use super::options::{MAX_CRAWL_DELAY, ScanOptions};
use super::politeness::HostGate;
use super::site_gather::{SiteFacts, fetch_robots, fetch_sitemaps, https_probe, listed_pages, preflight};
use crate::browser::BrowserPool;
use crate::checks::run::CheckRun;
use crate::checks::{run_page_checks, run_site_checks};
use crate::model::{CheckNotRun, Finding, PageSnapshot, ScanPhase, UrlStatus};
use crate::net::Fetcher;
use crate::model::ReportPage;
use futures::stream::{FuturesUnordered, StreamExt};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use url::Url;

/// Where a scan's results go as they are produced.
#[async_trait::async_trait]
pub trait ScanSink: Send {
    /// One page and its findings (written atomically).
    async fn page(&mut self, record: ReportPage, findings: Vec<Finding>) -> Result<(), ScanError>;
    /// The site-level findings, once the crawl has ended.
    async fn site(&mut self, findings: Vec<Finding>) -> Result<(), ScanError>;
    /// The screenshots one journey took (kept with the scan where the sink can; dropped here).
    async fn screenshots(&mut self, _journey: &str, _shots: &[crate::model::journey::JourneyScreenshot]) -> Result<(), ScanError> {
        Ok(())
    }
}

/// Progress of a running scan (for the terminal's progress bar).
#[derive(Debug, Clone)]
pub enum Progress {
    /// The scan entered a phase.
    Phase(ScanPhase),
    PageStarted { url: String, budget: usize },
    /// A page was judged and stored: `done` so far of the `found` the scan will render (found
    /// grows as links are followed; never above the budget).
    PageDone { url: String, done: usize, found: usize, budget: usize },
}

pub type ProgressFn = Arc<dyn Fn(Progress) + Send + Sync>;

/// Where the time of a scan went.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanStats {
    pub pages: usize,
    pub duration_ms: u64,
    /// Summed over pages (pages render in parallel, so this can exceed the duration).
    pub render_ms: u64,
    pub checks_ms: u64,
    pub store_ms: u64,
    pub site_ms: u64,
    /// What the per-finding budget and the per-page instance cap cut.
    pub capped: crate::model::CappedCounts,
}

/// What a worker runs a claimed scan with: the browser engine ([`Scanner`]) in the product; the
/// scale simulation (`bench/scale`) puts a model of a scan's time and findings in its place, so
/// that everything around the browser is measured as it runs.
#[async_trait::async_trait]
pub trait SiteScanner: Send + Sync {
    /// Scans the site at `start` into `sink`, as [`Scanner::run`] does.
    async fn run(
        &self,
        start: &Url,
        options: &ScanOptions,
        sink: &mut dyn ScanSink,
        progress: Option<ProgressFn>,
        cancel: CancellationToken,
    ) -> Result<ScanStats, ScanError>;

    /// The browsers it holds (for the pool gauges and shutdown), if any.
    fn pool(&self) -> Option<&Arc<BrowserPool>> {
        None
    }
}

#[async_trait::async_trait]
impl SiteScanner for Scanner {
    async fn run(
        &self,
        start: &Url,
        options: &ScanOptions,
        sink: &mut dyn ScanSink,
        progress: Option<ProgressFn>,
        cancel: CancellationToken,
    ) -> Result<ScanStats, ScanError> {
        Scanner::run(self, start, options, sink, progress, cancel).await
    }

    fn pool(&self) -> Option<&Arc<BrowserPool>> {
        Some(Scanner::pool(self))
    }
}

/// The engine: a browser pool and a guarded fetcher, shared by every scan of a worker process.
pub struct Scanner {
    pool: Arc<BrowserPool>,
    fetcher: Arc<Fetcher>,
}

impl Scanner {
    pub fn new(pool: Arc<BrowserPool>, fetcher: Arc<Fetcher>) -> Self {
        Scanner { pool, fetcher }
    }

    pub fn pool(&self) -> &Arc<BrowserPool> {
        &self.pool
    }

    /// Scans the site at `start`. Trouble on the site becomes findings; `Err` only when the
    /// scan cannot run at all (or was interrupted).
    pub async fn run(
        &self,
        start: &Url,
        options: &ScanOptions,
        sink: &mut dyn ScanSink,
        progress: Option<ProgressFn>,
        cancel: CancellationToken,
    ) -> Result<ScanStats, ScanError> {
        let began = Instant::now();
        let mut stats = ScanStats::default();
        let notify = |p: Progress| {
            if let Some(f) = &progress {
                f(p);
            }
        };
        tokio::select! {
            r = preflight(&self.fetcher, start) => r?,
            _ = cancel.cancelled() => return Err(ScanError::Interrupted),
        }
        let mut gate = HostGate::new(options.host_concurrency, options.min_interval);
        let mut facts = SiteFacts::default();
        let (robots, rules) = fetch_robots(&self.fetcher, &gate, start, &mut facts.gather_errors).await;
        if let Some(delay) = robots.crawl_delay_s.filter(|d| d.is_finite() && *d > 0.0) {
            let delay = Duration::from_secs_f64(delay).min(MAX_CRAWL_DELAY).max(options.min_interval);
            gate = HostGate::new(options.host_concurrency, delay);
        }
        facts.sitemaps = fetch_sitemaps(&self.fetcher, &gate, start, &robots.sitemaps, &mut facts.gather_errors).await;
        facts.robots = robots;
        facts.https_probe = https_probe(&self.fetcher, &gate, start).await;

        let session = self.pool.session().await.map_err(|e| ScanError::Browser(e.to_string()))?;
        if let Some(cache) = &options.region_cache {
            cache.seed(&session).await;
        }
        let mut site = Site::new(start);
        let mut frontier = Frontier::default();
        frontier.push(start.clone(), 0);
        let sitemap_urls: Vec<Url> = listed_pages(&facts.sitemaps).filter_map(|u| normalize(u, None)).collect();
        for url in &sitemap_urls {
            if site.contains(url) && looks_like_page(url) && rules.allowed(url) {
                frontier.push(url.clone(), 1);
            }
        }

        let budget = options.max_pages.max(1);
        notify(Progress::Phase(ScanPhase::Crawling));
        let concurrency = options.page_concurrency.max(1);
        let mut started = 0usize;
        let mut done = 0usize;
        let mut pending = FuturesUnordered::new();
        let result: Result<(), ScanError> = loop {
            while pending.len() < concurrency && started < budget {
                let Some((url, depth)) = frontier.pop() else { break };
                started += 1;
                notify(Progress::PageStarted { url: url.to_string(), budget });
                let session = &session;
                let gate = gate.clone();
                pending.push(async move {
                    let _permit = gate.enter().await;
                    let t = Instant::now();
                    let snapshot = session.capture(url.as_str()).await;
                    (url, depth, snapshot, t.elapsed())
                });
            }
            if pending.is_empty() {
                break Ok(());
            }
            let next = tokio::select! {
                n = pending.next() => n,
                _ = cancel.cancelled() => break Err(ScanError::Interrupted),
            };
            let Some((url, depth, snapshot, took)) = next else { break Ok(()) };
            stats.render_ms += took.as_millis() as u64;
            crate::metrics::metrics().pages_scanned.inc();
            crate::metrics::metrics().page_duration.observe(took.as_secs_f64());
            done += 1;
            let is_start = done == 1 && url == *start;
            // Where the page really is (after redirects).
            let final_url = normalize(&snapshot.final_url, None).unwrap_or_else(|| url.clone());
            if final_url != url {
                frontier.mark_seen(&final_url);
                if is_start {
                    site.add(&final_url);
                }
            }
            for status in rendered_statuses(&url, &final_url, &snapshot) {
                facts.rendered.insert(status.url.clone(), status);
            }
            let on_site = site.contains(&final_url);
            let page_digest = digest(&snapshot, depth, |u| site.contains(u));
            if on_site && snapshot.rendered() {
                for link in &page_digest.internal_links {
                    let Some(link_url) = normalize(&link.href, None) else { continue };
                    facts.link_targets.insert(link_url.to_string());
                    if frontier.seen(&link_url) {
                        continue;
                    }
                    // Disallowed links are neither rendered nor status-checked, pages or not
                    // (a PDF or an archive under a Disallow rule is off limits too).
                    if !rules.allowed(&link_url) {
                        facts.robots_blocked.insert((link_url.to_string(), snapshot.final_url.clone()));
                    } else if looks_like_page(&link_url) && depth < options.max_depth {
                        frontier.push(link_url, depth + 1);
                    }
                }
            }
            facts.digests.push(page_digest);
            if options.active && on_site {
                facts.probe_leads.add_page(start, &snapshot);
            }
            let t = Instant::now();
            let thresholds = options.thresholds.clone();
            let mut record = page_record(&snapshot);
            let page_url = snapshot.final_url.clone();
            let checked = tokio::task::spawn_blocking(move || run_page_checks(&snapshot, &thresholds)).await;
            let checked = account_checks(checked, &page_url);
            record.checks_not_run = checked.not_run;
            stats.capped.add(checked.capped);
            let findings = checked.findings;
            stats.checks_ms += t.elapsed().as_millis() as u64;
            let t = Instant::now();
            if let Err(e) = sink.page(record, findings).await {
                break Err(e);
            }
            stats.store_ms += t.elapsed().as_millis() as u64;
            let found = (started + frontier.len()).min(budget).max(done);
            notify(Progress::PageDone { url: url.to_string(), done, found, budget });
        };
        drop(pending);
        if let Err(e) = result {
            session.close().await;
            return Err(e);
        }
        // The crawl's verdicts, before the journeys (whose pages are behind a login) add theirs.
        if let Some(cache) = &options.region_cache {
            cache.save(&session).await;
        }
        // Active scans: the site's host is held to the addresses ownership was proved at, for
        // the journeys (an egress proxy of this scan's own) and the repository probes.
        let pinned = match (&options.pin, options.active) {
            (Some(pin), true) => Some(PinnedEgress::start(&self.fetcher, pin).await?),
            _ => None,
        };
        let mut journeys = Vec::new();
        if options.active && !options.journeys.is_empty() {
            notify(Progress::Phase(ScanPhase::Journeys));
            let t = Instant::now();
            let proxy = pinned.as_ref().map(|p| &p.proxy);
            let ran = tokio::select! {
                r = run_journeys(&session, start, options, proxy, sink) => r,
                _ = cancel.cancelled() => Err(ScanError::Interrupted),
            };
            stats.render_ms += t.elapsed().as_millis() as u64;
            match ran {
                Ok(outcomes) => journeys = outcomes,
                Err(e) => {
                    session.close().await;
                    return Err(e);
                }
            }
        }
        session.close().await;

        let t = Instant::now();
        if options.active {
            notify(Progress::Phase(ScanPhase::Probes));
            let leads = std::mem::take(&mut facts.probe_leads);
            let probe_fetcher = match &pinned {
                Some(p) => {
                    // Proved again, at the pinned addresses, right before probing.
                    if let Err(why) = p.pin.recheck.recheck(&p.pin.addrs).await {
                        return Err(ScanError::OwnershipUnverified(format!("ownership no longer holds before the repository probes: {why}")));
                    }
                    p.fetcher.clone()
                }
                None => self.fetcher.clone(),
            };
            facts.repository_probes =
                super::probes::run_probes(&probe_fetcher, &gate, start, &leads, options.probe_budget, &cancel).await;
            if cancel.is_cancelled() {
                return Err(ScanError::Interrupted);
            }
        }
        notify(Progress::Phase(ScanPhase::Finishing));
        let mut site_snapshot = facts.into_snapshot(&self.fetcher, &gate, start, options, &cancel).await?;
        site_snapshot.journeys = journeys;
        let thresholds = options.thresholds.clone();
        let checked = tokio::task::spawn_blocking(move || run_site_checks(&site_snapshot, &thresholds)).await;
        let site_checked = account_checks(checked, start.as_str());
        stats.capped.add(site_checked.capped);
        sink.site(site_checked.findings).await?;
        if let Some(p) = pinned {
            p.proxy.shutdown().await;
        }
        stats.site_ms = t.elapsed().as_millis() as u64;
        stats.pages = done;
        stats.duration_ms = began.elapsed().as_millis() as u64;
        Ok(stats)
    }
}

/// An active scan's egress held to its pin: a fetcher for the probes and an egress proxy for
/// the journeys' browser contexts, both with the site's host pinned.
struct PinnedEgress {
    pin: super::options::OwnershipPin,
    fetcher: Arc<Fetcher>,
    proxy: crate::net::EgressProxy,
}

impl PinnedEgress {
    async fn start(fetcher: &Fetcher, pin: &super::options::OwnershipPin) -> Result<PinnedEgress, ScanError> {
        let guard = Arc::new(fetcher.guard().pinned(&pin.host, pin.addrs.clone()));
        let pinned = Fetcher::new(guard.clone(), fetcher.options().clone()).map_err(|e| ScanError::Browser(format!("the pinned fetcher: {e}")))?;
        let listen = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
        let proxy = crate::net::EgressProxy::start(guard, listen).await.map_err(|e| ScanError::Browser(format!("the pinned egress proxy: {e}")))?;
        Ok(PinnedEgress { pin: pin.clone(), fetcher: Arc::new(pinned), proxy })
    }
}

/// Why a journey's audit page says every check did not run: the crawl's findings on the same URL
/// are compared with crawls only, never counted fixed because a journey reached the page.
pub const JOURNEY_AUDIT_PAGE: &str = "a journey's audit page: the crawl's findings on this URL are not re-judged here";

/// Runs each journey in turn (a context of its own each), sends each `audit` state's page
/// findings to the sink (with `journey`, `step_index` and `step` in their evidence, secrets
/// masked), and returns the outcomes for the site checks.
async fn run_journeys(
    session: &crate::browser::BrowserSession,
    start: &Url,
    options: &ScanOptions,
    proxy: Option<&crate::net::EgressProxy>,
    sink: &mut dyn ScanSink,
) -> Result<Vec<crate::model::JourneyOutcome>, ScanError> {
    let mut outcomes = Vec::new();
    let mut allowance = crate::browser::JourneyAllowance::for_scan();
    for spec in &options.journeys {
        let ran = session.run_journey(start.as_str(), spec, &mut allowance, proxy).await;
        sink.screenshots(&ran.outcome.name, &ran.outcome.screenshots).await?;
        tracing::info!(
            journey = %ran.outcome.name,
            steps = ran.outcome.steps.len(),
            failed = ran.outcome.steps.iter().filter(|s| !matches!(s.status, crate::model::StepStatus::Ok)).count(),
            audits = ran.audits.len(),
            "journey done"
        );
        for audit in ran.audits {
            let secrets = spec.secrets.clone();
            let thresholds = options.thresholds.clone();
            let snapshot = audit.snapshot;
            let mut record = page_record(&snapshot);
            let page_url = secrets.mask(&snapshot.final_url);
            let checked = tokio::task::spawn_blocking(move || run_page_checks(&snapshot, &thresholds)).await;
            let checked = account_checks(checked, &page_url);
            let step = format!("audit {}", serde_json::to_string(&audit.label).unwrap_or_default());
            let findings: Vec<Finding> = checked
                .findings
                .into_iter()
                .map(|mut f| {
                    f.evidence.insert("journey".into(), serde_json::json!(ran.outcome.name));
                    f.evidence.insert("step_index".into(), serde_json::json!(audit.step));
                    f.evidence.insert("step".into(), serde_json::json!(step));
                    let mut evidence = serde_json::Value::Object(std::mem::take(&mut f.evidence));
                    secrets.mask_json(&mut evidence);
                    if let serde_json::Value::Object(m) = evidence {
                        f.evidence = m;
                    }
                    f
                })
                .collect();
            record.url = secrets.mask(&record.url);
            record.final_url = record.final_url.map(|u| secrets.mask(&u));
            record.title = record.title.map(|t| secrets.mask(&t));
            if let Some(e) = record.error.as_mut() {
                secrets.mask_json(e);
            }
            record.checks_not_run = checked.not_run;
            record.checks_not_run.push(CheckNotRun { check_id: "*".into(), reason: JOURNEY_AUDIT_PAGE.into() });
            sink.page(record, findings).await?;
        }
        outcomes.push(ran.outcome);
    }
    Ok(outcomes)
}

/// Logs and counts the checks that did not run; a runner task that died (it cannot, the runner
/// catches each check's panic) is one more internal error, never a page silently without findings.
fn account_checks(checked: Result<CheckRun, tokio::task::JoinError>, url: &str) -> CheckRun {
    let run = match checked {
        Ok(run) => run,
        Err(e) => {
            tracing::error!(url, error = %e, "the check runner failed; no findings for this page");
            crate::metrics::metrics().check_panics.inc();
            return CheckRun {
                not_run: vec![CheckNotRun { check_id: "*".into(), reason: crate::checks::run::PANICKED.into() }],
                ..CheckRun::default()
            };
        }
    };
    for skipped in &run.not_run {
        if skipped.reason == crate::checks::run::PANICKED {
            tracing::error!(url, check_id = %skipped.check_id, "check panicked; its findings on this page are left out");
        } else {
            tracing::debug!(url, check_id = %skipped.check_id, reason = %skipped.reason, "check not run");
        }
    }
    crate::metrics::metrics().check_panics.inc_by(run.panicked as u64);
    run
}

/// The statuses a render tells: the requested URL (with its redirect chain) and the final one.
fn rendered_statuses(url: &Url, final_url: &Url, page: &PageSnapshot) -> Vec<UrlStatus> {
    let content_type = page.mime_type.clone();
    let x_robots_tag = page.header("x-robots-tag").map(str::to_string);
    let error = page.error.as_ref().map(|e| format!("{}: {}", e.kind, e.message));
    let requested = UrlStatus {
        url: url.to_string(),
        status: page.redirects.first().map(|h| h.status).or(page.status),
        final_url: Some(final_url.to_string()),
        redirects: page.redirects.clone(),
        content_type: content_type.clone(),
        x_robots_tag: x_robots_tag.clone(),
        error: error.clone(),
    };
    let mut out = vec![requested];
    if final_url != url {
        out.push(UrlStatus {
            url: final_url.to_string(),
            status: page.status,
            final_url: Some(final_url.to_string()),
            redirects: Vec::new(),
            content_type,
            x_robots_tag,
            error,
        });
    }
    out
}
