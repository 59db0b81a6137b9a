//! One run in a real Chromium: sign in, create a token, see it once (with its copy button),
//! use it, revoke it after the confirmation. Then screenshots of every page at 1280 and 390 px
//! (`/tmp/dash-shots/`), and sitescan's own checks on every page (through a loopback proxy that
//! adds the session cookie): nothing at `medium` or above.

use crate::dashboard_client::*;
use chromiumoxide::Page;
use chromiumoxide::browser::{Browser, BrowserConfig};
use chromiumoxide::cdp::browser_protocol::emulation::SetDeviceMetricsOverrideParams;
use chromiumoxide::cdp::browser_protocol::page::CaptureScreenshotFormat;
use chromiumoxide::page::ScreenshotParams;
use futures::StreamExt;
use serde_json::Value;
use sitescan::model::{AddressPolicy, ScanMode, Severity, Target, TriggeredBy};
use sitescan::crawl::ScanOptions;
use std::path::Path;
use std::time::Duration;

const CHROMIUM: &str = "/usr/bin/chromium";
const SHOTS: &str = "/tmp/dash-shots";

pub(crate) struct Chromium {
    pub(crate) browser: Browser,
    pub(crate) handler: tokio::task::JoinHandle<()>,
    _profile: tempfile::TempDir,
}

pub(crate) async fn launch() -> Chromium {
    assert!(Path::new(CHROMIUM).exists(), "{CHROMIUM} is missing: run `bash scripts/setup.sh`");
    let profile = tempfile::tempdir().unwrap();
    let config = BrowserConfig::builder()
        .chrome_executable(CHROMIUM)
        .new_headless_mode()
        .no_sandbox()
        .user_data_dir(profile.path())
        .window_size(1280, 900)
        .viewport(None)
        .args(["disable-gpu", "disable-quic", "no-first-run", "disable-background-networking", "disable-component-update", "disable-sync", "hide-scrollbars"])
        .env("TMPDIR", profile.path().to_string_lossy())
        .build()
        .unwrap();
    let (browser, mut handler) =
        tokio::time::timeout(Duration::from_secs(30), Browser::launch(config)).await.expect("Chromium starts within 30 s").expect("Chromium starts");
    let handler = tokio::spawn(async move { while handler.next().await.is_some() {} });
    Chromium { browser, handler, _profile: profile }
}

pub(crate) async fn eval(page: &Page, js: &str) -> Value {
    page.evaluate_expression(js).await.unwrap_or_else(|e| panic!("{js}: {e}")).into_value().unwrap_or(Value::Null)
}

/// `eval` for a page that may be between documents (reloading, or refreshing by itself): a read
/// that finds no document gives `Null`, for the caller to look again.
pub(crate) async fn try_eval(page: &Page, js: &str) -> Value {
    page.evaluate_expression(js).await.ok().and_then(|v| v.into_value::<Value>().ok()).unwrap_or(Value::Null)
}

pub(crate) async fn goto(page: &Page, url: &str) {
    tokio::time::timeout(Duration::from_secs(20), page.goto(url)).await.expect("loads within 20 s").unwrap();
    let _ = tokio::time::timeout(Duration::from_secs(10), page.wait_for_navigation()).await;
}

/// Submits the form holding `selector` (a button) and waits for the next page.
pub(crate) async fn click_and_wait(page: &Page, selector: &str) {
    page.find_element(selector).await.unwrap_or_else(|e| panic!("{selector}: {e}")).click().await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let _ = tokio::time::timeout(Duration::from_secs(10), page.wait_for_navigation()).await;
}

pub(crate) async fn fill(page: &Page, selector: &str, text: &str) {
    page.find_element(selector).await.unwrap_or_else(|e| panic!("{selector}: {e}")).click().await.unwrap().type_str(text).await.unwrap();
}

