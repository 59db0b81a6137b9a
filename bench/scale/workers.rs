//! How late scans start for a given worker capacity: N scans queued at one instant (a rush the
//! planners have just created), then W worker loops of the product (`Workers::spawn`: the real
//! claim with its lease, the store sink, the comparison with the baseline, completion and the
//! webhook events) with the browser replaced by `SimScanner`, a model of a scan: P pages, each
//! taking `page_ms` and giving F findings of varied checks.

use sea_orm::ConnectionTrait;
use serde_json::json;
use sitescan::model::{Finding, ScanMode, Severity, Target, TriggeredBy};
use sitescan::crawl::{Progress, ProgressFn, ScanError, ScanOptions, ScanSink, ScanStats, SiteScanner, WorkerConfig, Workers};
use sitescan::model::ReportPage;
use sitescan_store::{CreateOutcome, Store};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use url::Url;

const CHECKS: &[(&str, Severity)] = &[
    ("accessibility.color-contrast", Severity::High),
    ("search.meta-description-missing", Severity::Medium),
    ("performance.cache-policy", Severity::Low),
    ("links.broken-internal", Severity::High),
    ("semantics.h1-missing", Severity::Medium),
    ("media.image-too-large", Severity::Low),
];

/// A scan's browser work as time and findings.
pub struct SimScanner {
    pub pages: usize,
    pub page_time: Duration,
    pub findings: usize,
}

#[async_trait::async_trait]
impl SiteScanner for SimScanner {
    async fn run(
        &self,
        start: &Url,
        _options: &ScanOptions,
        sink: &mut dyn ScanSink,
        progress: Option<ProgressFn>,
        cancel: CancellationToken,
    ) -> Result<ScanStats, ScanError> {
        let began = Instant::now();
        for i in 0..self.pages {
            tokio::select! {
                _ = tokio::time::sleep(self.page_time) => {}
                _ = cancel.cancelled() => return Err(ScanError::Interrupted),
            }
            let url = format!("{}page-{i}", start);
            let record = ReportPage {
                url: url.clone(),
                final_url: None,
                status: Some(200),
                title: Some(format!("Page {i}")),
                metrics: json!({"lcp_ms": 1200, "cls": 0.01}),
                error: None,
                checks_not_run: Vec::new(),
            };
            let findings = (0..self.findings)
                .map(|k| {
                    let (check, severity) = CHECKS[(i + k) % CHECKS.len()];
                    let mut evidence = serde_json::Map::new();
                    evidence.insert("url".into(), json!(url));
                    evidence.insert("selector".into(), json!(format!("main > section:nth-of-type({k})")));
                    Finding { check_id: check.into(), severity, title: "A finding".into(), description: "d".into(), remediation: "r".into(), cwe_id: None, evidence, ..Finding::default() }
                })
                .collect();
            sink.page(record, findings).await?;
            if let Some(p) = &progress {
                p(Progress::PageDone { url, done: i + 1, found: self.pages, budget: self.pages });
            }
        }
        sink.site(Vec::new()).await?;
        Ok(ScanStats { pages: self.pages, duration_ms: began.elapsed().as_millis() as u64, ..ScanStats::default() })
    }
}

pub struct WorkerRun {
    pub scans: usize,
    pub workers: usize,
    pub drained_in: Duration,
    pub start_p50_s: f64,
    pub start_p99_s: f64,
    pub completed: i64,
    pub findings: i64,
}

