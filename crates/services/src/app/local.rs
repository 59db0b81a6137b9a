//! A one-shot scan in this process (`sitescan scan URL`): the engine's crawl, with the scan and
//! its results kept in memory; no database. Its report is the one the service would store and
//! serve for a first scan of the target: the same summary (`worker::completed_summary`), the
//! findings in the order they were judged, each `new`.

use crate::crawl::ceiling::{FindingCeiling, Source};
use crate::crawl::worker::{completed_summary, options_for, screenshot_png};
use crate::crawl::{Outcome, ProgressFn, RegionCache, ScanError, ScanSink, SiteScanner, WorkerConfig, worker::Ownership};
use crate::model::journey::JourneyScreenshot;
use crate::model::time::{now_us, to_datetime};
use crate::model::{
    Change, ChangeCounts, Finding, Report, ReportPage, ReportSummary, ScanInfo, ScanMode, ScanReport, ScanRow, ScanStatus, SeverityCounts, StoredFinding, StoredReport, Target,
    TriggeredBy,
};
use crate::store::{Store, StoreError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;
use tokio_util::sync::CancellationToken;
use url::Url;
use uuid::Uuid;

/// The organisation a local scan belongs to (its region verdicts are kept under it).
const LOCAL_ORG: &str = "local";

/// One scan, run by this process, and what it found.
#[derive(Debug)]
pub struct LocalScan {
    row: Mutex<ScanRow>,
    /// The report, once the scan ended.
    report: Mutex<Option<StoredReport>>,
    results: Arc<Mutex<Results>>,
}

/// What a local scan has judged so far, in order.
#[derive(Debug, Default)]
struct Results {
    pages: Vec<ReportPage>,
    findings: Vec<StoredFinding>,
    /// (journey, step, name, PNG).
    screenshots: Vec<(String, i32, String, Vec<u8>)>,
}

/// Opens the region cache kept in the SQLite file at `path` (`--cache FILE`).
pub async fn region_cache_file(path: &std::path::Path) -> Result<RegionCache, StoreError> {
    let url = format!("sqlite://{}?mode=rwc", path.display());
    Ok(RegionCache::new(Arc::new(Store::open(&url, true).await?)))
}

/// Takes the lock even from a panicked holder: the results stay readable.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl LocalScan {
    /// The scan of `target`, started now (no quota applies).
    pub fn create(target: &Target, mode: ScanMode, max_pages: usize) -> LocalScan {
        let now = now_us();
        let row = ScanRow {
            id: Uuid::now_v7(),
            org_id: LOCAL_ORG.to_string(),
            target_url: target.to_string(),
            target_hostname: target.hostname(),
            mode,
            status: ScanStatus::Running,
            triggered_by: TriggeredBy::Manual,
            created_at: now,
            started_at: Some(now),
            completed_at: None,
            findings_count: None,
            report: None,
            max_pages: Some(i32::try_from(max_pages).unwrap_or(i32::MAX)),
            lease_owner: None,
            lease_expires_at: None,
            attempts: 1,
            site_id: None,
            trigger: None,
            progress: None,
            level: None,
        };
        LocalScan { row: Mutex::new(row), report: Mutex::new(None), results: Arc::default() }
    }

    /// Ends the scan as failed before it ran (ownership not proved), with `summary`.
    pub fn fail(&self, summary: ReportSummary) {
        let counts = self.severity_counts();
        self.finish(ScanStatus::Failed, counts, StoredReport::of(summary));
    }

    /// Runs the scan to its end (or until `cancel`).
    pub async fn run(&self, scanner: &dyn SiteScanner, config: &WorkerConfig, cancel: &CancellationToken, progress: Option<ProgressFn>) -> Result<Outcome, ScanError> {
        let scan = lock(&self.row).clone();
        let span = tracing::info_span!("scan", scan_id = %scan.id, target = %scan.target_url);
        let _enter = span.enter();
        let began = Instant::now();
        let mut options = options_for(config, &scan);
        if let Ownership::ProvedByCaller(pin) = &config.ownership {
            options.pin = pin.clone();
        }
        let mut sink = MemorySink { results: self.results.clone(), scan_id: scan.id, ceiling: FindingCeiling::default() };
        let result = match Url::parse(&scan.target_url) {
            Ok(start) => scanner.run(&start, &options, &mut sink, progress, cancel.child_token()).await,
            Err(e) => Err(ScanError::TargetUnreachable(format!("the target is not a URL: {e}"))),
        };
        match result {
            Ok(stats) => {
                let (check_counts, not_run) = {
                    let results = lock(&self.results);
                    (check_counts(&results.findings), pages_not_run(&results.pages))
                };
                let mut summary = completed_summary(scan.mode, &options, &stats, began.elapsed(), &check_counts, sink.ceiling.omitted(), &not_run);
                // A first scan: every finding is new, none fixed.
                let new = {
                    let mut results = lock(&self.results);
                    results.findings.iter_mut().for_each(|f| f.change = Some(Change::New));
                    results.findings.len() as u64
                };
                summary.changes = Some(ChangeCounts { new, ..ChangeCounts::default() });
                let counts = summary.totals();
                tracing::info!(pages = stats.pages, duration_ms = summary.duration_ms, findings = counts.total(), "scan completed");
                self.finish(ScanStatus::Completed, counts, StoredReport { summary, fixed: Some(Vec::new()) });
                Ok(Outcome::Completed(stats))
            }
            Err(ScanError::Interrupted) => Ok(Outcome::Interrupted),
            Err(ScanError::Store(e)) => Err(ScanError::Store(e)),
            Err(e) => {
                let mut summary = ReportSummary::failed_in(scan.mode, e.code(), &e.to_string());
                summary.duration_ms = began.elapsed().as_millis() as u64;
                let counts = self.severity_counts();
                self.finish(ScanStatus::Failed, counts, StoredReport::of(summary));
                Ok(Outcome::Failed(e.to_string()))
            }
        }
    }

    /// The scan's report with its findings (what `GET /api/v1/scans/{id}?include_findings=true`
    /// would answer for it).
    pub fn report(&self) -> ScanReport {
        let scan = ScanInfo::from(&*lock(&self.row));
        let report = lock(&self.report).clone().map(|StoredReport { summary, fixed }| {
            let results = lock(&self.results);
            Report { summary, pages: Some(results.pages.clone()), findings: Some(results.findings.clone()), fixed }
        });
        ScanReport { scan, report }
    }

    /// The journeys' screenshots in the order they were taken: (journey, step, name, PNG).
    pub fn screenshots(&self) -> Vec<(String, i32, String, Vec<u8>)> {
        lock(&self.results).screenshots.clone()
    }

    fn severity_counts(&self) -> SeverityCounts {
        let mut counts = SeverityCounts::default();
        for f in &lock(&self.results).findings {
            counts.add(f.finding.severity, 1);
        }
        counts
    }

    fn finish(&self, status: ScanStatus, counts: SeverityCounts, report: StoredReport) {
        let mut row = lock(&self.row);
        row.status = status;
        row.completed_at = Some(now_us());
        row.findings_count = serde_json::to_string(&counts).ok();
        *lock(&self.report) = Some(report);
    }
}

