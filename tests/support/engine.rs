//! Building the scan engine the way a test needs it (short timeouts, host overrides, a lean
//! capture), running scans to their end, and measuring memory (this process and the Chromium
//! process groups it launched).
//!
//! Used as `sitescan_test_support::engine` (a test binary names it in its `main.rs`).

#![allow(dead_code)]

use sitescan::browser::{BrowserOptions, BrowserPool, CaptureOptions};
use sitescan::model::AddressPolicy;
use sitescan::net::{EgressGuard, Fetcher, FetcherOptions};
use sitescan::crawl::{ScanOptions, Scanner, WorkerConfig, Workers};

pub use crate::sink::Collect;
use sitescan_store::Store;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How a test engine is set up.
#[derive(Clone)]
pub struct EngineSpec {
    pub allow: Vec<&'static str>,
    pub overrides: Vec<(&'static str, &'static str)>,
    pub navigation_timeout: Duration,
    pub page_timeout: Duration,
    pub fetch_timeout: Duration,
    pub capture: CaptureOptions,
    pub browsers: usize,
    pub pages_per_browser: usize,
}

impl Default for EngineSpec {
    fn default() -> Self {
        EngineSpec {
            allow: vec!["127.0.0.1/32"],
            overrides: Vec::new(),
            navigation_timeout: Duration::from_secs(10),
            page_timeout: Duration::from_secs(20),
            fetch_timeout: Duration::from_secs(5),
            capture: CaptureOptions::bare(),
            browsers: 1,
            pages_per_browser: 4,
        }
    }
}

impl EngineSpec {
    pub fn guard(&self) -> Arc<EgressGuard> {
        let policy = AddressPolicy::new(self.allow.iter().map(|c| c.parse().expect("CIDR")).collect());
        let mut overrides: HashMap<String, Vec<IpAddr>> = HashMap::new();
        for (host, ip) in &self.overrides {
            overrides.entry(host.to_string()).or_default().push(ip.parse().expect("IP"));
        }
        Arc::new(EgressGuard::new(policy).with_host_overrides(overrides))
    }

    /// The guard, the fetcher and the browser pool, as `sitescan worker` builds them.
    pub async fn scanner(&self) -> Arc<Scanner> {
        let guard = self.guard();
        let fetcher = Fetcher::new(guard.clone(), FetcherOptions { timeout: self.fetch_timeout, ..FetcherOptions::default() }).expect("fetcher");
        let options = BrowserOptions {
            browsers: self.browsers,
            pages_per_browser: self.pages_per_browser,
            navigation_timeout: self.navigation_timeout,
            page_timeout: self.page_timeout,
            capture: self.capture,
            ..BrowserOptions::default()
        };
        let pool = BrowserPool::start(options, guard).await.expect("start the browser pool");
        Arc::new(Scanner::new(pool, Arc::new(fetcher)))
    }
}

pub fn scan_options(max_pages: usize) -> ScanOptions {
    ScanOptions { max_pages, link_check_budget: 20, sitemap_url_budget: 20, ..ScanOptions::default() }
}

pub fn worker_config(max_pages: usize, lease: Duration) -> WorkerConfig {
    WorkerConfig {
        lease,
        max_attempts: 3,
        poll: Duration::from_millis(100),
        options: scan_options(max_pages),
        ownership: sitescan::crawl::worker::Ownership::ProvedByCaller(None),
        max_running_per_org: sitescan::crawl::DEFAULT_MAX_RUNNING_PER_ORG,
        page_sharing: false,
    }
}

pub fn workers(store: Store, scanner: Arc<Scanner>, count: usize, max_pages: usize) -> Workers {
    Workers::spawn(store, scanner, count, worker_config(max_pages, Duration::from_secs(30)))
}

/// Resident memory of a process, bytes (0 when it is gone).
pub fn rss_of(pid: u32) -> u64 {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else { return 0 };
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Resident memory of every descendant of `root` (Chromium and its helpers, child processes).
pub fn rss_of_descendants(root: u32) -> u64 {
    let Ok(entries) = std::fs::read_dir("/proc") else { return 0 };
    let mut parent: HashMap<u32, u32> = HashMap::new();
    for e in entries.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        // After the command name (which may hold spaces and parentheses): state ppid ...
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else { continue };
        if let Some(ppid) = rest.split_whitespace().nth(1).and_then(|s| s.parse::<u32>().ok()) {
            parent.insert(pid, ppid);
        }
    }
    let mut total = 0;
    for &pid in parent.keys() {
        let mut cur = pid;
        let mut hops = 0;
        while let Some(&pp) = parent.get(&cur) {
            if pp == root {
                total += rss_of(pid);
                break;
            }
            if pp <= 1 || hops > 64 {
                break;
            }
            cur = pp;
            hops += 1;
        }
    }
    total
}

/// Samples this process's RSS and its descendants' (the browsers) every 200 ms until dropped.
pub struct MemorySampler {
    stop: Arc<AtomicBool>,
    pub max_self: Arc<AtomicU64>,
    pub max_children: Arc<AtomicU64>,
    pub samples: Arc<AtomicU64>,
}

impl MemorySampler {
    pub fn start() -> MemorySampler {
        let s = MemorySampler {
            stop: Arc::new(AtomicBool::new(false)),
            max_self: Arc::new(AtomicU64::new(0)),
            max_children: Arc::new(AtomicU64::new(0)),
            samples: Arc::new(AtomicU64::new(0)),
        };
        let (stop, max_self, max_children, samples) = (s.stop.clone(), s.max_self.clone(), s.max_children.clone(), s.samples.clone());
        std::thread::spawn(move || {
            let me = std::process::id();
            while !stop.load(Ordering::SeqCst) {
                max_self.fetch_max(rss_of(me), Ordering::SeqCst);
                max_children.fetch_max(rss_of_descendants(me), Ordering::SeqCst);
                samples.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(200));
            }
        });
        s
    }

    pub fn max_self_mb(&self) -> u64 {
        self.max_self.load(Ordering::SeqCst) >> 20
    }

    pub fn max_children_mb(&self) -> u64 {
        self.max_children.load(Ordering::SeqCst) >> 20
    }
}

impl Drop for MemorySampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}
