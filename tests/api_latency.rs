//! Latency of `GET /api/v1/scans/{id}` on loopback (keep-alive HTTP/1.1, one client, sequential).
//! Ignored by default; run with
//! `cargo nextest run --test api_latency --run-ignored ignored-only --no-capture`.

#[path = "support/app.rs"]
mod app;

use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, not a check; run on purpose"]
async fn get_scan_latency() {
    let app = app::spawn_app().await;
    let token = app.token("acme").await;
    for i in 0..200 {
        app.seed_scan("acme", &format!("s{i}.example.com")).await;
    }
    let id = app.create_scan(&token, "example.com").await["id"].as_str().unwrap().to_string();
    let path = format!("/api/v1/scans/{id}");
    for _ in 0..100 {
        app.get(&path, &token).await.expect(200);
    }
    let n: usize = std::env::var("SITESCAN_LATENCY_N").ok().and_then(|v| v.parse().ok()).unwrap_or(3000);
    let url = app.url(&path);
    let mut samples: Vec<Duration> = Vec::with_capacity(n);
    let started = Instant::now();
    for _ in 0..n {
        let t = Instant::now();
        let r = app.http.get(&url).bearer_auth(&token).send().await.unwrap();
        assert_eq!(r.status(), 200);
        let _ = r.bytes().await.unwrap();
        samples.push(t.elapsed());
    }
    let total = started.elapsed();
    samples.sort();
    let pct = |p: f64| samples[((samples.len() as f64 * p).ceil() as usize).clamp(1, samples.len()) - 1];
    let backend = if app::on_postgres() { "postgresql" } else { "sqlite" };
    println!(
        "GET /api/v1/scans/{{id}} on loopback, {backend}, n={n}: p50={:?} p90={:?} p99={:?} max={:?} ({:.0} req/s sequential)",
        pct(0.50),
        pct(0.90),
        pct(0.99),
        samples[samples.len() - 1],
        n as f64 / total.as_secs_f64()
    );
}
