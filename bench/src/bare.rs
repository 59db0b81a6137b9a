//! Bare rendering: the same pages loaded by the same Chromium with the same concurrency and
//! nothing else (the start page closed as sitescan closes it, a new tab per page in one browser
//! context, cache disabled like sitescan's, the same viewport, each page in a window of its own as
//! sitescan opens them (a background tab of a shared window would not paint), navigate, wait for
//! `load` and then, as issue 17 defines bare rendering, for network quiet (no request in flight for
//! sitescan's `NETWORK_QUIET`, 500 ms, at most its `NETWORK_QUIET_MAX`; `--quiet-ms 0`: `load`
//! only), close). Runs as a subprocess of the bench (`sitescan-bench bare-render`) so its process
//! tree is measured like the others. With `--axe`, "axe-core alone": the same, then axe-core
//! injected and run with sitescan's tags on every page before it closes.

use chromiumoxide::browser::{Browser, BrowserConfig};
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::network::{
    EventDataReceived, EventLoadingFailed, EventLoadingFinished, EventRequestWillBeSent, EventResponseReceived,
};
use chromiumoxide::cdp::browser_protocol::target::{CloseTargetParams, CreateBrowserContextParams, CreateTargetParams, GetTargetsParams};
use chromiumoxide::handler::viewport::Viewport;
use futures::StreamExt;
use serde::Serialize;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What a bare-render run prints (JSON on stdout).
#[derive(Debug, Clone, Serialize, serde::Deserialize, Default)]
pub struct BareReport {
    pub pages: usize,
    pub concurrency: usize,
    /// Network quiet awaited after `load` (0: `load` only).
    pub quiet_ms: u64,
    pub launch_ms: f64,
    /// First navigation to last page closed.
    pub render_ms: f64,
    /// Launch to browser closed.
    pub total_ms: f64,
    pub errors: usize,
    pub page_ms: Vec<f64>,
    /// With `--axe`: axe's violations and incomplete results, summed over the pages.
    #[serde(default)]
    pub axe_results: usize,
}

/// axe-core run as an axe-based tool runs it: the tags sitescan runs, violations and incomplete
/// results, no frames; what it finds is counted.
const AXE_RUN: &str = "window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] }, resultTypes: ['violations', 'incomplete'], iframes: false }).then(r => r.violations.length + r.incomplete.length)";

pub async fn run(urls: Vec<String>, concurrency: usize, chromium: PathBuf, quiet: Duration, axe: Option<String>) -> anyhow::Result<BareReport> {
    let started = Instant::now();
    let dir = tempfile::tempdir()?;
    let config = BrowserConfig::builder()
        .chrome_executable(chromium)
        .new_headless_mode()
        .no_sandbox()
        .user_data_dir(dir.path())
        .viewport(Viewport {
            width: sitescan::browser::VIEWPORT_WIDTH,
            height: sitescan::browser::VIEWPORT_HEIGHT,
            device_scale_factor: Some(1.0),
            emulating_mobile: false,
            is_landscape: true,
            has_touch: false,
        })
        .disable_cache()
        .request_timeout(Duration::from_secs(30))
        .args([
            "disable-gpu",
            "disable-dev-shm-usage",
            "disable-quic",
            "disable-renderer-backgrounding",
            "disable-background-timer-throttling",
            "disable-backgrounding-occluded-windows",
            "hide-scrollbars",
            "mute-audio",
        ])
        .build()
        .map_err(anyhow::Error::msg)?;
    let (mut browser, mut handler) = Browser::launch(config).await?;
    let pump = tokio::spawn(async move { while handler.next().await.is_some() {} });
    // The start page goes, as sitescan closes its own: an open about:blank window keeps drawing
    // (about 0.08 CPU-s per second on the bench machine) for the browser's whole life.
    let targets = browser.execute(GetTargetsParams::default()).await?;
    for t in targets.result.target_infos.iter().filter(|t| t.r#type == "page") {
        browser.execute(CloseTargetParams::new(t.target_id.clone())).await?;
    }
    let context = browser.create_browser_context(CreateBrowserContextParams::default()).await?;
    let launch_ms = started.elapsed().as_secs_f64() * 1000.0;
    let t = Instant::now();
    let axe = axe.as_deref();
    let results: Vec<(f64, bool, usize)> = futures::stream::iter(urls.iter().cloned())
        .map(|url| {
            let (browser, context) = (&browser, context.clone());
            async move {
                let t = Instant::now();
                let done = tokio::time::timeout(Duration::from_secs(60), async move {
                    let params = CreateTargetParams::builder()
                        .url("about:blank")
                        .browser_context_id(context)
                        .new_window(true)
                        .build()
                        .map_err(anyhow::Error::msg)?;
                    let page = browser.new_page(params).await?;
                    let requests = Requests::watch(&page).await?;
                    page.goto(url).await?;
                    if !quiet.is_zero() {
                        requests.quiet(quiet, sitescan::browser::NETWORK_QUIET_MAX).await;
                    }
                    let mut found = 0;
                    if let Some(source) = axe {
                        page.evaluate_expression(source).await?;
                        found = page.evaluate_expression(AXE_RUN).await?.into_value::<usize>()?;
                    }
                    page.close().await?;
                    anyhow::Ok(found)
                })
                .await;
                let found = match &done {
                    Ok(Ok(n)) => *n,
                    _ => 0,
                };
                if let Ok(Err(e)) = &done {
                    eprintln!("bare-render: {e}");
                }
                (t.elapsed().as_secs_f64() * 1000.0, matches!(done, Ok(Ok(_))), found)
            }
        })
        .buffer_unordered(concurrency.max(1))
        .collect()
        .await;
    let render_ms = t.elapsed().as_secs_f64() * 1000.0;
    let _ = tokio::time::timeout(Duration::from_secs(10), browser.close()).await;
    let _ = tokio::time::timeout(Duration::from_secs(10), browser.wait()).await;
    pump.abort();
    Ok(BareReport {
        pages: urls.len(),
        concurrency,
        quiet_ms: u64::try_from(quiet.as_millis()).unwrap_or(u64::MAX),
        launch_ms,
        render_ms,
        total_ms: started.elapsed().as_secs_f64() * 1000.0,
        errors: results.iter().filter(|(_, ok, _)| !ok).count(),
        page_ms: results.iter().map(|(ms, _, _)| *ms).collect(),
        axe_results: results.iter().map(|(_, _, n)| n).sum(),
    })
}

