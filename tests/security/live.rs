//! A scan's live page and its event stream: what a scanned site controls (the addresses of its
//! pages, shown in "findings so far") is shown as text, in the server's HTML and when the page's
//! script redraws the list from the stream, in a real Chromium; and neither the page nor the
//! stream is given to another organisation, a forged id or a signed-out visitor.

use crate::dashboard_client::*;
use chromiumoxide::browser::{Browser, BrowserConfig};
use futures::StreamExt;
use serde_json::Value;
use sitescan::accounts::{Role, users};
use sitescan::model::{ScanPhase, ScanProgressState, Severity};
use std::time::Duration;

/// A page address as a hostile site would have its links read: markup that runs if drawn as HTML.
const HOSTILE: &str = "https://shop.acme.test/\"><img src=x id=pwned onerror=\"document.title='pwned'\">";

fn page_record(url: &str) -> sitescan::model::ReportPage {
    sitescan::model::ReportPage {
        url: url.into(),
        final_url: None,
        status: Some(200),
        title: None,
        metrics: serde_json::json!({}),
        error: None,
        checks_not_run: Vec::new(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_scan_shows_a_hostile_sites_addresses_as_text_and_stays_in_its_organisation() {
    let app = app_with_owner().await;
    let scan = app.seed_scan("acme", "https://shop.acme.test/").await;
    app.store.claim_scan("live-security", Duration::from_secs(60), 3).await.unwrap().expect("claimed");
    let progress = ScanProgressState { phase: ScanPhase::Crawling, pages_done: 1, pages_found: 3 };
    assert!(app.store.set_scan_progress(scan.id, "live-security", &progress).await.unwrap());
    let f = crate::app::finding("search.title-missing", Severity::High, HOSTILE);
    app.store.insert_page_results(scan.id, "acme", 1, &page_record(HOSTILE), &[f]).await.unwrap();

    // The server's HTML: escaped.
    let mut web = owner(&app).await;
    let html = web.get(&format!("/scans/{}", scan.id)).await;
    page(&html, 200);
    assert!(!html.text.contains("<img src=x"), "{}", html.text);
    assert!(html.text.contains("&#60;img src=x") || html.text.contains("&lt;img src=x"), "the address is shown, escaped: {}", html.text);

    // The script's redraw from the stream, in Chromium: text, never markup.
    let profile = tempfile::tempdir().unwrap();
    let config = BrowserConfig::builder()
        .chrome_executable("/usr/bin/chromium")
        .new_headless_mode()
        .no_sandbox()
        .user_data_dir(profile.path())
        .args(["disable-gpu", "no-first-run", "disable-background-networking", "disable-component-update", "disable-sync"])
        .env("TMPDIR", profile.path().to_string_lossy())
        .build()
        .unwrap();
    let (mut browser, mut handler) = tokio::time::timeout(Duration::from_secs(30), Browser::launch(config)).await.expect("Chromium starts").unwrap();
    let pump = tokio::spawn(async move { while handler.next().await.is_some() {} });
    let tab = browser.new_page("about:blank").await.unwrap();
    let eval = async |js: &str| -> Value { tab.evaluate_expression(js).await.unwrap().into_value().unwrap_or(Value::Null) };
    let goto = async |url: String| {
        tokio::time::timeout(Duration::from_secs(20), tab.goto(url)).await.expect("loads").unwrap();
        let _ = tokio::time::timeout(Duration::from_secs(10), tab.wait_for_navigation()).await;
    };
    goto(app.url("/login")).await;
    eval(&format!(
        "document.getElementById('email').value = 'owner@acme.test'; document.getElementById('password').value = {}; \
         document.querySelector(\"form[action='/login']\").submit(); true",
        serde_json::to_string(PASSWORD).unwrap()
    ))
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let _ = tokio::time::timeout(Duration::from_secs(10), tab.wait_for_navigation()).await;
    goto(app.url(&format!("/scans/{}", scan.id))).await;
    assert_eq!(eval("document.querySelectorAll('#live-latest li').length").await, Value::from(1), "signed in, the live page");
    // A second hostile finding: only the stream brings it, and the script draws it.
    let second = format!("{HOSTILE}2");
    let f = crate::app::finding("search.canonical-missing", Severity::Low, &second);
    app.store.insert_page_results(scan.id, "acme", 2, &page_record(&second), &[f]).await.unwrap();
    let mut redrawn = false;
    for _ in 0..60 {
        if eval("document.querySelectorAll('#live-latest li').length").await == 2 {
            redrawn = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert!(redrawn, "the stream's update was drawn");
    assert_eq!(eval("document.querySelector('#live-latest img, #pwned') === null").await, Value::Bool(true), "no element from the site's markup");
    assert_ne!(eval("document.title").await, Value::String("pwned".into()));
    let text = eval("document.getElementById('live-latest').textContent").await;
    assert!(text.as_str().unwrap().contains("<img src=x"), "shown as text: {text}");
    let _ = browser.close().await;
    let _ = browser.wait().await;
    pump.abort();

    // Another organisation, a forged id, a signed-out visitor: neither the page nor the stream.
    users::create_user(&app.store, "globex", "owner@globex.test", Role::Owner, PASSWORD).await.unwrap();
    let mut other = Web::new(&app);
    redirect_to(&other.login("owner@globex.test", PASSWORD).await, "/");
    for path in [format!("/scans/{}", scan.id), format!("/scans/{}/events", scan.id), format!("/scans/{}/report.html", scan.id)] {
        let r = other.get(&path).await;
        page(&r, 404);
        assert!(!r.text.contains("shop.acme.test"), "{path}");
    }
    page(&web.get(&format!("/scans/{}/events", uuid::Uuid::now_v7())).await, 404);
    let stranger = Web::new(&app).get(&format!("/scans/{}/events", scan.id)).await;
    assert_ne!(stranger.status.as_u16(), 200);
    assert!(!stranger.text.contains("shop.acme.test"));
}
