//! Webhooks: a receiver on 127.0.0.1 (served here) fails the first two deliveries, then
//! accepts: one event, three attempts on the retry schedule (the clock is moved, not slept),
//! the same `webhook-id` each time, every signature checked by an independent implementation
//! (Python's hmac). Two instances never deliver one message twice, a claim whose instance died
//! is taken over, a 410 disables the endpoint, and a receiver on a blocked address is never
//! contacted.

use super::app;
use axum::http::{HeaderMap, StatusCode};
use base64::Engine;
use sitescan::events::webhooks::{self, RETRY_SCHEDULE};
use sitescan::events::{Attempt, Deliverer, ManualClock, SecretBox};
use sitescan::model::{AddressPolicy, Severity};
use sitescan::net::{EgressGuard, Fetcher, FetcherOptions};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Clone, Default)]
struct Receiver {
    hits: Arc<Mutex<Vec<(HeaderMap, String)>>>,
}

/// Serves `answers` in turn (the last one for ever) on 127.0.0.1.
async fn receiver(answers: Vec<u16>) -> (String, Receiver) {
    let rec = Receiver::default();
    let state = rec.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |headers: HeaderMap, body: String| {
            let state = state.clone();
            let answers = answers.clone();
            async move {
                let mut hits = state.hits.lock().unwrap();
                hits.push((headers, body));
                let code = answers.get(hits.len() - 1).or(answers.last()).copied().unwrap_or(200);
                StatusCode::from_u16(code).unwrap()
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/hook"), rec)
}

fn secrets() -> SecretBox {
    SecretBox::from_text(&base64::engine::general_purpose::STANDARD.encode([42u8; 32])).unwrap()
}

fn deliverer(store: &sitescan_store::Store, clock: Arc<ManualClock>, owner: &str, allow_loopback: bool) -> Deliverer {
    let allow = if allow_loopback { vec!["127.0.0.1/32".parse().unwrap()] } else { vec![] };
    let guard = Arc::new(EgressGuard::new(AddressPolicy::new(allow)));
    let fetcher = Fetcher::new(guard, FetcherOptions::default()).unwrap();
    Deliverer { store: store.clone(), fetcher: Arc::new(fetcher), secrets: secrets(), clock, owner: owner.to_string(), breaker: Default::default(), dashboard: None }
}

/// Verifies a Standard Webhooks signature with Python's hmac, not with our code.
pub(crate) fn python_verifies(secret: &str, headers: &HeaderMap, body: &str) -> bool {
    let h = |k: &str| headers.get(k).unwrap().to_str().unwrap().to_string();
    let script = r#"
import base64, hashlib, hmac, sys
secret, msg_id, ts, sigs = sys.argv[1:5]
body = sys.stdin.buffer.read()
key = base64.b64decode(secret.split("_", 1)[1])
mac = base64.b64encode(hmac.new(key, msg_id.encode() + b"." + ts.encode() + b"." + body, hashlib.sha256).digest()).decode()
ok = any(s.split(",", 1)[0] == "v1" and hmac.compare_digest(s.split(",", 1)[1], mac) for s in sigs.split(" "))
sys.exit(0 if ok else 1)
"#;
    use std::io::Write;
    let mut child = std::process::Command::new("python3")
        .args(["-c", script, secret, &h("webhook-id"), &h("webhook-timestamp"), &h("webhook-signature")])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    child.stdin.take().unwrap().write_all(body.as_bytes()).unwrap();
    child.wait().unwrap().success()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_receiver_gets_one_event_retried_on_schedule_with_one_id() {
    let app = app::spawn_app().await;
    let store = &app.store;
    let scan = app.seed_scan("acme", "https://hooks.example.com/").await;
    let clock = Arc::new(ManualClock::at(sitescan_store::time::now_us()));
    let (url, rec) = receiver(vec![500, 503, 200]).await;
    let events = vec!["scan.completed".to_string()];
    let (endpoint, secret) = webhooks::add_endpoint(store, &secrets(), "acme", &url, &events, None, clock.now()).await.unwrap();
    assert!(secret.starts_with("whsec_"));
    let stored = store.webhook(endpoint).await.unwrap().unwrap();
    assert!(!stored.secret_enc.contains(&secret[6..]), "the secret is stored encrypted");

    // An incomplete scan: the payload says how many checks did not run on how many pages.
    let gaps = sitescan::model::ChecksNotRun {
        pages: 2,
        checks: 7,
        reasons: vec![sitescan::model::NotRunReason { reason: "the dom gatherer failed".into(), pages: 2, check_ids: vec!["search.title-missing".into()], example_url: "https://hooks.example.com/a".into() }],
    };
    let queued = webhooks::scan_finished(store, &scan, true, None, &[Severity::Critical], Some(&gaps), clock.now()).await.unwrap();
    assert_eq!(queued, 1, "scan.completed only: the endpoint did not subscribe to scan.regressed");
    let d = deliverer(store, clock.clone(), "one", true);
    assert!(matches!(d.run_once().await.unwrap()[..], [Attempt::Retry { .. }]));
    assert!(d.run_once().await.unwrap().is_empty(), "not due before its retry time");
    clock.advance(RETRY_SCHEDULE[0]);
    assert!(matches!(d.run_once().await.unwrap()[..], [Attempt::Retry { .. }]));
    clock.advance(RETRY_SCHEDULE[1] - Duration::from_secs(1));
    assert!(d.run_once().await.unwrap().is_empty());
    clock.advance(Duration::from_secs(1));
    assert_eq!(d.run_once().await.unwrap(), [Attempt::Delivered]);
    clock.advance(RETRY_SCHEDULE[6]);
    assert!(d.run_once().await.unwrap().is_empty(), "delivered once, never again");

    let hits = rec.hits.lock().unwrap().clone();
    assert_eq!(hits.len(), 3);
    let ids: Vec<&str> = hits.iter().map(|(h, _)| h.get("webhook-id").unwrap().to_str().unwrap()).collect();
    assert!(ids.iter().all(|id| *id == ids[0] && id.starts_with("msg_")), "{ids:?}");
    for (headers, body) in &hits {
        assert!(python_verifies(&secret, headers, body), "Python verifies the signature: {headers:?}");
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        app::contract::check_webhook(&v);
        assert_eq!(v["type"], "scan.completed");
        assert_eq!(v["data"]["scan_id"], scan.id.to_string());
        assert_eq!(v["data"]["checks_not_run"], serde_json::json!({"pages": 2, "checks": 7, "reasons": [{"reason": "the dom gatherer failed", "pages": 2}]}));
    }
    assert!(!python_verifies("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", &hits[0].0, &hits[0].1), "another secret does not verify");
    let log = store.webhook_deliveries(endpoint).await.unwrap();
    let statuses: Vec<Option<i32>> = log.iter().map(|l| l.status).collect();
    assert_eq!(statuses, [Some(500), Some(503), Some(200)]);
    assert_eq!(log.iter().map(|l| l.attempt).collect::<Vec<_>>(), [1, 2, 3]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_deliver_once_and_a_dead_claim_is_taken_over() {
    let app = app::spawn_app().await;
    let store = &app.store;
    let scan = app.seed_scan("acme", "https://hooks.example.com/").await;
    let clock = Arc::new(ManualClock::at(sitescan_store::time::now_us()));
    let (url, rec) = receiver(vec![200]).await;
    let events = vec!["scan.completed".to_string(), "scan.regressed".to_string()];
    webhooks::add_endpoint(store, &secrets(), "acme", &url, &events, Some(Severity::High), clock.now()).await.unwrap();
    // Compared with a baseline (a first scan, whose findings are all new, regresses nothing).
    let compared = sitescan::model::ChangeCounts { new: 1, baseline_scan_id: Some(uuid::Uuid::now_v7().to_string()), ..Default::default() };
    assert_eq!(webhooks::scan_finished(store, &scan, true, Some(&compared), &[Severity::Low], None, clock.now()).await.unwrap(), 1, "low is below high: no regression");
    let (a, b) = (deliverer(store, clock.clone(), "a", true), deliverer(store, clock.clone(), "b", true));
    let (ra, rb) = tokio::join!(a.run_once(), b.run_once());
    assert_eq!(ra.unwrap().len() + rb.unwrap().len(), 1, "one delivery between two instances");
    assert_eq!(rec.hits.lock().unwrap().len(), 1);

    // An instance claims a message and dies: after the claim's lease, another delivers it.
    assert_eq!(webhooks::scan_finished(store, &scan, true, Some(&compared), &[Severity::High], None, clock.now()).await.unwrap(), 2);
    let taken = store.claim_webhooks("dead", clock.now(), 60_000_000, 10).await.unwrap();
    assert_eq!(taken.len(), 2);
    assert!(a.run_once().await.unwrap().is_empty(), "held by the dead instance");
    clock.advance(Duration::from_secs(61));
    assert_eq!(b.run_once().await.unwrap(), [Attempt::Delivered, Attempt::Delivered]);
    let types: Vec<String> = rec.hits.lock().unwrap().iter().map(|(_, body)| serde_json::from_str::<serde_json::Value>(body).unwrap()["type"].as_str().unwrap().to_string()).collect();
    assert_eq!(types, ["scan.completed", "scan.completed", "scan.regressed"]);
    for (_, body) in rec.hits.lock().unwrap().iter() {
        app::contract::check_webhook(&serde_json::from_str(body).unwrap());
    }
    let complete: serde_json::Value = serde_json::from_str(&rec.hits.lock().unwrap()[0].1).unwrap();
    assert!(complete["data"]["checks_not_run"].is_null(), "a complete scan's payload has no gap: {complete}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gone_disables_and_a_blocked_address_is_never_contacted() {
    let app = app::spawn_app().await;
    let store = &app.store;
    let scan = app.seed_scan("acme", "https://hooks.example.com/").await;
    let clock = Arc::new(ManualClock::at(sitescan_store::time::now_us()));
    let events = vec!["scan.failed".to_string()];

    let (gone_url, gone) = receiver(vec![410]).await;
    let (gone_id, _) = webhooks::add_endpoint(store, &secrets(), "acme", &gone_url, &events, None, clock.now()).await.unwrap();
    webhooks::scan_finished(store, &scan, false, None, &[], None, clock.now()).await.unwrap();
    let d = deliverer(store, clock.clone(), "one", true);
    assert!(matches!(d.run_once().await.unwrap()[..], [Attempt::GaveUp(_)]));
    assert_eq!(gone.hits.lock().unwrap().len(), 1);
    let ep = store.webhook(gone_id).await.unwrap().unwrap();
    assert!(!ep.enabled && ep.disabled_reason.as_deref().unwrap().contains("410"));

    // The default policy blocks loopback: the receiver never sees a connection.
    let (blocked_url, blocked) = receiver(vec![200]).await;
    let (blocked_id, _) = webhooks::add_endpoint(store, &secrets(), "acme", &blocked_url, &events, None, clock.now()).await.unwrap();
    webhooks::scan_finished(store, &scan, false, None, &[], None, clock.now()).await.unwrap();
    let guarded = deliverer(store, clock.clone(), "guarded", false);
    for _ in 0..3 {
        guarded.run_once().await.unwrap();
        clock.advance(RETRY_SCHEDULE[2]);
    }
    assert_eq!(blocked.hits.lock().unwrap().len(), 0, "a blocked address is never contacted");
    let log = store.webhook_deliveries(blocked_id).await.unwrap();
    assert!(!log.is_empty() && log.iter().all(|l| l.status.is_none() && l.error.as_deref().is_some_and(|e| e.contains("block"))), "{log:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_day_of_failures_disables_the_endpoint() {
    let app = app::spawn_app().await;
    let store = &app.store;
    let scan = app.seed_scan("acme", "https://hooks.example.com/").await;
    let clock = Arc::new(ManualClock::at(sitescan_store::time::now_us()));
    let (url, rec) = receiver(vec![500]).await;
    let events = vec!["scan.completed".to_string()];
    let (id, _) = webhooks::add_endpoint(store, &secrets(), "acme", &url, &events, None, clock.now()).await.unwrap();
    webhooks::scan_finished(store, &scan, true, None, &[], None, clock.now()).await.unwrap();
    let d = deliverer(store, clock.clone(), "one", true);
    let mut outcomes = Vec::new();
    for wait in RETRY_SCHEDULE {
        outcomes.extend(d.run_once().await.unwrap());
        clock.advance(wait);
    }
    outcomes.extend(d.run_once().await.unwrap());
    // Attempts at 0, 5 s, 5 min 5 s, ..., 17 h 35 min; the next, 24 h later, finds it failing for a day.
    assert_eq!(outcomes.len(), 8, "{outcomes:?}");
    assert!(outcomes[..7].iter().all(|o| matches!(o, Attempt::Retry { .. })), "{outcomes:?}");
    assert!(matches!(&outcomes[7], Attempt::GaveUp(why) if why.contains("day")), "{outcomes:?}");
    assert_eq!(rec.hits.lock().unwrap().len(), 8);
    let ep = store.webhook(id).await.unwrap().unwrap();
    assert!(!ep.enabled);
    clock.advance(RETRY_SCHEDULE[6]);
    assert!(d.run_once().await.unwrap().is_empty(), "nothing more for a disabled endpoint");
}
