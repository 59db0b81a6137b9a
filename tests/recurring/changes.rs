//! A fixture site changed between two scans: an image's alt text fixed, a new broken link, a page
//! removed from the crawl. The second report counts new, fixed and persisting exactly, and the
//! removed page's findings are not "fixed".

use super::app;
use super::fixture_site::{FixtureSite, Route};
use serde_json::Value;
use sitescan::cli::args::BrowserArgs;
use sitescan::model::AddressPolicy;
use sitescan::crawl::{ScanOptions, WorkerConfig, Workers};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// A 1x1 transparent PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01,
    0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41,
    0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49,
    0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

fn page(title: &str, body: &str) -> Route {
    Route::html(format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"></head>\
         <body><main><h1>{title}</h1>{body}</main></body></html>"
    ))
}

const NO_ALT: &str = r#"<img src="/i.png" width="1" height="1">"#;
const WITH_ALT: &str = r#"<img src="/i.png" width="1" height="1" alt="A dot">"#;

fn home(img: &str, links: &str) -> Route {
    page("Home of the changing site", &format!("<p>{img}</p><p>{links}</p>"))
}

async fn start_workers(store: sitescan_store::Store, page_sharing: bool) -> Workers {
    let browser = BrowserArgs { browsers: 1, pages_per_browser: 2, cdp: vec![], chromium: None, proxy_listen: "127.0.0.1:0".parse().unwrap(), no_share: false, no_cache: false, ocr: false, no_ocr: false, chromium_no_sandbox: false };
    let policy = AddressPolicy::new(vec!["127.0.0.1/32".parse().unwrap()]);
    let scanner = sitescan::cli::engine::scanner(&browser, policy).await.expect("start the browser pool");
    let config = WorkerConfig {
        lease: Duration::from_secs(30),
        max_attempts: 3,
        poll: Duration::from_millis(100),
        options: ScanOptions { max_pages: 10, ..ScanOptions::default() },
        ownership: sitescan::crawl::worker::Ownership::ProvedByCaller(None),
        max_running_per_org: sitescan::crawl::DEFAULT_MAX_RUNNING_PER_ORG,
        page_sharing,
    };
    Workers::spawn(store, scanner, 1, config)
}

