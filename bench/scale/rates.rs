//! Monitors' probe rate and the webhook outbox's delivery rate, with the product's own runners
//! (`MonitorRunner`, `Deliverer`, each in K "instances" with pools of their own) against one
//! loopback HTTP server that answers every request after `latency` (the round trip a site or a
//! receiver on the internet costs; 0 measures the runners and the database alone).
//!
//! - monitors: N sites, each with an hourly monitor due now; the runners drain them; the rate is
//!   probes a minute (a probe is three requests: the start page, robots.txt, the sitemap);
//! - webhooks: E endpoints (one organisation each), M messages queued for them; the runners
//!   deliver them; the rate is deliveries a minute, and the receiver counts duplicate ids.

use axum::Router;
use axum::http::HeaderMap;
use axum::routing::{get, post};
use sitescan::events::webhooks::{Deliverer, add_endpoint, org_event};
use sitescan::model::AddressPolicy;
use sitescan::net::{EgressGuard, Fetcher, FetcherOptions};
use sitescan::recurring::monitor::MonitorRunner;
use sitescan_store::{SecretBox, Store, SystemClock};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct Rate {
    pub what: &'static str,
    pub items: usize,
    pub took: Duration,
    pub done: i64,
    pub duplicates: usize,
}

impl Rate {
    pub fn per_minute(&self) -> f64 {
        self.done as f64 / self.took.as_secs_f64().max(0.001) * 60.0
    }
}

/// The loopback site and receiver: every answer after `latency`.
async fn server(latency: Duration, received: Arc<Mutex<Vec<String>>>) -> anyhow::Result<(String, tokio::task::JoinHandle<()>)> {
    let page = move || async move {
        tokio::time::sleep(latency).await;
        axum::response::Html("<!doctype html><html lang=en><title>A site</title><link rel=canonical href=/><h1>A site</h1></html>")
    };
    let robots = move || async move {
        tokio::time::sleep(latency).await;
        "User-agent: *\nAllow: /\n"
    };
    let sitemap = move || async move {
        tokio::time::sleep(latency).await;
        ([("content-type", "application/xml")], "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>/</loc></url></urlset>")
    };
    let hook = move |headers: HeaderMap| {
        let received = received.clone();
        async move {
            tokio::time::sleep(latency).await;
            let id = headers.get("webhook-id").and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
            received.lock().unwrap().push(id);
            "ok"
        }
    };
    let app = Router::new().route("/", get(page)).route("/robots.txt", get(robots)).route("/sitemap.xml", get(sitemap)).route("/hook", post(hook));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    let handle = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok((base, handle))
}

fn fetcher() -> anyhow::Result<Arc<Fetcher>> {
    let policy = AddressPolicy::new(vec!["127.0.0.1/32".parse()?]);
    Ok(Arc::new(Fetcher::new(Arc::new(EgressGuard::new(policy)), FetcherOptions::default())?))
}

/// N sites (one organisation each, all on the loopback server) with an hourly monitor due now,
/// probed by `runners` runners.
pub async fn monitors(url: &str, n: usize, runners: usize, latency: Duration) -> anyhow::Result<Rate> {
    let (base, srv) = server(latency, Arc::new(Mutex::new(Vec::new()))).await?;
    let store = Store::open(url, true).await?;
    let now = sitescan_store::time::now_us();
    for i in 0..n {
        let org = format!("mon-{i}");
        store.set_org(&org, Some(1_000_000)).await?;
        let site = store.add_site(&org, &base, "127.0.0.1", "scale-token-0123456789abcdef", "scale", 1).await?.ok_or_else(|| anyhow::anyhow!("site not added"))?;
        store.add_monitor(&org, site.id, 3600, now, now).await?;
    }
    let policy = AddressPolicy::new(vec!["127.0.0.1/32".parse()?]);
    let mut instances = Vec::new();
    for _ in 0..runners {
        let store = Store::open(url, false).await?;
        instances.push(MonitorRunner { store, fetcher: fetcher()?, clock: Arc::new(SystemClock), policy: policy.clone(), on_trigger: None, probe_deadline: sitescan::recurring::monitor::PROBE_DEADLINE });
    }
    let began = Instant::now();
    let rounds: Vec<_> = instances.iter().map(|r| r.run_once()).collect();
    for r in futures::future::join_all(rounds).await {
        r?;
    }
    let took = began.elapsed();
    let done = super::count(&store, "SELECT COUNT(*) FROM monitors WHERE last_state IS NOT NULL").await?;
    srv.abort();
    store.close().await;
    Ok(Rate { what: "monitor probes", items: n, took, done, duplicates: 0 })
}

/// E endpoints (one organisation each) and M messages spread over them, delivered by `runners`
/// deliverers.
pub async fn webhooks(url: &str, endpoints: usize, messages: usize, runners: usize, latency: Duration) -> anyhow::Result<Rate> {
    let received = Arc::new(Mutex::new(Vec::new()));
    let (base, srv) = server(latency, received.clone()).await?;
    let store = Store::open(url, true).await?;
    let secrets = SecretBox::from_text("5ca1eb5ca1eb5ca1eb5ca1eb5ca1eb5ca1eb5ca1eb5ca1eb5ca1eb5ca1eb5ca1")?;
    let now = sitescan_store::time::now_us();
    let events = vec!["monitor.triggered".to_string()];
    for e in 0..endpoints {
        let org = format!("hook-{e}");
        store.set_org(&org, None).await?;
        add_endpoint(&store, &secrets, &org, &format!("{base}/hook"), &events, None, now).await?;
    }
    for m in 0..messages {
        let event = sitescan::events::payloads::test_event(now, uuid::Uuid::nil(), &format!("message {m}"));
        org_event(&store, &format!("hook-{}", m % endpoints), "monitor.triggered", &event, now).await?;
    }
    let mut instances = Vec::new();
    for i in 0..runners {
        let store = Store::open(url, false).await?;
        instances.push(Deliverer { store, fetcher: fetcher()?, secrets: secrets.clone(), clock: Arc::new(SystemClock), owner: format!("bench-deliverer-{i}"), breaker: Default::default(), dashboard: None });
    }
    let began = Instant::now();
    let rounds: Vec<_> = instances.iter().map(|d| d.run_once()).collect();
    for r in futures::future::join_all(rounds).await {
        r?;
    }
    let took = began.elapsed();
    let done = super::count(&store, "SELECT COUNT(*) FROM webhook_outbox WHERE state = 'delivered'").await?;
    let ids = received.lock().unwrap().clone();
    let distinct: HashSet<&String> = ids.iter().collect();
    srv.abort();
    store.close().await;
    Ok(Rate { what: "webhook deliveries", items: messages, took, done, duplicates: ids.len() - distinct.len() })
}
