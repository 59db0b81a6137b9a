//! The pages themselves: headers, the scans list and form, reports of one's own organisation
//! only, findings filters, HTML errors beside the API's JSON ones.

use crate::app::finding;
use crate::dashboard_client::*;
use sitescan::model::Severity;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_carry_strict_headers_and_errors_stay_in_their_language() {
    let app = app_with_owner().await;
    let mut web = owner(&app).await;
    let login = crate::dashboard_client::Web::new(&app).get("/login").await;
    page(&login, 200);
    assert!(login.header("content-security-policy").contains("frame-ancestors 'none'"));
    for path in ["/", "/findings", "/account/api-tokens", "/account/members", "/account/password"] {
        let r = web.get(path).await;
        page(&r, 200);
        let csp = r.header("content-security-policy");
        assert!(csp.contains("frame-ancestors 'none'") && csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"), "{path}: {csp}");
        assert_eq!(r.header("x-content-type-options"), "nosniff");
        assert!(!r.text.contains("<script>"), "{path}: no inline script");
    }
    // HTML 404 for pages, JSON 404 for the API, exactly as before.
    let r = web.get("/no-such-page").await;
    page(&r, 404);
    app.call("GET", "/api/v1/nope", None, None).await.expect_error(404, "not_found");
    let token = app.token("acme").await;
    app.get("/api/v1/nope", &token).await.expect_error(404, "not_found");
    // 405 on a page route is a page; on the API it stays JSON.
    let r = app.http.delete(app.url("/login")).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 405);
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    app.call("DELETE", "/api/v1/scans", Some(&token), None).await.expect_error(405, "method_not_allowed");
    // Assets are embedded and typed, linked by a version that changes with their content.
    let v = sitescan::web::assets::version();
    assert_eq!(v.len(), 12);
    assert!(login.text.contains(&format!("href=\"/assets/dashboard.css?v={v}\"")), "{}", login.text);
    assert!(login.text.contains(&format!("src=\"/assets/dashboard.js?v={v}\"")));
    let css = web.get(&format!("/assets/dashboard.css?v={v}")).await;
    assert_eq!(css.status.as_u16(), 200);
    assert!(css.header("content-type").starts_with("text/css"));
}

