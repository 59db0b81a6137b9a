//! Scans fixture sites end to end with the real engine (Chromium through the egress guard, the
//! fetcher, every check) and keeps pages and findings in memory, then asserts on them.
//!
//! ```ignore
//! let engine = Engine::start().await;                       // one browser pool per test file
//! let (a, b) = tokio::join!(engine.scan(&url_a), engine.scan(&url_b));
//! let mut expect = Expect::default();
//! a.fires(&mut expect, "search.title-missing", &site.url("/x.html"), High, None);
//! a.quiet(&mut expect, "search.title-missing", &site.url("/y.html"));
//! expect.finish();                                           // panics listing every miss
//! ```

#![allow(dead_code)]

use sitescan::cli::args::BrowserArgs;
use sitescan::model::{AddressPolicy, Finding, Level, Severity};
use sitescan::crawl::{ScanOptions, Scanner};
use sitescan::model::ReportPage;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// The engine of a test file: one browser pool, scans run concurrently on it.
pub struct Engine {
    pub scanner: Arc<Scanner>,
}

impl Engine {
    /// One Chromium with `pages` concurrent pages, allowed to reach 127.0.0.0/8.
    pub async fn start(pages: usize) -> Engine {
        Engine::start_with(pages, None).await
    }

    /// Same, with another Chromium binary (a wrapper script, for instance).
    pub async fn start_with(pages: usize, chromium: Option<PathBuf>) -> Engine {
        Engine::launch(pages, chromium, false, false).await
    }

    /// Same, reading the text in images too (`--ocr`; needs Tesseract).
    pub async fn start_with_ocr(pages: usize) -> Engine {
        Engine::launch(pages, None, false, true).await
    }

    /// One Chromium with `pages` concurrent pages that judges every page in full (`--no-share`).
    pub async fn start_unshared(pages: usize) -> Engine {
        Engine::launch(pages, None, true, false).await
    }

    async fn launch(pages: usize, chromium: Option<PathBuf>, no_share: bool, ocr: bool) -> Engine {
        let browser = BrowserArgs { browsers: 1, pages_per_browser: pages, cdp: vec![], chromium, proxy_listen: "127.0.0.1:0".parse().expect("addr"), no_share, no_cache: false, ocr, no_ocr: false, chromium_no_sandbox: false };
        let policy = AddressPolicy::new(vec!["127.0.0.0/8".parse().unwrap()]);
        let scanner = sitescan::cli::engine::scanner(&browser, policy).await.expect("start the browser pool");
        Engine { scanner }
    }

    /// Scans `start` (up to 60 pages, depth 3) and returns what the scan produced.
    pub async fn scan(&self, start: impl Into<String>) -> Scan {
        self.scan_with(
            &start.into(),
            ScanOptions { max_pages: 60, max_depth: 3, page_concurrency: 4, ..ScanOptions::default() },
        )
        .await
    }

    /// [`Engine::scan`] at a WCAG conformance target other than the default AA.
    pub async fn scan_at(&self, start: impl Into<String>, level: Level) -> Scan {
        let thresholds = sitescan::checks::Thresholds { level, ..Default::default() };
        self.scan_with(&start.into(), ScanOptions { max_pages: 60, max_depth: 3, page_concurrency: 4, thresholds, ..ScanOptions::default() })
            .await
    }

    pub async fn scan_with(&self, start: &str, options: ScanOptions) -> Scan {
        let began = Instant::now();
        let mut sink = crate::sink::Collect::default();
        let url = url::Url::parse(start).expect("start URL");
        let stats = match self.scanner.run(&url, &options, &mut sink, None, CancellationToken::new()).await {
            Ok(stats) => stats,
            Err(e) => panic!("scan of {start} failed: {e}"),
        };
        Scan { start: start.to_string(), pages: sink.pages, findings: sink.findings, site_checks_not_run: stats.site_checks_not_run, took: began.elapsed() }
    }

