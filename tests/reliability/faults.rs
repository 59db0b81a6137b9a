//! Faults injected into a running system, and what it must do about them:
//!
//! - a `sitescan worker` process SIGKILLed mid-scan: another worker finishes the scan once the
//!   lease expires, with no duplicate pages or findings;
//! - Chromium SIGKILLed mid-page (twice): the pool replaces it, the page is retried, the scan
//!   completes with every page rendered;
//! - the SQLite file's disk fills up under a running `sitescan serve`: writes fail with the JSON
//!   error object and a log line saying why, reads and health go on, writes work again once space
//!   is back without a restart; then the file sits on a read-only mount: the server refuses to
//!   start saying which database and why (or, if it starts, refuses writes with the error
//!   object); every acknowledged write survives and the file passes `PRAGMA integrity_check`
//!   (root only: it mounts a small tmpfs).
//!
//! PostgreSQL outages are in `reliability_pg_outage.rs` (they stop the shared server).

use crate::app;
use crate::engine;
use crate::fixture_site;
use crate::process;

use engine::{Collect, EngineSpec, scan_options};
use fixture_site::{FixtureSite, Route};
use process::Proc;
use sea_orm::ConnectionTrait;
use std::collections::HashSet;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

fn page(title: &str, body: &str) -> Route {
    Route::html(format!(
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>{title}</title></head><body><main><h1>{title}</h1>{body}</main></body></html>"
    ))
}

