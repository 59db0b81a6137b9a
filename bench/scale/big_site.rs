//! One big site across worker loops: a site of N pages (a tree: page i links to pages 10i+1 to
//! 10i+10), its one scan shared by W worker loops of the product (`Workers::spawn` with page
//! sharing: the real scan claim, the frontier in the store, page claims and their leases, the
//! fleet's host gate, the page checks and the writes), with the browser replaced by
//! `ModelSite`: each page `page_ms` of waiting, then its links. Optionally one loop is killed
//! half-way (as a process that dies: nothing released), and the scan must still judge every
//! page exactly once.

use sitescan::model::{Anchor, PageSnapshot, ScanMode, ScanStatus, Target, TriggeredBy};
use sitescan::crawl::frontier::Site;
use sitescan::crawl::shared_crawl::{self, CrawlContext, PageRender, SharedCrawl, Until};
use sitescan::crawl::site_gather::{RobotsRules, SiteFacts};
use sitescan::crawl::{ProgressFn, ScanError, ScanOptions, ScanSink, ScanStats, SiteScanner, WorkerConfig, Workers};
use sitescan_store::{CreateOutcome, Store};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use url::Url;

/// Links per page.
const FANOUT: usize = 10;
/// Requests the model host accepts at once (the scan's per-host concurrency).
pub const HOST_CONCURRENCY: usize = 64;

/// The model site: pages that take `page_time` to render and link to their children.
pub struct ModelSite {
    pub pages: usize,
    pub page_time: Duration,
    in_flight: AtomicUsize,
    /// The most requests the host saw at once.
    pub max_in_flight: AtomicUsize,
}

impl ModelSite {
    pub fn new(pages: usize, page_time: Duration) -> ModelSite {
        ModelSite { pages, page_time, in_flight: AtomicUsize::new(0), max_in_flight: AtomicUsize::new(0) }
    }

    fn index(url: &Url) -> Option<usize> {
        url.path().strip_prefix("/page-").and_then(|n| n.parse().ok())
    }
}

#[async_trait::async_trait]
impl PageRender for ModelSite {
    async fn render(&self, url: &Url) -> PageSnapshot {
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        tokio::time::sleep(self.page_time).await;
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        let i = ModelSite::index(url).unwrap_or(0);
        let mut page = PageSnapshot { requested_url: url.to_string(), final_url: url.to_string(), status: Some(200), ..PageSnapshot::default() };
        page.mime_type = Some("text/html".into());
        page.dom.title = Some(format!("Page {i}"));
        page.dom.html_lang = Some("en".into());
        for k in 1..=FANOUT {
            let child = i * FANOUT + k;
            if child >= self.pages {
                break;
            }
            let href = url.join(&format!("/page-{child}")).map(|u| u.to_string()).ok();
            page.dom.anchors.push(Anchor {
                href_raw: Some(format!("/page-{child}")),
                href,
                text: format!("Page {child}"),
                accessible_name: format!("Page {child}"),
                visible: true,
                selector: format!("main > a:nth-of-type({k})"),
                ..Anchor::default()
            });
        }
        page
    }
}

/// The product's worker loops with the model site for a browser.
pub struct BigSiteScanner {
    pub site: Arc<ModelSite>,
}

#[async_trait::async_trait]
impl SiteScanner for BigSiteScanner {
    async fn run(&self, _: &Url, _: &ScanOptions, _: &mut dyn ScanSink, _: Option<ProgressFn>, _: CancellationToken) -> Result<ScanStats, ScanError> {
        Err(ScanError::Browser("the big-site model scans shared crawls only (page sharing on)".into()))
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
        let began = Instant::now();
        let notify = sitescan::crawl::scanner::notifier(&progress);
        let context = CrawlContext {
            start: start.to_string(),
            site: Site::new(start),
            robots: None,
            host: start.host_str().unwrap_or_default().to_string(),
            host_concurrency: options.host_concurrency,
            interval_ms: 0,
            start_done: false,
            max_pages: options.max_pages,
            max_depth: options.max_depth,
            first: false,
        };
        let context = shared_crawl::open(crawl, context).await?;
        let sitemap = (!context.start_done).then(Vec::new);
        let part = shared_crawl::take_part(crawl, &context, &*self.site, RobotsRules::default(), options, Until::Drained, sitemap, &notify, &cancel).await?;
        let mut facts = SiteFacts::default();
        let (by_worker, _) = shared_crawl::gather_facts(crawl, &mut facts).await?;
        sink.site(Vec::new()).await?;
        let pages = by_worker.values().sum();
        Ok(ScanStats { pages, render_ms: part.render_ms, checks_ms: part.checks_ms, store_ms: part.store_ms, duration_ms: began.elapsed().as_millis() as u64, ..ScanStats::default() })
    }

