//! One scan's page while it runs: the stream of its progress as a client reads it, and in a
//! real Chromium a scan of a fixture site, run by a real worker, followed from `queued` through
//! its pages to its report without a reload (and, with JavaScript off, by the page's refresh).

use crate::browser::{Chromium, click_and_wait, eval, fill, goto, launch, shoot, try_eval};
use crate::dashboard_client::*;
use crate::fixture_site::{FixtureSite, Route};
use futures::StreamExt;
use serde_json::Value;
use sitescan::model::{AddressPolicy, ScanMode, ScanPhase, ScanProgressState, Severity, Target, TriggeredBy};
use std::time::{Duration, Instant};

/// Reads server-sent events until `end` (or the deadline): (event, data) each.
async fn read_events(web: &Web, path: &str, deadline: Duration, mut between: impl AsyncFnMut(usize)) -> Vec<(String, String)> {
    let r = web.http.get(format!("{}{path}", web.base)).header("cookie", web.cookie_header()).header("accept-encoding", "gzip").send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
    assert!(r.headers().get("content-encoding").is_none(), "a stream is never gathered to be compressed");
    let mut body = r.bytes_stream();
    let (mut buf, mut events) = (String::new(), Vec::new());
    let until = Instant::now() + deadline;
    while Instant::now() < until {
        let Ok(Some(chunk)) = tokio::time::timeout(Duration::from_secs(5), body.next()).await else { break };
        buf.push_str(&String::from_utf8_lossy(&chunk.unwrap()));
        while let Some(end) = buf.find("\n\n") {
            let block: String = buf.drain(..end + 2).collect();
            let mut event = String::new();
            let mut data = String::new();
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event:") {
                    event = v.trim().to_string();
                } else if let Some(v) = line.strip_prefix("data:") {
                    data.push_str(v.trim_start());
                }
            }
            if event.is_empty() {
                continue; // a keep-alive comment
            }
            events.push((event.clone(), data));
            between(events.len()).await;
            if event == "end" {
                return events;
            }
        }
    }
    events
}

