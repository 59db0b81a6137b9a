//! The pool's life: crashed browsers are replaced and the page retried, browsers are recycled,
//! remote DevTools endpoints get the egress proxy per context, and no Chromium outlives the pool.

use crate::fixture_site;

use fixture_site::{FixtureSite, Route, init_test_log};
use sitescan::browser::{BrowserOptions, BrowserPool, CaptureOptions};
use sitescan::model::AddressPolicy;
use sitescan::net::EgressGuard;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncBufReadExt;

fn guard() -> Arc<EgressGuard> {
    Arc::new(EgressGuard::new(AddressPolicy::new(vec!["127.0.0.1/32".parse().unwrap()])))
}

fn bare(options: BrowserOptions) -> BrowserOptions {
    BrowserOptions { capture: CaptureOptions::bare(), ..options }
}

/// Every descendant of `pid` (renderers, GPU and utility processes).
fn descendants(pid: u32) -> Vec<u32> {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(p) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else { continue };
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r.to_string()) else { continue };
        let ppid: u32 = rest.split_whitespace().nth(1).and_then(|x| x.parse().ok()).unwrap_or(0);
        parents.push((p, ppid));
    }
    let mut out = vec![pid];
    let mut i = 0;
    while i < out.len() {
        let cur = out[i];
        out.extend(parents.iter().filter(|(_, pp)| *pp == cur).map(|(p, _)| *p));
        i += 1;
    }
    out
}

fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat.rsplit_once(')').map(|(_, r)| r.trim_start().starts_with('Z')).unwrap_or(false),
        Err(_) => false,
    }
}

async fn wait_dead(pids: &[u32]) -> Vec<u32> {
    for _ in 0..100 {
        if pids.iter().all(|p| !alive(*p)) {
            return Vec::new();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    pids.iter().copied().filter(|p| alive(*p)).collect()
}

fn kill(pid: u32) {
    unsafe {
        libc::kill(pid as i32, libc::SIGKILL);
    }
}

#[tokio::test]
async fn a_killed_browser_is_replaced_and_the_page_retried() {
    init_test_log();
    let site = FixtureSite::start().await;
    site.route("/", Route::html("<!doctype html><title>ok</title>"));
    site.route("/slow", Route::html("<!doctype html><title>slow</title><img src='/slow.svg'>"));
    site.route("/slow.svg", Route::typed("image/svg+xml", "<svg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/>").delay(Duration::from_secs(3)));
    let pool = BrowserPool::start(bare(BrowserOptions::default()), guard()).await.unwrap();
    let session = pool.session().await.unwrap();
    assert_eq!(session.capture(&site.url("/")).await.error, None);
    let first = pool.browser_pids()[0];

    // Killed between pages: detected and replaced before the next page.
    kill(first);
    let s = session.capture(&site.url("/")).await;
    assert_eq!((s.error.clone(), s.dom.title.as_deref()), (None, Some("ok")), "{:?}", s.gather_errors);
    let second = pool.browser_pids()[0];
    assert_ne!(first, second);

    // Killed while a page loads: that page is retried once on the replacement.
    let killer = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(1500)).await;
        kill(second);
    });
    let s = session.capture(&site.url("/slow")).await;
    killer.await.unwrap();
    assert_eq!((s.error.clone(), s.dom.title.as_deref()), (None, Some("slow")), "retried page: {:?}", s.gather_errors);
    let stats = pool.stats();
    assert_eq!((stats.crashes, stats.restarts, stats.browsers), (2, 2, 1), "{stats:?}");
    assert_eq!(stats.busy_pages, 0);
    assert!(stats.pages_captured >= 4);
    session.close().await;
    pool.shutdown().await;
}

#[tokio::test]
async fn a_browser_that_stops_answering_is_replaced() {
    init_test_log();
    let site = FixtureSite::start().await;
    site.route("/", Route::html("<!doctype html><title>ok</title>"));
    let pool = BrowserPool::start(bare(BrowserOptions::default()), guard()).await.unwrap();
    let session = pool.session().await.unwrap();
    assert_eq!(session.capture(&site.url("/")).await.error, None);
    let frozen = pool.browser_pids()[0];
    unsafe {
        libc::kill(frozen as i32, libc::SIGSTOP);
    }
    let s = session.capture(&site.url("/")).await;
    assert_eq!((s.error.clone(), s.dom.title.as_deref()), (None, Some("ok")), "retried on a fresh browser");
    assert_ne!(pool.browser_pids()[0], frozen);
    assert_eq!(pool.stats().crashes, 1);
    assert!(wait_dead(&[frozen]).await.is_empty(), "the hung browser was killed");
    session.close().await;
    pool.shutdown().await;
}

#[tokio::test]
async fn a_crashed_renderer_is_a_page_error() {
    init_test_log();
    let pool = BrowserPool::start(bare(BrowserOptions::default()), guard()).await.unwrap();
    let session = pool.session().await.unwrap();
    let s = session.capture("chrome://crash/").await;
    let err = s.error.expect("crash reported");
    assert_eq!(err.kind, "crashed", "{err:?}");
    // The browser itself is fine.
    assert_eq!(pool.stats().crashes, 0);
    assert_eq!(pool.stats().browsers, 1);
    session.close().await;
    pool.shutdown().await;
}