    async fn help(&self, crawl: SharedCrawl<'_>, options: &ScanOptions, cancel: &CancellationToken) -> Result<usize, ScanError> {
        let Some((context, rules)) = shared_crawl::join(crawl).await? else { return Ok(0) };
        let part = shared_crawl::take_part(crawl, &context, &*self.site, rules, options, Until::NothingClaimable, None, &|_| {}, cancel).await?;
        Ok(part.judged)
    }
}

/// One run of the big site.
pub struct BigRun {
    pub pages: usize,
    pub killed: bool,
    pub took: Duration,
    pub judged: i64,
    pub distinct: i64,
    pub max_in_flight: usize,
    pub attempts: i32,
}

/// Scans a model site of `pages` pages with `loops` worker loops (one process); `kill`: one
/// loop dies when half the pages are judged.
pub async fn measure(url: &str, pages: usize, page_time: Duration, loops: usize, kill: bool) -> anyhow::Result<BigRun> {
    let store = Store::open(url, true).await?;
    store.set_org("big", Some(10_000_000)).await?;
    let target = Target::parse("https://big.scale.test/page-0", &sitescan::model::AddressPolicy::default())?;
    let scan = match store.create_scan("big", &target, ScanMode::Passive, TriggeredBy::Api, Some(pages as i32)).await? {
        CreateOutcome::Created(row) => row,
        CreateOutcome::QuotaExceeded(q) => anyhow::bail!("quota: {q:?}"),
    };
    let site = Arc::new(ModelSite::new(pages, page_time));
    let config = WorkerConfig {
        lease: Duration::from_secs(5),
        max_attempts: 5,
        poll: Duration::from_millis(100),
        options: ScanOptions {
            max_pages: pages,
            max_depth: 32,
            page_concurrency: 1,
            host_concurrency: HOST_CONCURRENCY,
            link_check_budget: 0,
            sitemap_url_budget: 0,
            ..ScanOptions::default()
        },
        ownership: sitescan::crawl::worker::Ownership::ProvedByCaller(None),
        max_running_per_org: 0,
        page_sharing: true,
    };
    let began = Instant::now();
    let mut pool = Workers::spawn(Store::open(url, false).await?, Arc::new(BigSiteScanner { site: site.clone() }), loops, config);
    let mut killed = false;
    let deadline = began + Duration::from_secs(4 * 3600);
    let row = loop {
        let row = store.scan_any_org(scan.id).await?.ok_or_else(|| anyhow::anyhow!("the scan vanished"))?;
        if matches!(row.status, ScanStatus::Completed | ScanStatus::Failed) || Instant::now() > deadline {
            break row;
        }
        // The loop that holds the scan dies (its own pages and the scan's finish are lost).
        if kill && !killed && super::count(&store, "SELECT COUNT(*) FROM scan_pages").await? as usize >= pages / 2 {
            killed = row.lease_owner.as_deref().is_some_and(|owner| pool.kill(owner));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    pool.shutdown().await;
    anyhow::ensure!(row.status == ScanStatus::Completed, "the scan did not complete: {:?} {:?}", row.status, row.report);
    let took = Duration::from_micros((row.completed_at.unwrap_or(0) - row.started_at.unwrap_or(0)).max(0) as u64);
    let judged = super::count(&store, "SELECT COUNT(*) FROM scan_pages").await?;
    let distinct = super::count(&store, "SELECT COUNT(DISTINCT url) FROM scan_pages").await?;
    store.close().await;
    Ok(BigRun { pages, killed, took, judged, distinct, max_in_flight: site.max_in_flight.load(Ordering::SeqCst), attempts: row.attempts })
}