/// Counts of findings per check id and severity.
fn check_counts(findings: &[StoredFinding]) -> Vec<(String, crate::model::Severity, u64)> {
    let mut counts: std::collections::BTreeMap<(&str, crate::model::Severity), u64> = Default::default();
    for f in findings {
        *counts.entry((f.finding.check_id.as_str(), f.finding.severity)).or_default() += 1;
    }
    counts.into_iter().map(|((check, severity), n)| (check.to_string(), severity, n)).collect()
}

/// Each page's checks that did not run, for the pages that have any, in page order.
fn pages_not_run(pages: &[ReportPage]) -> Vec<(String, Vec<crate::model::CheckNotRun>)> {
    pages.iter().filter(|p| !p.checks_not_run.is_empty()).map(|p| (p.url.clone(), p.checks_not_run.clone())).collect()
}

/// Keeps a local scan's results in memory as they come, up to the scan's ceiling.
struct MemorySink {
    results: Arc<Mutex<Results>>,
    scan_id: Uuid,
    ceiling: FindingCeiling,
}

impl MemorySink {
    fn keep(&self, findings: Vec<Finding>, results: &mut Results) {
        // One time for a page's findings, as the store writes them (in one statement).
        let created_at = to_datetime(now_us());
        results.findings.extend(findings.into_iter().map(|finding| StoredFinding { change: None, id: Uuid::now_v7(), scan_id: self.scan_id, finding, created_at }));
    }
}

