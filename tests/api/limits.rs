//! Rate limits and the monthly scan quota, over real HTTP with short windows: the
//! `x-ratelimit-*` headers on successes, 429 `rate_limited` with `retry_after_seconds`,
//! `retry-after` and `x-ratelimit-*`, values that are true (waiting `retry-after` gets through,
//! `remaining` predicts the refusal), both windows at once, per-token keys, every endpoint; and
//! 429 `quota_exceeded` with `quota: {limit, used, resets_at}` that creates nothing.

use crate::app;

use app::{AppOptions, Resp, TestApp, spawn_app, spawn_app_with};
use chrono::{Datelike, TimeZone, Timelike, Utc};
use serde_json::json;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const SCANS: &str = "/api/v1/scans";

fn now_epoch() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

/// Asserts a 429 `rate_limited` with everything the spec says it carries; returns retry-after.
#[track_caller]
fn assert_rate_limited(r: &Resp, limit: u64) -> u64 {
    r.expect_error(429, "rate_limited");
    let retry = r.header_u64("retry-after");
    assert!(retry >= 1, "retry-after {retry}");
    assert_eq!(r.json["retry_after_seconds"], json!(retry), "body and header agree: {}", r.text);
    assert!(r.json["retry_after_seconds"].is_u64(), "retry_after_seconds is an integer");
    assert_eq!(r.header_u64("x-ratelimit-limit"), limit, "the limit in force");
    assert_eq!(r.header_u64("x-ratelimit-remaining"), 0);
    let reset = r.header_u64("x-ratelimit-reset");
    let now = now_epoch();
    assert!(reset >= now && reset <= now + retry + 120, "x-ratelimit-reset {reset} is epoch seconds near now {now}");
    retry
}

