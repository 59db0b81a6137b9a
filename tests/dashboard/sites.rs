//! `/sites` and `/sites/{id}` over real HTTP: an owner adds a loopback site, sees the token and
//! the three ways to publish it, fails then passes the ownership check, stores a journey (a bad
//! one is refused with the reason) and a secret (never shown again, sealed in the database),
//! and starts an active scan only after confirming the attestation, which is recorded with who,
//! when and from where. A member reads but cannot change anything or start an active scan.

use crate::app::{AppOptions, spawn_app_with};
use crate::dashboard_client::{PASSWORD, Web, page, redirect_to};
use crate::fixture_site::{FixtureSite, Route};
use sitescan::accounts::{Role, users};

async fn setup() -> (crate::app::TestApp, FixtureSite, Web) {
    let app = spawn_app_with(AppOptions::default().allow_target("127.0.0.0/8")).await;
    users::create_user(&app.store, "acme", "owner@acme.test", Role::Owner, PASSWORD).await.unwrap();
    let site = FixtureSite::start().await;
    site.route("/", Route::html("<!doctype html><html lang=en><title>Shop</title><h1>Shop</h1>"));
    let mut web = Web::new(&app);
    redirect_to(&web.login("owner@acme.test", PASSWORD).await, "/");
    (app, site, web)
}