#[async_trait::async_trait]
impl ScanSink for MemorySink {
    async fn page(&mut self, record: ReportPage, findings: Vec<Finding>) -> Result<(), ScanError> {
        let findings = self.ceiling.admit(findings, Source::Page);
        let results = self.results.clone();
        let mut results = lock(&results);
        results.pages.push(record);
        self.keep(findings, &mut results);
        Ok(())
    }

    async fn site(&mut self, findings: Vec<Finding>) -> Result<(), ScanError> {
        let findings = self.ceiling.admit(findings, Source::Site);
        let results = self.results.clone();
        self.keep(findings, &mut lock(&results));
        Ok(())
    }

    async fn screenshots(&mut self, journey: &str, shots: &[JourneyScreenshot]) -> Result<(), ScanError> {
        let mut results = lock(&self.results);
        for shot in shots {
            if let Some((step, png)) = screenshot_png(journey, shot) {
                results.screenshots.push((journey.to_string(), step, shot.name.clone(), png));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::{ScanOptions, ScanStats};
    use crate::model::{CheckNotRun, Severity};
    use std::time::Duration;

    /// A scanner that writes the same two pages, a site finding and a screenshot each time.
    struct Scripted;

    fn finding(check_id: &str, severity: Severity, url: &str) -> Finding {
        let mut evidence = serde_json::Map::new();
        evidence.insert("url".into(), url.into());
        Finding { check_id: check_id.into(), severity, title: format!("{check_id} on {url}"), evidence, ..Finding::default() }
    }

    fn page(url: &str, not_run: &[&str]) -> ReportPage {
        ReportPage {
            url: url.into(),
            final_url: Some(url.into()),
            status: Some(200),
            title: Some("A page".into()),
            metrics: serde_json::json!({"ttfb_ms": 12, "cls": 0.05, "requests": 3}),
            error: None,
            checks_not_run: not_run.iter().map(|c| CheckNotRun { check_id: (*c).into(), reason: "the page navigated away".into() }).collect(),
        }
    }

    #[async_trait::async_trait]
    impl SiteScanner for Scripted {
        async fn run(&self, _: &Url, _: &ScanOptions, sink: &mut dyn ScanSink, _: Option<ProgressFn>, _: CancellationToken) -> Result<ScanStats, ScanError> {
            let (a, b) = ("http://127.0.0.1:9/", "http://127.0.0.1:9/b");
            sink.page(page(a, &[]), vec![finding("accessibility.image-alt", Severity::High, a), finding("seo.title", Severity::Low, a)]).await?;
            sink.page(page(b, &["accessibility.color-contrast"]), vec![finding("accessibility.image-alt", Severity::High, b)]).await?;
            sink.site(vec![finding("crawlability.sitemap-missing", Severity::Info, a)]).await?;
            let shot = JourneyScreenshot { name: "after login".into(), step: 2, png_base64: "iVBORw0KGgo=".into() };
            sink.screenshots("sign in", &[shot]).await?;
            Ok(ScanStats { pages: 2, site_checks_not_run: vec![CheckNotRun { check_id: "crawlability.robots-txt".into(), reason: "timed out".into() }], ..ScanStats::default() })
        }
    }

    fn config() -> WorkerConfig {
        WorkerConfig {
            lease: Duration::from_secs(60),
            max_attempts: 1,
            poll: Duration::from_millis(100),
            options: ScanOptions::default(),
            ownership: Ownership::ProvedByCaller(None),
            max_running_per_org: 0,
            page_sharing: false,
        }
    }

    /// The report as a user reads it, without what differs between two runs (ids, times).
    fn comparable(report: &ScanReport) -> serde_json::Value {
        let mut body = report.to_body();
        let scan = body["scan"].as_object_mut().unwrap();
        for key in ["id", "created_at", "started_at", "completed_at"] {
            assert!(scan.remove(key).is_some(), "the scan has {key}");
        }
        let report = body["report"].as_object_mut().unwrap();
        report["summary"].as_object_mut().unwrap().remove("duration_ms");
        for f in report["findings"].as_array_mut().unwrap() {
            let f = f.as_object_mut().unwrap();
            for key in ["id", "scan_id", "created_at"] {
                assert!(f.remove(key).is_some(), "a finding has {key}");
            }
        }
        body
    }

    #[tokio::test]
    async fn a_local_scan_reports_what_the_service_would_store_and_serve() {
        let target = Target::parse("http://127.0.0.1:9/", &crate::model::AddressPolicy::new(vec!["127.0.0.1/32".parse().unwrap()])).unwrap();
        let local = LocalScan::create(&target, ScanMode::Passive, 10);
        let outcome = local.run(&Scripted, &config(), &CancellationToken::new(), None).await.unwrap();
        assert!(matches!(outcome, Outcome::Completed(_)));

        let store = Store::open("sqlite::memory:", true).await.unwrap();
        store.set_org(LOCAL_ORG, Some(i64::MAX)).await.unwrap();
        let created = store.create_scan(LOCAL_ORG, &target, ScanMode::Passive, TriggeredBy::Manual, Some(10)).await.unwrap();
        assert!(matches!(created, crate::store::CreateOutcome::Created(_)));
        let claimed = store.claim_scan("w", Duration::from_secs(60), 1).await.unwrap().unwrap();
        crate::crawl::run_claimed(&store, &Scripted, claimed.clone(), "w", &config(), &CancellationToken::new(), None).await.unwrap();
        let stored = store.scan_report(LOCAL_ORG, claimed.id, true).await.unwrap().unwrap();

        assert_eq!(comparable(&local.report()), comparable(&stored));
        let report = local.report();
        assert_eq!(report.scan.status, ScanStatus::Completed);
        assert_eq!(report.findings().len(), 4);
        assert!(report.findings().iter().all(|f| f.change == Some(Change::New)));
        let summary = report.summary().unwrap();
        assert_eq!(summary.changes.as_ref().map(|c| c.new), Some(4));
        assert_eq!(summary.checks_not_run.as_ref().map(|g| g.pages), Some(1));
        assert_eq!(local.screenshots(), vec![("sign in".to_string(), 2, "after login".to_string(), vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a])]);
    }

    #[tokio::test]
    async fn a_local_scan_that_fails_before_it_runs_says_why() {
        let target = Target::parse("http://127.0.0.1:9/", &crate::model::AddressPolicy::new(vec!["127.0.0.1/32".parse().unwrap()])).unwrap();
        let local = LocalScan::create(&target, ScanMode::Active, 10);
        local.fail(ReportSummary::failed_in(ScanMode::Active, "ownership_unverified", "no proof at /.well-known/sitescan.txt"));
        let report = local.report();
        assert_eq!(report.scan.status, ScanStatus::Failed);
        let error = report.summary().and_then(|s| s.error.clone()).expect("the summary says why");
        assert_eq!(error.code, "ownership_unverified");
        assert!(report.findings().is_empty());
    }
}
