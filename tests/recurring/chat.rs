//! Chat alerts end to end: endpoints of each chat kind (Slack, Teams, Discord, Google Chat) get
//! their platform's message for a real scan of a fixture site, checked by receivers on
//! 127.0.0.1 that validate it against the platform's documented shape and limits
//! (`chat_receivers.rs`), with no Standard Webhooks headers, while a `standard` endpoint beside
//! them still gets the signed event. A platform that refuses a message (Slack's `400
//! invalid_blocks`, Discord's `429`) gets it again on the retry schedule, and the delivery log
//! shows both attempts; a `429` or `503` with `Retry-After` (seconds or an HTTP-date) is not
//! tried again before then, an hour at most, and the log says so. The test event and an event type sitescan's chat messages do not know
//! arrive as valid generic messages.

use super::app::{self, AppOptions, TestApp};
use super::chat_receivers::{Platform, Receiver};
use super::engine;
use super::fixture_site::{FixtureSite, Route};
use serde_json::{Value, json};
use sitescan::events::webhooks::{self, RETRY_SCHEDULE};
use sitescan::events::{Attempt, Clock, Deliverer, ManualClock, SecretBox, SigningKey, SystemClock, WebhookKind};
use sitescan::model::AddressPolicy;
use sitescan::net::{EgressGuard, Fetcher, FetcherOptions};
use std::sync::Arc;
use std::time::{Duration, Instant};
use uuid::Uuid;

const DASHBOARD: &str = "https://scan.example.com/";
const SIGNATURE_HEADERS: [&str; 3] = ["webhook-id", "webhook-timestamp", "webhook-signature"];

fn secrets() -> SecretBox {
    SecretBox::from_text(app::TEST_SECRET_KEY).unwrap()
}

fn deliverer(store: &sitescan_store::Store, clock: Arc<dyn Clock>) -> Deliverer {
    let guard = Arc::new(EgressGuard::new(AddressPolicy::new(vec!["127.0.0.1/32".parse().unwrap()])));
    Deliverer {
        store: store.clone(),
        fetcher: Arc::new(Fetcher::new(guard, FetcherOptions::default()).unwrap()),
        secrets: secrets(),
        clock,
        owner: "chat-test".into(),
        breaker: Default::default(),
        dashboard: Some(url::Url::parse(DASHBOARD).unwrap()),
    }
}

async fn add(app: &TestApp, url: &str, kind: WebhookKind, events: &[&str], now: i64) -> (Uuid, Option<String>) {
    let events: Vec<String> = events.iter().map(|e| e.to_string()).collect();
    webhooks::add_endpoint_of_kind(&app.store, &secrets(), "acme", &webhooks::NewEndpoint { url, kind, events: &events, min_severity: None }, now).await.unwrap()
}

fn page(body: &str) -> Route {
    Route::html(format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Chat alerts fixture</title>\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"></head>\
         <body><main><h1>Chat alerts fixture</h1>{body}</main></body></html>"
    ))
}

type Seen = Arc<std::sync::Mutex<Vec<(axum::http::HeaderMap, String)>>>;