/// A scan's journey screenshots show on its report page, small and linked to the full PNG; only
/// its organisation can fetch them, and a forged or foreign id is a 404 page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reports_journey_screenshots_show_and_stay_in_their_organisation() {
    let app = app_with_owner().await;
    let mut web = owner(&app).await;
    let scan = app.seed_scan("acme", "example.com").await;
    let none = web.get(&format!("/scans/{}", scan.id)).await;
    page(&none, 200);
    assert!(!none.text.contains("Journey screenshots"), "no section without screenshots");
    let png = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/dashboard/fixtures/screenshot.png")).expect("fixture PNG");
    app.store.insert_journey_screenshot(scan.id, "acme", "sign <in>", 3, "step-3-failed", png.clone(), 1).await.unwrap();
    // Written twice (a scan run again after a lost lease): kept once.
    app.store.insert_journey_screenshot(scan.id, "acme", "sign <in>", 3, "step-3-failed", vec![1, 2, 3], 2).await.unwrap();
    let shots = app.store.list_journey_screenshots("acme", scan.id).await.unwrap();
    assert_eq!(shots.len(), 1);
    assert_eq!(shots[0].bytes, png.len() as i64);
    assert!(app.store.list_journey_screenshots("globex", scan.id).await.unwrap().is_empty());

    let report = web.get(&format!("/scans/{}", scan.id)).await;
    page(&report, 200);
    let href = format!("/scans/{}/screenshots/{}", scan.id, shots[0].id);
    assert!(report.text.contains("<h2 id=\"journey-shots\">Journey screenshots</h2>"), "{}", report.text);
    assert!(report.text.contains(&format!("<img src=\"{href}\"")), "the picture, linked: {}", report.text);
    assert!(report.text.contains("sign &lt;in&gt;, step 3: step-3-failed"), "the journey's name is escaped");
    assert!(!report.text.contains("sign <in>"));
    assert!(report.header("content-security-policy").contains("img-src 'self'"), "{}", report.header("content-security-policy"));
    let (status, kind, body) = web.get_bytes(&href).await;
    assert_eq!((status, kind.as_str()), (200, "image/png"));
    assert_eq!(body, png, "the stored PNG, as taken");

    // Another organisation's member, a signed-out visitor, forged ids.
    sitescan::accounts::users::create_user(&app.store, "globex", "owner@globex.test", sitescan::accounts::Role::Owner, PASSWORD).await.unwrap();
    let mut other = Web::new(&app);
    redirect_to(&other.login("owner@globex.test", PASSWORD).await, "/");
    assert_eq!(other.get_bytes(&href).await.0, 404);
    assert!(!other.get(&format!("/scans/{}", scan.id)).await.text.contains("Journey screenshots"));
    let stranger = Web::new(&app);
    assert_ne!(stranger.get_bytes(&href).await.0, 200, "signed out: the login page, never the picture");
    assert_eq!(web.get_bytes(&format!("/scans/{}/screenshots/not-a-uuid", scan.id)).await.0, 404);
    assert_eq!(web.get_bytes(&format!("/scans/{}/screenshots/{}", uuid::Uuid::now_v7(), shots[0].id)).await.0, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scans_start_from_the_form_and_reports_stay_in_their_organisation() {
    let app = app_with_owner().await;
    let mut web = owner(&app).await;
    web.get("/").await;
    let before = app.count_scans().await;
    let r = web.post("/scans", &[("target", "http://127.0.0.1/")]).await;
    page(&r, 400);
    assert!(r.text.contains("cannot be scanned"), "{}", r.text);
    assert_eq!(app.count_scans().await, before, "a refused target creates nothing");

    let r = web.post("/scans", &[("target", "example.com")]).await;
    assert_eq!(r.status.as_u16(), 303, "{}", r.text);
    let location = r.header("location").to_string();
    let id = location.strip_prefix("/scans/").unwrap().parse::<uuid::Uuid>().unwrap();
    let row = app.store.scan("acme", id).await.unwrap().unwrap();
    assert_eq!(row.triggered_by.as_str(), "manual");
    assert_eq!(row.mode.as_str(), "passive");
    // The scan's page, inside the dashboard: queued, so its progress, refreshing without JS.
    let live = web.get(&location).await;
    page(&live, 200);
    assert!(live.text.contains("aria-label=\"Breadcrumb\"") && live.text.contains("Scan of https://example.com/"), "{}", live.text);
    assert!(live.text.contains("Waiting for a worker") && live.text.contains(&format!("data-scan-live=\"/scans/{id}/events\"")));
    assert!(live.text.contains("<noscript><meta http-equiv=\"refresh\" content=\"5\"></noscript>"), "refreshes without JS");
    assert!(live.header("content-security-policy").contains("frame-ancestors 'none'"));
    // The standalone report to keep: the report's own document and policy.
    let report = web.get(&format!("{location}/report.html")).await;
    assert_eq!(report.status.as_u16(), 200);
    assert!(report.text.contains("Quality report for"), "the HTML report's renderer");
    assert!(report.text.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'"), "the report's own policy");
    assert!(report.header("content-security-policy").contains("default-src 'none'") && report.header("content-security-policy").contains("frame-ancestors 'none'"));
    let home = web.get("/").await;
    assert!(home.text.contains(&format!("/scans/{id}")) && home.text.contains("queued"));

    // Findings with the v1 filters.
    app.seed_findings(id, "acme", &[finding("search.title-missing", Severity::High, "https://example.com/"), finding("media.alt-missing", Severity::Low, "https://example.com/a")]).await;
    let all = web.get("/findings").await;
    page(&all, 200);
    assert!(all.text.contains("<code>search.title-missing</code>") && all.text.contains("<code>media.alt-missing</code>"));
    let high = web.get("/findings?severity=high").await;
    assert!(high.text.contains("<code>search.title-missing</code>") && !high.text.contains("<code>media.alt-missing</code>"));
    let by_check = web.get("/findings?check_id=media.alt-missing&since=2020-01-01").await;
    assert!(!by_check.text.contains("<code>search.title-missing</code>") && by_check.text.contains("<code>media.alt-missing</code>"));
    page(&web.get("/findings?severity=urgent").await, 400);
    page(&web.get("/findings?since=yesterday").await, 400);
    page(&web.get("/findings?cursor=forged").await, 400);

    // Another organisation's scan is a 404 page, as is a malformed id.
    let theirs = app.seed_scan("globex", "example.org").await;
    let r = web.get(&format!("/scans/{}", theirs.id)).await;
    page(&r, 404);
    assert!(!r.text.contains("example.org"));
    page(&web.get("/scans/not-a-uuid").await, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_says_what_changed_since_the_last_scan_first() {
    let app = crate::dashboard_client::app_with_owner().await;
    let first = app.seed_scan("acme", "https://shop.example.com/").await;
    let second = app.seed_scan("acme", "https://shop.example.com/").await;
    for (scan, changes) in [
        (&first, serde_json::json!({"new": 3, "fixed": 0, "persisting": 0, "baseline_scan_id": null})),
        (&second, serde_json::json!({"new": 2, "fixed": 1, "persisting": 1, "baseline_scan_id": first.id.to_string()})),
    ] {
        app.store.claim_scan("changes-test", std::time::Duration::from_secs(60), 3).await.unwrap().expect("claimed");
        let summary = sitescan::model::ReportSummary { changes: Some(serde_json::from_value(changes).unwrap()), ..sitescan::model::ReportSummary::empty() };
        assert!(app.store.complete_scan(scan.id, "changes-test", &sitescan::model::StoredReport::of(summary)).await.unwrap());
    }
    let mut web = crate::dashboard_client::owner(&app).await;
    let page = web.get("/").await;
    crate::dashboard_client::page(&page, 200);
    assert!(page.text.contains("2 new</span>, <span class=\"change-fixed\">1 fixed"), "{}", page.text);
    assert!(page.text.contains("first scan"), "the first scan has nothing to compare with");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_incomplete_scan_says_so_on_its_page() {
    let app = crate::dashboard_client::app_with_owner().await;
    let scan = app.seed_scan("acme", "https://shop.example.com/").await;
    app.store.claim_scan("gaps-test", std::time::Duration::from_secs(60), 3).await.unwrap().expect("claimed");
    let gaps = serde_json::json!({"pages": 3, "checks": 12, "reasons": [
        {"reason": "the dom gatherer failed: boom", "pages": 3, "check_ids": ["search.title-missing", "semantics.h1-missing"], "example_url": "https://shop.example.com/cart"}]});
    let summary = sitescan::model::ReportSummary { checks_not_run: Some(serde_json::from_value(gaps).unwrap()), ..sitescan::model::ReportSummary::empty() };
    assert!(app.store.complete_scan(scan.id, "gaps-test", &sitescan::model::StoredReport::of(summary)).await.unwrap());
    let mut web = crate::dashboard_client::owner(&app).await;
    let r = web.get(&format!("/scans/{}", scan.id)).await;
    crate::dashboard_client::page(&r, 200);
    assert!(r.text.contains("Incomplete scan:</strong> 12 checks did not run on 3 pages: the dom gatherer failed: boom (3 pages)"), "{}", r.text);
    assert!(r.text.contains("completed (incomplete: some checks did not run)"), "the status says so");
    // Through the API, the summary carries the same counts.
    let token = app.token("acme").await;
    let api = app.get(&format!("/api/v1/scans/{}", scan.id), &token).await;
    api.expect(200);
    assert_eq!(api.json["report"]["summary"]["checks_not_run"]["checks"], 12, "{}", api.json);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_findings_explorer_filters_like_the_api_and_exports_the_filtered_set() {
    let app = app_with_owner().await;
    let mut web = owner(&app).await;
    let scan = app.seed_scan("acme", "https://shop.example.com/").await;
    let other = app.seed_scan("acme", "https://blog.example.com/").await;
    let formula = finding("search.title-missing", Severity::High, "https://shop.example.com/100%_off");
    let mut formula = formula;
    formula.title = "=HYPERLINK(\"http://evil.test\")".into();
    app.seed_findings(scan.id, "acme", &[
        formula,
        finding("search.meta-description-missing", Severity::Medium, "https://shop.example.com/cart"),
        finding("accessibility.image-alt", Severity::High, "https://shop.example.com/cart"),
        finding("media.alt-missing", Severity::Low, "https://shop.example.com/100xoff"),
    ])
    .await;
    app.seed_findings(other.id, "acme", &[finding("search.title-missing", Severity::Medium, "https://blog.example.com/")]).await;
    let codes = |html: &str| {
        let doc = scraper::Html::parse_document(html);
        let sel = scraper::Selector::parse("tbody tr td[data-label='Page']").unwrap();
        let mut pages: Vec<String> = doc.select(&sel).map(|e| e.text().collect::<String>()).collect();
        pages.sort();
        pages
    };
    // Several severities and a category at once.
    let r = web.get("/findings?severity=high&severity=medium&category=search").await;
    page(&r, 200);
    assert_eq!(codes(&r.text), ["https://blog.example.com/", "https://shop.example.com/100%_off", "https://shop.example.com/cart"]);
    assert!(r.text.contains(r#"value="high" checked"#) && r.text.contains(r#"value="search" checked"#), "the form shows the filter");
    // The page address, taken literally (`%` and `_` are no wildcards), and the scan.
    let r = web.get("/findings?url=100%25_off").await;
    assert_eq!(codes(&r.text), ["https://shop.example.com/100%_off"]);
    let r = web.get(&format!("/findings?scan={}&category=accessibility&category=media", scan.id)).await;
    assert_eq!(codes(&r.text), ["https://shop.example.com/100xoff", "https://shop.example.com/cart"]);
    // A date range: today is inside, a range in the past is empty.
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    assert_eq!(codes(&web.get(&format!("/findings?since={today}&until={today}")).await.text).len(), 5);
    assert!(codes(&web.get("/findings?since=2020-01-01&until=2020-12-31").await.text).is_empty());

    // The filtered set as CSV and JSON.
    let (status, ctype, csv) = web.get_bytes("/findings?severity=high&format=csv").await;
    assert_eq!(status, 200);
    assert!(ctype.starts_with("text/csv"), "{ctype}");
    let csv = String::from_utf8(csv).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "created_at,severity,check_id,title,page_url,scan_id,finding_id");
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(csv.contains("\"'=HYPERLINK(\"\"http://evil.test\"\")\""), "a formula is quoted as text: {csv}");
    let (status, ctype, json) = web.get_bytes("/findings?category=search&format=json").await;
    assert_eq!((status, ctype.as_str()), (200, "application/json"));
    let json: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let checks: Vec<&str> = json["findings"].as_array().unwrap().iter().map(|f| f["check_id"].as_str().unwrap()).collect();
    assert_eq!(checks.len(), 3);
    assert!(checks.iter().all(|c| c.starts_with("search.")));
    let mut keys: Vec<&str> = json["findings"][0].as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    let mut v1 = ["id", "scan_id", "check_id", "severity", "title", "description", "evidence", "remediation", "cwe_id", "created_at", "help_url"];
    v1.sort_unstable();
    assert_eq!(keys, v1, "each finding as GET /api/v1/findings writes it: {}", json["findings"][0]);

    // Bad input: a page that says why, with a 400.
    for bad in ["/findings?category=cooking", "/findings?severity=urgent", "/findings?scan=nope", "/findings?until=tomorrow", "/findings?since=2026-02-01&until=2026-01-01", "/findings?format=xml"] {
        let r = web.get(bad).await;
        page(&r, 400);
        assert!(r.text.contains("role=\"alert\""), "{bad}: {}", r.text);
    }
}
