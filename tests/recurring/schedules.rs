//! Schedules end to end: `sitescan schedule add` through the CLI, real `sitescan serve`
//! processes running the scheduler on the real clock, scans seen through `GET /api/v1/scans`.
//! A due schedule gives exactly one scan; downtime gives one catch-up scan, not a burst; and a
//! fleet of 2 APIs and 2 workers on PostgreSQL creates exactly one scan per due moment.

use super::app;
use super::fixture_site::{FixtureSite, Route};
use crate::process::{free_port, sitescan, wait_ready};
use serde_json::Value;
use sitescan_store::Store;
use std::time::{Duration, Instant};

async fn cli(args: &[&str]) -> (Option<i32>, String, String) {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_sitescan")).args(args).output().await.expect("run sitescan");
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

async fn site(store: &Store, org: &str, fixture: &FixtureSite) -> sitescan_store::SiteRow {
    store.set_org(org, None).await.unwrap();
    store.add_site(org, &fixture.origin(), "127.0.0.1", "token", "test", 0).await.unwrap().expect("a new site")
}

/// A `serve --no-workers` process (the scheduler runs in it) on `db`; returns it and its base URL.
async fn api(db: &str, extra: &[&str]) -> (crate::process::Proc, String) {
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let mut args = vec!["serve", "--no-workers", "--listen", &listen, "--database", db, "--allow-target", "127.0.0.1/32"];
    args.extend_from_slice(&["--recurring-poll-ms", "500"]);
    args.extend_from_slice(extra);
    let p = sitescan(&args);
    let base = format!("http://127.0.0.1:{port}");
    wait_ready(&format!("{base}/readyz"), Duration::from_secs(30)).await;
    (p, base)
}

async fn scans(base: &str, token: &str) -> Vec<Value> {
    let r = reqwest::Client::new().get(format!("{base}/api/v1/scans?limit=100")).bearer_auth(token).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let body: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    body["scans"].as_array().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_clock_a_due_schedule_creates_exactly_one_scan() {
    let fixture = FixtureSite::start().await;
    fixture.route("/", Route::html("<title>Scheduled</title>"));
    let seed = app::spawn_app().await;
    let token = seed.token("acme").await;
    let site = site(&seed.store, "acme", &fixture).await;
    let db = seed.db_url.clone();

    // Bad input: exit 2 with a clear message, nothing stored.
    let origin = fixture.origin();
    for (args, says) in [
        (vec!["--cron", "* * * *"], "cron: "),
        (vec!["--cron", "* * * * *", "--tz", "Mars/Olympus"], "unknown time zone"),
        (vec!["--cron", "* * * * *", "--mode", "loud"], "mode: "),
    ] {
        let mut a = vec!["schedule", "add", "--org", "acme", "--site", origin.as_str(), "--database", db.as_str()];
        a.extend(args);
        let (code, _, err) = cli(&a).await;
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains(says), "{says}: {err}");
    }
    let (code, _, err) = cli(&["schedule", "add", "--org", "acme", "--site", "https://nowhere.example", "--cron", "* * * * *", "--database", &db]).await;
    assert_eq!(code, Some(2));
    assert!(err.contains("no site"), "{err}");

    let (code, out, err) = cli(&["schedule", "add", "--org", "acme", "--site", &origin, "--cron", "* * * * *", "--database", &db]).await;
    assert_eq!(code, Some(0), "{err}");
    let id: uuid::Uuid = out.trim().parse().expect("the schedule id on stdout");
    assert!(err.contains("next run"), "{err}");
    let (_, out, _) = cli(&["schedule", "list", "--org", "acme", "--site", &site.id.to_string(), "--database", &db]).await;
    assert!(out.contains(&id.to_string()) && out.contains("* * * * *"), "{out}");

    let (mut p, base) = api(&db, &[]).await;
    let started = Instant::now();
    let found = loop {
        let list = scans(&base, &token).await;
        if !list.is_empty() {
            break list;
        }
        assert!(started.elapsed() < Duration::from_secs(70), "no scheduled scan after 70 s:\n{}", p.tail());
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["triggered_by"], "schedule");
    // Later ticks of the same minute add nothing.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let again = scans(&base, &token).await;
    let minute_turned = chrono::Utc::now().format("%S").to_string().parse::<u32>().unwrap() < 4;
    if !minute_turned {
        assert_eq!(again.len(), 1, "{again:?}");
    }
    let scan = seed.store.scan_any_org(found[0]["id"].as_str().unwrap().parse().unwrap()).await.unwrap().unwrap();
    assert_eq!(scan.site_id, Some(site.id));
    let trigger: Value = serde_json::from_str(scan.trigger.as_deref().unwrap()).unwrap();
    assert_eq!(trigger["schedule_id"], id.to_string());
    let due = chrono::DateTime::parse_from_rfc3339(trigger["due_at"].as_str().unwrap()).unwrap();
    assert_eq!(due.timestamp() % 60, 0, "a minute boundary: {due}");
    let row = seed.store.schedule("acme", id).await.unwrap().unwrap();
    assert!(row.next_due_at > due.timestamp_micros(), "moved on past the due moment");
    p.child.kill().await.unwrap();

    let (code, _, _) = cli(&["schedule", "remove", &id.to_string(), "--database", &db]).await;
    assert_eq!(code, Some(0));
    let (code, _, err) = cli(&["schedule", "remove", &id.to_string(), "--database", &db]).await;
    assert_eq!(code, Some(2), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn downtime_gives_one_catch_up_scan_not_a_burst() {
    let fixture = FixtureSite::start().await;
    let seed = app::spawn_app().await;
    let token = seed.token("acme").await;
    let _site = site(&seed.store, "acme", &fixture).await;
    let db = seed.db_url.clone();
    let (code, out, err) = cli(&["schedule", "add", "--org", "acme", "--site", &fixture.origin(), "--cron", "0 * * * *", "--database", &db]).await;
    assert_eq!(code, Some(0), "{err}");
    let id: uuid::Uuid = out.trim().parse().unwrap();
    // Everything was down for five days: 120 hourly ticks were missed.
    let now = chrono::Utc::now();
    let hour = now.timestamp() - now.timestamp() % 3600;
    seed.store.set_schedule_next_due(id, (hour - 5 * 86_400) * 1_000_000).await.unwrap();

    let (mut p, base) = api(&db, &[]).await;
    let started = Instant::now();
    while scans(&base, &token).await.is_empty() {
        assert!(started.elapsed() < Duration::from_secs(20), "no catch-up scan:\n{}", p.tail());
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await; // four more ticks
    let list = scans(&base, &token).await;
    assert_eq!(list.len(), 1, "one catch-up scan, not a burst: {list:?}");
    let runs = seed.store.schedule_runs(id).await.unwrap();
    assert_eq!(runs.len(), 1);
    let latest = chrono::Utc::now().timestamp();
    let latest = latest - latest % 3600;
    assert_eq!(runs[0].0, latest * 1_000_000, "the catch-up scan is for the latest missed hour");
    let row = seed.store.schedule("acme", id).await.unwrap().unwrap();
    assert_eq!(row.next_due_at, (latest + 3600) * 1_000_000);
    p.child.kill().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_fleet_creates_one_scan_per_due_moment() {
    if !app::on_postgres() {
        eprintln!("SITESCAN_TEST_DATABASE_URL unset: the PostgreSQL fleet case is skipped (scripts/test.sh runs it)");
        return;
    }
    let fixture = FixtureSite::start().await;
    fixture.route("/", Route::html("<title>Fleet</title>"));
    let seed = app::spawn_app().await;
    let token = seed.token("fleet").await;
    let _site = site(&seed.store, "fleet", &fixture).await;
    let db = seed.db_url.clone();
    let mut ids = Vec::new();
    for _ in 0..20 {
        // Yearly: the only due moment in reach is the one the test sets below.
        let (code, out, err) = cli(&["schedule", "add", "--org", "fleet", "--site", &fixture.origin(), "--cron", "0 0 1 1 *", "--database", &db]).await;
        assert_eq!(code, Some(0), "{err}");
        ids.push(out.trim().parse::<uuid::Uuid>().unwrap());
    }
    let (a1, base) = api(&db, &[]).await;
    let (a2, _) = api(&db, &[]).await;
    let worker = |_: u8| {
        sitescan(&[
            "worker", "--database", db.as_str(), "--allow-target", "127.0.0.1/32", "--recurring-poll-ms", "500",
            "--poll-ms", "200", "--max-pages", "1",
        ])
    };
    let (w1, w2) = (worker(1), worker(2));
    tokio::time::sleep(Duration::from_secs(3)).await;
    // All twenty fall due at once.
    let due = (chrono::Utc::now().timestamp() - 30) * 1_000_000;
    let stmt = seed.store.stmt("UPDATE schedules SET next_due_at = $1", vec![due.into()]);
    sea_orm::ConnectionTrait::execute_raw(seed.store.conn(), stmt).await.unwrap();
    let started = Instant::now();
    loop {
        let n = scans(&base, &token).await.len();
        if n >= 20 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "{n}/20 scans\napi 1:\n{}\nworker 1:\n{}", a1.tail(), w1.tail());
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    let list = scans(&base, &token).await;
    assert_eq!(list.len(), 20, "exactly one scan per schedule");
    assert!(list.iter().all(|s| s["triggered_by"] == "schedule"));
    for id in &ids {
        let runs = seed.store.schedule_runs(*id).await.unwrap();
        assert_eq!(runs.len(), 1, "schedule {id}: {runs:?}");
        assert_eq!(runs[0].0, due);
        let row = seed.store.schedule("fleet", *id).await.unwrap().unwrap();
        assert!(row.next_due_at > due && row.last_due_at == Some(due), "{row:?}");
    }
    drop((a1, a2, w1, w2));
}
