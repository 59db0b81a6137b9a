//! End to end: scans POSTed through the API are crawled by real workers with real Chromium over a
//! fixture site on 127.0.0.1, and their pages and findings come back through the API.

use crate::app;
use crate::fixture_site;

use fixture_site::{FixtureSite, Route};
use serde_json::Value;
use sitescan::cli::args::BrowserArgs;
use sitescan::model::AddressPolicy;
use sitescan::crawl::{ScanOptions, WorkerConfig, Workers};
use std::time::{Duration, Instant};

fn page(title: &str, body: &str) -> Route {
    Route::html(format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"></head>\
         <body><main><h1>{title}</h1>{body}</main></body></html>"
    ))
}

async fn fixture() -> FixtureSite {
    let site = FixtureSite::start().await;
    site.route(
        "/",
        page(
            "Home of the fixture site",
            r#"<a href="/a">About us</a> <a href="/b#part">Blog</a> <a href="/private/x">Private</a>
               <a href="/missing">Gone</a> <a href="/report.pdf">PDF</a> <a href="https://elsewhere.example/">Out</a>"#,
        ),
    );
    site.route("/a", page("About the fixture site", r#"<a href="/">Home</a> <a href="/b">Blog</a>"#));
    site.route("/b", page("Blog of the fixture site", r#"<a href="/">Home</a>"#));
    site.route("/c", page("Only in the sitemap", r#"<a href="/">Home</a>"#));
    site.route("/private/x", page("Private", ""));
    site.route("/report.pdf", Route::typed("application/pdf", b"%PDF-1.4".to_vec()));
    site.route("/robots.txt", Route::typed("text/plain", format!("User-agent: *\nDisallow: /private/\nSitemap: {}\n", site.url("/sitemap.xml"))));
    site.route(
        "/sitemap.xml",
        Route::typed(
            "application/xml",
            format!(
                r#"<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{}</loc></url><url><loc>{}</loc></url></urlset>"#,
                site.url("/"),
                site.url("/c")
            ),
        ),
    );
    site
}

fn worker_config() -> WorkerConfig {
    WorkerConfig {
        lease: Duration::from_secs(30),
        max_attempts: 3,
        poll: Duration::from_millis(100),
        options: ScanOptions { max_pages: 20, ..ScanOptions::default() },
        ownership: sitescan::crawl::worker::Ownership::ProvedByCaller(None),
        max_running_per_org: sitescan::crawl::DEFAULT_MAX_RUNNING_PER_ORG,
        page_sharing: false,
    }
}

async fn start_workers(store: sitescan_store::Store, count: usize) -> Workers {
    let browser = BrowserArgs { browsers: 1, pages_per_browser: 4, cdp: vec![], chromium: None, proxy_listen: "127.0.0.1:0".parse().unwrap(), no_share: false, no_cache: false, ocr: false, no_ocr: false, chromium_no_sandbox: false };
    let policy = AddressPolicy::new(vec!["127.0.0.1/32".parse().unwrap()]);
    let scanner = sitescan::cli::engine::scanner(&browser, policy).await.expect("start the browser pool");
    Workers::spawn(store, scanner, count, worker_config())
}

async fn wait_done(app: &app::TestApp, token: &str, id: &str) -> Value {
    let started = Instant::now();
    loop {
        let resp = app.get(&format!("/api/v1/scans/{id}?include_findings=true"), token).await;
        resp.expect(200);
        let status = resp.json["scan"]["status"].as_str().unwrap_or_default().to_string();
        if status == "completed" || status == "failed" {
            return resp.json.clone();
        }
        assert!(started.elapsed() < Duration::from_secs(180), "scan {id} still {status} after 180 s");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_scan_posted_through_the_api_crawls_the_site_and_lists_findings() {
    let site = fixture().await;
    let app = app::spawn_app_with(app::AppOptions::default().allow_target("127.0.0.1/32")).await;
    let workers = start_workers(app.store.clone(), 1).await;
    let token = app.token("acme").await;
    let created = app.create_scan(&token, &site.url("/")).await;
    let id = created["id"].as_str().unwrap().to_string();
    let body = wait_done(&app, &token, &id).await;
    workers.shutdown().await;

    let scan = &body["scan"];
    assert_eq!(scan["status"], "completed", "{body:#}");
    assert!(scan["started_at"].is_string() && scan["completed_at"].is_string());
    let report = &body["report"];
    let pages: Vec<String> = report["pages"].as_array().unwrap().iter().map(|p| p["url"].as_str().unwrap().to_string()).collect();
    for path in ["/", "/a", "/b", "/c", "/missing"] {
        assert!(pages.contains(&site.url(path)), "{path} was crawled (via links or the sitemap): {pages:?}");
    }
    assert!(!pages.iter().any(|p| p.contains("/private/")), "robots-disallowed pages are not rendered");
    assert_eq!(site.hit_count("/private/x"), 0, "nothing fetched the disallowed page");
    assert!(!pages.iter().any(|p| p.ends_with(".pdf")), "non-page links are status-checked, not rendered");
    assert!(site.hit_count("/report.pdf") >= 1, "the PDF link's status was checked");
    assert_eq!(report["summary"]["pages_scanned"].as_u64().unwrap() as usize, pages.len());
    let missing = report["pages"].as_array().unwrap().iter().find(|p| p["url"] == site.url("/missing")).unwrap();
    assert_eq!(missing["status"], 404);
    let home = report["pages"].as_array().unwrap().iter().find(|p| p["url"] == site.url("/")).unwrap();
    assert_eq!(home["title"], "Home of the fixture site");
    for key in ["ttfb_ms", "fcp_ms", "lcp_ms", "cls", "tbt_ms", "transfer_bytes", "requests"] {
        assert!(home["metrics"].get(key).is_some(), "metrics has {key}");
    }
    assert!(home["metrics"]["requests"].as_u64().unwrap() >= 1);

    // Every category is summarised; counts equal the findings.
    let categories = report["summary"]["categories"].as_object().unwrap();
    for c in sitescan::model::PASSIVE_CATEGORIES {
        assert!(categories.contains_key(c), "summary has category {c}");
    }
    let findings = report["findings"].as_array().unwrap();
    let total: u64 = ["critical", "high", "medium", "low", "info"].iter().map(|s| scan["findings_count"][s].as_u64().unwrap()).sum();
    assert_eq!(total as usize, findings.len(), "findings_count equals the findings");
    for f in findings {
        assert!(f["evidence"]["url"].is_string(), "every finding has evidence.url: {f}");
        assert_eq!(f["scan_id"], id.as_str());
    }
    // The 404 page is reported.
    assert!(
        findings.iter().any(|f| f["check_id"] == "crawlability.http-error" && f["evidence"]["url"] == site.url("/missing")),
        "crawlability.http-error for /missing"
    );

    // The same findings through GET /api/v1/findings, filterable.
    let listed = app.get("/api/v1/findings?limit=200", &token).await;
    listed.expect(200);
    assert_eq!(listed.json["findings"].as_array().unwrap().len(), findings.len().min(200));
    let check = findings[0]["check_id"].as_str().unwrap();
    let filtered = app.get(&format!("/api/v1/findings?check_id={check}&limit=200"), &token).await;
    let expected = findings.iter().filter(|f| f["check_id"] == check).count();
    assert_eq!(filtered.json["findings"].as_array().unwrap().len(), expected.min(200));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_unreachable_target_fails_with_its_error_code() {
    // A port nothing listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let app = app::spawn_app_with(app::AppOptions::default().allow_target("127.0.0.1/32")).await;
    let workers = start_workers(app.store.clone(), 1).await;
    let token = app.token("acme").await;
    let created = app.create_scan(&token, &format!("http://127.0.0.1:{port}/")).await;
    let body = wait_done(&app, &token, created["id"].as_str().unwrap()).await;
    workers.shutdown().await;
    assert_eq!(body["scan"]["status"], "failed");
    assert_eq!(body["report"]["summary"]["error"]["code"], "target_unreachable", "{body:#}");
    assert!(body["report"]["summary"]["error"]["message"].as_str().unwrap().len() > 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_target_blocked_by_the_egress_guard_fails_as_target_blocked() {
    // The API accepted it (allowed at submission), but the workers' policy does not allow 127.0.0.2.
    let site = FixtureSite::start().await;
    site.route("/", page("Start", r#"<a href="/next">next</a>"#));
    let app = app::spawn_app_with(app::AppOptions::default().allow_target("127.0.0.0/8")).await;
    let workers = start_workers(app.store.clone(), 1).await;
    let token = app.token("acme").await;
    let url = site.url("/").replace("127.0.0.1", "127.0.0.2");
    let created = app.create_scan(&token, &url).await;
    let body = wait_done(&app, &token, created["id"].as_str().unwrap()).await;
    workers.shutdown().await;
    assert_eq!(body["scan"]["status"], "failed");
    assert_eq!(body["report"]["summary"]["error"]["code"], "target_blocked", "{body:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sitescan_scan_prints_the_api_report_body() {
    let site = fixture().await;
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_sitescan"))
        .args(["scan", &site.url("/"), "--format", "json", "--allow-target", "127.0.0.1/32", "--max-pages", "5"])
        .env("NO_COLOR", "1")
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let body: Value = serde_json::from_slice(&out.stdout).expect("stdout is the JSON body");
    assert_eq!(body["scan"]["status"], "completed");
    assert_eq!(body["scan"]["mode"], "passive");
    assert_eq!(body["report"]["pages"].as_array().unwrap().len(), 5);
    assert!(body["report"]["findings"].is_array());
    assert!(body["report"]["summary"]["categories"]["accessibility"].is_object());

    // --fail-on decides the exit status; a refused target is bad usage (2).
    let any = tokio::process::Command::new(env!("CARGO_BIN_EXE_sitescan"))
        .args(["scan", &site.url("/missing"), "--format", "text", "--allow-target", "127.0.0.1/32", "--max-pages", "1", "--fail-on", "info"])
        .output()
        .await
        .unwrap();
    assert_eq!(any.status.code(), Some(1), "a 404 start page has findings: {}", String::from_utf8_lossy(&any.stdout));
    let refused = tokio::process::Command::new(env!("CARGO_BIN_EXE_sitescan")).args(["scan", "http://127.0.0.1/"]).output().await.unwrap();
    assert_eq!(refused.status.code(), Some(2));
}