async fn scan_to_end(app: &app::TestApp, token: &str, target: &str) -> (String, Value) {
    let created = app.create_scan(token, target).await;
    let id = created["id"].as_str().expect("scan id").to_string();
    let started = Instant::now();
    loop {
        let resp = app.get(&format!("/api/v1/scans/{id}?include_findings=true"), token).await;
        resp.expect(200);
        let status = resp.json["scan"]["status"].as_str().unwrap_or_default().to_string();
        if status == "completed" || status == "failed" {
            assert_eq!(status, "completed", "{:#}", resp.json);
            return (id, resp.json.clone());
        }
        assert!(started.elapsed() < Duration::from_secs(180), "scan {id} still {status} after 180 s");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// `(check_id, url, resource or selector)`, the fingerprint as the report shows it.
type Key = (String, String, String);

fn key(f: &Value) -> Key {
    let ev = &f["evidence"];
    let s = |k: &str| ev[k].as_str().unwrap_or_default().trim().to_string();
    let locator = if s("resource").is_empty() { s("selector") } else { s("resource") };
    (f["check_id"].as_str().unwrap_or_default().to_string(), s("url"), locator)
}

/// Checks whose verdict depends on how loaded the machine is (timings): they may come and go
/// between two scans of an unchanged page, so the exact lists leave them out (the counts do not).
fn load_sensitive(check_id: &str) -> bool {
    check_id.starts_with("performance.")
}

fn keys(list: &Value) -> BTreeMap<Key, usize> {
    let mut out = BTreeMap::new();
    for f in list.as_array().expect("a findings list") {
        *out.entry(key(f)).or_insert(0) += 1;
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_changed_site_reports_new_fixed_and_persisting_exactly() {
    changed_site_reports_exactly(false).await;
}

/// The same through a crawl whose pages are shared (the default): a first scan's pages write
/// their findings `new` as they go, and the comparison still says exactly the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_changed_site_crawled_by_shared_pages_reports_the_same_changes() {
    changed_site_reports_exactly(true).await;
}

async fn changed_site_reports_exactly(page_sharing: bool) {
    let site = FixtureSite::start().await;
    site.route("/i.png", Route::typed("image/png", PNG.to_vec()));
    site.route("/", home(NO_ALT, r#"<a href="/a">About</a> <a href="/b">Blog</a>"#));
    site.route("/a", page("About the changing site", &format!("<p>{NO_ALT}</p><a href=\"/\">Home</a>")));
    site.route("/b", page("Blog of the changing site", &format!("<p>{NO_ALT}</p><a href=\"/\">Home</a>")));
    let app = app::spawn_app_with(app::AppOptions::default().allow_target("127.0.0.1/32")).await;
    let workers = start_workers(app.store.clone(), page_sharing).await;
    let token = app.token("acme").await;
    // A webhook endpoint: the worker queues the scans' events in the outbox.
    let sealer = sitescan::events::SecretBox::from_text(&"ab".repeat(32)).unwrap();
    let events = vec!["scan.completed".to_string(), "scan.regressed".to_string()];
    let now = sitescan_store::time::now_us();
    sitescan::events::webhooks::add_endpoint(&app.store, &sealer, "acme", "https://hooks.example.com/x", &events, Some(sitescan::model::Severity::High), now)
        .await
        .unwrap();

    let (first_id, first) = scan_to_end(&app, &token, &site.url("/")).await;
    let first_report = &first["report"];
    let changes = &first_report["summary"]["changes"];
    let first_n = first_report["findings"].as_array().unwrap().len() as u64;
    assert_eq!(changes["baseline_scan_id"], Value::Null, "no baseline for the first scan: {changes}");
    assert_eq!((changes["new"].as_u64(), changes["fixed"].as_u64(), changes["persisting"].as_u64()), (Some(first_n), Some(0), Some(0)));
    assert!(first_report["findings"].as_array().unwrap().iter().all(|f| f["change"] == "new"), "without a baseline every finding is new");
    let alt = |url: &str| ("accessibility.image-alt".to_string(), site.url(url), "img".to_string());
    let first_keys = keys(&first_report["findings"]);
    for page in ["/", "/a", "/b"] {
        assert!(first_keys.keys().any(|k| k.0 == alt(page).0 && k.1 == alt(page).1), "the first scan flags the image without alt on {page}: {first_keys:#?}");
    }

    // The site changes: the home page's image gets its alt, the link to /b goes (so /b leaves
    // the crawl) and a link to a missing page arrives.
    site.route("/", home(WITH_ALT, r#"<a href="/a">About</a> <a href="/missing">Gone</a>"#));
    let (second_id, second) = scan_to_end(&app, &token, &site.url("/")).await;
    workers.shutdown().await;
    let report = &second["report"];
    let pages: Vec<&str> = report["pages"].as_array().unwrap().iter().filter_map(|p| p["url"].as_str()).collect();
    assert!(!pages.contains(&site.url("/b").as_str()), "/b left the crawl: {pages:?}");
    let findings = report["findings"].as_array().unwrap();
    let fixed = report["fixed"].as_array().expect("report.fixed");
    let changes = &report["summary"]["changes"];
    assert_eq!(changes["baseline_scan_id"], first_id.as_str());

    // What the comparison must say, worked out here from the two reports.
    let mut before = first_keys.clone();
    let (mut want_new, mut want_persisting) = (0u64, 0u64);
    for f in findings {
        match before.get_mut(&key(f)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                want_persisting += 1;
                assert_eq!(f["change"], "persisting", "{f:#}");
            }
            _ => {
                want_new += 1;
                assert_eq!(f["change"], "new", "{f:#}");
                let k = key(f);
                assert!(
                    k.1 == site.url("/missing") || k.2 == site.url("/missing") || load_sensitive(&k.0),
                    "the only new findings are about the new broken link: {f:#}"
                );
            }
        }
    }
    let fixed_keys: Vec<(Key, usize)> = keys(&report["fixed"]).into_iter().filter(|(k, _)| !load_sensitive(&k.0)).collect();
    assert_eq!(fixed_keys, vec![(alt("/"), 1)], "exactly the alt fixed on the home page: {fixed:#?}");
    assert!(before.iter().any(|(k, n)| k.1 == site.url("/b") && *n > 0), "the findings of /b were neither seen again nor fixed");
    assert!(findings.iter().any(|f| f["change"] == "new" && f["check_id"] == "crawlability.broken-link" && key(f).2 == site.url("/missing")),
        "the new broken link is new: {findings:#?}");
    assert_eq!(changes["new"].as_u64(), Some(want_new));
    assert_eq!(changes["persisting"].as_u64(), Some(want_persisting));
    assert_eq!(changes["fixed"].as_u64(), Some(fixed.len() as u64));
    assert!(want_persisting > 0 && want_new > 0);

    // The outbox holds both scans' scan.completed, and a scan.regressed for the second only (a
    // new broken link, high), with the counts and never the report.
    let queued = app.store.claim_webhooks("probe", i64::MAX / 4, 1, 100).await.unwrap();
    let of = |t: &str, id: &str| {
        queued.iter().filter(|m| m.event_type == t && serde_json::from_str::<Value>(&m.payload).unwrap()["data"]["scan_id"] == id).count()
    };
    // The first scan's image without alt is at or above high, but a first scan regresses nothing.
    assert!(first_report["findings"].as_array().unwrap().iter().any(|f| f["severity"] == "critical" || f["severity"] == "high"));
    assert_eq!(
        (of("scan.completed", &first_id), of("scan.regressed", &first_id), of("scan.completed", &second_id), of("scan.regressed", &second_id)),
        (1, 0, 1, 1),
        "{queued:#?}"
    );
    let regressed = queued.iter().find(|m| m.event_type == "scan.regressed" && m.payload.contains(&second_id)).unwrap();
    let payload: Value = serde_json::from_str(&regressed.payload).unwrap();
    app::contract::check_webhook(&payload);
    assert_eq!(payload["data"]["changes"], *changes);
    assert!(payload["data"]["new_at_or_above"].as_u64().unwrap() >= 1);
    assert!(regressed.payload.len() < 2000, "small payloads: {}", regressed.payload);

    // The summary alone (no findings) carries the counts too; the v1 findings list is unchanged.
    let summary_only = app.get(&format!("/api/v1/scans/{second_id}"), &token).await;
    summary_only.expect(200);
    assert_eq!(summary_only.json["report"]["summary"]["changes"], *changes);
    assert!(summary_only.json["report"].get("fixed").is_none());
    let listed = app.get("/api/v1/findings?limit=200", &token).await;
    listed.expect(200);
    for f in listed.json["findings"].as_array().unwrap() {
        assert!(f.get("change").is_none(), "the v1 Finding has no `change` key: {f}");
    }

    // SARIF: baselineState on every result, `absent` for the fixed one.
    let sarif = app.get(&format!("/api/v1/scans/{second_id}/report.sarif"), &token).await;
    sarif.expect(200);
    let results = sarif.json["runs"][0]["results"].as_array().unwrap();
    let state = |s: &str| results.iter().filter(|r| r["baselineState"] == s).count() as u64;
    assert_eq!((state("new"), state("unchanged"), state("absent")), (want_new, want_persisting, fixed.len() as u64));
    // HTML: the changes come first.
    let html = app.http.get(app.url(&format!("/api/v1/scans/{second_id}/report.html"))).bearer_auth(&token).send().await.unwrap().text().await.unwrap();
    let changes_at = html.find("id=\"changes\"").expect("a changes section");
    assert!(changes_at < html.find("id=\"summary\"").unwrap() && changes_at < html.find("id=\"findings\"").unwrap());
}