pub(crate) async fn shoot(page: &Page, url: &str, name: &str, shots: &mut Vec<String>) {
    for width in [1280i64, 390] {
        page.execute(SetDeviceMetricsOverrideParams::new(width, 900, 1.0, width < 600)).await.unwrap();
        if !url.is_empty() {
            goto(page, url).await;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        let overflow = eval(page, "document.documentElement.scrollWidth > window.innerWidth + 1").await;
        assert_eq!(overflow, Value::Bool(false), "{name} scrolls sideways at {width} px");
        let png = page.screenshot(ScreenshotParams::builder().format(CaptureScreenshotFormat::Png).full_page(true).build()).await.unwrap();
        let path = format!("{SHOTS}/{name}-{width}.png");
        std::fs::create_dir_all(SHOTS).unwrap();
        std::fs::write(&path, png).unwrap();
        shots.push(path);
    }
    page.execute(SetDeviceMetricsOverrideParams::new(1280, 900, 1.0, false)).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_chromium_sign_in_make_a_token_see_it_once_revoke_it_and_every_page_passes_our_checks() {
    let app = app_with_owner().await;
    // A scan of the organisation, with findings, to show on the pages.
    let policy = AddressPolicy::new(vec!["127.0.0.0/8".parse().unwrap()]);
    let target = Target::parse(&app.base, &policy).unwrap();
    let scan = match app.store.create_scan("acme", &target, ScanMode::Passive, TriggeredBy::Manual, None).await.unwrap() {
        sitescan_store::CreateOutcome::Created(r) => r,
        other => panic!("{other:?}"),
    };
    // With its check's reference, as the explorer links it ("How to fix").
    let mut finding = crate::app::finding("search.title-missing", Severity::High, &app.url("/x"));
    finding.help_url = Some(app.url("/"));
    app.seed_findings(scan.id, "acme", &[finding]).await;
    // A journey's screenshot, so the report page's screenshots section is drawn and checked too.
    let png = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/dashboard/fixtures/screenshot.png")).unwrap();
    app.store.insert_journey_screenshot(scan.id, "acme", "sign in", 5, "after login", png, 1).await.unwrap();
    // A member, so the members page has rows with actions.
    sitescan::accounts::users::create_user(&app.store, "acme", "member@acme.test", sitescan::accounts::Role::Member, PASSWORD).await.unwrap();
    // A second owner with a token of their own, so removing them lists what stops working.
    let boss = sitescan::accounts::users::create_user(&app.store, "acme", "boss@acme.test", sitescan::accounts::Role::Owner, PASSWORD).await.unwrap();
    app.store.create_token_with("acme", Some("deploy bot"), &["scans:read".to_string()], Some(&boss.id), None).await.unwrap();
    // A site with a journey and a secret, so its page shows every section.
    let site = app.store.add_site("acme", "https://shop.acme.test", "shop.acme.test", "Zq3x_7VbT0kLmN9pQrStUvWxYz012345", "test", 1).await.unwrap().unwrap();
    app.store.put_journey(site.id, "sign in", r#"{"name":"sign in","steps":[{"navigate":"/login"},{"audit":"login"}]}"#, 1).await.unwrap();
    app.store.put_site_secret(site.id, "PASSWORD", "x1:sealed", 1).await.unwrap();
    sitescan::recurring::add_schedule(&app.store, "acme", &site.origin, "0 3 * * *", Some("Europe/Paris"), ScanMode::Passive, None, 1).await.unwrap();
    app.store.record_site_verification(site.id, Ok("file"), 1).await.unwrap();
    sitescan::recurring::add_monitor(&app.store, "acme", &site.origin, 900, 1).await.unwrap();
    app.store.add_webhook(uuid::Uuid::now_v7(), "acme", "https://hooks.acme.test/sitescan/with/a/long/path/to/wrap", &["scan.completed".to_string(), "scan.regressed".to_string()], Some("high"), "x1:sealed", 1).await.unwrap();
    let (invite, _) = sitescan::accounts::invites::create(&app.store, "acme", "new@acme.test", sitescan::accounts::Role::Member, "x").await.unwrap();

    let chromium = launch().await;
    let page = chromium.browser.new_page("about:blank").await.unwrap();
    let mut shots = Vec::new();
    shoot(&page, &app.url("/login"), "login", &mut shots).await;
    shoot(&page, &app.url(&format!("/invite/{invite}")), "invite", &mut shots).await;
    goto(&page, &app.url("/login")).await;
    fill(&page, "#email", "owner@acme.test").await;
    fill(&page, "#password", PASSWORD).await;
    click_and_wait(&page, "form[action='/login'] button[type=submit]").await;
    assert_eq!(eval(&page, "location.pathname").await, Value::String("/".into()), "signed in");
    assert_eq!(eval(&page, "document.cookie").await, Value::String(String::new()), "the session cookie is HttpOnly");

    // Live status: the dashboard follows a queued scan to its end without a reload.
    assert_eq!(eval(&page, "document.querySelector('.status-queued') !== null").await, Value::Bool(true), "the scan shows queued");
    eval(&page, "window.__notReloaded = true").await;
    let claimed = app.store.claim_scan("live-status-test", Duration::from_secs(60), 3).await.unwrap().expect("the scan is claimed");
    assert_eq!(claimed.id, scan.id);
    let mut summary = sitescan::model::ReportSummary::empty();
    summary.pages_scanned = 1;
    summary.count("search.title-missing", Severity::High, 1);
    assert!(app.store.complete_scan(scan.id, "live-status-test", &sitescan::model::StoredReport::of(summary)).await.unwrap());
    let mut live = false;
    for _ in 0..40 {
        if eval(&page, "document.querySelector('.status-completed') !== null && window.__notReloaded === true").await == Value::Bool(true) {
            live = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert!(live, "the recent scans show `completed` within 10 s, without a reload");
    assert_eq!(eval(&page, "document.getElementById('live-note').textContent").await, Value::String("All scans have finished.".into()));

    goto(&page, &app.url("/account/api-tokens")).await;
    fill(&page, "#name", "from chromium").await;
    page.find_element("#scope-write").await.unwrap().click().await.unwrap();
    click_and_wait(&page, "form[action='/account/api-tokens'] button[type=submit]").await;
    let token = eval(&page, "document.getElementById('token-value') && document.getElementById('token-value').textContent").await;
    let token = token.as_str().expect("the new token is shown").trim().to_string();
    assert!(sitescan_store::looks_like_token(&token), "{token}");
    assert_eq!(eval(&page, "document.querySelector('button.copy').hidden").await, Value::Bool(false), "the copy button appears with JS");
    shoot(&page, "", "tokens-created", &mut shots).await;
    app.get("/api/v1/scans", &token).await.expect(200);

    goto(&page, &app.url("/account/api-tokens")).await;
    let html = eval(&page, "document.documentElement.outerHTML").await;
    assert!(!html.as_str().unwrap().contains(&token), "shown once");
    click_and_wait(&page, "a[href$='/revoke']").await;
    assert!(eval(&page, "location.pathname").await.as_str().unwrap().ends_with("/revoke"));
    shoot(&page, "", "token-revoke", &mut shots).await;
    click_and_wait(&page, "button.danger").await;
    assert_eq!(eval(&page, "location.pathname").await, Value::String("/account/api-tokens".into()));
    app.get("/api/v1/scans", &token).await.expect_error(401, "invalid_token");

    // Three completed scans of the site, so its history draws every chart and two compare.
    let mut history = Vec::new();
    for (i, (high, medium, lcp)) in [(6u64, 3u64, 3100.0), (4, 3, 2600.0), (1, 2, 1900.0)].into_iter().enumerate() {
        let row = app.seed_scan("acme", "https://shop.acme.test/").await;
        let claimed = app.store.claim_scan("history", Duration::from_secs(60), 3).await.unwrap().expect("claimed");
        assert_eq!(claimed.id, row.id);
        let record = sitescan::model::ReportPage {
            url: "https://shop.acme.test/".into(),
            final_url: None,
            status: Some(200),
            title: Some("Shop".into()),
            metrics: serde_json::json!({"lcp_ms": lcp, "cls": 0.02 * i as f64, "tbt_ms": 120.0 + 40.0 * i as f64}),
            error: None,
            checks_not_run: Vec::new(),
        };
        let mut on_page = vec![crate::app::finding("accessibility.image-alt", Severity::Medium, "https://shop.acme.test/")];
        if i < 2 {
            on_page.push(crate::app::finding("search.title-missing", Severity::High, "https://shop.acme.test/"));
        }
        if i == 2 {
            on_page.push(crate::app::finding("security.header-missing", Severity::Low, "https://shop.acme.test/"));
        }
        app.seed_page(row.id, "acme", 0, &record, &on_page).await;
        history.push(row.id);
        let mut summary = sitescan::model::ReportSummary::empty();
        summary.pages_scanned = 1;
        summary.count("search.title-missing", Severity::High, high);
        summary.count("accessibility.image-alt", Severity::Medium, medium);
        assert!(app.store.complete_scan(row.id, "history", &sitescan::model::StoredReport::of(summary.clone())).await.unwrap());
    }
    // A scan still queued: its page shows the live progress instead of the report.
    let queued = app.seed_scan("acme", "https://shop.acme.test/").await;
    let pages = [
        ("dashboard", "/".to_string()),
        ("report", format!("/scans/{}", scan.id)),
        ("scan-queued", format!("/scans/{}", queued.id)),
        ("findings", "/findings".to_string()),
        ("tokens", "/account/api-tokens".to_string()),
        ("members", "/account/members".to_string()),
        ("member-remove", format!("/account/members/{}/remove", boss.id)),
        ("compare", format!("/compare?base={}&head={}", history[1], history[2])),
        ("password", "/account/password".to_string()),
        ("sites", "/sites".to_string()),
        ("site", format!("/sites/{}", site.id)),
        ("webhooks", "/settings/webhooks".to_string()),
        ("not-found", "/no-such-page".to_string()),
    ];
    for (name, path) in &pages {
        shoot(&page, &app.url(path), name, &mut shots).await;
    }
    let _ = page.close().await;
    let mut chromium = chromium;
    let _ = chromium.browser.close().await;
    let _ = chromium.browser.wait().await;
    chromium.handler.abort();
    eprintln!("screenshots:\n{}", shots.join("\n"));

    // sitescan's own checks on every page, signed in.
    let mut web = owner(&app).await;
    web.get("/").await;
    let session = web.session().unwrap().to_string();
    let proxy = cookie_proxy(app.base.clone(), session).await;
    let signed_out = cookie_proxy(app.base.clone(), "none".into()).await;
    let mut urls: Vec<String> = pages.iter().filter(|(n, _)| *n != "not-found").map(|(_, p)| format!("{proxy}{p}")).collect();
    urls.push(format!("{signed_out}/login"));
    urls.push(format!("{signed_out}/invite/{invite}"));
    let engine = crate::scan_engine().await;
    let mut bad = Vec::new();
    for url in &urls {
        let findings = engine_scan(&engine, url).await;
        for f in &findings {
            eprintln!("{url}: {} {:?} {}", f.check_id, f.severity, serde_json::Value::Object(f.evidence.clone()));
            // The test server speaks plain http: a password field on it is exactly what this
            // check is for. In production the dashboard sits behind TLS (`--public-url https://`).
            if f.severity >= Severity::Medium && f.check_id != "forms.password-over-http" {
                bad.push(format!("{url}: {} ({:?}) {}", f.check_id, f.severity, serde_json::Value::Object(f.evidence.clone())));
            }
        }
    }
    engine.pool().shutdown().await;
    assert!(bad.is_empty(), "findings at medium or above on dashboard pages:\n{}", bad.join("\n"));
}

async fn engine_scan(engine: &sitescan::crawl::Scanner, url: &str) -> Vec<sitescan::model::Finding> {
    let options = ScanOptions { max_pages: 1, max_depth: 0, page_concurrency: 1, ..ScanOptions::default() };
    let mut sink = crate::sink::Collect::default();
    let u = url::Url::parse(url).unwrap();
    engine.run(&u, &options, &mut sink, None, tokio_util::sync::CancellationToken::new()).await.unwrap_or_else(|e| panic!("scan of {url}: {e}"));
    sink.findings
}

/// A loopback HTTP server that forwards GETs to `base` with the session cookie (so the
/// scanner, which carries no cookie, sees the signed-in pages). Returns its base URL.
async fn cookie_proxy(base: String, session: String) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_gzip()
        .no_brotli()
        .no_deflate()
        .no_zstd()
        .build()
        .unwrap();
    let handler = move |req: axum::extract::Request| {
        let (http, base, session) = (http.clone(), base.clone(), session.clone());
        async move {
            let path = req.uri().path_and_query().map(|p| p.as_str().to_string()).unwrap_or_default();
            let mut out = http.request(req.method().clone(), format!("{base}{path}")).header("cookie", format!("sitescan_session={session}"));
            for name in ["accept", "user-agent", "accept-language", "accept-encoding"] {
                if let Some(v) = req.headers().get(name) {
                    out = out.header(name, v.clone());
                }
            }
            let resp = out.send().await.unwrap();
            let mut builder = axum::http::Response::builder().status(resp.status().as_u16());
            for (k, v) in resp.headers() {
                if !matches!(k.as_str(), "transfer-encoding" | "content-length" | "connection") {
                    builder = builder.header(k.as_str(), v.as_bytes());
                }
            }
            builder.body(axum::body::Body::from(resp.bytes().await.unwrap())).unwrap()
        }
    };
    let router = axum::Router::new().fallback(handler);
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    format!("http://{addr}")
}
