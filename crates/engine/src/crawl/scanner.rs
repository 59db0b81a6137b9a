//! One scan, start to end: preflight, robots.txt and sitemaps, a breadth-first crawl rendered by
//! the browser pool, page checks as pages finish, link and resource statuses, then site checks.

use super::digest::page_record;
use super::page_work::{PageContext, account_checks, final_url_of, judge};
use super::error::ScanError;
use super::frontier::{Frontier, Site, looks_like_page, normalize};
use super::options::{MAX_CRAWL_DELAY, ScanOptions};
use super::politeness::HostGate;
use super::shared_crawl::SharedCrawl;
use super::site_gather::{SiteFacts, fetch_robots, fetch_sitemaps, https_probe, listed_pages, preflight};
use crate::browser::BrowserPool;
use crate::checks::{run_page_checks, run_site_checks};
use crate::model::{CheckNotRun, Finding, ScanPhase};
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

/// Calls `progress`, when there is one, with each report: what the crawls hand their pages'
/// and phases' news to.
pub fn notifier(progress: &Option<ProgressFn>) -> impl Fn(Progress) + Send + Sync + '_ {
    move |p| {
        if let Some(f) = progress {
            f(p);
        }
    }
}

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
    /// Site checks that did not run, and why (stored in the report's summary).
    pub site_checks_not_run: Vec<crate::model::CheckNotRun>,
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

    /// Scans the site as the scan's own worker of a crawl shared with the fleet (see
    /// [`super::shared_crawl`]); a scanner that cannot share scans the site alone.
    async fn run_shared(
        &self,
        _crawl: SharedCrawl<'_>,
        start: &Url,
        options: &ScanOptions,
        sink: &mut dyn ScanSink,
        progress: Option<ProgressFn>,
        cancel: CancellationToken,
    ) -> Result<ScanStats, ScanError> {
        self.run(start, options, sink, progress, cancel).await
    }

    /// Takes a share of another worker's shared crawl; how many pages it judged.
    async fn help(&self, _crawl: SharedCrawl<'_>, _options: &ScanOptions, _cancel: &CancellationToken) -> Result<usize, ScanError> {
        Ok(0)
    }

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

    async fn run_shared(
        &self,
        crawl: SharedCrawl<'_>,
        start: &Url,
        options: &ScanOptions,
        sink: &mut dyn ScanSink,
        progress: Option<ProgressFn>,
        cancel: CancellationToken,
    ) -> Result<ScanStats, ScanError> {
        Scanner::run_shared(self, crawl, start, options, sink, progress, cancel).await
    }

    async fn help(&self, crawl: SharedCrawl<'_>, options: &ScanOptions, cancel: &CancellationToken) -> Result<usize, ScanError> {
        Scanner::help(self, crawl, options, cancel).await
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

    /// The scan's start, outside the browser: the preflight, robots.txt (and the politeness it
    /// asks for), the sitemaps, the https probe.
    pub(super) async fn open_site(&self, start: &Url, options: &ScanOptions, cancel: &CancellationToken) -> Result<Opened, ScanError> {
        tokio::select! {
            r = preflight(&self.fetcher, start) => r?,
            _ = cancel.cancelled() => return Err(ScanError::Interrupted),
        }
        let mut gate = HostGate::new(options.host_concurrency, options.min_interval);
        let mut facts = SiteFacts::default();
        let (robots, rules) = fetch_robots(&self.fetcher, &gate, start, &mut facts.gather_errors).await;
        let interval = crawl_interval(robots.crawl_delay_s, options);
        if interval != options.min_interval {
            gate = HostGate::new(options.host_concurrency, interval);
        }
        facts.sitemaps = fetch_sitemaps(&self.fetcher, &gate, start, &robots.sitemaps, &mut facts.gather_errors).await;
        facts.robots = robots;
        facts.https_probe = https_probe(&self.fetcher, &gate, start).await;
        Ok(Opened { facts, rules, gate })
    }

    /// The scan's end, once its pages are judged: the region verdicts saved, the journeys and
    /// the repository probes (active scans), the statuses of what the crawl did not render, and
    /// the site checks. Closes `session`.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn finish_site(
        &self,
        session: crate::browser::BrowserSession,
        mut facts: SiteFacts,
        gate: &HostGate,
        start: &Url,
        options: &ScanOptions,
        sink: &mut dyn ScanSink,
        notify: &(dyn Fn(Progress) + Send + Sync),
        cancel: &CancellationToken,
        stats: &mut ScanStats,
    ) -> Result<(), ScanError> {
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
                    r = run_journeys(&session, start, options, proxy, &mut *sink) => r,
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
                    super::probes::run_probes(&probe_fetcher, gate, start, &leads, options.probe_budget, cancel).await;
                if cancel.is_cancelled() {
                    return Err(ScanError::Interrupted);
                }
            }
            notify(Progress::Phase(ScanPhase::Finishing));
            let mut site_snapshot = facts.into_snapshot(&self.fetcher, gate, start, options, cancel).await?;
            site_snapshot.journeys = journeys;
            for artifact in &options.fail_site_gatherers {
                site_snapshot.fail_gatherer(*artifact, "failed on purpose (ScanOptions::fail_site_gatherers)");
            }
            let thresholds = options.thresholds.clone();
            let checked = tokio::task::spawn_blocking(move || run_site_checks(&site_snapshot, &thresholds)).await;
            let site_checked = account_checks(checked, start.as_str());
            stats.capped.add(site_checked.capped);
            stats.site_checks_not_run = site_checked.not_run;
            sink.site(site_checked.findings).await?;
            if let Some(p) = pinned {
                p.proxy.shutdown().await;
            }
            stats.site_ms = t.elapsed().as_millis() as u64;
            Ok(())
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
        let notify = notifier(&progress);
        let Opened { mut facts, rules, gate } = self.open_site(start, options, &cancel).await?;
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
            let final_url = final_url_of(&url, &snapshot);
            if final_url != url {
                frontier.mark_seen(&final_url);
                if is_start {
                    site.add(&final_url);
                }
            }
            let cx = PageContext { start, site: &site, rules: &rules, options };
            let judged = judge(snapshot, url.clone(), depth, &cx).await;
            for link in judged.next {
                if !frontier.seen(&link) {
                    frontier.push(link, depth + 1);
                }
            }
            judged.facts.add_to(&mut facts);
            stats.capped.add(judged.capped);
            stats.checks_ms += judged.checks_took.as_millis() as u64;
            let (record, findings) = (judged.record, judged.findings);
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
        self.finish_site(session, facts, &gate, start, options, sink, &notify, &cancel, &mut stats).await?;
        stats.pages = done;
        stats.duration_ms = began.elapsed().as_millis() as u64;
        Ok(stats)
    }
}

/// What [`Scanner::open_site`] learned: the site's facts so far, robots.txt's rules, the gate.
pub(super) struct Opened {
    pub facts: SiteFacts,
    pub rules: super::site_gather::RobotsRules,
    pub gate: HostGate,
}

/// The minimum interval between requests to the site: the scan's, or robots.txt's
/// `Crawl-delay` when longer (up to [`MAX_CRAWL_DELAY`]).
pub fn crawl_interval(crawl_delay_s: Option<f64>, options: &ScanOptions) -> Duration {
    match crawl_delay_s.filter(|d| d.is_finite() && *d > 0.0) {
        Some(delay) => Duration::from_secs_f64(delay).min(MAX_CRAWL_DELAY).max(options.min_interval),
        None => options.min_interval,
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
