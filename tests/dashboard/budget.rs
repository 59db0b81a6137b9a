//! A site's budget on the dashboard and at completion: an owner sets one on the site page (an
//! invalid one is refused with every error and nothing stored), a completed scan of the site's
//! origin is judged by it (`summary.budget` in the v1 API names the failing assertion, the scan
//! page marks it, the site page shows the verdict), a `scan.budget_failed` webhook reaches a
//! receiver on 127.0.0.1, and scans of another origin or organisation are left alone. Then the
//! budget card and the scan's budget table in Chromium at 1280 and 390 px.

use crate::app::TestApp;
use crate::dashboard_client::{Web, app_with_owner, owner, page, redirect_to};
use axum::http::{HeaderMap, StatusCode};
use base64::Engine;
use serde_json::Value;
use sitescan::events::webhooks;
use sitescan::events::{Attempt, Deliverer, SecretBox, SystemClock};
use sitescan::model::{AddressPolicy, Severity};
use sitescan::net::{EgressGuard, Fetcher, FetcherOptions};
use std::sync::{Arc, Mutex};

const ORIGIN: &str = "https://shop.example.com";
const BUDGET: &str = r#"{"assertions": {
  "search.title-missing": ["error", {"maxCount": 0}],
  "new-findings": ["warn", {"minSeverity": "high", "maxCount": 0}],
  "metrics.lcp-p75": ["error", {"maxNumericValue": 2500}]
}}"#;

