//! The processes stop when asked and when done, whatever they were scanning:
//!
//! - `sitescan scan` sent SIGTERM mid-crawl says "scan interrupted" and exits at once
//!   (exit 2, the scan did not run to its end), leaving no Chromium behind;
//! - `sitescan scan` of a one-page SVG site (the kind of page that once left the database pool's
//!   maintenance task spinning after the report was written) exits by itself right after
//!   writing its report;
//! - `sitescan worker` sent SIGTERM mid-scan releases the scan and exits 0; a second worker
//!   finishes it, and exits 0 on SIGTERM once idle.
//!
//! The time limits below catch a hang, not a slow machine: each is many times what the step
//! takes here.

use crate::app;
use crate::fixture_site::{FixtureSite, Route};
use crate::process::Proc;
use std::time::{Duration, Instant};

/// A process that hangs instead of exiting is caught after this.
const HANG: Duration = Duration::from_secs(20);

fn page(title: &str, body: &str) -> Route {
    Route::html(format!(
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>{title}</title></head><body><main><h1>{title}</h1>{body}</main></body></html>"
    ))
}

/// A home page linking to pages that answer after `delay`.
fn slow_site(site: &FixtureSite, delay: Duration) {
    let links: String = (1..6).map(|i| format!(r#"<a href="/p{i}">page {i}</a> "#)).collect();
    site.route("/", page("Home", &links));
    for i in 1..6 {
        site.route(&format!("/p{i}"), page(&format!("Slow page {i}"), "").delay(delay));
    }
}

/// The processes whose parent is `pid`.
fn children_of(pid: u32) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter(|stat| stat.rsplit_once(')').and_then(|(_, r)| r.split_whitespace().nth(1)).is_some_and(|pp| pp == pid.to_string()))
        .count()
}

/// Waits for the process to exit by itself: its exit code, or a failure naming what it printed.
async fn exits_within(proc: &mut Proc, within: Duration, what: &str) -> i32 {
    match tokio::time::timeout(within, proc.child.wait()).await {
        Ok(status) => status.expect("wait").code().unwrap_or(-1),
        Err(_) => {
            let output = proc.output();
            proc.kill9().await;
            panic!("{what}: still running after {within:?}; its output:\n{output}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scan_stops_on_sigterm_mid_crawl() {
    let site = FixtureSite::start().await;
    slow_site(&site, Duration::from_secs(30));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.json");
    let mut scan = Proc::spawn(
        &["scan", &site.url("/"), "--allow-target", "127.0.0.1/32", "--max-pages", "6", "--format", "json", "--output", out.to_str().unwrap()],
        &[],
    );
    let began = Instant::now();
    while (1..6).all(|i| site.hit_count(&format!("/p{i}")) == 0) {
        assert!(began.elapsed() < Duration::from_secs(120), "the scan never reached the slow pages:\n{}", scan.output());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let pid = scan.pid;
    assert!(children_of(pid) > 0, "mid-crawl, Chromium runs under the scan");
    scan.signal(libc::SIGTERM);
    let asked = Instant::now();
    let code = exits_within(&mut scan, HANG, "`sitescan scan` after SIGTERM mid-crawl").await;
    let took = asked.elapsed();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let said = scan.output();
    assert_eq!(code, 2, "an interrupted scan exits 2, as any scan that did not run to its end:\n{said}");
    assert!(said.contains("scan interrupted"), "it says why it stopped:\n{said}");
    assert!(!said.contains(" DEBUG "), "no debug lines at the default level:\n{said}");
    assert!(!out.exists(), "no report of a scan that did not finish");
    assert_eq!(children_of(pid), 0, "no Chromium outlives the scan");
    eprintln!("signals: `sitescan scan` exited {} ms after SIGTERM mid-crawl", took.as_millis());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_scan_exits_right_after_its_report() {
    let site = FixtureSite::start().await;
    site.route(
        "/",
        Route::html(
            r##"<!doctype html><html lang=en><head><meta charset=utf-8><title>Chart</title></head><body><main><h1>Chart</h1>
<svg role="img" aria-label="Sales by month" width="200" height="100" viewBox="0 0 200 100"><rect x="10" y="40" width="30" height="60" fill="#357"/><rect x="60" y="20" width="30" height="80" fill="#357"/><text x="10" y="15">Sales</text></svg>
</main></body></html>"##,
        ),
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.json");
    let mut scan = Proc::spawn(
        &["scan", &site.url("/"), "--allow-target", "127.0.0.1/32", "--max-pages", "1", "--format", "json", "--quiet", "--output", out.to_str().unwrap()],
        &[],
    );
    let began = Instant::now();
    // When the whole report is on disk, the work is done.
    let written = loop {
        if std::fs::read(&out).ok().is_some_and(|b| serde_json::from_slice::<serde_json::Value>(&b).is_ok()) {
            break Instant::now();
        }
        if let Some(status) = scan.child.try_wait().expect("try_wait") {
            panic!("exited ({status}) without a report:\n{}", scan.output());
        }
        assert!(began.elapsed() < Duration::from_secs(120), "no report after 120 s:\n{}", scan.output());
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let code = exits_within(&mut scan, HANG, "`sitescan scan` after writing its report").await;
    let lingered = written.elapsed();
    assert!(code == 0 || code == 1, "the scan ran to its end (exit {code}):\n{}", scan.output());
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(report["scan"]["status"], "completed");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(scan.output().trim(), "", "--quiet says nothing on stderr");
    eprintln!("signals: `sitescan scan` exited {} ms after its report was written", lingered.as_millis());
    assert!(lingered < Duration::from_secs(5), "it lingered {lingered:?} after its work was done");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_worker_releases_its_scan_on_sigterm_and_stops_when_idle() {
    let site = FixtureSite::start().await;
    slow_site(&site, Duration::from_millis(1500));
    let app = app::spawn_app_with(app::AppOptions::default().allow_target("127.0.0.1/32")).await;
    let token = app.token("acme").await;
    let args = [
        "worker", "--database", &app.db_url, "--allow-target", "127.0.0.1/32", "--poll-ms", "100", "--max-pages", "6",
        "--pages-per-browser", "1",
    ];
    let mut first = Proc::spawn(&args, &[]);
    let created = app.create_scan(&token, &site.url("/")).await;
    let id = created["id"].as_str().unwrap().to_string();
    let began = Instant::now();
    while (1..6).all(|i| site.hit_count(&format!("/p{i}")) == 0) {
        assert!(began.elapsed() < Duration::from_secs(120), "the worker never reached the slow pages:\n{}", first.output());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    first.signal(libc::SIGTERM);
    let code = exits_within(&mut first, HANG, "`sitescan worker` after SIGTERM mid-scan").await;
    assert_eq!(code, 0, "a worker asked to stop exits 0:\n{}", first.output());
    let released = app.get(&format!("/api/v1/scans/{id}"), &token).await;
    assert_eq!(released.json["scan"]["status"], "queued", "the scan went back to the queue for another worker: {:#}", released.json);

    let mut second = Proc::spawn(&args, &[]);
    let status = loop {
        let r = app.get(&format!("/api/v1/scans/{id}"), &token).await;
        let status = r.json["scan"]["status"].as_str().unwrap_or_default().to_string();
        if status == "completed" || status == "failed" {
            break status;
        }
        assert!(began.elapsed() < Duration::from_secs(240), "the second worker did not finish the scan:\n{}", second.output());
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(status, "completed");
    second.signal(libc::SIGTERM);
    let code = exits_within(&mut second, HANG, "an idle `sitescan worker` after SIGTERM").await;
    assert_eq!(code, 0, "{}", second.output());
    let said = first.output() + &second.output();
    assert!(!said.contains(" DEBUG "), "no debug lines at the default level:\n{said}");
}
