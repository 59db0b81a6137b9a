//! One organisation's flood does not delay another's scan: organisation `big` queues eight scans
//! through the REST API, then `small` queues one; a real worker (Chromium, the store, the fair
//! claim) runs them. `small`'s scan is the second to start, not the ninth, and `big`'s keep
//! their own order.

use crate::app;
use crate::engine;
use crate::hostile_site;

use engine::EngineSpec;
use hostile_site::{Behaviour, HostileSite};
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_flood_of_one_organisations_scans_does_not_hold_back_anothers() {
    let site = HostileSite::start().await;
    site.prefix(
        "/",
        Behaviour::html("<!doctype html><html lang=en><head><meta charset=utf-8><title>Fair</title></head><body><main><h1>Fair</h1></main></body></html>"),
    );
    let app = app::spawn_app_with(app::AppOptions::default().allow_target("127.0.0.1/32")).await;
    let big = app.token("big").await;
    let small = app.token("small").await;
    let mut big_ids = Vec::new();
    for i in 0..8 {
        big_ids.push(app.create_scan(&big, &site.url(&format!("/big-{i}"))).await["id"].as_str().unwrap().to_string());
    }
    let small_id = app.create_scan(&small, &site.url("/small")).await["id"].as_str().unwrap().to_string();

    // The worker starts after the queue is full, as a worker that frees up at that moment would.
    let scanner = EngineSpec::default().scanner().await;
    let workers = engine::workers(app.store.clone(), scanner.clone(), 1, 1);
    let began = Instant::now();
    let mut started = Vec::new();
    for (id, token) in big_ids.iter().map(|id| (id, &big)).chain(std::iter::once((&small_id, &small))) {
        loop {
            let r = app.get(&format!("/api/v1/scans/{id}"), token).await;
            r.expect(200);
            let status = r.json["scan"]["status"].as_str().unwrap_or_default().to_string();
            if status == "completed" || status == "failed" {
                assert_eq!(status, "completed", "{:#}", r.json);
                started.push((app::rfc3339(&r.json["scan"]["started_at"]), id.clone()));
                break;
            }
            assert!(began.elapsed() < Duration::from_secs(300), "scan {id} still {status}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    workers.shutdown().await;
    started.sort();
    let order: Vec<&str> = started.iter().map(|(_, id)| id.as_str()).collect();
    let small_rank = order.iter().position(|id| *id == small_id).unwrap();
    assert_eq!(small_rank, 1, "small's one scan starts right after big's first, not after all eight: {order:?}");
    let big_order: Vec<&str> = order.iter().copied().filter(|id| *id != small_id).collect();
    assert_eq!(big_order, big_ids.iter().map(String::as_str).collect::<Vec<_>>(), "big's scans keep their order");
}
