//! Bare rendering: the same pages loaded by the same Chromium with the same concurrency and
//! nothing else (the start page closed as sitescan closes it, a new tab per page in one browser
//! context, cache disabled like sitescan's, the same viewport, each page in a window of its own as
//! sitescan opens them (a background tab of a shared window would not paint), navigate, wait for
//! `load`, close). Runs as a subprocess of the bench (`sitescan-bench bare-render`) so its process
//! tree is measured like the others.

use chromiumoxide::browser::{Browser, BrowserConfig};
use chromiumoxide::cdp::browser_protocol::target::{CloseTargetParams, CreateBrowserContextParams, CreateTargetParams, GetTargetsParams};
use chromiumoxide::handler::viewport::Viewport;
use futures::StreamExt;
use serde::Serialize;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What a bare-render run prints (JSON on stdout).
#[derive(Debug, Clone, Serialize, serde::Deserialize, Default)]
pub struct BareReport {
    pub pages: usize,
    pub concurrency: usize,
    pub launch_ms: f64,
    /// First navigation to last page closed.
    pub render_ms: f64,
    /// Launch to browser closed.
    pub total_ms: f64,
    pub errors: usize,
    pub page_ms: Vec<f64>,
}

pub async fn run(urls: Vec<String>, concurrency: usize, chromium: PathBuf) -> anyhow::Result<BareReport> {
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
    let results: Vec<(f64, bool)> = futures::stream::iter(urls.iter().cloned())
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
                    page.goto(url).await?;
                    page.close().await?;
                    anyhow::Ok(())
                })
                .await;
                let ok = matches!(done, Ok(Ok(())));
                if let Ok(Err(e)) = &done {
                    eprintln!("bare-render: {e}");
                }
                (t.elapsed().as_secs_f64() * 1000.0, ok)
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
        launch_ms,
        render_ms,
        total_ms: started.elapsed().as_secs_f64() * 1000.0,
        errors: results.iter().filter(|(_, ok)| !ok).count(),
        page_ms: results.iter().map(|(ms, _)| *ms).collect(),
    })
}
