//! Live streams are shared fairly: one member (or one API token) opens the dashboard's live view
//! of a scan (`/scans/{id}/events`) or gRPC `WatchScan` up to their cap and the next one is
//! refused (429 with a short page saying which cap; RESOURCE_EXHAUSTED with the spec's error object and 429
//! headers), the organisation's cap holds for all its members or tokens together, while another
//! organisation's stream still opens; a closed stream gives its place back; a stream with
//! nothing new ends (an `idle` event; DEADLINE_EXCEEDED), and so does one open too long. The
//! limits are short here through the server's constructor (`StreamCaps`), never by waiting on a
//! clock: each test reads the stream until it ends.

use crate::app::{AppOptions, TestApp, spawn_app_with};
use crate::dashboard_client::{PASSWORD, Web, redirect_to};
use futures::StreamExt;
use sitescan::accounts::{Role, users};
use sitescan::proto::v1 as pb;
use sitescan::proto::v1::scan_service_client::ScanServiceClient;
use sitescan::scans::{StreamCaps, StreamLimits};
use std::time::{Duration, Instant};
use tonic::transport::Channel;
use tonic::{Code, Request};

/// Longer than any test runs.
const LONG: Duration = Duration::from_secs(3600);
/// How long a test waits for what must happen before it fails (a guard, not a measurement).
const PATIENCE: Duration = Duration::from_secs(60);

fn limits(per_holder: usize, per_org: usize, idle: Duration, max: Duration) -> StreamLimits {
    StreamLimits { per_holder, per_org, process: 256, idle, max }
}

async fn signed_in(app: &TestApp, email: &str) -> Web {
    let mut web = Web::new(app);
    redirect_to(&web.login(email, PASSWORD).await, "/");
    web
}

/// `GET /scans/{id}/events` as `web`, the response unread (held open while it lives, by a client
/// with no overall timeout).
async fn open_events(web: &Web, scan: uuid::Uuid) -> reqwest::Response {
    reqwest::Client::new().get(format!("{}/scans/{scan}/events", web.base)).header("cookie", web.cookie_header()).send().await.unwrap()
}

/// Reads a stream to its end: its events' names.
async fn events_until_the_end(r: reqwest::Response) -> Vec<String> {
    let mut body = r.bytes_stream();
    let mut text = String::new();
    while let Some(chunk) = tokio::time::timeout(PATIENCE, body.next()).await.expect("the stream ends by itself") {
        text.push_str(&String::from_utf8_lossy(&chunk.unwrap()));
    }
    text.lines().filter_map(|l| l.strip_prefix("event:")).map(|e| e.trim().to_string()).collect()
}

