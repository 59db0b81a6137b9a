//! Monitors end to end: a fixture site on 127.0.0.1 probed through the real fetcher and egress
//! guard (the test clock moves between probes instead of sleeping), a real `sitescan worker`
//! process completing the scans a change starts, and the change read back from
//! `report.summary.trigger` through the API. robots.txt changed, noindex added and a
//! certificate near expiry (a test certificate from openssl, served by socat) each start one
//! scan; a probe that sees nothing new starts none.

use super::app;
use super::fixture_site::{FixtureSite, Route};
use crate::process::{free_port, sitescan};
use serde_json::Value;
use sitescan::model::AddressPolicy;
use sitescan::net::{EgressGuard, Fetcher, FetcherOptions};
use sitescan::recurring::{self, Clock, ManualClock, MonitorRunner, Probe};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn runner(store: &sitescan_store::Store, clock: Arc<ManualClock>) -> MonitorRunner {
    let policy = AddressPolicy::new(vec!["127.0.0.1/32".parse().unwrap()]);
    let fetcher = Fetcher::new(Arc::new(EgressGuard::new(policy.clone())), FetcherOptions::default()).unwrap();
    MonitorRunner { store: store.clone(), fetcher: Arc::new(fetcher), clock, policy, on_trigger: None, probe_deadline: recurring::monitor::PROBE_DEADLINE }
}

fn page(head: &str) -> Route {
    Route::html(format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Monitored</title>{head}</head>\
         <body><main><h1>Monitored</h1></main></body></html>"
    ))
}

fn fields(changes: &[Value]) -> Vec<String> {
    changes.iter().map(|c| c["field"].as_str().unwrap().to_string()).collect()
}