#[tokio::test]
async fn browsers_are_recycled_after_their_page_budget() {
    init_test_log();
    let site = FixtureSite::start().await;
    site.route("/", Route::html("<!doctype html><title>r</title>"));
    let options = bare(BrowserOptions { recycle_after_pages: 2, ..BrowserOptions::default() });
    let pool = BrowserPool::start(options, guard()).await.unwrap();
    let session = pool.session().await.unwrap();
    let mut pids = Vec::new();
    for _ in 0..5 {
        let s = session.capture(&site.url("/")).await;
        assert_eq!(s.error, None);
        pids.push(pool.browser_pids()[0]);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let stats = pool.stats();
    assert!(stats.restarts >= 2, "{stats:?}");
    assert_eq!(stats.crashes, 0);
    pids.dedup();
    assert!(pids.len() >= 3, "{pids:?}");
    // Retired browsers are closed once their pages are done.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let current = pool.browser_pids();
    let retired: Vec<u32> = pids.iter().copied().filter(|p| !current.contains(p)).collect();
    assert!(wait_dead(&retired).await.is_empty(), "retired browsers still running");
    session.close().await;
    pool.shutdown().await;
}

#[tokio::test]
async fn concurrent_pages_share_the_permits() {
    init_test_log();
    let site = FixtureSite::start().await;
    site.route("/", Route::html("<!doctype html><title>c</title><img src='/s.svg'>"));
    site.route("/s.svg", Route::typed("image/svg+xml", "<svg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/>").delay(Duration::from_millis(500)));
    let options = bare(BrowserOptions { browsers: 2, pages_per_browser: 2, ..BrowserOptions::default() });
    let pool = BrowserPool::start(options, guard()).await.unwrap();
    assert_eq!(pool.stats().browsers, 2);
    let session = Arc::new(pool.session().await.unwrap());
    let peak = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let watcher = {
        let (pool, peak) = (pool.clone(), peak.clone());
        tokio::spawn(async move {
            loop {
                peak.fetch_max(pool.stats().busy_pages, std::sync::atomic::Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
    };
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let (s, url) = (session.clone(), site.url("/"));
            tokio::spawn(async move { s.capture(&url).await })
        })
        .collect();
    for t in tasks {
        assert_eq!(t.await.unwrap().error, None);
    }
    watcher.abort();
    let peak = peak.load(std::sync::atomic::Ordering::SeqCst);
    assert!((2..=4).contains(&peak), "at most browsers x pages_per_browser at once, got {peak}");
    assert_eq!(pool.stats().pages_captured, 8);
    Arc::try_unwrap(session).unwrap().close().await;
    pool.shutdown().await;
}

#[tokio::test]
async fn no_chromium_outlives_shutdown_or_drop() {
    init_test_log();
    let pool = BrowserPool::start(bare(BrowserOptions { browsers: 2, ..BrowserOptions::default() }), guard()).await.unwrap();
    let site = FixtureSite::start().await;
    site.route("/", Route::html("<!doctype html><title>x</title>"));
    let session = pool.session().await.unwrap();
    session.capture(&site.url("/")).await;
    let tree: Vec<u32> = pool.browser_pids().into_iter().flat_map(descendants).collect();
    assert!(tree.len() >= 4, "browsers and their children: {tree:?}");
    let temp_dirs = || -> Vec<String> {
        let prefix = format!("sitescan-chromium-{}-", std::process::id());
        std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(&prefix))
            .collect()
    };
    assert_eq!(temp_dirs().len(), 2, "one user-data-dir per browser");
    session.close().await;
    pool.shutdown().await;
    assert!(wait_dead(&tree).await.is_empty(), "still running after shutdown");
    assert!(temp_dirs().is_empty(), "temp dirs removed: {:?}", temp_dirs());

    let pool = BrowserPool::start(bare(BrowserOptions::default()), guard()).await.unwrap();
    let tree: Vec<u32> = pool.browser_pids().into_iter().flat_map(descendants).collect();
    drop(pool);
    assert!(wait_dead(&tree).await.is_empty(), "still running after drop");
}

/// A Chromium started outside the pool, reached over its DevTools endpoint: the pool must still
/// route it through the egress proxy (per browser context), since it cannot pass launch flags.
#[tokio::test]
async fn remote_endpoints_are_used_and_still_guarded() {
    init_test_log();
    let exe = sitescan::browser::find_chromium(None).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut child = tokio::process::Command::new(exe)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0", "about:blank"])
        .arg(format!("--user-data-dir={}", dir.path().display()))
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let ws = loop {
        let line = lines.next_line().await.unwrap().expect("DevTools line");
        if let Some(i) = line.find("ws://") {
            break line[i..].trim().to_string();
        }
    };
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });

    let site = FixtureSite::start().await;
    let evil = FixtureSite::start_on("127.0.0.2").await;
    site.route("/", Route::html(format!("<!doctype html><title>remote</title><img src='{}'>", evil.url("/x.png"))));
    let options = bare(BrowserOptions { cdp_endpoints: vec![ws], ..BrowserOptions::default() });
    let pool = BrowserPool::start(options, guard()).await.unwrap();
    assert!(pool.browser_pids().is_empty(), "nothing launched");
    let session = pool.session().await.unwrap();
    let s = session.capture(&site.url("/")).await;
    assert_eq!((s.error.clone(), s.dom.title.as_deref()), (None, Some("remote")));
    let img = s.requests.iter().find(|r| r.url.contains("127.0.0.2")).unwrap();
    assert_eq!(img.blocked_reason.as_deref(), Some("egress"));
    assert_eq!(evil.connections(), 0);
    session.close().await;
    pool.shutdown().await;
    // The remote browser is not ours to close.
    assert!(child.try_wait().unwrap().is_none());
    child.kill().await.unwrap();
}