/// Opens `/scans/{id}/events` again until it is let through (the server noticed a closed one).
async fn opens_again(web: &Web, scan: uuid::Uuid) -> reqwest::Response {
    let began = Instant::now();
    loop {
        let r = open_events(web, scan).await;
        if r.status() == 200 {
            return r;
        }
        assert_eq!(r.status(), 429);
        assert!(began.elapsed() < PATIENCE, "a closed live view never gave its place back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_member_cannot_hold_every_live_view_and_another_organisation_still_streams() {
    let caps = StreamCaps { live_views: limits(2, 3, LONG, LONG), ..StreamCaps::default() };
    let app = spawn_app_with(AppOptions::default().streams(caps)).await;
    users::create_user(&app.store, "acme", "owner@acme.test", Role::Owner, PASSWORD).await.unwrap();
    users::create_user(&app.store, "acme", "member@acme.test", Role::Member, PASSWORD).await.unwrap();
    users::create_user(&app.store, "globex", "owner@globex.test", Role::Owner, PASSWORD).await.unwrap();
    let scan = app.seed_scan("acme", "https://shop.acme.test/").await.id;
    let theirs = app.seed_scan("globex", "https://globex.test/").await.id;
    let mut alice = signed_in(&app, "owner@acme.test").await;
    let bob = signed_in(&app, "member@acme.test").await;
    let carol = signed_in(&app, "owner@globex.test").await;

    // Alice opens her two; the third is refused, with a short text and when to retry.
    let a1 = open_events(&alice, scan).await;
    let a2 = open_events(&alice, scan).await;
    assert_eq!((a1.status().as_u16(), a2.status().as_u16()), (200, 200));
    let refused = open_events(&alice, scan).await;
    let (status, headers) = (refused.status(), refused.headers().clone());
    let text = refused.text().await.unwrap();
    assert_eq!(status, 429, "{text}");
    assert_eq!(headers["retry-after"], "30");
    assert!(headers["content-type"].to_str().unwrap().starts_with("text/html"));
    assert!(text.contains("you have too many live views open"), "{text}");
    // A second sign-in is the same person: no more places.
    let alice_again = signed_in(&app, "owner@acme.test").await;
    assert_eq!(open_events(&alice_again, scan).await.status(), 429);

    // Her scan page, rendered while she is at her cap, refreshes by itself and says why.
    let html = alice.get(&format!("/scans/{scan}")).await;
    assert_eq!(html.status, 200);
    assert!(
        html.text.contains("Live updates are paused: you have too many live views open; this page refreshes every 5 s."),
        "{}",
        html.text
    );
    assert!(!html.text.contains("data-scan-live"), "the page does not try to stream: {}", html.text);
    assert!(html.text.contains("<meta http-equiv=\"refresh\" content=\"5\">") && !html.text.contains("<noscript><meta"), "{}", html.text);

    // Bob takes the organisation's last place; his next is refused for the organisation.
    let b1 = open_events(&bob, scan).await;
    assert_eq!(b1.status(), 200);
    let refused = open_events(&bob, scan).await;
    assert_eq!(refused.status(), 429);
    let text = refused.text().await.unwrap();
    assert!(text.contains("your organisation has too many live views open"), "{text}");
    assert!(
        page_of(&bob, scan).await.contains("Live updates are paused: your organisation has too many live views open"),
        "bob's page says the organisation is at its cap"
    );

    // Another organisation is not held up by acme.
    let c1 = open_events(&carol, theirs).await;
    assert_eq!(c1.status(), 200);
    // Nor does anyone reach another organisation's stream: the 404 page, not a place taken.
    assert_eq!(open_events(&carol, scan).await.status(), 404);

    // A closed view gives its place back; the page streams again.
    drop(a1);
    let a3 = opens_again(&alice, scan).await;
    drop((a2, a3, b1, c1));
    let html = opens_page_streaming(&mut alice, scan).await;
    assert!(html.contains(&format!("data-scan-live=\"/scans/{scan}/events\"")), "{html}");
    assert!(!html.contains("Live updates are paused"), "{html}");
}

/// The scan page as `web` sees it.
async fn page_of(web: &Web, scan: uuid::Uuid) -> String {
    let r = web.http.get(format!("{}/scans/{scan}", web.base)).header("cookie", web.cookie_header()).send().await.unwrap();
    assert_eq!(r.status(), 200);
    r.text().await.unwrap()
}

/// The scan page once every closed view has given its place back.
async fn opens_page_streaming(web: &mut Web, scan: uuid::Uuid) -> String {
    let began = Instant::now();
    loop {
        let html = web.get(&format!("/scans/{scan}")).await.text;
        if !html.contains("Live updates are paused") {
            return html;
        }
        assert!(began.elapsed() < PATIENCE, "closed live views never gave their places back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_view_with_nothing_new_ends_and_so_does_one_open_too_long() {
    let idle = StreamCaps { live_views: limits(8, 32, Duration::from_millis(300), LONG), ..StreamCaps::default() };
    let app = spawn_app_with(AppOptions::default().streams(idle)).await;
    users::create_user(&app.store, "acme", "owner@acme.test", Role::Owner, PASSWORD).await.unwrap();
    let scan = app.seed_scan("acme", "https://shop.acme.test/").await.id;
    let web = signed_in(&app, "owner@acme.test").await;
    // The queued scan never changes: its view, then `idle`, then the end.
    let r = open_events(&web, scan).await;
    assert_eq!(r.status(), 200);
    assert_eq!(events_until_the_end(r).await, ["progress", "idle"]);

    let long = StreamCaps { live_views: limits(8, 32, LONG, Duration::from_millis(300)), ..StreamCaps::default() };
    let app = spawn_app_with(AppOptions::default().streams(long)).await;
    users::create_user(&app.store, "acme", "owner@acme.test", Role::Owner, PASSWORD).await.unwrap();
    let scan = app.seed_scan("acme", "https://shop.acme.test/").await.id;
    let web = signed_in(&app, "owner@acme.test").await;
    // Open for its whole time: it ends without `idle` (the browser reconnects).
    let r = open_events(&web, scan).await;
    assert_eq!(r.status(), 200);
    assert_eq!(events_until_the_end(r).await, ["progress"]);
}

async fn grpc(app: &TestApp) -> ScanServiceClient<Channel> {
    ScanServiceClient::connect(app.base.clone()).await.expect("gRPC connects on the REST port")
}

fn watch(scan: uuid::Uuid, token: &str) -> Request<pb::WatchScanRequest> {
    let mut req = Request::new(pb::WatchScanRequest { scan_id: scan.to_string() });
    req.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    req
}

/// A watch that was let through, its first message read.
async fn watching(c: &mut ScanServiceClient<Channel>, scan: uuid::Uuid, token: &str) -> tonic::Streaming<pb::ScanProgress> {
    let mut s = c.watch_scan(watch(scan, token)).await.expect("the watch opens").into_inner();
    let first = s.message().await.expect("a message").expect("the scan as it stands");
    assert_eq!(first.scan.expect("scan").id, scan.to_string());
    s
}

/// A refused watch: RESOURCE_EXHAUSTED with the spec's error object and 429 headers; its message.
#[track_caller]
fn refused(result: Result<tonic::Response<tonic::Streaming<pb::ScanProgress>>, tonic::Status>, cap: usize) -> String {
    let status = result.expect_err("the watch is refused");
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    let details: serde_json::Value = serde_json::from_slice(status.details()).expect("the JSON error object");
    assert_eq!(details["error"], "rate_limited", "{details}");
    assert_eq!(details["retry_after_seconds"], 30, "{details}");
    let meta = status.metadata();
    assert_eq!(meta.get("retry-after").and_then(|v| v.to_str().ok()), Some("30"), "{meta:?}");
    assert_eq!(meta.get("x-ratelimit-limit").and_then(|v| v.to_str().ok()), Some(cap.to_string().as_str()), "{meta:?}");
    assert_eq!(meta.get("x-ratelimit-remaining").and_then(|v| v.to_str().ok()), Some("0"), "{meta:?}");
    assert!(meta.get("x-ratelimit-reset").is_some(), "{meta:?}");
    details["message"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_token_cannot_hold_every_watch_and_another_organisation_still_watches() {
    let caps = StreamCaps { watches: limits(2, 3, LONG, LONG), ..StreamCaps::default() };
    let app = spawn_app_with(AppOptions::default().streams(caps)).await;
    let (first, second, theirs) = (app.token("acme").await, app.token("acme").await, app.token("globex").await);
    let scan = app.seed_scan("acme", "https://shop.acme.test/").await.id;
    let their_scan = app.seed_scan("globex", "https://globex.test/").await.id;
    let mut c = grpc(&app).await;

    let w1 = watching(&mut c, scan, &first).await;
    let w2 = watching(&mut c, scan, &first).await;
    let why = refused(c.watch_scan(watch(scan, &first)).await, 2);
    assert!(why.contains("too many live streams are open for you"), "{why}");

    // The organisation's cap: the second token gets the last place, then is refused.
    let w3 = watching(&mut c, scan, &second).await;
    let why = refused(c.watch_scan(watch(scan, &second)).await, 3);
    assert!(why.contains("for your organisation"), "{why}");

    // Another organisation still watches; acme's scan stays not found to it.
    let g1 = watching(&mut c, their_scan, &theirs).await;
    let lost = c.watch_scan(watch(scan, &theirs)).await.expect_err("not theirs");
    assert_eq!(lost.code(), Code::NotFound);

    // A closed watch gives its place back.
    drop(w1);
    let began = Instant::now();
    let again = loop {
        match c.watch_scan(watch(scan, &first)).await {
            Ok(r) => break r.into_inner(),
            Err(s) => {
                assert_eq!(s.code(), Code::ResourceExhausted, "{s:?}");
                assert!(began.elapsed() < PATIENCE, "a closed watch never gave its place back");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    };
    drop((w2, w3, g1, again));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_with_nothing_new_ends_deadline_exceeded_and_so_does_one_open_too_long() {
    let idle = StreamCaps { watches: limits(8, 32, Duration::from_millis(300), LONG), ..StreamCaps::default() };
    let app = spawn_app_with(AppOptions::default().streams(idle)).await;
    let token = app.token("acme").await;
    let scan = app.seed_scan("acme", "https://shop.acme.test/").await.id;
    let mut s = watching(&mut grpc(&app).await, scan, &token).await;
    let end = tokio::time::timeout(PATIENCE, s.message()).await.expect("the watch ends by itself").expect_err("ends with a status");
    assert_eq!(end.code(), Code::DeadlineExceeded, "{end:?}");
    assert!(end.message().contains("nothing new"), "{end:?}");

    let long = StreamCaps { watches: limits(8, 32, LONG, Duration::from_millis(300)), ..StreamCaps::default() };
    let app = spawn_app_with(AppOptions::default().streams(long)).await;
    let token = app.token("acme").await;
    let scan = app.seed_scan("acme", "https://shop.acme.test/").await.id;
    let mut s = watching(&mut grpc(&app).await, scan, &token).await;
    let end = tokio::time::timeout(PATIENCE, s.message()).await.expect("the watch ends by itself").expect_err("ends with a status");
    assert_eq!(end.code(), Code::DeadlineExceeded, "{end:?}");
    assert!(end.message().contains("reached its limit"), "{end:?}");
}