/// Waits until the scan is completed or failed, then returns its API body.
async fn finished(app: &app::TestApp, token: &str, id: uuid::Uuid, worker: &crate::process::Proc) -> Value {
    let started = Instant::now();
    loop {
        let r = app.get(&format!("/api/v1/scans/{id}"), token).await;
        r.expect(200);
        if matches!(r.json["scan"]["status"].as_str(), Some("completed" | "failed")) {
            return r.json;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "scan {id} not finished: {}\n{}", r.text, worker.tail());
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn robots_txt_and_noindex_changes_each_start_one_scan() {
    let fixture = FixtureSite::start().await;
    fixture.route("/", page(""));
    fixture.route("/robots.txt", Route::typed("text/plain", "User-agent: *\nAllow: /\n"));
    let app = app::spawn_app().await;
    let token = app.token("acme").await;
    let store = &app.store;
    store.set_org("acme", None).await.unwrap();
    let site = store.add_site("acme", &fixture.origin(), "127.0.0.1", "tok", "test", 0).await.unwrap().unwrap();
    store.record_site_verification(site.id, Ok("file"), 0).await.unwrap();
    let clock = Arc::new(ManualClock::at(sitescan_store::time::now_us()));
    let e = recurring::add_monitor(store, "acme", &fixture.origin(), 30, 0).await.unwrap_err();
    assert!(e.to_string().starts_with("every: "), "below the 1 minute minimum: {e}");
    let m = recurring::add_monitor(store, "acme", &site.id.to_string(), 60, clock.now_us()).await.unwrap();
    let r = runner(store, clock.clone());

    assert_eq!(r.run_once().await.unwrap(), [Probe::Recorded { monitor_id: m.id }], "the first probe only records");
    assert!(r.run_once().await.unwrap().is_empty(), "not due again before a minute");
    clock.advance(Duration::from_secs(60));
    assert_eq!(r.run_once().await.unwrap(), [Probe::Unchanged { monitor_id: m.id }]);
    assert_eq!(app.count_scans().await, 0, "nothing changed: no scan");

    fixture.route("/robots.txt", Route::typed("text/plain", "User-agent: *\nDisallow: /\n"));
    clock.advance(Duration::from_secs(60));
    let probes = r.run_once().await.unwrap();
    let [Probe::Triggered { scan_id: robots_scan, changes, .. }] = &probes[..] else { panic!("{probes:?}") };
    assert_eq!(fields(changes), ["robots_txt"]);
    clock.advance(Duration::from_secs(60));
    assert_eq!(r.run_once().await.unwrap(), [Probe::Unchanged { monitor_id: m.id }], "one scan per change, not per probe");

    fixture.route("/", page(r#"<meta name="robots" content="noindex">"#));
    clock.advance(Duration::from_secs(60));
    // Two instances on one due moment: one probes and triggers, the other loses the claim.
    let other = runner(store, clock.clone());
    let (a, b) = tokio::join!(r.run_once(), other.run_once());
    let probes: Vec<Probe> = a.unwrap().into_iter().chain(b.unwrap()).collect();
    let triggered: Vec<&Probe> = probes.iter().filter(|p| matches!(p, Probe::Triggered { .. })).collect();
    assert_eq!(triggered.len(), 1, "{probes:?}");
    let Probe::Triggered { scan_id: noindex_scan, changes, .. } = triggered[0] else { unreachable!() };
    assert_eq!(fields(changes), ["robots_meta"]);
    assert_eq!(changes[0]["after"], "noindex");
    clock.advance(Duration::from_secs(60));
    assert_eq!(r.run_once().await.unwrap(), [Probe::Unchanged { monitor_id: m.id }]);
    assert_eq!(app.count_scans().await, 2);

    // A real worker completes both scans; the report says what changed.
    let worker = sitescan(&["worker", "--database", &app.db_url, "--allow-target", "127.0.0.1/32", "--poll-ms", "200", "--max-pages", "1", "--no-recurring"]);
    for (id, field) in [(*robots_scan, "robots_txt"), (*noindex_scan, "robots_meta")] {
        let body = finished(&app, &token, id, &worker).await;
        assert_eq!(body["scan"]["status"], "completed", "{body}");
        assert_eq!(body["scan"]["triggered_by"], "monitor");
        let trigger = &body["report"]["summary"]["trigger"];
        assert_eq!(trigger["kind"], "monitor", "{body}");
        assert_eq!(trigger["monitor_id"], m.id.to_string());
        assert_eq!(trigger["changes"][0]["field"], field, "{trigger}");
    }
    let stored = store.monitor("acme", m.id).await.unwrap().unwrap();
    assert!(stored.last_change.unwrap().contains("robots_meta"));
    drop(worker);
}

/// A self-signed certificate valid `days`, served on 127.0.0.1:PORT by socat in front of
/// `backend`; `None` (with a note) when openssl or socat is missing.
async fn tls_front(backend: u16, days: u32, dir: &std::path::Path) -> Option<(tokio::process::Child, u16)> {
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let made = tokio::process::Command::new("openssl")
        .args(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", &days.to_string()])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .args(["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .await
        .ok()?;
    if !made.success() {
        return None;
    }
    let port = free_port();
    let child = tokio::process::Command::new("socat")
        .arg(format!("OPENSSL-LISTEN:{port},bind=127.0.0.1,reuseaddr,fork,verify=0,cert={},key={}", cert.display(), key.display()))
        .arg(format!("TCP:127.0.0.1:{backend}"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .ok()?;
    let began = Instant::now();
    while tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
        if began.elapsed() > Duration::from_secs(5) {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Some((child, port))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certificate_near_expiry_starts_one_scan() {
    let fixture = FixtureSite::start().await;
    fixture.route("/", page(""));
    let dir = tempfile::tempdir().unwrap();
    let Some((_socat, port)) = tls_front(fixture.port(), 30, dir.path()).await else {
        panic!("openssl and socat are needed for the certificate case (scripts/setup.sh installs them)");
    };
    let origin = format!("https://127.0.0.1:{port}");
    let app = app::spawn_app().await;
    let token = app.token("acme").await;
    let store = &app.store;
    store.set_org("acme", None).await.unwrap();
    let site = store.add_site("acme", &origin, "127.0.0.1", "tok", "test", 0).await.unwrap().unwrap();
    store.record_site_verification(site.id, Ok("file"), 0).await.unwrap();
    let clock = Arc::new(ManualClock::at(sitescan_store::time::now_us()));
    let m = recurring::add_monitor(store, "acme", &origin, 3600, clock.now_us()).await.unwrap();
    let r = runner(store, clock.clone());
    assert_eq!(r.run_once().await.unwrap(), [Probe::Recorded { monitor_id: m.id }]);
    let state: recurring::ProbeState = serde_json::from_str(&store.monitor("acme", m.id).await.unwrap().unwrap().last_state.unwrap()).unwrap();
    assert_eq!(state.tls_near_expiry, Some(false), "30 days left: {state:?}");
    clock.advance(Duration::from_secs(3600));
    assert_eq!(r.run_once().await.unwrap(), [Probe::Unchanged { monitor_id: m.id }]);

    // Twenty days later the certificate has ten days left.
    clock.advance(Duration::from_secs(20 * 86_400));
    let probes = r.run_once().await.unwrap();
    let [Probe::Triggered { scan_id, changes, .. }] = &probes[..] else { panic!("{probes:?}") };
    assert_eq!(fields(changes), ["tls_near_expiry"], "{changes:?}");
    assert_eq!(changes[0]["after"], true);
    for _ in 0..3 {
        clock.advance(Duration::from_secs(3600));
        assert_eq!(r.run_once().await.unwrap(), [Probe::Unchanged { monitor_id: m.id }], "debounced: still near expiry, no new scan");
    }
    assert_eq!(app.count_scans().await, 1);

    // The scan runs (and fails: nothing trusts the test certificate) and still says why it ran.
    let worker = sitescan(&["worker", "--database", &app.db_url, "--allow-target", "127.0.0.1/32", "--poll-ms", "200", "--max-pages", "1", "--no-recurring"]);
    let body = finished(&app, &token, *scan_id, &worker).await;
    let trigger = &body["report"]["summary"]["trigger"];
    assert_eq!(trigger["changes"][0]["field"], "tls_near_expiry", "{body}");
    drop(worker);
}