/// A site of `n` pages in a chain, each answering after `delay`.
fn slow_site(site: &FixtureSite, n: usize, delay: Duration) {
    for i in 0..n {
        let path = if i == 0 { "/".to_string() } else { format!("/p{i}") };
        let links: String = (1..n).map(|j| format!(r#"<a href="/p{j}">page {j}</a> "#)).collect();
        site.route(&path, page(&format!("Slow page {i}"), &links).delay(delay));
    }
}

async fn scan_page_count(app: &app::TestApp, scan: &str) -> i64 {
    let id = uuid::Uuid::parse_str(scan).unwrap();
    let stmt = app.store.stmt("SELECT COUNT(*) AS n FROM scan_pages WHERE scan_id = $1", vec![id.into()]);
    let row = app.store.conn().query_one_raw(stmt).await.unwrap().unwrap();
    row.try_get("", "n").unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_worker_killed_mid_scan_is_replaced_and_nothing_is_duplicated() {
    let site = FixtureSite::start().await;
    slow_site(&site, 6, Duration::from_millis(1500));
    let app = app::spawn_app_with(app::AppOptions::default().allow_target("127.0.0.1/32")).await;
    let token = app.token("acme").await;
    let worker_args = |db: &str| {
        vec![
            "worker".to_string(), "--database".into(), db.to_string(), "--allow-target".into(), "127.0.0.1/32".into(),
            "--lease-seconds".into(), "3".into(), "--poll-ms".into(), "100".into(), "--max-pages".into(), "6".into(),
            "--pages-per-browser".into(), "1".into(),
        ]
    };
    let args = worker_args(&app.db_url);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut first = Proc::spawn(&args, &[("RUST_LOG", "info")]);
    let created = app.create_scan(&token, &site.url("/")).await;
    let id = created["id"].as_str().unwrap().to_string();

    // Wait until the first worker has stored part of the scan, then kill it hard.
    let began = Instant::now();
    loop {
        if scan_page_count(&app, &id).await >= 2 {
            break;
        }
        assert!(began.elapsed() < Duration::from_secs(120), "the first worker stored no pages; its output:\n{}", first.output());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    first.kill9().await;
    let partial = scan_page_count(&app, &id).await;
    let running = app.get(&format!("/api/v1/scans/{id}"), &token).await;
    assert_eq!(running.json["scan"]["status"], "running", "the killed worker's scan is still running (leased)");
    // Its Chromium died with it (PR_SET_PDEATHSIG).
    tokio::time::sleep(Duration::from_millis(500)).await;
    let orphans = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter(|stat| stat.rsplit_once(')').and_then(|(_, r)| r.split_whitespace().nth(1)).is_some_and(|pp| pp == first.pid.to_string()))
        .count();
    assert_eq!(orphans, 0, "no process of the killed worker survives it");

    let mut second = Proc::spawn(&args, &[("RUST_LOG", "info")]);
    let body = loop {
        let r = app.get(&format!("/api/v1/scans/{id}?include_findings=true"), &token).await;
        let status = r.json["scan"]["status"].as_str().unwrap_or_default().to_string();
        if status == "completed" || status == "failed" {
            break r.json;
        }
        assert!(began.elapsed() < Duration::from_secs(240), "the scan did not finish after the kill; second worker:\n{}", second.output());
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    second.stop(Duration::from_secs(20)).await;
    assert_eq!(body["scan"]["status"], "completed", "{body:#}");
    let row = app.store.scan_any_org(uuid::Uuid::parse_str(&id).unwrap()).await.unwrap().unwrap();
    assert_eq!(row.attempts, 2, "claimed twice: by the killed worker and by its successor");
    let pages = body["report"]["pages"].as_array().unwrap();
    let urls: HashSet<&str> = pages.iter().map(|p| p["url"].as_str().unwrap()).collect();
    assert_eq!(urls.len(), pages.len(), "no page stored twice");
    assert_eq!(pages.len(), 6, "every page of the site");
    assert_eq!(scan_page_count(&app, &id).await, 6);
    let findings = body["report"]["findings"].as_array().unwrap();
    let keys: HashSet<String> = findings.iter().map(|f| format!("{}|{}", f["check_id"], f["evidence"])).collect();
    assert_eq!(keys.len(), findings.len(), "no finding stored twice");
    let total: u64 = ["critical", "high", "medium", "low", "info"].iter().map(|s| body["scan"]["findings_count"][s].as_u64().unwrap()).sum();
    assert_eq!(total as usize, findings.len(), "counts equal the findings");
    eprintln!("faults: worker SIGKILLed after {partial} of 6 pages; the second worker completed the scan ({} findings, no duplicates)", findings.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn chromium_killed_mid_page_is_replaced_and_the_scan_completes() {
    let site = FixtureSite::start().await;
    slow_site(&site, 5, Duration::from_millis(2500));
    let spec = EngineSpec { pages_per_browser: 1, ..EngineSpec::default() };
    let scanner = spec.scanner().await;
    let start = url::Url::parse(&site.url("/")).unwrap();
    let run = {
        let scanner = scanner.clone();
        tokio::spawn(async move {
            let mut sink = Collect::default();
            let stats = scanner.run(&start, &scan_options(5), &mut sink, None, CancellationToken::new()).await;
            (stats, sink)
        })
    };
    // Kill the browser while /p2 and then /p4 are in flight (their answers take 2.5 s; one page
    // renders at a time): each page's retry on the fresh browser must succeed.
    let mut kills = 0;
    let began = Instant::now();
    for path in ["/p2", "/p4"] {
        while site.hit_count(path) == 0 {
            assert!(began.elapsed() < Duration::from_secs(90), "{path} was never requested: {:?}", site.hits().iter().map(|h| &h.path).collect::<Vec<_>>());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let pids = scanner.pool().browser_pids();
        assert!(!pids.is_empty(), "a browser is running");
        for pid in pids {
            // SAFETY: killing the Chromium process group the pool launched.
            unsafe {
                libc::killpg(pid as i32, libc::SIGKILL);
            }
        }
        kills += 1;
    }
    let (stats, sink) = tokio::time::timeout(Duration::from_secs(180), run).await.expect("the scan ends").unwrap();
    let stats = stats.expect("the scan completes");
    let pool = scanner.pool().stats();
    scanner.pool().shutdown().await;
    assert_eq!(stats.pages, 5, "{:?}", sink.pages.iter().map(|p| (&p.url, &p.error)).collect::<Vec<_>>());
    assert!(site.hit_count("/p2") >= 2 && site.hit_count("/p4") >= 2, "the killed pages were requested again");
    assert!(pool.crashes >= 2 && pool.restarts >= 2, "the pool counted and replaced the killed browsers: {pool:?}");
    for p in &sink.pages {
        assert!(p.error.is_none() && p.status == Some(200), "every page rendered after the retry: {} {:?}", p.url, p.error);
    }
    eprintln!("faults: Chromium SIGKILLed {kills} times mid-page; pool {pool:?}; scan of {} pages completed", stats.pages);
}

/// A tmpfs of `size` mounted at a fresh directory, unmounted on drop.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(size: &str) -> Tmpfs {
        let dir = tempfile::tempdir().unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "mounting a tmpfs failed (the disk-fault test needs root)");
        Tmpfs { dir }
    }

    fn path(&self) -> &std::path::Path {
        self.dir.path()
    }

}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg("-l").arg(self.dir.path()).status();
    }
}

struct Unmount(std::path::PathBuf);

impl Drop for Unmount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_full_then_read_only_disk_gives_clear_errors_and_no_corruption() {
    if app::on_postgres() {
        eprintln!("disk faults concern the SQLite file: skipped on the PostgreSQL pass");
        return;
    }
    if !is_root() {
        eprintln!("SKIPPED: the disk-fault test mounts a tmpfs and needs root");
        return;
    }
    let fs = Tmpfs::mount("8m");
    let db_path = fs.path().join("sitescan.db");
    let db = format!("sqlite://{}?mode=rwc", db_path.display());
    let (code, token, err) = process::run(&["token", "create", "--org", "acme", "--database", &db], &[]).await;
    assert_eq!(code, 0, "{err}");
    let token = token.trim().to_string();
    let mut server = Proc::spawn(&["serve", "--no-workers", "--listen", "127.0.0.1:0", "--database", &db, "--rate-limit-per-second", "100000", "--rate-limit-per-minute", "1000000"],
        &[("RUST_LOG", "info")],);
    let base = server.base_url().await;
    let http = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
    let post = |i: usize| {
        let (http, base, token) = (http.clone(), base.clone(), token.clone());
        async move {
            let body = serde_json::json!({ "target": format!("https://site-{i}.example.com/{}", "p".repeat(1500)) }).to_string();
            let r = http.post(format!("{base}/api/v1/scans")).bearer_auth(&token).body(body).send().await.unwrap();
            let status = r.status().as_u16();
            let json: serde_json::Value = serde_json::from_str(&r.text().await.unwrap_or_default()).unwrap_or(serde_json::Value::Null);
            (status, json)
        }
    };

    // Fill the disk: a filler file takes what is left, then scans are created until writes fail.
    let mut acknowledged = HashSet::new();
    for i in 0..20 {
        let (s, j) = post(i).await;
        assert_eq!(s, 201, "{j}");
        acknowledged.insert(j["id"].as_str().unwrap().to_string());
    }
    let filler = fs.path().join("filler");
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&filler).unwrap();
        let chunk = vec![7u8; 64 * 1024];
        while f.write_all(&chunk).is_ok() {}
        let _ = f.sync_all();
    }
    let mut refused = 0;
    let mut statuses = Vec::new();
    for i in 20..400 {
        let (s, j) = post(i).await;
        statuses.push(s);
        match s {
            201 => {
                acknowledged.insert(j["id"].as_str().unwrap().to_string());
            }
            500 | 503 => {
                assert!(j["error"].is_string(), "a failed write answers the JSON error object: {j}");
                refused += 1;
                if refused >= 20 {
                    break;
                }
            }
            other => panic!("unexpected status {other} on a full disk: {j}"),
        }
    }
    assert!(refused >= 20, "writes failed once the disk was full: {statuses:?}");
    // Reads and health go on.
    let r = http.get(format!("{base}/api/v1/scans?limit=5")).bearer_auth(&token).send().await.unwrap();
    assert_eq!(r.status(), 200, "reads work on a full disk");
    assert_eq!(http.get(format!("{base}/healthz")).send().await.unwrap().status(), 200);
    let logs = server.output();
    assert!(logs.contains("full") || logs.contains("FULL"), "the log says the disk is full:\n{}", tail(&logs));

    // Space is back: writes work again without a restart.
    std::fs::remove_file(&filler).unwrap();
    let (s, j) = post(1000).await;
    assert_eq!(s, 201, "writes resume once space is back: {j}\n{}", tail(&server.output()));
    acknowledged.insert(j["id"].as_str().unwrap().to_string());

    server.stop(Duration::from_secs(10)).await;

    // The same file on a read-only mount (a read-only bind mount of the tmpfs).
    let ro = tempfile::tempdir().unwrap();
    let bind = |args: &[&str]| std::process::Command::new("mount").args(args).status().is_ok_and(|s| s.success());
    assert!(bind(&["--bind", fs.path().to_str().unwrap(), ro.path().to_str().unwrap()]), "bind mount");
    let _unmount = Unmount(ro.path().to_path_buf());
    assert!(bind(&["-o", "remount,bind,ro", ro.path().to_str().unwrap()]), "remount the bind mount read-only");
    let ro_db = format!("sqlite://{}?mode=rwc", ro.path().join("sitescan.db").display());
    let mut ro_server = Proc::spawn(
        &["serve", "--no-workers", "--listen", "127.0.0.1:0", "--database", &ro_db, "--rate-limit-per-second", "100000", "--rate-limit-per-minute", "1000000"],
        &[("RUST_LOG", "info")],
    );
    let started = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            if ro_server.output().contains("listening on http://") {
                return true;
            }
            if let Ok(Some(_)) = ro_server.child.try_wait() {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the server either starts or exits");
    let ro_outcome;
    if started {
        // It serves: writes fail with the error object and a log line, health goes on.
        let ro_base = ro_server.base_url().await;
        let r = http.post(format!("{ro_base}/api/v1/scans")).bearer_auth(&token).body(r#"{"target":"example.com"}"#).send().await.unwrap();
        let status = r.status().as_u16();
        let j: serde_json::Value = serde_json::from_str(&r.text().await.unwrap()).unwrap_or_default();
        assert!(status == 500 || status == 503, "a write to a read-only database fails: {status} {j}");
        assert!(j["error"].is_string(), "{j}");
        assert_eq!(http.get(format!("{ro_base}/healthz")).send().await.unwrap().status(), 200);
        let logs = ro_server.output().to_ascii_lowercase();
        assert!(logs.contains("readonly") || logs.contains("read-only") || logs.contains("unable to open"), "the log says why:\n{}", tail(&logs));
        ro_server.stop(Duration::from_secs(10)).await;
        ro_outcome = format!("served, writes refused with {status}");
    } else {
        // It refuses to start, saying which database and why.
        let out = ro_server.output();
        let code = ro_server.child.wait().await.unwrap().code();
        assert_ne!(code, Some(0), "a server that cannot use its database exits non-zero");
        assert!(out.contains("opening the database") && out.contains(ro.path().to_str().unwrap()), "the error names the database:\n{}", tail(&out));
        let lower = out.to_ascii_lowercase();
        assert!(lower.contains("read") || lower.contains("unable to open"), "the error says why:\n{}", tail(&out));
        ro_outcome = format!("refused to start (exit {code:?}): {}", out.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or_default().trim());
    }
    let ro_refused = 1;

    // No corruption, nothing acknowledged lost.
    let store = sitescan_store::Store::open(&db, false).await.unwrap();
    let check = store.conn().query_one_raw(store.stmt("PRAGMA integrity_check", vec![])).await.unwrap().unwrap();
    let verdict: String = check.try_get_by_index(0).unwrap();
    assert_eq!(verdict, "ok", "the SQLite file is intact");
    let rows = store.conn().query_all_raw(store.stmt("SELECT id FROM scans", vec![])).await.unwrap();
    let stored: HashSet<String> = rows.iter().map(|r| r.try_get::<uuid::Uuid>("", "id").unwrap().to_string()).collect();
    let lost: Vec<&String> = acknowledged.iter().filter(|id| !stored.contains(*id)).collect();
    assert!(lost.is_empty(), "acknowledged scans lost: {lost:?}");
    eprintln!(
        "faults: full disk ({refused} writes refused with the error object, writes resumed without a restart); read-only file: {ro_outcome} ({ro_refused}); {} acknowledged scans intact, integrity ok",
        acknowledged.len()
    );
}

fn tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(15)..].join("\n")
}