fn location(r: &crate::app::Resp) -> String {
    r.header("location").to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_adds_verifies_and_starts_an_attested_active_scan() {
    let (app, site, mut web) = setup().await;
    page(&web.get("/sites").await, 200);
    let empty = web.post("/sites", &[("url", "")]).await;
    page(&empty, 400);
    assert!(empty.text.contains("Give the address"), "{}", empty.text);
    let blocked = web.post("/sites", &[("url", "http://10.1.2.3/")]).await;
    page(&blocked, 400);

    let added = web.post("/sites", &[("url", &site.url("/shop"))]).await;
    assert_eq!(added.status.as_u16(), 303, "{}", added.text);
    let path = location(&added);
    assert!(path.starts_with("/sites/") && path.ends_with("?done=added"), "{path}");
    let path = path.trim_end_matches("?done=added").to_string();
    let shown = web.get(&path).await;
    page(&shown, 200);
    let row = app.store.list_sites("acme").await.unwrap().pop().expect("stored");
    assert_eq!(row.origin, site.origin());
    for needle in [row.verification_token.as_str(), "/.well-known/sitescan-verification.txt", "sitescan-verification=", "Not verified"] {
        assert!(shown.text.contains(needle), "the page shows {needle}");
    }
    let dup = web.post("/sites", &[("url", &site.url("/"))]).await;
    page(&dup, 400);
    assert!(dup.text.contains("already has the site"), "{}", dup.text);

    // Not published: the check says so and changes nothing else.
    let failed = web.post(&format!("{path}/verify"), &[]).await;
    page(&failed, 400);
    assert!(failed.text.contains("Ownership is not proved"), "{}", failed.text);
    let before = web.post(&format!("{path}/scans"), &[("attest", "yes")]).await;
    page(&before, 400);
    assert!(before.text.contains("ownership"), "{}", before.text);
    assert_eq!(crate::dashboard_client::count(&app, "scans").await, 0);

    site.route("/.well-known/sitescan-verification.txt", Route::typed("text/plain", row.verification_token.clone()));
    redirect_to(&web.post(&format!("{path}/verify"), &[]).await, &format!("{path}?done=verified"));
    assert!(web.get(&path).await.text.contains("Verified"));

    // A journey with a mistake is refused with the reason; a good one is listed.
    let bad = web.post(&format!("{path}/journeys"), &[("journey", r#"{"steps": []}"#)]).await;
    page(&bad, 400);
    assert!(bad.text.contains("name"), "{}", bad.text);
    let journey = r##"{"name": "sign in", "logged_in": {"text": "Sign out"}, "steps": [{"navigate": "/login"}, {"fill": "#password", "value": "{{secret.PASSWORD}}"}, {"click": "button[type=submit]"}, {"audit": "account"}]}"##;
    let stored = web.post(&format!("{path}/journeys"), &[("journey", journey)]).await;
    assert_eq!(stored.status.as_u16(), 303, "{}", stored.text);
    assert!(web.get(&path).await.text.contains("sign in"));

    // A secret: stored sealed, never shown again.
    let secret = "s3cret-value-never-shown-1234";
    let set = web.post(&format!("{path}/secrets"), &[("name", "PASSWORD"), ("value", secret)]).await;
    assert_eq!(set.status.as_u16(), 303, "{}", set.text);
    let after = web.get(&path).await;
    assert!(after.text.contains("PASSWORD") && !after.text.contains(secret));
    let sealed = app.store.site_secret_values(row.id).await.unwrap();
    assert!(!sealed[0].1.contains(secret));
    let bad_name = web.post(&format!("{path}/secrets"), &[("name", "no spaces allowed"), ("value", "x")]).await;
    page(&bad_name, 400);

    // No attestation, no scan; with it, the scan and its record.
    let unconfirmed = web.post(&format!("{path}/scans"), &[]).await;
    page(&unconfirmed, 400);
    assert!(unconfirmed.text.contains("Confirm the statement"), "{}", unconfirmed.text);
    let started = web.post(&format!("{path}/scans"), &[("attest", "yes")]).await;
    assert_eq!(started.status.as_u16(), 303, "{}", started.text);
    let scan_path = location(&started);
    let scan_id: uuid::Uuid = scan_path.trim_start_matches("/scans/").parse().expect("a scan page");
    let scan = app.store.scan("acme", scan_id).await.unwrap().expect("scan");
    assert_eq!(scan.mode.as_str(), "active");
    assert_eq!(scan.site_id, Some(row.id));
    let attested = app.store.attestation(scan_id).await.unwrap().expect("attestation");
    assert!(attested.actor.contains("owner@acme.test"), "{}", attested.actor);
    assert_eq!(attested.client_addr.as_deref(), Some("127.0.0.1"));
    assert_eq!(attested.statement, sitescan::sites::attestation_statement(&row.origin));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_member_reads_sites_but_cannot_change_them_or_start_an_active_scan() {
    let (app, site, mut owner) = setup().await;
    owner.get("/sites").await;
    let added = owner.post("/sites", &[("url", &site.url("/"))]).await;
    let path = location(&added).trim_end_matches("?done=added").to_string();
    users::create_user(&app.store, "acme", "member@acme.test", Role::Member, PASSWORD).await.unwrap();
    let mut member = Web::new(&app);
    redirect_to(&member.login("member@acme.test", PASSWORD).await, "/");
    let list = member.get("/sites").await;
    page(&list, 200);
    assert!(!list.text.contains("Add a site"), "members are not offered the form");
    let seen = member.get(&path).await;
    page(&seen, 200);
    assert!(!seen.text.contains("Start active scan"), "members are not offered active scans");
    for (action, fields) in [
        (format!("{path}/scans"), vec![("attest", "yes")]),
        (format!("{path}/verify"), vec![]),
        (format!("{path}/secrets"), vec![("name", "X"), ("value", "y")]),
        ("/sites".to_string(), vec![("url", "http://127.0.0.1:9/")]),
    ] {
        let r = member.post(&action, &fields).await;
        page(&r, 403);
    }
    assert_eq!(crate::dashboard_client::count(&app, "scans").await, 0);
    assert_eq!(crate::dashboard_client::count(&app, "site_secrets").await, 0);
    // Without the CSRF token, even the owner changes nothing.
    let r = owner.post_raw(&format!("{path}/scans"), &[("attest", "yes")]).await;
    page(&r, 403);
    assert_eq!(crate::dashboard_client::count(&app, "scans").await, 0);
    // Another organisation's site is not found.
    users::create_user(&app.store, "other", "o@other.test", Role::Owner, PASSWORD).await.unwrap();
    let mut other = Web::new(&app);
    redirect_to(&other.login("o@other.test", PASSWORD).await, "/");
    page(&other.get(&path).await, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_schedules_nightly_scans_and_adds_a_monitor_from_the_site_page() {
    let (app, site, mut web) = setup().await;
    web.get("/sites").await;
    let added = web.post("/sites", &[("url", &site.url("/"))]).await;
    let path = location(&added).trim_end_matches("?done=added").to_string();
    web.get(&path).await;

    let bad = web.post(&format!("{path}/schedules"), &[("cron", "every night"), ("timezone", "UTC"), ("mode", "passive")]).await;
    page(&bad, 400);
    assert!(bad.text.contains("cron"), "{}", bad.text);
    let zone = web.post(&format!("{path}/schedules"), &[("cron", "0 3 * * *"), ("timezone", "Mars/Olympus"), ("mode", "passive")]).await;
    page(&zone, 400);
    let unattested = web.post(&format!("{path}/schedules"), &[("cron", "0 3 * * *"), ("timezone", "UTC"), ("mode", "active")]).await;
    page(&unattested, 400);
    assert!(unattested.text.contains("Confirm the statement"), "{}", unattested.text);
    assert_eq!(crate::dashboard_client::count(&app, "schedules").await, 0, "refusals change nothing");

    let ok = web.post(&format!("{path}/schedules"), &[("cron", "0 3 * * *"), ("timezone", "Europe/Paris"), ("mode", "passive")]).await;
    assert_eq!(ok.status.as_u16(), 303, "{}", ok.text);
    let active = web.post(&format!("{path}/schedules"), &[("cron", "0 4 * * 1"), ("timezone", "UTC"), ("mode", "active"), ("attest", "yes")]).await;
    assert_eq!(active.status.as_u16(), 303, "{}", active.text);
    let unverified = web.post(&format!("{path}/monitors"), &[("every", "15m")]).await;
    page(&unverified, 400);
    assert!(unverified.text.contains("is not verified"), "{}", unverified.text);
    assert_eq!(crate::dashboard_client::count(&app, "monitors").await, 0, "an unverified site gets no monitor");
    let site_id: uuid::Uuid = path.trim_start_matches("/sites/").parse().expect("site id");
    app.store.record_site_verification(site_id, Ok("file"), 1).await.unwrap();
    let monitor = web.post(&format!("{path}/monitors"), &[("every", "15m")]).await;
    assert_eq!(monitor.status.as_u16(), 303, "{}", monitor.text);
    let too_often = web.post(&format!("{path}/monitors"), &[("every", "5s")]).await;
    page(&too_often, 400);

    let shown = web.get(&path).await;
    page(&shown, 200);
    for needle in ["0 3 * * *", "Europe/Paris", "0 4 * * 1", "15 min"] {
        assert!(shown.text.contains(needle), "the page shows {needle}");
    }
    let rows = app.store.list_schedules("acme", None).await.unwrap();
    let attested = rows.iter().find(|r| r.mode == "active").expect("active schedule");
    assert!(attested.attestation.as_deref().is_some_and(|a| a.contains("owner@acme.test") && a.contains("127.0.0.1")), "{attested:?}");
    let passive = rows.iter().find(|r| r.mode == "passive").expect("passive schedule");
    redirect_to(
        &web.post(&format!("{path}/schedules/remove"), &[("id", &passive.id.to_string())]).await,
        &format!("{path}?done=schedule-removed#schedules"),
    );
    assert_eq!(crate::dashboard_client::count(&app, "schedules").await, 1);

    // A site's page removes that site's schedules and monitors only, not another site's of the
    // same organisation.
    let other_site = FixtureSite::start().await;
    other_site.route("/", Route::html("<!doctype html><html lang=en><title>Blog</title><h1>Blog</h1>"));
    let other = location(&web.post("/sites", &[("url", &other_site.url("/"))]).await).trim_end_matches("?done=added").to_string();
    web.get(&other).await;
    assert_eq!(web.post(&format!("{other}/schedules"), &[("cron", "0 5 * * *"), ("timezone", "UTC"), ("mode", "passive")]).await.status.as_u16(), 303);
    let other_id: uuid::Uuid = other.trim_start_matches("/sites/").parse().expect("site id");
    let theirs = app.store.list_schedules("acme", Some(other_id)).await.unwrap().pop().expect("the other site's schedule");
    let monitor_of_first = app.store.list_monitors("acme", None).await.unwrap().pop().expect("a monitor");
    page(&web.post(&format!("{other}/schedules/remove"), &[("id", &attested.id.to_string())]).await, 404);
    page(&web.post(&format!("{other}/monitors/remove"), &[("id", &monitor_of_first.id.to_string())]).await, 404);
    assert_eq!(crate::dashboard_client::count(&app, "schedules").await, 2, "nothing removed across sites");
    assert_eq!(crate::dashboard_client::count(&app, "monitors").await, 1, "nothing removed across sites");
    redirect_to(&web.post(&format!("{other}/schedules/remove"), &[("id", &theirs.id.to_string())]).await, &format!("{other}?done=schedule-removed#schedules"));
    redirect_to(&web.post(&format!("{path}/monitors/remove"), &[("id", &monitor_of_first.id.to_string())]).await, &format!("{path}?done=monitor-removed#monitors"));
    assert_eq!(crate::dashboard_client::count(&app, "schedules").await, 1);
    assert_eq!(crate::dashboard_client::count(&app, "monitors").await, 0);
}

/// A completed scan of `target` with `findings` (check id, severity, how many) and one page per
/// LCP value; returns its id.
async fn completed_scan(app: &crate::app::TestApp, org: &str, target: &str, findings: &[(&str, sitescan::model::Severity, u64)], lcps: &[f64]) -> uuid::Uuid {
    let row = app.seed_scan(org, target).await;
    let claimed = app.store.claim_scan("history-test", std::time::Duration::from_secs(60), 3).await.unwrap().expect("claimed");
    assert_eq!(claimed.id, row.id);
    for (i, lcp) in lcps.iter().enumerate() {
        let page = sitescan::model::ReportPage {
            url: format!("{target}p{i}"),
            final_url: None,
            status: Some(200),
            title: Some("Page".into()),
            metrics: serde_json::json!({"lcp_ms": lcp, "cls": 0.01 * i as f64, "tbt_ms": 50.0}),
            error: None,
            checks_not_run: Vec::new(),
        };
        app.seed_page(row.id, org, i as i32, &page, &[]).await;
    }
    let mut summary = sitescan::model::ReportSummary::empty();
    summary.pages_scanned = lcps.len() as u64;
    for (check, severity, n) in findings {
        summary.count(check, *severity, *n);
    }
    assert!(app.store.complete_scan(row.id, "history-test", &sitescan::model::StoredReport::of(summary.clone())).await.unwrap());
    row.id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sites_history_charts_exactly_its_completed_scans() {
    use sitescan::model::Severity::{High, Low, Medium};
    let (app, _fixture, mut web) = setup().await;
    let origin = "https://shop.example.com";
    let now = sitescan_store::time::now_us();
    let site = app.store.add_site("acme", origin, "shop.example.com", "History_Token_0123456789abcd", "t", now).await.unwrap().unwrap();
    let empty = web.get(&format!("/sites/{}", site.id)).await;
    page(&empty, 200);
    assert!(empty.text.contains("No completed scan of this site yet"), "{}", empty.text);

    let first = completed_scan(&app, "acme", "https://shop.example.com/", &[("search.title-missing", High, 4), ("accessibility.image-alt", Medium, 2)], &[1000.0, 2000.0, 3000.0, 4000.0]).await;
    // Not of this site: another port, another host, another organisation, a scan still queued.
    completed_scan(&app, "acme", "https://shop.example.com:8443/", &[("search.title-missing", High, 9)], &[]).await;
    completed_scan(&app, "acme", "https://blog.example.com/", &[("search.title-missing", High, 9)], &[]).await;
    completed_scan(&app, "globex", "https://shop.example.com/", &[("search.title-missing", High, 9)], &[]).await;
    let second = completed_scan(&app, "acme", "https://shop.example.com/cart", &[("search.title-missing", High, 1), ("security.header-missing", Low, 3)], &[900.0]).await;
    app.seed_scan("acme", "https://shop.example.com/").await;

    let r = web.get(&format!("/sites/{}", site.id)).await;
    page(&r, 200);
    let html = scraper::Html::parse_document(&r.text);
    let sel = |s: &str| scraper::Selector::parse(s).unwrap();
    let dots = |chart: &str, series: &str| -> Vec<(String, String)> {
        html.select(&sel(&format!("#chart-{chart} g[data-series='{series}'] a")))
            .map(|a| (a.value().attr("href").unwrap_or_default().to_string(), a.value().attr("aria-label").unwrap_or_default().to_string()))
            .collect()
    };
    let high = dots("severity", "high");
    assert_eq!(high.iter().map(|(h, _)| h.clone()).collect::<Vec<_>>(), [format!("/scans/{first}"), format!("/scans/{second}")], "one point per completed scan of the site, oldest first");
    assert!(high[0].1.starts_with("high: 4 (") && high[1].1.starts_with("high: 1 ("), "{high:?}");
    assert_eq!(dots("severity", "low").iter().map(|(_, l)| l.split(" (").next().unwrap().to_string()).collect::<Vec<_>>(), ["low: 0", "low: 3"]);
    assert_eq!(dots("category", "security").len(), 2, "every category that ever had a finding is a line");
    // The 75th percentile of the first scan's four pages (nearest rank) is 3 s, against 2.5 s.
    let lcp = dots("lcp", "LCP");
    assert!(lcp[0].1.starts_with("LCP: 3.00 s") && lcp[1].1.starts_with("LCP: 900 ms"), "{lcp:?}");
    assert_eq!(html.select(&sel("#chart-lcp line.threshold")).count(), 1);
    // The same numbers as a table, each row linking to its scan.
    let rows: Vec<Vec<String>> = html
        .select(&sel("#chart-severity tbody tr"))
        .map(|tr| tr.select(&sel("th, td")).map(|c| c.text().collect::<String>()).collect())
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0][1..6], ["0", "4", "2", "0", "0"].map(String::from));
    assert_eq!(rows[1][1..6], ["0", "1", "0", "3", "0"].map(String::from));
    let compare: Vec<String> = html.select(&sel("#chart-severity tbody a[href^='/compare']")).map(|a| a.value().attr("href").unwrap().to_string()).collect();
    assert_eq!(compare, [format!("/compare?base={first}&head={second}")], "each scan links to its comparison with the one before");
}

/// A completed scan of `target` whose pages carry `findings` (check id, page path, selector).
async fn scan_with_findings(app: &crate::app::TestApp, target: &str, pages: &[(&str, f64)], findings: &[(&str, &str, &str)]) -> uuid::Uuid {
    let findings: Vec<_> = findings.iter().map(|(c, p, s)| (*c, *p, *s, sitescan::model::Severity::Medium)).collect();
    app.completed_scan("acme", target, pages, &findings).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compare_lists_exactly_what_the_reports_changes_say() {
    let (app, _fixture, mut web) = setup().await;
    let target = "https://shop.example.com/";
    let base = scan_with_findings(&app, target, &[("/", 1200.0), ("/old", 900.0)], &[
        ("accessibility.image-alt", "/", "img.hero"),
        ("search.title-missing", "/", ""),
        ("accessibility.label", "/old", "#q"),
    ])
    .await;
    let head = scan_with_findings(&app, target, &[("/", 3100.0), ("/new", 800.0)], &[
        ("accessibility.image-alt", "/", "img.hero"),
        ("accessibility.image-alt", "/", "img.logo"),
        ("forms.label-missing", "/new", "#email"),
    ])
    .await;
    // What the head's report says changed, as the API serves it.
    let token = app.token("acme").await;
    let report = app.get(&format!("/api/v1/scans/{head}"), &token).await;
    let changes = report.json["report"]["summary"]["changes"].clone();
    let r = web.get(&format!("/compare?base={base}&head={head}")).await;
    page(&r, 200);
    let html = scraper::Html::parse_document(&r.text);
    let sel = |s: &str| scraper::Selector::parse(s).unwrap();
    let text = |s: &str| html.select(&sel(s)).map(|e| e.text().collect::<String>().trim().to_string()).collect::<Vec<_>>();
    for key in ["new", "fixed", "persisting"] {
        assert_eq!(text(&format!("#count-{key}")), [changes[key].to_string()], "{key}: the page says what the report's changes say ({changes})");
    }
    assert_eq!(changes["new"], 2);
    assert_eq!(changes["persisting"], 1);
    // `/old` is gone, so its finding cannot be called fixed; the title is fixed on `/`.
    assert_eq!(changes["fixed"], 1);
    assert_eq!(text("#new h3 code"), ["accessibility.image-alt", "forms.label-missing"]);
    assert!(text("#new li").iter().any(|l| l.contains("img.logo")) && text("#new li").iter().any(|l| l.ends_with("/new#email") || l.contains("#email")));
    assert_eq!(text("#fixed h3 code"), ["search.title-missing"]);
    assert_eq!(text("#pages-added li"), ["https://shop.example.com/new"]);
    assert_eq!(text("#pages-gone li"), ["https://shop.example.com/old"]);
    assert!(r.text.contains("1200 ms → 3100 ms"), "the vitals per page: {}", r.text);

    // Bad requests get a page that says why, and change nothing.
    page(&web.get("/compare").await, 400);
    page(&web.get(&format!("/compare?base={base}&head=nope")).await, 400);
    let other_site = scan_with_findings(&app, "https://blog.example.com/", &[("/", 1.0)], &[]).await;
    let r = web.get(&format!("/compare?base={base}&head={other_site}")).await;
    page(&r, 400);
    assert!(r.text.contains("different sites"), "{}", r.text);
    page(&web.get(&format!("/compare?base={base}&head={}", uuid::Uuid::now_v7())).await, 404);
}