/// The page's requests in flight and when the network last did anything, from its Network
/// events, counted as sitescan's event log counts them (a request finished is done even when its
/// `requestWillBeSent` is seen after, as separate listeners may deliver them).
struct Requests {
    state: Arc<Mutex<Flight>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

struct Flight {
    inflight: HashSet<String>,
    done: HashSet<String>,
    last: Instant,
}

enum Seen {
    Sent,
    Ended,
    Progress,
}

impl Flight {
    fn see(&mut self, id: &str, what: Seen) {
        match what {
            Seen::Sent if !self.done.contains(id) => {
                self.inflight.insert(id.to_string());
            }
            Seen::Ended => {
                self.inflight.remove(id);
                self.done.insert(id.to_string());
            }
            _ => {}
        }
        self.last = Instant::now();
    }
}

impl Requests {
    async fn watch(page: &Page) -> anyhow::Result<Self> {
        let state = Arc::new(Mutex::new(Flight { inflight: HashSet::new(), done: HashSet::new(), last: Instant::now() }));
        let sent = page.event_listener::<EventRequestWillBeSent>().await?.map(|e| (e.request_id.inner().clone(), Seen::Sent));
        let finished = page.event_listener::<EventLoadingFinished>().await?.map(|e| (e.request_id.inner().clone(), Seen::Ended));
        let failed = page.event_listener::<EventLoadingFailed>().await?.map(|e| (e.request_id.inner().clone(), Seen::Ended));
        let response = page.event_listener::<EventResponseReceived>().await?.map(|e| (e.request_id.inner().clone(), Seen::Progress));
        let data = page.event_listener::<EventDataReceived>().await?.map(|e| (e.request_id.inner().clone(), Seen::Progress));
        let mut all = futures::stream::select_all([sent.boxed(), finished.boxed(), failed.boxed(), response.boxed(), data.boxed()]);
        let flight = state.clone();
        let tasks = vec![tokio::spawn(async move {
            while let Some((id, what)) = all.next().await {
                if let Ok(mut f) = flight.lock() {
                    f.see(&id, what);
                }
            }
        })];
        Ok(Requests { state, tasks })
    }

    /// Returns once no request has been in flight for `quiet`, or after `max`.
    async fn quiet(&self, quiet: Duration, max: Duration) {
        let until = Instant::now() + max;
        loop {
            let now = Instant::now();
            let done = self.state.lock().map_or(true, |f| f.inflight.is_empty() && now.duration_since(f.last) >= quiet);
            if done || now >= until {
                return;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }
}

impl Drop for Requests {
    fn drop(&mut self) {
        self.tasks.iter().for_each(tokio::task::JoinHandle::abort);
    }
}
