//! Where a page's time goes inside the engine: the same pages captured through sitescan's own
//! browser pool (library, in-process) with gatherers switched on one after the other. The
//! difference between two variants is what that step costs per page.

use crate::report::{mean, median};
use serde::Serialize;
use sitescan::browser::{BrowserOptions, BrowserPool, CaptureOptions};
use sitescan::model::AddressPolicy;
use sitescan::net::EgressGuard;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

#[derive(Debug, Clone, Serialize)]
pub struct Variant {
    pub name: String,
    pub what: String,
    pub pages: usize,
    pub wall_s: f64,
    pub pages_per_min: f64,
    pub capture_mean_ms: f64,
    pub capture_median_ms: f64,
    pub errors: usize,
    /// CPU seconds per page of this process and its Chromium while the variant ran.
    pub cpu_per_page_s: f64,
    /// The same by process kind (`chromium` is the browser process, `chromium renderer`, ...).
    pub cpu_per_page_by_kind: std::collections::BTreeMap<String, f64>,
}

pub async fn capture_variants(urls: &[String], concurrency: usize, chromium: PathBuf) -> anyhow::Result<Vec<Variant>> {
    let bare = CaptureOptions::bare();
    let variants = [
        ("engine-bare", "navigate, load, network quiet (500 ms), metrics, DOM facts, served and rendered HTML", bare),
        ("+scroll", "and scroll to the bottom and back, network quiet again", CaptureOptions { scroll: true, ..bare }),
        ("+axe", "and axe-core", CaptureOptions { scroll: true, axe: true, ..bare }),
        ("+keyboard (full)", "and the keyboard walk: the default capture", CaptureOptions::default()),
    ];
    let mut out = Vec::new();
    for (name, what, capture) in variants {
        let me = std::process::id();
        let (own_before, own_kind) = crate::proc::process_cpu(me).unwrap_or((0.0, String::new()));
        let sampler = crate::proc::TreeSampler::start(me);
        let guard = Arc::new(EgressGuard::new(AddressPolicy::new(vec!["127.0.0.1/32".parse()?])));
        let options = BrowserOptions { chromium: Some(chromium.clone()), pages_per_browser: concurrency, capture, ..BrowserOptions::default() };
        let pool = BrowserPool::start(options, guard).await?;
        // One page first: the renderer, fonts and caches of a fresh browser.
        let warm = pool.session().await?;
        warm.capture(&urls[0]).await;
        warm.close().await;
        let session = Arc::new(pool.session().await?);
        let started = Instant::now();
        let sem = Arc::new(tokio::sync::Semaphore::new(concurrency));
        let tasks: Vec<_> = urls
            .iter()
            .map(|u| {
                let (s, u, sem) = (session.clone(), u.clone(), sem.clone());
                tokio::spawn(async move {
                    let _p = sem.acquire_owned().await;
                    s.capture(&u).await
                })
            })
            .collect();
        let mut ms = Vec::new();
        let mut errors = 0;
        for t in tasks {
            let snap = t.await?;
            errors += usize::from(snap.error.is_some());
            ms.push(snap.capture_ms as f64);
        }
        let wall = started.elapsed().as_secs_f64();
        if let Ok(s) = Arc::try_unwrap(session) {
            s.close().await;
        }
        pool.shutdown().await;
        let (_, mut cpu) = sampler.finish();
        let cpu_s = cpu.total_s - own_before;
        // The bench's own process counts from its start: only what it used during this variant.
        if let Some(own) = cpu.by_kind.get_mut(&own_kind) {
            *own = (*own - own_before).max(0.0);
        }
        let pages = urls.len().max(1) as f64;
        let by_kind: std::collections::BTreeMap<String, f64> = cpu.by_kind.iter().map(|(k, v)| (k.clone(), v / pages)).collect();
        let kinds = by_kind.iter().filter(|(_, v)| **v >= 0.005).map(|(k, v)| format!("{k} {v:.2}")).collect::<Vec<_>>().join(", ");
        println!("profile: {name}: {:.1} s, capture mean {:.0} ms, CPU per page by process: {kinds}", wall, mean(&ms));
        out.push(Variant {
            name: name.to_string(),
            what: what.to_string(),
            pages: urls.len(),
            wall_s: wall,
            pages_per_min: urls.len() as f64 / wall * 60.0,
            capture_mean_ms: mean(&ms),
            capture_median_ms: median(&ms),
            errors,
            cpu_per_page_s: cpu_s / urls.len().max(1) as f64,
            cpu_per_page_by_kind: by_kind,
        });
    }
    Ok(out)
}