/// Bodies POSTed to a receiver on 127.0.0.1 that accepts everything.
async fn receiver() -> (String, Arc<Mutex<Vec<String>>>) {
    let hits: Arc<Mutex<Vec<String>>> = Arc::default();
    let state = hits.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |_: HeaderMap, body: String| {
            let state = state.clone();
            async move {
                state.lock().unwrap().push(body);
                StatusCode::OK
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/hook"), hits)
}

fn secrets() -> SecretBox {
    SecretBox::from_text(&base64::engine::general_purpose::STANDARD.encode([7u8; 32])).unwrap()
}

/// The site with `BUDGET` set through the page; returns the site page's path.
async fn site_with_budget(app: &TestApp, web: &mut Web) -> String {
    let now = sitescan_store::time::now_us();
    let site = app.store.add_site("acme", ORIGIN, "shop.example.com", "Budget_Token_0123456789abcdef", "t", now).await.unwrap().unwrap();
    let path = format!("/sites/{}", site.id);
    page(&web.get(&path).await, 200);
    redirect_to(&web.post(&format!("{path}/budget"), &[("budget", BUDGET)]).await, &format!("{path}?done=budget#budget"));
    path
}

fn sel(s: &str) -> scraper::Selector {
    scraper::Selector::parse(s).unwrap()
}

fn text_of(html: &scraper::Html, s: &str) -> Vec<String> {
    html.select(&sel(s)).map(|e| e.text().collect::<String>().split_whitespace().collect::<Vec<_>>().join(" ")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_sets_a_budget_on_the_site_page_and_an_invalid_one_changes_nothing() {
    let app = app_with_owner().await;
    let mut web = owner(&app).await;
    let now = sitescan_store::time::now_us();
    let site = app.store.add_site("acme", ORIGIN, "shop.example.com", "Budget_Token_0123456789abcdef", "t", now).await.unwrap().unwrap();
    let path = format!("/sites/{}", site.id);
    let empty = web.get(&path).await;
    page(&empty, 200);
    assert!(empty.text.contains("id=\"budget-text\""), "the budget card has its textarea");

    let bad = r#"{"search.title-misssing": "error", "metrics.lcp-p75": "error", "findings": ["fatal"]}"#;
    let refused = web.post(&format!("{path}/budget"), &[("budget", bad)]).await;
    page(&refused, 400);
    let html = scraper::Html::parse_document(&refused.text);
    let errors = text_of(&html, "#budget-errors li");
    assert_eq!(errors.len(), 3, "every error is listed: {errors:?}");
    assert!(errors.iter().any(|e| e.starts_with("search.title-misssing: is not a check id")), "{errors:?}");
    assert_eq!(text_of(&html, "#budget-text")[0], bad.split_whitespace().collect::<Vec<_>>().join(" "), "the refused text stays in the form");
    assert_eq!(app.store.site("acme", site.id).await.unwrap().unwrap().budget, None, "nothing stored");

    // Without the CSRF token: refused.
    let forged = web.post_raw(&format!("{path}/budget"), &[("budget", BUDGET)]).await;
    assert_eq!(forged.status.as_u16(), 403);
    assert_eq!(app.store.site("acme", site.id).await.unwrap().unwrap().budget, None);

    redirect_to(&web.post(&format!("{path}/budget"), &[("budget", BUDGET)]).await, &format!("{path}?done=budget#budget"));
    assert_eq!(app.store.site("acme", site.id).await.unwrap().unwrap().budget.as_deref(), Some(BUDGET), "kept as written");
    let shown = web.get(&format!("{path}?done=budget")).await;
    assert!(shown.text.contains("The budget was stored"), "{}", shown.text);
    assert!(shown.text.contains("search.title-missing"), "the textarea holds the stored budget");
    assert!(shown.text.contains("No completed scan was judged by the budget yet"));

    // An empty budget removes it.
    redirect_to(&web.post(&format!("{path}/budget"), &[("budget", "")]).await, &format!("{path}?done=budget-removed#budget"));
    assert_eq!(app.store.site("acme", site.id).await.unwrap().unwrap().budget, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_completed_scan_of_the_site_is_judged_shown_and_announced_to_webhooks() {
    let app = app_with_owner().await;
    let mut web = owner(&app).await;
    let path = site_with_budget(&app, &mut web).await;
    let site_id = path.trim_start_matches("/sites/").to_string();
    let (url, hits) = receiver().await;
    let events = vec!["scan.budget_failed".to_string()];
    webhooks::add_endpoint(&app.store, &secrets(), "acme", &url, &events, None, sitescan_store::time::now_us()).await.unwrap();

    // Two title-missing findings (the limit is 0) and LCP 3 s at the 75th percentile.
    let scan = app
        .completed_scan("acme", &format!("{ORIGIN}/"), &[("/", 1000.0), ("/a", 3000.0), ("/b", 3000.0), ("/c", 900.0)], &[
            ("search.title-missing", "/", "", Severity::High),
            ("search.title-missing", "/a", "", Severity::High),
            ("accessibility.image-alt", "/b", "img", Severity::Medium),
        ])
        .await;
    // Not judged: another origin, and the same origin in another organisation.
    let elsewhere = app.completed_scan("acme", "https://blog.example.com/", &[("/", 9000.0)], &[("search.title-missing", "/", "", Severity::High)]).await;
    let globex = app.completed_scan("globex", &format!("{ORIGIN}/"), &[("/", 9000.0)], &[("search.title-missing", "/", "", Severity::High)]).await;

    let token = app.token("acme").await;
    let r = app.get(&format!("/api/v1/scans/{scan}"), &token).await;
    r.expect(200);
    let budget = &r.json["report"]["summary"]["budget"];
    assert_eq!(budget["passed"], false, "{budget}");
    let by = |name: &str| budget["assertions"].as_array().unwrap().iter().find(|a| a["assertion"] == name).cloned().unwrap_or(Value::Null);
    assert_eq!(by("search.title-missing")["actual"], 2.0);
    assert_eq!(by("search.title-missing")["passed"], false);
    assert_eq!(by("metrics.lcp-p75")["actual"], 3000.0);
    assert!(by("metrics.lcp-p75")["message"].as_str().unwrap().contains("over the limit of 2500"), "{budget}");
    assert_eq!(by("new-findings")["level"], "warn");
    for other in [elsewhere] {
        let r = app.get(&format!("/api/v1/scans/{other}"), &token).await;
        assert!(r.json["report"]["summary"].get("budget").is_none(), "another origin is not judged: {}", r.json);
    }
    let globex_token = app.token("globex").await;
    let r = app.get(&format!("/api/v1/scans/{globex}"), &globex_token).await;
    assert!(r.json["report"]["summary"].get("budget").is_none(), "another organisation is not judged: {}", r.json);

    // The scan page: the table, each failing error assertion marked.
    let scan_page = web.get(&format!("/scans/{scan}")).await;
    page(&scan_page, 200);
    let html = scraper::Html::parse_document(&scan_page.text);
    assert_eq!(text_of(&html, "#h-budget"), ["Budget: failed"]);
    let failed = text_of(&html, "#budget tr.budget-failed td:first-child code");
    assert_eq!(failed, ["metrics.lcp-p75", "search.title-missing"], "the failing error assertions are marked");
    let rows = text_of(&html, "#budget tbody tr");
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().any(|r| r.starts_with("new-findings") && r.contains("warn") && r.contains("over (warning)")), "{rows:?}");
    assert!(rows.iter().any(|r| r.starts_with("search.title-missing") && r.contains("error") && r.ends_with("failed")), "{rows:?}");

    // The site page: the latest completed scan's verdict and what failed.
    let site_page = web.get(&path).await;
    let html = scraper::Html::parse_document(&site_page.text);
    let verdict = text_of(&html, "#budget-verdict").join(" ");
    assert!(verdict.contains("Budget failed") && verdict.contains("2 assertions"), "{verdict}");
    let failures = text_of(&html, ".budget-failures li");
    assert_eq!(failures.len(), 2, "{failures:?}");
    assert!(failures.iter().any(|f| f.contains("metrics.lcp-p75: 3000")), "{failures:?}");

    // The webhook: one scan.budget_failed, for this scan only.
    let guard = Arc::new(EgressGuard::new(AddressPolicy::new(vec!["127.0.0.1/32".parse().unwrap()])));
    let fetcher = Fetcher::new(guard, FetcherOptions::default()).unwrap();
    let d = Deliverer { store: app.store.clone(), fetcher: Arc::new(fetcher), secrets: secrets(), clock: Arc::new(SystemClock), owner: "budget".into(), breaker: Default::default(), dashboard: None };
    assert_eq!(d.run_once().await.unwrap(), [Attempt::Delivered]);
    let bodies = hits.lock().unwrap().clone();
    assert_eq!(bodies.len(), 1, "{bodies:?}");
    let v: Value = serde_json::from_str(&bodies[0]).unwrap();
    crate::app::contract::check_webhook(&v);
    assert_eq!(v["type"], "scan.budget_failed");
    assert_eq!(v["data"]["scan_id"], scan.to_string());
    assert_eq!(v["data"]["site_id"], site_id);
    assert_eq!(v["data"]["target_url"], format!("{ORIGIN}/"));
    assert_eq!(v["data"]["links"]["scan"], format!("/scans/{scan}"));
    let failed: Vec<&str> = v["data"]["failed_assertions"].as_array().unwrap().iter().map(|a| a["assertion"].as_str().unwrap()).collect();
    assert_eq!(failed, ["metrics.lcp-p75", "search.title-missing"]);
    let lcp = &v["data"]["failed_assertions"][0];
    assert_eq!((lcp["level"].as_str(), lcp["max"].as_f64(), lcp["actual"].as_f64()), (Some("error"), Some(2500.0), Some(3000.0)));
    assert!(lcp["message"].as_str().unwrap().contains("over the limit"));

    // A passing scan tells no one.
    app.completed_scan("acme", &format!("{ORIGIN}/"), &[("/", 1000.0)], &[]).await;
    assert!(d.run_once().await.unwrap().is_empty(), "a passed budget sends nothing");
    let site_page = web.get(&path).await;
    assert!(scraper::Html::parse_document(&site_page.text).select(&sel("#budget-verdict .badge.ok")).next().is_some(), "the latest verdict passed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_chromium_the_budget_card_and_the_budget_table_fit_desktop_and_phone() {
    use crate::browser::{click_and_wait, eval, fill, goto, launch, shoot};
    let app = app_with_owner().await;
    let mut web = owner(&app).await;
    let path = site_with_budget(&app, &mut web).await;
    let scan = app
        .completed_scan("acme", &format!("{ORIGIN}/"), &[("/", 1000.0), ("/a", 3000.0)], &[("search.title-missing", "/", "", Severity::High)])
        .await;
    let chromium = launch().await;
    let page = chromium.browser.new_page("about:blank").await.unwrap();
    goto(&page, &app.url("/login")).await;
    fill(&page, "#email", "owner@acme.test").await;
    fill(&page, "#password", crate::dashboard_client::PASSWORD).await;
    click_and_wait(&page, "form[action='/login'] button[type=submit]").await;
    assert_eq!(eval(&page, "location.pathname").await, Value::String("/".into()), "signed in");
    let mut shots = Vec::new();
    shoot(&page, &app.url(&path), "site-budget", &mut shots).await;
    shoot(&page, &app.url(&format!("/scans/{scan}")), "scan-budget", &mut shots).await;
    assert_eq!(eval(&page, "document.querySelectorAll('#budget tr.budget-failed').length").await, Value::from(2));
    let _ = page.close().await;
    let mut chromium = chromium;
    let _ = chromium.browser.close().await;
    let _ = chromium.browser.wait().await;
    chromium.handler.abort();
    eprintln!("screenshots:\n{}", shots.join("\n"));
}