/// The stream sends the view whenever it changes (queued, then running with its phase and
/// pages, findings so far), then `end`; another organisation gets the 404 page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scans_events_follow_it_from_queued_to_its_end() {
    let app = app_with_owner().await;
    let web = owner(&app).await;
    let scan = app.seed_scan("acme", "https://shop.acme.test/").await;
    let store = app.store.clone();
    let id = scan.id;
    let mut step = 0;
    let events = read_events(&web, &format!("/scans/{id}/events"), Duration::from_secs(60), async |_| {
        // Each step once the stream told the one before.
        step += 1;
        match step {
            1 => {
                store.claim_scan("live-events", Duration::from_secs(60), 3).await.unwrap().expect("claimed");
                let p = ScanProgressState { phase: ScanPhase::Crawling, pages_done: 0, pages_found: 3 };
                assert!(store.set_scan_progress(id, "live-events", &p).await.unwrap());
            }
            2 => {
                let record = sitescan::model::ReportPage {
                    url: "https://shop.acme.test/".into(),
                    final_url: None,
                    status: Some(200),
                    title: Some("Shop".into()),
                    metrics: serde_json::json!({}),
                    error: None,
                    checks_not_run: Vec::new(),
                };
                let f = crate::app::finding("search.title-missing", Severity::High, "https://shop.acme.test/");
                store.insert_page_results(id, "acme", 1, &record, &[f]).await.unwrap();
                let p = ScanProgressState { phase: ScanPhase::Crawling, pages_done: 1, pages_found: 3 };
                assert!(store.set_scan_progress(id, "live-events", &p).await.unwrap());
            }
            3 => {
                let mut summary = sitescan::model::ReportSummary::empty();
                summary.pages_scanned = 1;
                summary.count("search.title-missing", Severity::High, 1);
                assert!(store.complete_scan(id, "live-events", &sitescan::model::StoredReport::of(summary.clone())).await.unwrap());
            }
            _ => {}
        }
    })
    .await;
    // Each change once (a poll may also catch a step half-made: tolerated, never required).
    let (last, views) = events.split_last().expect("events");
    assert_eq!(last, &("end".to_string(), "completed".to_string()), "{events:#?}");
    assert!(views.iter().all(|(e, _)| e == "progress"), "{events:#?}");
    let data: Vec<Value> = views.iter().map(|(_, d)| serde_json::from_str(d).unwrap()).collect();
    for pair in data.windows(2) {
        assert_ne!(pair[0], pair[1], "sent only when it changed");
    }
    assert_eq!((data[0]["status"].as_str(), data[0]["phase"].as_str()), (Some("queued"), Some("Waiting for a worker")));
    let at = |done: u64| {
        data.iter()
            .find(|d| d["status"] == "running" && d["pages_done"] == done && d["pages_found"] == 3)
            .unwrap_or_else(|| panic!("running, {done} of 3 pages: {data:#?}"))
    };
    assert_eq!(at(0)["phase"].as_str(), Some(ScanPhase::Crawling.label()));
    let part_way = at(1);
    assert_eq!(part_way["percent"].as_u64(), Some(33));
    assert_eq!(part_way["total"].as_u64(), Some(1), "findings so far");
    assert_eq!(part_way["counts"][1], serde_json::json!(["high", 1]));
    assert_eq!(part_way["latest"][0]["check_id"].as_str(), Some("search.title-missing"));
    assert_eq!(data.last().unwrap()["status"].as_str(), Some("completed"));

    // A finished scan's stream: its view, then `end`, at once.
    let again = read_events(&web, &format!("/scans/{id}/events"), Duration::from_secs(10), async |_| {}).await;
    assert_eq!(again.iter().map(|(e, _)| e.as_str()).collect::<Vec<_>>(), ["progress", "end"]);

    // Someone else's scan, a forged id, a signed-out visitor: never a stream.
    sitescan::accounts::users::create_user(&app.store, "globex", "owner@globex.test", sitescan::accounts::Role::Owner, PASSWORD).await.unwrap();
    let mut other = Web::new(&app);
    redirect_to(&other.login("owner@globex.test", PASSWORD).await, "/");
    page(&other.get(&format!("/scans/{id}/events")).await, 404);
    let mut web = web;
    page(&web.get("/scans/not-a-scan/events").await, 404);
    let stranger = Web::new(&app).get(&format!("/scans/{id}/events")).await;
    assert_ne!(stranger.status.as_u16(), 200);
    assert!(!stranger.headers.get("content-type").is_some_and(|c| c.to_str().unwrap().starts_with("text/event-stream")));
}