/// Queues `scans` scans at once and lets `workers` worker loops (one process) run them.
pub async fn measure(url: &str, scans: usize, workers: usize, model: SimScanner) -> anyhow::Result<WorkerRun> {
    let store = Store::open(url, true).await?;
    for org in 0..10 {
        store.set_org(&format!("org-{org}"), Some(10_000_000)).await?;
    }
    let policy = sitescan::model::AddressPolicy::default();
    for i in 0..scans {
        let target = Target::parse(&format!("https://site-{i}.scale.test/"), &policy)?;
        match store.create_scan(&format!("org-{}", i % 10), &target, ScanMode::Passive, TriggeredBy::Schedule, None).await? {
            CreateOutcome::Created(_) => {}
            CreateOutcome::QuotaExceeded(q) => anyhow::bail!("quota: {q:?}"),
        }
    }
    let config = WorkerConfig {
        lease: Duration::from_secs(60),
        max_attempts: 3,
        poll: Duration::from_millis(200),
        options: ScanOptions::default(),
        ownership: sitescan::crawl::worker::Ownership::ProvedByCaller(None),
        max_running_per_org: sitescan::crawl::DEFAULT_MAX_RUNNING_PER_ORG,
        page_sharing: false,
    };
    let began = Instant::now();
    let pool = Workers::spawn(Store::open(url, false).await?, Arc::new(model), workers, config);
    let deadline = began + Duration::from_secs(3600);
    let completed = loop {
        let done = super::count(&store, "SELECT COUNT(*) FROM scans WHERE status IN ('completed', 'failed')").await?;
        if done as usize >= scans || Instant::now() > deadline {
            break done;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let drained_in = began.elapsed();
    pool.shutdown().await;
    // How long each scan waited in the queue: its start against the moment all were queued.
    let rows = store
        .conn()
        .query_all_raw(sea_orm::Statement::from_string(store.backend(), "SELECT started_at - (SELECT MAX(created_at) FROM scans) AS waited FROM scans WHERE started_at IS NOT NULL ORDER BY 1".to_string()))
        .await?;
    let mut waited: Vec<f64> = rows.iter().filter_map(|r| r.try_get_by_index::<i64>(0).ok()).map(|us| us.max(0) as f64 / 1e6).collect();
    waited.sort_by(f64::total_cmp);
    let findings = super::count(&store, "SELECT COUNT(*) FROM findings").await?;
    store.close().await;
    Ok(WorkerRun {
        scans,
        workers,
        drained_in,
        start_p50_s: super::percentile(&waited, 0.5),
        start_p99_s: super::percentile(&waited, 0.99),
        completed,
        findings,
    })
}

/// One noisy-neighbour run: how long organisation B's scans wait while A's backlog drains.
pub struct NoisyRun {
    pub backlog: usize,
    pub workers: usize,
    pub fair: bool,
    pub b_scans: usize,
    pub b_wait_p50_s: f64,
    pub b_wait_p99_s: f64,
    pub drained_in: Duration,
    pub per_minute: f64,
}

/// Organisation A queues `backlog` scans at once; while they drain, organisation B queues one
/// scan at a time, `b_scans` times, spread over the drain. `fair`: the product's claim
/// (`claim_scan_fair`, no cap). Not fair: the claim order before it, first come first served
/// across organisations, reproduced by queueing B's scans in A's name (one queue in creation
/// order is exactly what the organisation-blind claim served). B's scans are told apart by host.
pub async fn noisy_neighbour(url: &str, backlog: usize, workers: usize, b_scans: usize, fair: bool, model: SimScanner) -> anyhow::Result<NoisyRun> {
    let store = Store::open(url, true).await?;
    store.set_org("org-a", Some(10_000_000)).await?;
    store.set_org("org-b", Some(10_000_000)).await?;
    let policy = sitescan::model::AddressPolicy::default();
    for i in 0..backlog {
        let target = Target::parse(&format!("https://a-{i}.scale.test/"), &policy)?;
        store.create_scan("org-a", &target, ScanMode::Passive, TriggeredBy::Schedule, None).await?;
    }
    let scan_time = model.page_time * model.pages as u32;
    let expected = scan_time * (backlog as u32 / workers.max(1) as u32).max(1);
    let config = WorkerConfig {
        lease: Duration::from_secs(60),
        max_attempts: 3,
        poll: Duration::from_millis(100),
        options: ScanOptions::default(),
        ownership: sitescan::crawl::worker::Ownership::ProvedByCaller(None),
        max_running_per_org: 0,
        page_sharing: false,
    };
    let began = Instant::now();
    let pool = Workers::spawn(Store::open(url, false).await?, Arc::new(model), workers, config);
    let b_org = if fair { "org-b" } else { "org-a" };
    for i in 0..b_scans {
        tokio::time::sleep(expected / (b_scans as u32 + 1)).await;
        let target = Target::parse(&format!("https://b-{i}.scale.test/"), &policy)?;
        store.create_scan(b_org, &target, ScanMode::Passive, TriggeredBy::Api, None).await?;
    }
    let total = backlog + b_scans;
    let deadline = began + Duration::from_secs(7200);
    loop {
        let done = super::count(&store, "SELECT COUNT(*) FROM scans WHERE status IN ('completed', 'failed')").await?;
        if done as usize >= total || Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let drained_in = began.elapsed();
    pool.shutdown().await;
    let rows = store
        .conn()
        .query_all_raw(sea_orm::Statement::from_string(
            store.backend(),
            "SELECT started_at - created_at FROM scans WHERE target_hostname LIKE 'b-%' AND started_at IS NOT NULL ORDER BY 1".to_string(),
        ))
        .await?;
    let waited: Vec<f64> = rows.iter().filter_map(|r| r.try_get_by_index::<i64>(0).ok()).map(|us| us.max(0) as f64 / 1e6).collect();
    store.close().await;
    Ok(NoisyRun {
        backlog,
        workers,
        fair,
        b_scans,
        b_wait_p50_s: super::percentile(&waited, 0.5),
        b_wait_p99_s: super::percentile(&waited, 0.99),
        drained_in,
        per_minute: total as f64 / drained_in.as_secs_f64().max(0.001) * 60.0,
    })
}