/// Asserts the headers of an admitted request; returns remaining.
#[track_caller]
fn assert_rate_headers(r: &Resp, limit: u64) -> u64 {
    assert!(r.status.is_success() || r.status.is_client_error(), "{}", r.status);
    assert_eq!(r.header_u64("x-ratelimit-limit"), limit, "x-ratelimit-limit of {} {}", r.status, r.text);
    let remaining = r.header_u64("x-ratelimit-remaining");
    assert!(remaining < limit);
    let reset = r.header_u64("x-ratelimit-reset");
    let now = now_epoch();
    assert!(reset >= now && reset <= now + 3600, "x-ratelimit-reset {reset} is epoch seconds near {now}");
    assert!(r.header_opt("retry-after").is_none(), "no retry-after on an admitted request");
    remaining
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn successful_and_error_responses_carry_rate_headers() {
    // A long period, so no cell is regained while the test runs.
    let app = spawn_app_with(AppOptions::default().rate(&[(100, Duration::from_secs(3600))])).await;
    let token = app.token("acme").await;
    let (reader, _) = app.token_with("acme", &["scans:read"]).await;
    let created = app.post(SCANS, &token, r#"{"target":"example.com"}"#).await;
    created.expect(201);
    assert_eq!(assert_rate_headers(&created, 100), 99);
    let id = created.json["id"].as_str().unwrap().to_string();
    let mut last = 99;
    for path in [
        SCANS.to_string(),
        format!("{SCANS}/{id}"),
        format!("{SCANS}/{id}?include_findings=true"),
        "/api/v1/findings".to_string(),
        // Errors after admission count and say so too.
        format!("{SCANS}?limit=0"),
        format!("{SCANS}/{}", uuid::Uuid::new_v4()),
        "/api/v1/findings?severity=bogus".to_string(),
    ] {
        let r = app.get(&path, &token).await;
        let remaining = assert_rate_headers(&r, 100);
        assert_eq!(remaining, last - 1, "{path}: one request, one cell");
        last = remaining;
    }
    let r = app.post(SCANS, &token, "{").await;
    r.expect(400);
    assert_eq!(assert_rate_headers(&r, 100), last - 1);
    // 403 on scope: the reader's own bucket.
    let r = app.post(SCANS, &reader, r#"{"target":"example.com"}"#).await;
    r.expect_error(403, "forbidden");
    assert_eq!(assert_rate_headers(&r, 100), 99);
}

/// `remaining` is true: exactly that many more requests get through at once, then 429; waiting
/// `retry-after` seconds gets the next one through, and at `x-ratelimit-reset` the window is whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn burst_window_values_are_true_memory() {
    burst_window_values_are_true(AppOptions::default()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn burst_window_values_are_true_redis() {
    if let Some(url) = app::redis_url().await {
        burst_window_values_are_true(AppOptions::default().rate_backend(&url)).await;
    }
}

async fn burst_window_values_are_true(options: AppOptions) {
    let app = spawn_app_with(options.rate(&[(3, Duration::from_secs(1))])).await;
    let token = app.token("acme").await;
    let first = app.get(SCANS, &token).await;
    first.expect(200);
    let remaining = assert_rate_headers(&first, 3);
    assert_eq!(remaining, 2);
    for i in 0..remaining {
        let r = app.get(SCANS, &token).await;
        r.expect(200);
        assert_eq!(assert_rate_headers(&r, 3), remaining - 1 - i);
    }
    let refused = app.get(SCANS, &token).await;
    let retry = assert_rate_limited(&refused, 3);
    assert!(retry <= 1, "a 3/s window frees a cell within a second, retry-after {retry}");
    // Refused requests spend nothing: still refused right away, then through after retry-after.
    assert_rate_limited(&app.get(SCANS, &token).await, 3);
    tokio::time::sleep(Duration::from_secs(retry)).await;
    let through = app.get(SCANS, &token).await;
    through.expect(200);
    // At the advertised reset time the whole window is available again.
    let reset = through.header_u64("x-ratelimit-reset");
    let now_ms = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as u64;
    tokio::time::sleep(Duration::from_millis((reset * 1000 + 50).saturating_sub(now_ms))).await;
    let whole = app.get(SCANS, &token).await;
    whole.expect(200);
    assert_eq!(assert_rate_headers(&whole, 3), 2, "the window is whole again after x-ratelimit-reset");
}

/// Both windows at once: a burst window (3 per second) and a steady one (5 per 20 s).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn burst_and_steady_windows_apply_at_once_memory() {
    burst_and_steady_windows_apply_at_once(AppOptions::default()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn burst_and_steady_windows_apply_at_once_redis() {
    if let Some(url) = app::redis_url().await {
        burst_and_steady_windows_apply_at_once(AppOptions::default().rate_backend(&url)).await;
    }
}

async fn burst_and_steady_windows_apply_at_once(options: AppOptions) {
    let app = spawn_app_with(options.rate(&[(3, Duration::from_secs(1)), (5, Duration::from_secs(20))])).await;
    let token = app.token("acme").await;
    // Three at once pass the burst window.
    for expect_remaining in [2, 1, 0] {
        let r = app.get(SCANS, &token).await;
        r.expect(200);
        assert_eq!(assert_rate_headers(&r, 3), expect_remaining, "the burst window is the tightest");
    }
    // The fourth is refused by the burst window.
    let retry = assert_rate_limited(&app.get(SCANS, &token).await, 3);
    assert_eq!(retry, 1);
    tokio::time::sleep(Duration::from_secs(retry)).await;
    // After a second the burst window has room again; the steady window now decides.
    let r = app.get(SCANS, &token).await;
    r.expect(200);
    assert_eq!(assert_rate_headers(&r, 5), 1, "steady window: 4 of 5 used");
    let r = app.get(SCANS, &token).await;
    r.expect(200);
    assert_eq!(assert_rate_headers(&r, 5), 0, "steady window: 5 of 5 used");
    // The burst window would allow this one; the steady window refuses it.
    let refused = app.get(SCANS, &token).await;
    let retry = assert_rate_limited(&refused, 5);
    assert!(retry >= 2, "the steady window makes the caller wait longer, got {retry}");
    tokio::time::sleep(Duration::from_secs(retry)).await;
    let r = app.get(SCANS, &token).await;
    r.expect(200);
    assert_eq!(r.header_u64("x-ratelimit-limit"), 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_are_per_token_memory() {
    limits_are_per_token(AppOptions::default()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_are_per_token_redis() {
    if let Some(url) = app::redis_url().await {
        limits_are_per_token(AppOptions::default().rate_backend(&url)).await;
    }
}

/// With the Redis backend, instances of a fleet share each token's limits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_limits_are_shared_by_instances() {
    let Some(url) = app::redis_url().await else { return };
    let options = AppOptions::default().rate_backend(&url).rate(&[(3, Duration::from_secs(60))]);
    let a = spawn_app_with(options.clone()).await;
    let b = app::spawn_app_at(&a.db_url, options).await;
    let token = a.token("acme").await;
    assert_eq!(assert_rate_headers(a.get(SCANS, &token).await.expect(200), 3), 2);
    assert_eq!(assert_rate_headers(b.get(SCANS, &token).await.expect(200), 3), 1);
    assert_eq!(assert_rate_headers(a.get(SCANS, &token).await.expect(200), 3), 0);
    let retry = assert_rate_limited(&b.get(SCANS, &token).await, 3);
    assert!(retry >= 10, "a 3/min window shared by both instances, retry-after {retry}");
    assert_rate_limited(&a.get(SCANS, &token).await, 3);
}

async fn limits_are_per_token(options: AppOptions) {
    let app = spawn_app_with(options.rate(&[(2, Duration::from_secs(30))])).await;
    let a = app.token("acme").await;
    let b = app.token("acme").await;
    let c = app.token("globex").await;
    app.get(SCANS, &a).await.expect(200);
    app.get(SCANS, &a).await.expect(200);
    assert_rate_limited(&app.get(SCANS, &a).await, 2);
    // Another token of the same organisation, and one of another organisation, are unaffected.
    for t in [&b, &c] {
        let r = app.get(SCANS, t).await;
        r.expect(200);
        assert_eq!(assert_rate_headers(&r, 2), 1);
    }
    // Unauthenticated requests do not spend a token's cells.
    for _ in 0..5 {
        app.call("GET", SCANS, None, None).await.expect_error(401, "invalid_token");
    }
    let r = app.get(SCANS, &b).await;
    r.expect(200);
    assert_eq!(assert_rate_headers(&r, 2), 0);
}

/// Every endpoint can answer 429, and a rate-limited POST creates nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_endpoint_answers_429() {
    let app = spawn_app_with(AppOptions::default().rate(&[(1, Duration::from_secs(60))])).await;
    let setup = app.token("acme").await;
    let id = app.create_scan(&setup, "example.com").await["id"].as_str().unwrap().to_string();
    let endpoints = [
        ("POST", SCANS.to_string(), Some(r#"{"target":"example.org"}"#)),
        ("GET", SCANS.to_string(), None),
        ("GET", format!("{SCANS}/{id}"), None),
        ("GET", "/api/v1/findings".to_string(), None),
    ];
    for (method, path, body) in &endpoints {
        let token = app.token("acme").await;
        let ok = app.call(method, path, Some(&token), *body).await;
        assert!(ok.status.is_success(), "{method} {path}: {}", ok.text);
        let before = app.count_scans().await;
        let r = app.call(method, path, Some(&token), *body).await;
        assert_rate_limited(&r, 1);
        assert!(r.header_u64("retry-after") >= 50, "a 1/min window waits most of a minute");
        assert_eq!(app.count_scans().await, before, "{method} {path}: a refused request creates nothing");
    }
    // The probes need no token and are not limited.
    for _ in 0..5 {
        app.call("GET", "/healthz", None, None).await.expect(200);
    }
}

fn first_of_next_month() -> chrono::DateTime<Utc> {
    let now = Utc::now();
    let (y, m) = if now.month() == 12 { (now.year() + 1, 1) } else { (now.year(), now.month() + 1) };
    Utc.with_ymd_and_hms(y, m, 1, 0, 0, 0).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quota_exceeded_is_429_with_the_quota_and_creates_nothing() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    app.store.set_org("acme", Some(2)).await.unwrap();
    app.create_scan(&token, "one.example.com").await;
    app.create_scan(&token, "two.example.com").await;
    let r = app.post(SCANS, &token, r#"{"target":"three.example.com"}"#).await;
    r.expect_error(429, "quota_exceeded");
    let quota = &r.json["quota"];
    assert!(quota.is_object(), "quota object: {}", r.text);
    assert_eq!(quota["limit"], 2);
    assert_eq!(quota["used"], 2);
    let resets_at = app::rfc3339(&quota["resets_at"]);
    let next_month = first_of_next_month();
    assert_eq!(resets_at.with_timezone(&Utc), next_month, "the quota resets at the next calendar month (UTC)");
    assert_eq!(resets_at.time().hour(), 0);
    // The 429 headers.
    let retry = r.header_u64("retry-after");
    if let Some(body_retry) = r.json.get("retry_after_seconds") {
        assert_eq!(body_retry, &json!(retry), "retry_after_seconds agrees with retry-after");
    }
    let to_reset = (next_month - Utc::now()).num_seconds() as u64;
    assert!(retry.abs_diff(to_reset) <= 5, "retry-after {retry} is the time to the reset ({to_reset})");
    r.header_u64("x-ratelimit-limit");
    assert_eq!(r.header_u64("x-ratelimit-remaining"), 0);
    let reset = r.header_u64("x-ratelimit-reset");
    assert!(reset >= now_epoch(), "x-ratelimit-reset {reset} is epoch seconds in the future");
    // Nothing was created, and the count is what the list shows.
    assert_eq!(app.count_scans().await, 2);
    let list = app.get(SCANS, &token).await;
    assert_eq!(list.json["scans"].as_array().unwrap().len(), 2);
    // The quota is per organisation: another organisation still creates scans.
    let other = app.token("globex").await;
    app.create_scan(&other, "globex.example.com").await;
    // Refused again, with the same numbers; raising the quota lets the next one through.
    let again = app.post(SCANS, &token, r#"{"target":"three.example.com"}"#).await;
    again.expect_error(429, "quota_exceeded");
    assert_eq!(again.json["quota"]["used"], 2);
    app.store.set_org("acme", Some(3)).await.unwrap();
    app.create_scan(&token, "three.example.com").await;
    let r = app.post(SCANS, &token, r#"{"target":"four.example.com"}"#).await;
    r.expect_error(429, "quota_exceeded");
    assert_eq!(r.json["quota"], json!({"limit": 3, "used": 3, "resets_at": quota["resets_at"].clone()}));
    // Invalid targets are refused before the quota is consulted.
    app.post(SCANS, &token, r#"{"target":"http://127.0.0.1/"}"#).await.expect_invalid("target");
}

/// Concurrent creations never take more than the quota, and none of them fails otherwise.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_creations_respect_the_quota() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    app.store.set_org("acme", Some(5)).await.unwrap();
    let futures: Vec<_> = (0..12)
        .map(|i| {
            let body = json!({ "target": format!("c{i}.example.com") }).to_string();
            let (app, token) = (&app, &token);
            async move { app.post(SCANS, token, &body).await }
        })
        .collect();
    let results = futures::future::join_all(futures).await;
    let created = results.iter().filter(|r| r.status.as_u16() == 201).count();
    let refused = results.iter().filter(|r| r.status.as_u16() == 429 && r.json["error"] == "quota_exceeded").count();
    let others: Vec<String> = results
        .iter()
        .filter(|r| !matches!(r.status.as_u16(), 201 | 429))
        .map(|r| format!("{} {}", r.status, r.text))
        .collect();
    assert!(others.is_empty(), "unexpected answers: {others:?}");
    assert_eq!((created, refused), (5, 7));
    assert_eq!(app.count_scans().await, 5);
}

/// The default quota exists and is sensible (the first scans of a new organisation go through).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_organisation_has_a_default_quota() {
    let app: TestApp = spawn_app().await;
    let token = app.token("fresh").await;
    let org = app.store.org("fresh").await.unwrap().unwrap();
    assert!(org.monthly_scan_quota >= 10, "default quota {}", org.monthly_scan_quota);
    app.create_scan(&token, "example.com").await;
}