    pub async fn shutdown(self) {
        self.scanner.pool().shutdown().await;
    }
}

/// What one scan produced.
pub struct Scan {
    pub start: String,
    pub pages: Vec<ReportPage>,
    pub findings: Vec<Finding>,
    /// Site checks that did not judge the site, and why.
    pub site_checks_not_run: Vec<sitescan::model::CheckNotRun>,
    pub took: Duration,
}

/// Collects failed expectations so one run reports all of them.
#[derive(Default)]
pub struct Expect {
    pub failures: Vec<String>,
    pub passed: usize,
}

impl Expect {
    pub fn fail(&mut self, message: String) {
        self.failures.push(message);
    }

    pub fn check(&mut self, ok: bool, message: impl FnOnce() -> String) {
        if ok {
            self.passed += 1;
        } else {
            self.failures.push(message());
        }
    }

    /// Panics listing every failed expectation.
    pub fn finish(self) {
        if !self.failures.is_empty() {
            panic!(
                "{} of {} expectations failed:\n\n{}",
                self.failures.len(),
                self.failures.len() + self.passed,
                self.failures.join("\n\n")
            );
        }
    }
}

fn brief(f: &Finding) -> String {
    let mut ev = f.evidence.clone();
    for key in ["description", "stack", "wcag", "help_url", "failure_summary"] {
        ev.remove(key);
    }
    let mut text = serde_json::Value::Object(ev).to_string();
    if text.len() > 400 {
        text.truncate(400);
        text.push('…');
    }
    format!("  {} [{}] {}", f.check_id, f.severity, text)
}

/// `f` is `check`'s, or was merged with a finding of `check` (`evidence.also_reported_as`).
fn answers(f: &Finding, check: &str) -> bool {
    sitescan::model::finding::answers_to(&f.check_id, Some(&f.evidence)).any(|c| c == check)
}

impl Scan {
    /// The page record of `url` (requested or final URL).
    pub fn page(&self, url: &str) -> Option<&ReportPage> {
        self.pages.iter().find(|p| p.url == url || p.final_url.as_deref() == Some(url))
    }

