//! Load:
//! - 200 scans queued at once by 20 tokens in 4 organisations (tiny fixture sites, `--max-pages 1`)
//!   all complete, memory stays bounded, and every organisation sees exactly its own 50 scans and
//!   only findings of those scans (another organisation's scan is 404);
//! - 10,000 API requests from 200 concurrent clients across 100 tokens under the default limits
//!   (10/s and 60/min per token) answer only 2xx and 429; every 429 is the `rate_limited` error
//!   object with `retry-after`, `x-ratelimit-limit`, `-remaining` and `-reset`; no token gets more
//!   than its windows allow.
//!
//! `SITESCAN_TEST_LONG=1` runs 1,000 scans (20 tokens, 4 organisations) and 50,000 requests.

use crate::app;
use crate::engine;
use crate::fixture_site;

use engine::{EngineSpec, MemorySampler};
use fixture_site::{FixtureSite, Route};
use futures::StreamExt;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

fn long() -> bool {
    std::env::var_os("SITESCAN_TEST_LONG").is_some_and(|v| v != "0")
}

const ORGS: usize = 4;
const TOKENS: usize = 20;

async fn tiny_site(org: usize) -> FixtureSite {
    let site = FixtureSite::start().await;
    site.route("/", Route::html(format!("<!doctype html><html lang=en><title>Org {org}</title><h1>Org {org}</h1><a href=/b>b</a><img src=/missing.png>")));
    site.route("/b", Route::html(format!("<!doctype html><html lang=en><title>Org {org} b</title><h1>B</h1>")));
    site
}

/// Every scan of the caller, following `next_cursor`.
async fn all_scans(app: &app::TestApp, token: &str) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("/api/v1/scans?limit=100&cursor={}", app::enc(c)),
            None => "/api/v1/scans?limit=100".to_string(),
        };
        let r = app.get(&path, token).await;
        r.expect(200);
        out.extend(r.json["scans"].as_array().unwrap().iter().cloned());
        match r.json["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => return out,
        }
    }
}