fn fixture_page(title: &str, body: &str) -> Route {
    Route::html(format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title></head><body><main><h1>{title}</h1>{body}</main></body></html>"
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_chromium_a_scans_page_follows_it_from_queued_to_its_report_without_a_reload() {
    let app = app_with_owner().await;
    // Four slow pages: the scan runs long enough to be seen part-way.
    let site = FixtureSite::start().await;
    let links = "<p><a href=\"/a\">A</a> <a href=\"/b\">B</a> <a href=\"/c\">C</a></p>";
    site.route("/", fixture_page("Home of the slow site", links).delay(Duration::from_millis(600)));
    for p in ["/a", "/b", "/c"] {
        site.route(p, fixture_page(&format!("Page {p}"), "<p><img src=\"/dot.png\" width=\"1\" height=\"1\"></p>").delay(Duration::from_millis(1500)));
    }
    let policy = AddressPolicy::new(vec!["127.0.0.0/8".parse().unwrap()]);
    let target = Target::parse(&site.url("/"), &policy).unwrap();
    let scan = match app.store.create_scan("acme", &target, ScanMode::Passive, TriggeredBy::Manual, None).await.unwrap() {
        sitescan_store::CreateOutcome::Created(r) => r,
        other => panic!("{other:?}"),
    };

    let chromium: Chromium = launch().await;
    let page = chromium.browser.new_page("about:blank").await.unwrap();
    goto(&page, &app.url("/login")).await;
    fill(&page, "#email", "owner@acme.test").await;
    fill(&page, "#password", PASSWORD).await;
    click_and_wait(&page, "form[action='/login'] button[type=submit]").await;
    // A second tab with JavaScript off: only the page's own refresh moves it.
    let still = chromium.browser.new_page("about:blank").await.unwrap();
    still.execute(chromiumoxide::cdp::browser_protocol::emulation::SetScriptExecutionDisabledParams::new(true)).await.unwrap();
    let scan_url = app.url(&format!("/scans/{}", scan.id));
    goto(&still, &scan_url).await;
    goto(&page, &scan_url).await;
    let text = |sel: &str| format!("(document.querySelector('{sel}') || {{}}).textContent");
    assert_eq!(eval(&page, &text("#scan-status")).await, Value::String("queued".into()));
    assert_eq!(eval(&page, &text("#live-phase")).await, Value::String("Waiting for a worker".into()));
    // What the page shows, each time it changes, recorded in the page itself: on every change of
    // the document (a timer could miss a state shown for less than its period, such as the last
    // progress just before the report replaces it).
    eval(
        &page,
        "window.__notReloaded = true; window.__seen = []; var record = function () { \
           var s = document.getElementById('scan-status'), d = document.getElementById('live-done'), f = document.getElementById('live-found'); \
           var now = (s ? s.textContent : '') + '|' + (d ? d.textContent : '') + '|' + (f ? f.textContent : ''); \
           if (window.__seen[window.__seen.length - 1] !== now) { window.__seen.push(now); } }; \
           record(); new MutationObserver(record).observe(document.body, { subtree: true, childList: true, characterData: true }); true",
    )
    .await;

    let scanner = crate::scan_engine().await;
    let config = sitescan::crawl::WorkerConfig {
        lease: Duration::from_secs(30),
        max_attempts: 3,
        poll: Duration::from_millis(100),
        options: sitescan::crawl::ScanOptions { max_pages: 10, ..sitescan::crawl::ScanOptions::default() },
        ownership: sitescan::crawl::worker::Ownership::ProvedByCaller(None),
        max_running_per_org: sitescan::crawl::DEFAULT_MAX_RUNNING_PER_ORG,
        page_sharing: false,
    };
    let workers = sitescan::crawl::Workers::spawn(app.store.clone(), scanner, 1, config);
    let mut shots = Vec::new();
    let mut shot_running = false;
    let began = Instant::now();
    let mut ended = false;
    // Read as the page goes: a read that finds no document (one being replaced, were the page to
    // reload) counts as "not yet"; whether it reloaded is asserted after, from the page's marker.
    while began.elapsed() < Duration::from_secs(120) {
        if !shot_running && try_eval(&page, "document.getElementById('live-done') !== null && +document.getElementById('live-done').textContent >= 1").await == Value::Bool(true) {
            shoot(&page, "", "scan-running", &mut shots).await;
            shot_running = true;
        }
        if try_eval(&page, "document.getElementById('report') !== null").await == Value::Bool(true) {
            ended = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(ended, "the report took the progress's place within 2 minutes");
    assert_eq!(eval(&page, "window.__notReloaded === true").await, Value::Bool(true), "without a reload (the page's marker survived)");
    let seen: Vec<String> = serde_json::from_value(eval(&page, "window.__seen").await).unwrap();
    assert_eq!(seen.first().map(String::as_str), Some("queued|0|0"), "{seen:?}");
    assert!(
        seen.iter().any(|s| {
            let parts: Vec<&str> = s.split('|').collect();
            parts[0] == "running" && parts[1].parse::<u64>().is_ok_and(|d| d >= 1) && parts[2].parse::<u64>().unwrap_or(0) > parts[1].parse::<u64>().unwrap_or(0)
        }),
        "part-way: some pages done of more found: {seen:?}"
    );
    assert_eq!(seen.last().map(|s| s.split('|').next().unwrap()), Some("completed"), "{seen:?}");
    assert_eq!(eval(&page, &text("#scan-status")).await, Value::String("completed".into()));
    assert_eq!(eval(&page, "document.querySelectorAll('#report section#pages tbody tr').length").await, Value::from(4), "its four pages");
    assert_eq!(eval(&page, "document.getElementById('filters').hidden").await, Value::Bool(false), "the report's filter is wired");
    assert!(eval(&page, "document.title").await.as_str().unwrap().starts_with("Scan of 127.0.0.1"));
    shoot(&page, "", "scan-completed", &mut shots).await;

    // The tab without JavaScript gets there by its refresh (every 5 s); a read while it refreshes
    // finds no document and looks again.
    let mut refreshed = false;
    for _ in 0..80 {
        if try_eval(&still, "document.getElementById('report') !== null").await == Value::Bool(true) {
            refreshed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert!(refreshed, "without JavaScript the page refreshes until the report shows");
    workers.shutdown().await;
    let _ = page.close().await;
    let _ = still.close().await;
    let mut chromium = chromium;
    let _ = chromium.browser.close().await;
    let _ = chromium.browser.wait().await;
    chromium.handler.abort();
    eprintln!("screenshots:\n{}", shots.join("\n"));
}

/// A member at their cap of live views: the scan page, in Chromium, says why it refreshes instead
/// of following the scan (screenshots at 1280 and 390 px), and once a place is free again its own
/// refresh brings the live view back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_chromium_a_scans_page_at_the_live_view_cap_says_why_it_refreshes() {
    let one_each = sitescan::scans::StreamLimits { per_holder: 1, ..sitescan::scans::StreamLimits::LIVE_VIEWS };
    let caps = sitescan::scans::StreamCaps { live_views: one_each, ..sitescan::scans::StreamCaps::default() };
    let app = crate::app::spawn_app_with(crate::app::AppOptions::default().streams(caps)).await;
    sitescan::accounts::users::create_user(&app.store, "acme", "owner@acme.test", sitescan::accounts::Role::Owner, PASSWORD).await.unwrap();
    let scan = app.seed_scan("acme", "https://shop.acme.test/").await;
    // The owner's one place, taken elsewhere (another sign-in of the same person).
    let web = owner(&app).await;
    // (A client with no overall timeout: the stream stays open as long as the test needs.)
    let held = reqwest::Client::new().get(app.url(&format!("/scans/{}/events", scan.id))).header("cookie", web.cookie_header()).send().await.unwrap();
    assert_eq!(held.status(), 200);

    let chromium: Chromium = launch().await;
    let page = chromium.browser.new_page("about:blank").await.unwrap();
    goto(&page, &app.url("/login")).await;
    fill(&page, "#email", "owner@acme.test").await;
    fill(&page, "#password", PASSWORD).await;
    click_and_wait(&page, "form[action='/login'] button[type=submit]").await;
    let scan_url = app.url(&format!("/scans/{}", scan.id));
    goto(&page, &scan_url).await;
    let line = "(document.getElementById('live-paused') || {}).textContent || null";
    assert_eq!(
        eval(&page, line).await,
        Value::String("Live updates are paused: you have too many live views open; this page refreshes every 5 s.".into())
    );
    assert_eq!(eval(&page, "document.querySelector('[data-scan-live]') === null").await, Value::Bool(true));
    assert_eq!(eval(&page, "document.querySelector('meta[http-equiv=refresh]').content").await, Value::String("5".into()));
    let mut shots = Vec::new();
    shoot(&page, &scan_url, "scan-live-paused", &mut shots).await;
    assert_eq!(shots.len(), 2);

    // The place is free again: the page's own refresh brings the live view back.
    drop(held);
    let began = Instant::now();
    loop {
        if try_eval(&page, "document.querySelector('[data-scan-live]') !== null && !document.getElementById('live-paused')").await == Value::Bool(true) {
            break;
        }
        assert!(began.elapsed() < Duration::from_secs(60), "the page never followed the scan again");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    drop(page);
    drop(chromium);
}