    /// Findings of `check` whose evidence url is `url`.
    pub fn of<'a>(&'a self, check: &'a str, url: &'a str) -> impl Iterator<Item = &'a Finding> + 'a {
        // A finding merged with another check's (one barrier, one finding) answers to both ids.
        self.findings.iter().filter(move |f| answers(f, check) && f.url() == Some(url))
    }

    /// Every finding on `url`, for failure messages.
    pub fn describe_url(&self, url: &str) -> String {
        let lines: Vec<String> = self.findings.iter().filter(|f| f.url() == Some(url)).map(brief).collect();
        if lines.is_empty() { "  (none)".into() } else { lines.join("\n") }
    }

    fn describe_check(&self, check: &str) -> String {
        let lines: Vec<String> = self.findings.iter().filter(|f| answers(f, check)).map(brief).collect();
        if lines.is_empty() { "  (none anywhere)".into() } else { lines.join("\n") }
    }

    /// `check` reports `url` at `severity` (and, when given, on the element `selector`).
    pub fn fires(&self, expect: &mut Expect, check: &str, url: &str, severity: Severity, selector: Option<&str>) {
        let hit =
            self.of(check, url).any(|f| f.severity == severity && selector.is_none_or(|s| f.selector() == Some(s)));
        expect.check(hit, || {
            format!(
                "expected {check} [{severity}] on {url}{}\n findings of {check}:\n{}\n findings on {url}:\n{}",
                selector.map(|s| format!(" at {s}")).unwrap_or_default(),
                self.describe_check(check),
                self.describe_url(url)
            )
        });
    }

    /// Like `fires`, then also checks evidence `key` equals `value`.
    #[allow(clippy::too_many_arguments)]
    pub fn fires_with(
        &self,
        expect: &mut Expect,
        check: &str,
        url: &str,
        severity: Severity,
        selector: Option<&str>,
        key: &str,
        value: serde_json::Value,
    ) {
        let hit = self.of(check, url).any(|f| {
            f.severity == severity
                && selector.is_none_or(|s| f.selector() == Some(s))
                && f.evidence.get(key) == Some(&value)
        });
        expect.check(hit, || {
            format!(
                "expected {check} [{severity}] on {url}{} with {key} = {value}\n findings of {check}:\n{}",
                selector.map(|s| format!(" at {s}")).unwrap_or_default(),
                self.describe_check(check),
            )
        });
    }

    /// `url` was rendered (a response, no capture error): the precondition of every near miss, so
    /// a quiet check is never quiet because the page was not looked at.
    pub fn rendered(&self, expect: &mut Expect, url: &str) -> bool {
        let page = self.page(url);
        let ok = page.is_some_and(|p| p.status.is_some() && p.error.is_none());
        expect.check(ok, || {
            let seen: Vec<String> =
                self.pages.iter().map(|p| format!("  {} -> {:?} {:?}", p.url, p.status, p.error)).collect();
            format!("expected {url} to be rendered; pages of the scan of {}:\n{}", self.start, seen.join("\n"))
        });
        ok
    }

    /// `check` reports nothing on `url`, and `url` was rendered.
    pub fn quiet(&self, expect: &mut Expect, check: &str, url: &str) {
        if !self.rendered(expect, url) {
            return;
        }
        self.quiet_site(expect, check, url);
    }

    /// `check` reports nothing on the element `selector` of `url` (it may on others).
    pub fn quiet_selector(&self, expect: &mut Expect, check: &str, url: &str, selector: &str) {
        if !self.rendered(expect, url) {
            return;
        }
        let found: Vec<String> = self.of(check, url).filter(|f| f.selector() == Some(selector)).map(brief).collect();
        expect.check(found.is_empty(), || {
            format!("expected no {check} on {url} at {selector}, found:\n{}", found.join("\n"))
        });
    }

    /// `check` reports nothing on `url` whose evidence `key` is `value` (it may report others).
    pub fn quiet_with(&self, expect: &mut Expect, check: &str, url: &str, key: &str, value: serde_json::Value) {
        if !self.rendered(expect, url) {
            return;
        }
        let found: Vec<String> =
            self.of(check, url).filter(|f| f.evidence.get(key) == Some(&value)).map(brief).collect();
        expect.check(found.is_empty(), || {
            format!("expected no {check} on {url} with {key} = {value}, found:\n{}", found.join("\n"))
        });
    }

    /// `check` reports nothing with evidence url `url` (for site-level evidence urls such as a
    /// robots.txt or a sitemap, which are not rendered pages).
    pub fn quiet_site(&self, expect: &mut Expect, check: &str, url: &str) {
        let found: Vec<String> = self.of(check, url).map(brief).collect();
        expect.check(found.is_empty(), || format!("expected no {check} on {url}, found:\n{}", found.join("\n")));
    }

    /// `check` reports nothing anywhere in this scan.
    pub fn quiet_everywhere(&self, expect: &mut Expect, check: &str) {
        let found: Vec<String> = self.findings.iter().filter(|f| answers(f, check)).map(brief).collect();
        expect.check(found.is_empty(), || {
            format!("expected no {check} in the scan of {}, found:\n{}", self.start, found.join("\n"))
        });
    }

    /// Every finding, for debugging (`SITESCAN_TEST_DUMP=1`).
    pub fn dump(&self) {
        if std::env::var_os("SITESCAN_TEST_DUMP").is_none() {
            return;
        }
        eprintln!("== scan of {} ({} pages, {:?})", self.start, self.pages.len(), self.took);
        for p in &self.pages {
            eprintln!("  page {} -> {:?} {:?} {:?} {}", p.url, p.final_url, p.status, p.error, p.metrics);
        }
        for f in &self.findings {
            eprintln!("{}", brief(f));
        }
    }
}