/// A Standard Webhooks receiver on 127.0.0.1 answering 204, keeping what it got.
async fn standard_receiver() -> (String, Seen) {
    let seen: Seen = Arc::default();
    let state = seen.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |headers: axum::http::HeaderMap, body: String| {
            let state = state.clone();
            async move {
                state.lock().unwrap().push((headers, body));
                axum::http::StatusCode::NO_CONTENT
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/hook"), seen)
}

async fn scan_to_end(app: &TestApp, token: &str, target: &str) -> (String, Value) {
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
        assert!(started.elapsed() < Duration::from_secs(120), "scan {id} still {status}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn assert_unsigned_and_valid(r: &Receiver) {
    let hits = r.hits();
    assert!(!hits.is_empty(), "{:?} got nothing", r.platform);
    for h in &hits {
        assert_eq!(h.verdict, Ok(()), "{:?} refuses {}", r.platform, h.body);
        for name in SIGNATURE_HEADERS {
            assert!(h.headers.get(name).is_none(), "{:?} got {name}", r.platform);
        }
        assert_eq!(h.headers.get("content-type").unwrap(), "application/json");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_platform_gets_a_valid_unsigned_message_for_a_real_scan_and_standard_still_signs() {
    let site = FixtureSite::start().await;
    site.route("/", page("<p>Nothing wrong here yet.</p>"));
    let app = app::spawn_app_with(AppOptions::default().allow_target("127.0.0.1/32")).await;
    let token = app.token("acme").await;
    let now = sitescan_store::time::now_us();
    let events = ["scan.completed", "scan.regressed"];
    let mut receivers = Vec::new();
    for p in Platform::ALL {
        let r = Receiver::start(p).await;
        let (_, secret) = add(&app, &r.url, p.kind(), &events, now).await;
        assert_eq!(secret, None, "{p:?}: a chat endpoint has no signing secret to show");
        receivers.push(r);
    }
    let (standard_url, standard) = standard_receiver().await;
    let (standard_id, secret) = add(&app, &standard_url, WebhookKind::Standard, &events, now).await;
    let secret = secret.expect("a standard endpoint's secret");

    let workers = engine::workers(app.store.clone(), engine::EngineSpec::default().scanner().await, 1, 3);
    let (first, _) = scan_to_end(&app, &token, &site.url("/")).await;
    // The page changes: a link to a missing page (a new high finding) and an image without alt.
    site.route("/", page(r#"<p><a href="/missing">Gone</a> <img src="/missing.png" width="1" height="1"></p>"#));
    let (second, report) = scan_to_end(&app, &token, &site.url("/")).await;
    workers.shutdown().await;
    let new_checks: Vec<String> = report["report"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["change"] == "new")
        .map(|f| f["check_id"].as_str().unwrap().to_string())
        .collect();
    assert!(!new_checks.is_empty(), "the second scan has new findings: {:#}", report["report"]["summary"]);

    let started = Instant::now();
    let attempts = deliverer(&app.store, Arc::new(SystemClock)).run_once().await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(5), "deliveries to loopback are quick");
    assert!(attempts.len() >= 4 * 3 && attempts.iter().all(|a| *a == Attempt::Delivered), "{attempts:?}");

    let compare = format!("{}compare?base={first}&head={second}", DASHBOARD);
    for r in &receivers {
        assert_unsigned_and_valid(r);
        let bodies: Vec<String> = r.hits().iter().map(|h| h.body.clone()).collect();
        let first_scan: Vec<&String> = bodies.iter().filter(|b| b.contains(&format!("{DASHBOARD}scans/{first}"))).collect();
        assert!(!first_scan.is_empty(), "{:?}: the first scan links its page", r.platform);
        for b in first_scan {
            // Nothing to compare a site's first scan with: its findings are not "new".
            assert!(b.contains("finding") && !b.contains("new finding"), "{:?}: a first scan counts findings, never new ones: {b}", r.platform);
        }
        let latest = bodies.iter().find(|b| b.contains(&compare)).unwrap_or_else(|| panic!("{:?}: a compare link in {bodies:#?}", r.platform));
        assert!(latest.contains("new finding") && latest.contains(&site.url("/")), "{:?}: what happened: {latest}", r.platform);
        assert!(new_checks.iter().any(|c| latest.contains(c.as_str())), "{:?}: the top new findings ({new_checks:?}) in {latest}", r.platform);
        assert!(!bodies.iter().any(|b| b.contains("findings_count")), "{:?} got the platform's message, not the raw event", r.platform);
    }
    for ep in app.store.list_webhooks("acme").await.unwrap() {
        let log = app.store.webhook_deliveries(ep.id).await.unwrap();
        assert!(!log.is_empty() && log.iter().all(|l| l.status.is_some_and(|s| (200..300).contains(&s))), "{}: {log:?}", ep.kind);
    }

    let standard_hits = standard.lock().unwrap().clone();
    assert!(!standard_hits.is_empty());
    let key = SigningKey::parse(&secret).unwrap();
    for (headers, body) in standard_hits {
        let header = |name: &str| headers.get(name).unwrap_or_else(|| panic!("the standard endpoint gets {name}")).to_str().unwrap().to_string();
        let ts: i64 = header("webhook-timestamp").parse().unwrap();
        assert_eq!(header("webhook-signature"), key.sign(&header("webhook-id"), ts, body.as_bytes()), "signed as before");
        let event: Value = serde_json::from_str(&body).unwrap();
        app::contract::check_webhook(&event);
        assert!(event["data"].get("new_findings").is_none(), "the standard event carries none of the chat fields: {event}");
    }
    assert!(app.store.webhook(standard_id).await.unwrap().unwrap().enabled);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_message_is_retried_on_schedule_and_the_log_shows_the_failure_then_the_success() {
    let app = app::spawn_app().await;
    let scan = app.seed_scan("acme", "https://site.example/").await;
    let clock = Arc::new(ManualClock::at(sitescan_store::time::now_us()));
    let slack = Receiver::start_refusing(Platform::Slack, 1).await;
    let discord = Receiver::start_refusing(Platform::Discord, 1).await;
    let (slack_id, _) = add(&app, &slack.url, WebhookKind::Slack, &["scan.completed"], clock.now()).await;
    let (discord_id, _) = add(&app, &discord.url, WebhookKind::Discord, &["scan.completed"], clock.now()).await;
    assert_eq!(webhooks::scan_finished(&app.store, &scan, true, None, &[], None, clock.now()).await.unwrap(), 2);

    let d = deliverer(&app.store, clock.clone());
    let first = d.run_once().await.unwrap();
    assert!(first.len() == 2 && first.iter().all(|a| matches!(a, Attempt::Retry { .. })), "{first:?}");
    assert!(d.run_once().await.unwrap().is_empty(), "not due before the schedule's first step");
    clock.advance(RETRY_SCHEDULE[0]);
    assert_eq!(d.run_once().await.unwrap(), [Attempt::Delivered, Attempt::Delivered]);

    let statuses = |id| {
        let store = app.store.clone();
        async move { store.webhook_deliveries(id).await.unwrap().iter().map(|l| l.status).collect::<Vec<_>>() }
    };
    assert_eq!(statuses(slack_id).await, [Some(400), Some(200)]);
    assert_eq!(statuses(discord_id).await, [Some(429), Some(204)]);
    for r in [&slack, &discord] {
        assert_unsigned_and_valid(r);
        let hits = r.hits();
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].body, hits[1].body, "the retry carries the same message");
    }
    assert!(slack.hits()[0].json()["text"].as_str().unwrap().contains("https://site.example/"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_or_503_with_retry_after_is_not_tried_again_before_the_receiver_asked() {
    let app = app::spawn_app().await;
    let scan = app.seed_scan("acme", "https://site.example/").await;
    let clock = Arc::new(ManualClock::at(sitescan_store::time::now_us()));
    let start = clock.now();
    // Slack rate limits for 120 s; Teams is down until two hours from now (an HTTP-date), more
    // than the longest wait a receiver may impose.
    let slack = Receiver::start_rate_limited(Platform::Slack, 1, 429, "120".into()).await;
    let two_hours = std::time::UNIX_EPOCH + Duration::from_micros(start as u64) + Duration::from_secs(7200);
    let teams = Receiver::start_rate_limited(Platform::Teams, 1, 503, httpdate::fmt_http_date(two_hours)).await;
    let (slack_id, _) = add(&app, &slack.url, WebhookKind::Slack, &["scan.completed"], start).await;
    let (teams_id, _) = add(&app, &teams.url, WebhookKind::Teams, &["scan.completed"], start).await;
    assert_eq!(webhooks::scan_finished(&app.store, &scan, true, None, &[], None, start).await.unwrap(), 2);

    let d = deliverer(&app.store, clock.clone());
    let mut first: Vec<i64> = d.run_once().await.unwrap().into_iter().map(|a| match a {
        Attempt::Retry { at } => at - start,
        other => panic!("{other:?}"),
    }).collect();
    first.sort();
    let max = sitescan::events::retry_after::RETRY_AFTER_MAX;
    assert_eq!(first, [120_000_000, max.as_micros() as i64], "Retry-After, bounded; never the schedule's 5 s");
    clock.advance(RETRY_SCHEDULE[0]);
    assert!(d.run_once().await.unwrap().is_empty(), "the schedule alone would retry now");
    clock.advance(Duration::from_secs(115) - Duration::from_micros(1));
    assert!(d.run_once().await.unwrap().is_empty(), "a microsecond before Slack's 120 s");
    clock.advance(Duration::from_micros(1));
    assert_eq!(d.run_once().await.unwrap(), [Attempt::Delivered]);
    assert_eq!(teams.hits().len(), 1, "Teams waits");
    clock.set(start + max.as_micros() as i64);
    assert_eq!(d.run_once().await.unwrap(), [Attempt::Delivered]);

    let log = |id| {
        let store = app.store.clone();
        async move { store.webhook_deliveries(id).await.unwrap() }
    };
    let slack_log = log(slack_id).await;
    assert_eq!(slack_log.iter().map(|l| l.status).collect::<Vec<_>>(), [Some(429), Some(200)]);
    let note = slack_log[0].error.as_deref().unwrap_or_default();
    assert!(note.contains("Retry-After") && note.contains("120 s"), "the log says what was asked: {note}");
    let teams_log = log(teams_id).await;
    assert_eq!(teams_log.iter().map(|l| l.status).collect::<Vec<_>>(), [Some(503), Some(202)]);
    let note = teams_log[0].error.as_deref().unwrap_or_default();
    assert!(note.contains("Retry-After") && note.contains("3600 s") && note.contains("longest"), "the log says the wait was bounded: {note}");
    for r in [&slack, &teams] {
        assert_unsigned_and_valid(r);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn test_failed_and_unknown_events_arrive_as_valid_messages_on_every_platform() {
    let app = app::spawn_app().await;
    let scan = app.seed_scan("acme", "https://site.example/").await;
    let now = sitescan_store::time::now_us();
    let mut receivers = Vec::new();
    for p in Platform::ALL {
        let r = Receiver::start(p).await;
        let (id, _) = add(&app, &r.url, p.kind(), &["scan.failed"], now).await;
        webhooks::send_test_unlimited(&app.store, id, now).await.unwrap();
        // An event type added after this version's chat messages were written.
        let event = json!({"type": "scan.exploded", "timestamp": "2026-11-29T06:00:00Z",
            "data": {"scan_id": scan.id.to_string(), "target_url": "https://site.example/", "budget": "lcp", "over_by_ms": 300}});
        app.store.enqueue_webhook(id, &format!("msg_{}", Uuid::now_v7().simple()), "scan.exploded", &event.to_string(), now).await.unwrap();
        receivers.push(r);
    }
    webhooks::scan_finished(&app.store, &scan, false, None, &[], None, now).await.unwrap();
    let attempts = deliverer(&app.store, Arc::new(SystemClock)).run_once().await.unwrap();
    assert_eq!(attempts.len(), 12, "{attempts:?}");
    assert!(attempts.iter().all(|a| *a == Attempt::Delivered), "{attempts:?}");
    for r in &receivers {
        assert_unsigned_and_valid(r);
        let bodies: Vec<String> = r.hits().iter().map(|h| h.body.clone()).collect();
        assert_eq!(bodies.len(), 3, "{:?}", r.platform);
        let find = |what: &str| bodies.iter().find(|b| b.contains(what)).unwrap_or_else(|| panic!("{:?}: {what:?} in {bodies:#?}", r.platform));
        find("Test message from sitescan");
        assert!(find("scan.exploded").contains("lcp"), "{:?}: the unknown event's data as facts", r.platform);
        assert!(find("Scan of https://site.example/ failed").contains(&format!("{DASHBOARD}scans/{}", scan.id)), "{:?}", r.platform);
    }
}

/// A chat URL is the platform's secret: stored sealed, with only its shown form in the clear;
/// a failed delivery's error in the log names only the shown form. An endpoint stored whole by
/// an earlier version is sealed at startup and still delivers. And a scanned page's URL arrives
/// on the Markdown platforms as text: it cannot become a link with other words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_url_is_sealed_kept_out_of_the_delivery_log_and_page_text_stays_inert() {
    let app = app::spawn_app().await;
    let hostile = "https://site.example/[Reset-your-password](https://evil.example/)";
    let scan = app.seed_scan("acme", hostile).await;
    let now = sitescan_store::time::now_us();
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let dead_url = format!("http://127.0.0.1:{closed}/api/webhooks/42/SECRET-TOKEN-dead");
    let (dead, _) = add(&app, &dead_url, WebhookKind::Discord, &["scan.failed"], now).await;
    let discord = Receiver::start(Platform::Discord).await;
    let teams = Receiver::start(Platform::Teams).await;
    add(&app, &discord.url, WebhookKind::Discord, &["scan.failed"], now).await;
    add(&app, &teams.url, WebhookKind::Teams, &["scan.failed"], now).await;
    // An endpoint stored by a version that kept chat URLs whole.
    let legacy_url = format!("{}?legacy=SECRET-TOKEN-legacy", discord.url);
    let legacy = Uuid::now_v7();
    let events = vec!["scan.failed".to_string()];
    app.store.add_webhook_within(legacy, "acme", &legacy_url, "discord", &events, None, "x2:unused", now, 100).await.unwrap().unwrap();
    assert_eq!(webhooks::seal_chat_urls(&app.store, &secrets()).await.unwrap(), 1);
    assert_eq!(webhooks::seal_chat_urls(&app.store, &secrets()).await.unwrap(), 0, "sealed once");

    for row in app.store.list_webhooks("acme").await.unwrap() {
        assert!(row.url.ends_with('…'), "only the shown form in the clear: {}", row.url);
        assert!(!row.url.contains("SECRET-TOKEN") && !row.secret_enc.contains("SECRET-TOKEN") && !row.secret_enc.contains("127.0.0.1"), "{row:?}");
    }
    assert_eq!(app.store.webhook(dead).await.unwrap().unwrap().url, format!("http://127.0.0.1:{closed}/api/…"));

    webhooks::scan_finished(&app.store, &scan, false, None, &[], None, now).await.unwrap();
    let attempts = deliverer(&app.store, Arc::new(SystemClock)).run_once().await.unwrap();
    assert_eq!(attempts.iter().filter(|a| **a == Attempt::Delivered).count(), 3, "{attempts:?}");
    let log = app.store.webhook_deliveries(dead).await.unwrap();
    let error = log[0].error.clone().expect("the refused connection is logged");
    assert!(!error.contains("SECRET-TOKEN") && !error.contains("/webhooks/42"), "{error}");
    assert!(error.contains(&format!("127.0.0.1:{closed}")), "the log still says where: {error}");
    assert!(discord.hits().iter().any(|h| h.uri.contains("legacy=SECRET-TOKEN-legacy")), "the legacy endpoint delivers at its whole URL");

    assert_unsigned_and_valid(&discord);
    assert_unsigned_and_valid(&teams);
    // The page's URL is the Target field (Markdown on Discord); the title is plain text there.
    let embed = discord.hits()[0].json()["embeds"][0].clone();
    let target = embed["fields"][0]["value"].as_str().unwrap().to_string();
    assert!(target.contains(r"\[Reset-your-password\]\(https://evil.example/\)"), "{target}");
    assert!(!embed["description"].as_str().unwrap().contains("[Reset-your-password]("), "{embed}");
    let card = teams.hits()[0].json().to_string();
    assert!(card.contains("Reset-your-password") && !card.contains("[Reset-your-password]("), "{card}");
}

/// The receivers' validators refuse what the platforms refuse (so a pass above means something).
#[test]
fn the_validators_refuse_what_the_platforms_refuse() {
    use super::chat_receivers::{discord, google_chat, slack, teams};
    let header = |t: &str| json!({"text": "x", "blocks": [{"type": "header", "text": {"type": "plain_text", "text": t}}]});
    assert!(slack(&header("fine")).is_ok());
    assert!(slack(&header(&"h".repeat(151))).is_err(), "a header over 150 characters");
    assert!(slack(&json!({"text": "x", "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "a <b> c"}}]})).is_err(), "a raw '<'");
    assert!(slack(&json!({"text": "x", "blocks": vec![json!({"type": "divider"}); 51]})).is_err(), "51 blocks");
    let embed = |d: usize| json!({"embeds": [{"title": "t", "description": "d".repeat(d), "fields": [{"name": "n", "value": "v".repeat(1024)}, {"name": "n", "value": "v".repeat(1024)}]}]});
    assert!(discord(&embed(3000)).is_ok());
    assert!(discord(&embed(4000)).is_err(), "over 6,000 characters in all");
    assert!(discord(&json!({"embeds": [{"title": "t".repeat(257)}]})).is_err());
    let card = |ct: &str| json!({"type": "message", "attachments": [{"contentType": ct, "content": {"type": "AdaptiveCard", "version": "1.4", "body": [{"type": "TextBlock", "text": "x"}]}}]});
    assert!(teams(&card("application/vnd.microsoft.card.adaptive")).is_ok());
    assert!(teams(&card("application/json")).is_err());
    let chat = json!({"text": "x", "cardsV2": [{"cardId": "c", "card": {"header": {"title": "t"}, "sections": [{"widgets": [{"textParagraph": {"text": "p"}}]}]}}]});
    assert!(google_chat(&chat).is_ok());
    let mut unknown = chat.clone();
    unknown["cards"] = json!([]);
    assert!(google_chat(&unknown).is_err(), "an unknown field");
}

async fn sitescan(args: &[&str]) -> (Option<i32>, String, String) {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_sitescan"))
        .args(args)
        .env("SITESCAN_SECRET_KEY", "KioqKioqKioqKioqKioqKioqKioqKioqKioqKioqKio=")
        .env("NO_COLOR", "1")
        .output()
        .await
        .expect("run sitescan");
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_adds_a_discord_endpoint_lists_its_kind_and_sends_it_a_valid_test_message() {
    let discord = Receiver::start(Platform::Discord).await;
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}?mode=rwc", dir.path().join("w.db").display());
    let add = |kind: &'static str| ["webhook", "add", "--org", "acme", "--kind", kind, discord.url.as_str(), "--events", "scan.completed", "--database", db.as_str()].map(str::to_string);

    let (code, _, err) = sitescan(&add("pager").each_ref().map(String::as_str)).await;
    assert_eq!(code, Some(2), "an unknown kind is a usage error: {err}");
    assert!(err.contains("google-chat"), "the kinds are named: {err}");
    let (code, out, err) = sitescan(&add("discord").each_ref().map(String::as_str)).await;
    assert_eq!(code, Some(0), "{err}");
    assert!(out.trim().is_empty(), "no signing secret for a chat endpoint: {out}");
    assert!(err.contains("not signed"), "{err}");

    let (code, out, _) = sitescan(&["webhook", "list", "--org", "acme", "--database", db.as_str()]).await;
    assert_eq!(code, Some(0));
    let line = out.lines().nth(1).expect("one endpoint");
    assert!(line.contains("discord") && !line.contains("not-a-real-secret"), "the kind, the URL shortened: {out}");
    let id = line.split_whitespace().next().unwrap();
    let (code, out, err) = sitescan(&["webhook", "test", id, "--allow-target", "127.0.0.1/32", "--database", db.as_str()]).await;
    assert_eq!(code, Some(0), "{out} {err}");
    assert!(out.contains("HTTP 204"), "{out}");
    assert_unsigned_and_valid(&discord);
}