async fn all_findings(app: &app::TestApp, token: &str) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("/api/v1/findings?limit=200&cursor={}", app::enc(c)),
            None => "/api/v1/findings?limit=200".to_string(),
        };
        let r = app.get(&path, token).await;
        r.expect(200);
        out.extend(r.json["findings"].as_array().unwrap().iter().cloned());
        match r.json["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => return out,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_hundred_scans_from_four_organisations_complete_separately_with_bounded_memory() {
    let total = if long() { 1000 } else { 200 };
    let memory = MemorySampler::start();
    let mut sites = Vec::new();
    for org in 0..ORGS {
        sites.push(tiny_site(org).await);
    }
    let app = app::spawn_app_with(app::AppOptions::default().allow_target("127.0.0.1/32")).await;
    let mut tokens: Vec<(usize, String)> = Vec::new();
    for t in 0..TOKENS {
        let org = t % ORGS;
        tokens.push((org, app.token(&format!("load-org-{org}")).await));
    }
    // All queued at once, from every token concurrently.
    let began = Instant::now();
    let created: Vec<(usize, String)> = futures::stream::iter(0..total)
        .map(|i| {
            let (org, token) = tokens[i % TOKENS].clone();
            let target = sites[org].url("/");
            let app = &app;
            async move {
                let body = app.create_scan(&token, &target).await;
                (org, body["id"].as_str().unwrap().to_string())
            }
        })
        .buffer_unordered(50)
        .collect()
        .await;
    let queued_in = began.elapsed();
    assert_eq!(created.len(), total);

    let spec = EngineSpec { capture: sitescan::browser::CaptureOptions::bare(), browsers: 1, pages_per_browser: 6, ..EngineSpec::default() };
    let scanner = spec.scanner().await;
    let workers = engine::workers(app.store.clone(), scanner.clone(), 6, 1);
    let token_of: HashMap<usize, String> = tokens.iter().cloned().collect();
    let mut statuses: BTreeMap<String, usize>;
    loop {
        statuses = BTreeMap::new();
        let stmt = app.store.stmt("SELECT status, COUNT(*) AS n FROM scans GROUP BY status", vec![]);
        use sea_orm::ConnectionTrait;
        for row in app.store.conn().query_all_raw(stmt).await.unwrap() {
            statuses.insert(row.try_get("", "status").unwrap(), row.try_get::<i64>("", "n").unwrap() as usize);
        }
        let finished = statuses.get("completed").copied().unwrap_or(0) + statuses.get("failed").copied().unwrap_or(0);
        if finished == total {
            break;
        }
        assert!(began.elapsed() < Duration::from_secs(if long() { 3600 } else { 900 }), "not all scans finished: {statuses:?}");
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    let ran_in = began.elapsed();
    let pool = scanner.pool().stats();
    workers.shutdown().await;
    assert_eq!(statuses.get("completed").copied(), Some(total), "every scan completed: {statuses:?}");

    // Every organisation sees exactly its own scans and findings.
    let mut findings_total = 0;
    for org in 0..ORGS {
        let token = &token_of[&org];
        let mine: HashSet<String> = created.iter().filter(|(o, _)| *o == org).map(|(_, id)| id.clone()).collect();
        let listed = all_scans(&app, token).await;
        let listed_ids: HashSet<String> = listed.iter().map(|s| s["id"].as_str().unwrap().to_string()).collect();
        assert_eq!(listed_ids, mine, "organisation {org} lists exactly its own scans");
        assert_eq!(listed.len(), mine.len(), "no scan listed twice");
        for s in &listed {
            assert_eq!(s["target_url"], sites[org].url("/"), "organisation {org} sees only its own targets");
            assert_eq!(s["status"], "completed");
        }
        let findings = all_findings(&app, token).await;
        assert!(!findings.is_empty(), "organisation {org} has findings");
        for f in &findings {
            assert!(mine.contains(f["scan_id"].as_str().unwrap()), "organisation {org} sees a finding of another organisation's scan");
        }
        findings_total += findings.len();
        // Another organisation's scan is 404.
        let other = created.iter().find(|(o, _)| *o != org).unwrap();
        app.get(&format!("/api/v1/scans/{}", other.1), token).await.expect_error(404, "not_found");
    }
    let (self_mb, children_mb) = (memory.max_self_mb(), memory.max_children_mb());
    eprintln!(
        "load: {total} scans from {TOKENS} tokens in {ORGS} organisations queued in {queued_in:?}, all completed in {ran_in:?}; \
         {findings_total} findings, each organisation saw only its own; pool {pool:?}; max RSS this process {self_mb} MB, browsers {children_mb} MB"
    );
    assert!(self_mb < 1024, "this process stayed under 1 GB: {self_mb} MB");
    assert!(children_mb < 6144, "the browsers stayed under 6 GB (one recycled while its successor starts): {children_mb} MB");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ten_thousand_requests_across_many_tokens_get_only_2xx_and_429_with_correct_headers() {
    let total = if long() { 50_000 } else { 10_000 };
    let token_count = 100;
    let app = app::spawn_app_with(app::AppOptions::default().rate(&[(10, Duration::from_secs(1)), (60, Duration::from_secs(60))])).await;
    let mut tokens = Vec::new();
    for t in 0..token_count {
        let (token, _) = app.token_with(&format!("rl-org-{}", t % 10), &["scans:read", "scans:write"]).await;
        tokens.push(token);
    }
    // One scan per organisation to read back.
    let mut scan_of_org = HashMap::new();
    for org in 0..10 {
        let row = app.seed_scan(&format!("rl-org-{org}"), "https://example.com/").await;
        scan_of_org.insert(org, row.id.to_string());
    }
    let began = Instant::now();
    let results: Vec<(usize, u16, Option<String>)> = futures::stream::iter(0..total)
        .map(|i| {
            let t = i % token_count;
            let token = tokens[t].clone();
            let path = match i % 3 {
                0 => "/api/v1/scans?limit=5".to_string(),
                1 => "/api/v1/findings?limit=5".to_string(),
                _ => format!("/api/v1/scans/{}", scan_of_org[&(t % 10)]),
            };
            let app = &app;
            async move {
                let r = app.get(&path, &token).await;
                let status = r.status.as_u16();
                let problem = match status {
                    200 => {
                        let ok = r.header_opt("x-ratelimit-limit").is_some() && r.header_opt("x-ratelimit-remaining").is_some();
                        (!ok).then(|| format!("200 without x-ratelimit headers: {:?}", r.headers))
                    }
                    429 => {
                        let ok = r.json["error"] == "rate_limited"
                            && r.json["retry_after_seconds"].as_u64().is_some()
                            && ["retry-after", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]
                                .iter()
                                .all(|h| r.header_opt(h).is_some_and(|v| v.parse::<u64>().is_ok()))
                            && r.header_u64("x-ratelimit-remaining") == 0
                            && r.header_u64("x-ratelimit-reset") >= chrono::Utc::now().timestamp() as u64 - 1
                            && r.header_u64("retry-after") == r.json["retry_after_seconds"].as_u64().unwrap();
                        (!ok).then(|| format!("bad 429: {:?} {}", r.headers, r.text))
                    }
                    _ => Some(format!("{status} {}", r.text)),
                };
                (t, status, problem)
            }
        })
        .buffer_unordered(200)
        .collect()
        .await;
    let took = began.elapsed();
    let mut by_status: BTreeMap<u16, usize> = BTreeMap::new();
    let mut ok_per_token = vec![0usize; token_count];
    let mut problems = Vec::new();
    for (t, status, problem) in &results {
        *by_status.entry(*status).or_default() += 1;
        if *status == 200 {
            ok_per_token[*t] += 1;
        }
        if let Some(p) = problem {
            problems.push(p.clone());
        }
    }
    assert_eq!(results.len(), total);
    assert!(problems.is_empty(), "{} bad answers, e.g. {:?}", problems.len(), &problems[..problems.len().min(5)]);
    assert!(by_status.keys().all(|s| *s == 200 || *s == 429), "{by_status:?}");
    // GCRA windows: a burst of `limit`, then one cell per `period / limit` (10/s: one per 100 ms;
    // 60/min: one per second). Both apply at once.
    let t = took.as_secs_f64();
    let allowed = ((10.0 + 10.0 * t).min(60.0 + t)).ceil() as usize + 1;
    for (t, n) in ok_per_token.iter().enumerate() {
        assert!(*n >= 10, "token {t} got its burst: {n}");
        assert!(*n <= allowed, "token {t} got {n} answers, more than its windows allow ({allowed})");
    }
    eprintln!("load: {total} requests, 200 concurrent, {token_count} tokens in {took:?}: {by_status:?}, no 5xx, every 429 well-formed");
}
