//! Throughput benchmark (ignored by default; run with
//! `cargo nextest run --test browser_bench --run-ignored only --no-capture`, ideally `--release`).
//!
//! Prints pages/min and capture time for bare navigation, all gatherers without axe, and all
//! gatherers, at 1, 4 and 8 concurrent pages on one browser, with the peak memory of the Chromium
//! process tree (sum of RSS, and of PSS which counts shared pages once).

#[path = "support/fixture_site.rs"]
mod fixture_site;

use fixture_site::{FixtureSite, Route};
use sitescan::browser::{BrowserOptions, BrowserPool, CaptureOptions};
use sitescan::model::AddressPolicy;
use sitescan::net::EgressGuard;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

const PAGES: usize = 12;

fn page(i: usize) -> String {
    let mut body = format!("<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Bench page {i}</title><meta name='description' content='A benchmark page with a realistic amount of content to render and inspect.'><link rel='stylesheet' href='/site.css'><script src='/app.js' defer></script></head><body><header><nav>");
    for j in 0..40 {
        body.push_str(&format!("<a href='/p{j}'>Link number {j}</a> "));
    }
    body.push_str("</nav></header><main><h1>Bench</h1>");
    for j in 0..20 {
        body.push_str(&format!("<section><h2>Section {j}</h2><p>{}</p><img src='/img{j}.svg' alt='image {j}' width='300' height='200' loading='{}'></section>", "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(8), if j > 3 { "lazy" } else { "eager" }));
    }
    body.push_str("<form action='/s'><label>Name <input name='name' autocomplete='name'></label><label>Email <input type='email' name='email'></label><button>Send</button></form></main><footer>bench</footer></body></html>");
    body
}

fn tree_memory(root: u32) -> (u64, u64) {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(p) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else { continue };
        let Some((_, rest)) = stat.rsplit_once(')') else { continue };
        let ppid: u32 = rest.split_whitespace().nth(1).and_then(|x| x.parse().ok()).unwrap_or(0);
        parents.push((p, ppid));
    }
    let mut pids = vec![root];
    let mut i = 0;
    while i < pids.len() {
        let cur = pids[i];
        pids.extend(parents.iter().filter(|(_, pp)| *pp == cur).map(|(p, _)| *p));
        i += 1;
    }
    let field = |text: &str, name: &str| -> u64 {
        text.lines().find(|l| l.starts_with(name)).and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse().ok()).unwrap_or(0)
    };
    let (mut rss, mut pss) = (0, 0);
    for p in pids {
        if let Ok(s) = std::fs::read_to_string(format!("/proc/{p}/status")) {
            rss += field(&s, "VmRSS:");
        }
        if let Ok(s) = std::fs::read_to_string(format!("/proc/{p}/smaps_rollup")) {
            pss += field(&s, "Pss:");
        }
    }
    (rss * 1024, pss * 1024)
}

async fn run(site: &FixtureSite, name: &str, capture: CaptureOptions, concurrency: usize) {
    let guard = Arc::new(EgressGuard::new(AddressPolicy::new(vec!["127.0.0.1/32".parse().unwrap()])));
    let options = BrowserOptions { pages_per_browser: concurrency, capture, ..BrowserOptions::default() };
    let pool = BrowserPool::start(options, guard).await.unwrap();
    let root = pool.browser_pids()[0];
    // Warm up once (first renderer, fonts), then measure idle memory.
    let warm = pool.session().await.unwrap();
    warm.capture(&site.url("/page/0")).await;
    warm.close().await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let idle = tree_memory(root);
    let (peak_rss, peak_pss, stop) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)), Arc::new(AtomicBool::new(false)));
    let sampler = {
        let (r, p, s) = (peak_rss.clone(), peak_pss.clone(), stop.clone());
        tokio::task::spawn_blocking(move || {
            while !s.load(Ordering::SeqCst) {
                let (rss, pss) = tree_memory(root);
                r.fetch_max(rss, Ordering::SeqCst);
                p.fetch_max(pss, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(100));
            }
        })
    };
    let session = Arc::new(pool.session().await.unwrap());
    let total = concurrency * 3;
    let started = Instant::now();
    let sem = Arc::new(tokio::sync::Semaphore::new(concurrency));
    let tasks: Vec<_> = (0..total)
        .map(|i| {
            let (s, url, sem) = (session.clone(), site.url(&format!("/page/{}", i % PAGES)), sem.clone());
            tokio::spawn(async move {
                let _p = sem.acquire_owned().await.unwrap();
                s.capture(&url).await
            })
        })
        .collect();
    let mut capture_ms = Vec::new();
    let mut errors = 0;
    for t in tasks {
        let snap = t.await.unwrap();
        if snap.error.is_some() || !snap.gather_errors.is_empty() {
            errors += 1;
            eprintln!("  error: {:?} {:?}", snap.error, snap.gather_errors);
        }
        capture_ms.push(snap.capture_ms);
    }
    let wall = started.elapsed();
    stop.store(true, Ordering::SeqCst);
    sampler.await.unwrap();
    capture_ms.sort_unstable();
    let mean = capture_ms.iter().sum::<u64>() as f64 / capture_ms.len() as f64;
    let p50 = capture_ms[capture_ms.len() / 2];
    let max = capture_ms[capture_ms.len() - 1];
    let mib = |b: u64| b as f64 / 1024.0 / 1024.0;
    let (rss, pss) = (peak_rss.load(Ordering::SeqCst), peak_pss.load(Ordering::SeqCst));
    println!(
        "{name:<14} conc={concurrency} pages={total:>2} wall={:>5.1}s pages/min={:>6.1} capture_ms mean={mean:>6.0} p50={p50:>5} max={max:>5} errors={errors} | idle rss={:>5.0}MiB pss={:>5.0}MiB | peak rss={:>6.0}MiB pss={:>5.0}MiB | per page pss={:>4.0}MiB rss={:>4.0}MiB",
        wall.as_secs_f64(),
        total as f64 / wall.as_secs_f64() * 60.0,
        mib(idle.0),
        mib(idle.1),
        mib(rss),
        mib(pss),
        mib(pss.saturating_sub(idle.1)) / concurrency as f64,
        mib(rss.saturating_sub(idle.0)) / concurrency as f64,
    );
    Arc::try_unwrap(session).unwrap().close().await;
    pool.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark: run explicitly"]
async fn throughput() {
    let site = FixtureSite::start().await;
    for i in 0..PAGES {
        site.route(&format!("/page/{i}"), Route::html(page(i)).gzip(true));
    }
    site.route("/site.css", Route::typed("text/css", "body{font:16px/1.5 sans-serif;margin:0 auto;max-width:960px} nav a{margin:4px} img{display:block}").header("cache-control", "max-age=86400"));
    site.route("/app.js", Route::typed("text/javascript", "document.addEventListener('DOMContentLoaded', () => { document.querySelectorAll('h2').forEach(h => h.addEventListener('click', () => {})); });"));
    for j in 0..20 {
        site.route(&format!("/img{j}.svg"), Route::typed("image/svg+xml", format!("<svg xmlns='http://www.w3.org/2000/svg' width='300' height='200'><rect width='300' height='200' fill='#{:06x}'/></svg>", j * 40_000)));
    }
    let no_axe = CaptureOptions { axe: false, ..CaptureOptions::default() };
    for concurrency in [1, 4, 8] {
        run(&site, "bare", CaptureOptions::bare(), concurrency).await;
        run(&site, "full-no-axe", no_axe, concurrency).await;
        run(&site, "full", CaptureOptions::default(), concurrency).await;
    }
}
