//! Running the contestants as processes: `sitescan scan`, bare rendering, Lighthouse (CLI per
//! page, and its Node API reusing one Chrome) and pa11y. Each returns wall time, pages and the
//! peak memory of its process tree.

use crate::bare::BareReport;
use crate::proc::{Peak, run_measured};
use crate::utilisation;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;
use tokio::process::Command;

/// Where things are.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub sitescan: PathBuf,
    pub chromium: PathBuf,
    pub peers: PathBuf,
    pub bench_exe: PathBuf,
    pub work: PathBuf,
}

/// The log filter of measured scans: the engine's info lines plus each page's capture time.
pub const SCAN_LOG: &str = "info,sitescan_engine::browser::capture=debug,sitescan_engine::browser::session=debug,chromiumoxide=off,sqlx=warn,sea_orm=warn,hyper=warn,h2=warn,tower=warn";

/// `SCAN_LOG` with each page's main-thread time by phase (`--page-cpu`): Chromium's
/// performance counters are on in every page, which a measured scan should not pay for.
pub const SCAN_LOG_PAGE_CPU: &str = "info,sitescan_engine::browser::capture=debug,sitescan_engine::browser::session=debug,sitescan_engine::page_cpu=debug,chromiumoxide=off,sqlx=warn,sea_orm=warn,hyper=warn,h2=warn,tower=warn";

/// A capture's phases in the order they run (`capture phases` log line); a phase not listed sorts
/// after them.
pub const PHASE_ORDER: [&str; 27] = [
    "open", "navigate", "load", "quiet", "metrics", "scroll", "scroll-quiet", "settle", "screenshot", "image-text", "core", "regions",
    "unchanged", "dom", "page-text", "served-html", "rendered-html", "barriers", "axe", "keyboard", "contrast", "given-back", "layout",
    "dialogs", "in-page", "artifacts", "close",
];

/// Where `phase` sorts in `PHASE_ORDER`.
pub fn phase_rank(phase: &str) -> usize {
    PHASE_ORDER.iter().position(|o| *o == phase).unwrap_or(PHASE_ORDER.len())
}

/// The flag of `sitescan_scan_with` that turns on the page main-thread log (not passed on).
pub const PAGE_CPU: &str = "--page-cpu";

/// One `sitescan scan`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ScanRun {
    pub wall_s: f64,
    /// CPU seconds of the process tree (sitescan and its Chromium).
    pub cpu_s: f64,
    /// ... by process kind.
    pub cpu_by_kind: BTreeMap<String, f64>,
    pub exit: Option<i32>,
    pub pages: usize,
    pub page_errors: usize,
    pub findings: usize,
    /// Check id -> findings of that check: the benchmark site's findings must not change when
    /// the engine gets faster.
    pub findings_by_check: BTreeMap<String, usize>,
    /// Each finding as its check id, page, selector (and for accessibility its whole evidence)
    /// -> how many: the findings with shared regions judged once and with every page judged in
    /// full (`--no-share`) must be the same.
    #[serde(skip)]
    pub findings_by_key: BTreeMap<String, usize>,
    /// Regions given back instead of judged again (debug log "regions judged once and given back").
    pub regions_reused: u64,
    /// Of those, regions an earlier scan judged (`--cache`).
    pub regions_from_earlier_scans: u64,
    pub peak: Peak,
    /// From the engine's "scan completed" log line.
    pub engine: BTreeMap<String, f64>,
    /// Each page's capture time (debug log "page captured").
    pub capture_ms: Vec<f64>,
    /// url -> metrics object of the report.
    pub metrics: BTreeMap<String, Value>,
    pub gather_errors: usize,
    /// Capture phase -> milliseconds of each page (debug log "capture phases").
    pub phases: BTreeMap<String, Vec<f64>>,
    /// Capture phase -> mean cores busy (the whole process tree) while a page was in it.
    pub cores_by_phase: BTreeMap<String, f64>,
    /// Seconds of the scan with fewer than 1, 1 to 1.5, 1.5 to 1.8 and at least 1.8 cores busy.
    pub time_by_cores: Vec<f64>,
    /// Capture phase -> the page main thread's [task, script, layout and style] ms of each page
    /// (debug log "page main thread by phase", with `PAGE_CPU`).
    pub page_cpu: BTreeMap<String, Vec<[f64; 3]>>,
}

impl ScanRun {
    pub fn pages_per_min(&self) -> f64 {
        self.pages as f64 / self.wall_s * 60.0
    }
}

/// Lower edges of the bands of `ScanRun::time_by_cores`.
pub const CORE_BANDS: [f64; 4] = [0.0, 1.0, 1.5, 1.8];

pub async fn sitescan_scan(ctx: &Ctx, url: &str, max_pages: usize, pages_per_browser: Option<usize>, tag: &str) -> anyhow::Result<ScanRun> {
    sitescan_scan_with(ctx, url, max_pages, pages_per_browser, tag, &[]).await
}

/// `sitescan_scan` with more flags to `sitescan scan` (`--no-share`).
pub async fn sitescan_scan_with(ctx: &Ctx, url: &str, max_pages: usize, pages_per_browser: Option<usize>, tag: &str, extra: &[&str]) -> anyhow::Result<ScanRun> {
    let out = ctx.work.join(format!("report-{tag}.json"));
    let page_cpu = extra.contains(&PAGE_CPU);
    let extra: Vec<&str> = extra.iter().copied().filter(|a| *a != PAGE_CPU).collect();
    let mut cmd = Command::new(&ctx.sitescan);
    cmd.args(["--log-format", "json", "scan", url, "--allow-target", "127.0.0.1/32", "--format", "json", "--quiet"])
        .args(&extra)
        .arg("--max-pages")
        .arg(max_pages.to_string())
        .arg("--output")
        .arg(&out)
        .arg("--chromium")
        .arg(&ctx.chromium)
        .env("RUST_LOG", if page_cpu { SCAN_LOG_PAGE_CPU } else { SCAN_LOG })
        .env("TMPDIR", &ctx.work);
    if let Some(k) = pages_per_browser {
        cmd.arg("--pages-per-browser").arg(k.to_string());
    }
    let run = run_measured(cmd, Duration::from_secs(3600)).await?;
    let mut result = ScanRun {
        wall_s: run.wall.as_secs_f64(),
        cpu_s: run.cpu.total_s,
        cpu_by_kind: run.cpu.by_kind.clone(),
        exit: run.status.code(),
        peak: run.peak,
        ..ScanRun::default()
    };
    let mut stays = Vec::new();
    for line in run.stderr.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        match v["message"].as_str() {
            Some("scan completed") => {
                for key in ["pages", "duration_ms", "render_ms", "checks_ms", "store_ms", "site_ms", "findings"] {
                    if let Some(n) = v[key].as_f64() {
                        result.engine.insert(key.to_string(), n);
                    }
                }
            }
            Some("page captured") => {
                if let Some(ms) = v["capture_ms"].as_f64() {
                    result.capture_ms.push(ms);
                }
            }
            Some("gatherer failed") => result.gather_errors += 1,
            Some("regions judged once and given back") => {
                result.regions_reused += v["reused"].as_u64().unwrap_or(0);
                result.regions_from_earlier_scans += v["from_earlier_scans"].as_u64().unwrap_or(0);
            }
            Some("page main thread by phase") => {
                for pair in v["phases"].as_str().unwrap_or("").split_whitespace() {
                    let Some((name, ms)) = pair.split_once('=') else { continue };
                    let ms: Vec<f64> = ms.split('/').filter_map(|x| x.parse().ok()).collect();
                    if let [task, script, layout] = ms[..] {
                        result.page_cpu.entry(name.to_string()).or_default().push([task, script, layout]);
                    }
                }
            }
            Some("capture phases") => {
                let mut phases = Vec::new();
                for pair in v["phases"].as_str().unwrap_or("").split_whitespace() {
                    if let Some((name, ms)) = pair.split_once('=')
                        && let Ok(ms) = ms.parse::<f64>()
                    {
                        result.phases.entry(name.to_string()).or_default().push(ms);
                        phases.push((name.to_string(), ms));
                    }
                }
                // The line is logged as the capture ends.
                if let Some(end) = v["timestamp"].as_str().and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok()) {
                    let started: chrono::DateTime<chrono::Utc> = run.started_at.into();
                    let end = (end.with_timezone(&chrono::Utc) - started).as_seconds_f64();
                    stays.extend(utilisation::stays_of(&phases, end));
                }
            }
            _ => {}
        }
    }
    let timeline = utilisation::Timeline::new(run.cpu.timeline.clone());
    if !timeline.is_empty() {
        result.cores_by_phase = utilisation::cores_by_phase(&timeline, &stays);
        result.time_by_cores = timeline.time_in_bands(&CORE_BANDS);
    }
    if !run.ok() && run.status.code() != Some(1) {
        anyhow::bail!("sitescan scan exited with {:?}: {}", run.status.code(), tail(&run.stderr, 1500));
    }
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&out)?)?;
    if report["scan"]["status"] != "completed" {
        anyhow::bail!("scan status {}: {}", report["scan"]["status"], report["report"]["summary"]["error"]);
    }
    let pages = report["report"]["pages"].as_array().cloned().unwrap_or_default();
    result.pages = pages.len();
    result.page_errors = pages.iter().filter(|p| !p["error"].is_null()).count();
    let findings = report["report"]["findings"].as_array().cloned().unwrap_or_default();
    result.findings = findings.len();
    for f in &findings {
        let id = f["check_id"].as_str().unwrap_or("?");
        *result.findings_by_check.entry(id.to_string()).or_default() += 1;
        let e = &f["evidence"];
        let key = if id.starts_with("accessibility.") { format!("{id} {e}") } else { format!("{id} {} {}", e["url"], e["selector"]) };
        *result.findings_by_key.entry(key).or_default() += 1;
    }
    if let Some(keep) = std::env::var_os("SITESCAN_BENCH_KEEP_REPORTS") {
        let _ = std::fs::copy(&out, std::path::Path::new(&keep).join(format!("report-{tag}.json")));
    }
    for p in pages {
        if let Some(u) = p["url"].as_str() {
            result.metrics.insert(u.to_string(), p["metrics"].clone());
        }
    }
    Ok(result)
}

/// Bare rendering in a subprocess (`sitescan-bench bare-render`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct BareRun {
    pub wall_s: f64,
    pub cpu_s: f64,
    pub peak: Peak,
    pub report: BareReport,
}

/// The axe-core sitescan embeds (installed by `scripts/setup.sh`), for "axe-core alone".
pub const AXE_MIN_JS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../browser/node_modules/axe-core/axe.min.js");

/// Bare rendering in a subprocess; with `axe`, then axe-core run on every page ("axe-core alone").
pub async fn bare(ctx: &Ctx, urls: &[String], concurrency: usize, quiet: std::time::Duration, axe: bool) -> anyhow::Result<BareRun> {
    let list = ctx.work.join("bare-urls.txt");
    std::fs::write(&list, urls.join("\n"))?;
    let mut cmd = Command::new(&ctx.bench_exe);
    cmd.arg("bare-render")
        .arg("--concurrency")
        .arg(concurrency.to_string())
        .arg("--chromium")
        .arg(&ctx.chromium)
        .arg("--urls")
        .arg(&list)
        .arg("--quiet-ms")
        .arg(quiet.as_millis().to_string())
        .env("TMPDIR", &ctx.work)
        .env("RUST_LOG", "off");
    if axe {
        cmd.arg("--axe").arg(AXE_MIN_JS);
    }
    let run = run_measured(cmd, Duration::from_secs(1800)).await?;
    if !run.ok() {
        anyhow::bail!("bare-render failed: {}", tail(&run.stderr, 1500));
    }
    let report: BareReport = serde_json::from_str(run.stdout.trim())?;
    Ok(BareRun { wall_s: run.wall.as_secs_f64(), cpu_s: run.cpu.total_s, peak: run.peak, report })
}

fn node(ctx: &Ctx) -> Command {
    let mut cmd = Command::new("node");
    cmd.current_dir(&ctx.peers).env("CHROME_PATH", &ctx.chromium).env("TMPDIR", &ctx.work);
    cmd
}

/// A peer's run over a list of pages.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PeerRun {
    pub wall_s: f64,
    pub cpu_s: f64,
    pub pages: usize,
    pub errors: usize,
    pub peak: Peak,
    pub per_page_s: Vec<f64>,
    pub detail: Value,
}

impl PeerRun {
    pub fn pages_per_min(&self) -> f64 {
        self.pages as f64 / self.wall_s * 60.0
    }
}

const CHROME_FLAGS: &str = "--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage";

/// The Lighthouse CLI once per page (a Chrome launched per page, every category).
pub async fn lighthouse_cli(ctx: &Ctx, urls: &[String]) -> anyhow::Result<PeerRun> {
    let mut out = PeerRun::default();
    let mut details = Vec::new();
    for (i, url) in urls.iter().enumerate() {
        let file = ctx.work.join(format!("lh-cli-{i}.json"));
        let mut cmd = node(ctx);
        cmd.arg("node_modules/lighthouse/cli/index.js")
            .arg(url)
            .arg("--output=json")
            .arg(format!("--output-path={}", file.display()))
            .arg("--quiet")
            .arg(format!("--chrome-flags={CHROME_FLAGS}"));
        let run = run_measured(cmd, Duration::from_secs(300)).await?;
        out.wall_s += run.wall.as_secs_f64();
        out.cpu_s += run.cpu.total_s;
        out.per_page_s.push(run.wall.as_secs_f64());
        out.peak = out.peak.merge(run.peak);
        out.pages += 1;
        let lhr: Value = std::fs::read_to_string(&file).ok().and_then(|t| serde_json::from_str(&t).ok()).unwrap_or(Value::Null);
        let failed = !run.ok() || lhr.is_null() || !lhr["runtimeError"].is_null();
        if failed {
            out.errors += 1;
        }
        let scores: serde_json::Map<String, Value> =
            lhr["categories"].as_object().map(|c| c.iter().map(|(k, v)| (k.clone(), v["score"].clone())).collect()).unwrap_or_default();
        details.push(serde_json::json!({"url": url, "s": run.wall.as_secs_f64(), "exit": run.status.code(), "scores": scores,
            "runtime_error": lhr["runtimeError"]["code"].clone(), "stderr": if failed { tail(&run.stderr, 600) } else { String::new() }}));
        let _ = std::fs::remove_file(&file);
    }
    out.detail = Value::Array(details);
    Ok(out)
}

/// Lighthouse's Node API, one Chrome for every page. `fidelity`: desktop preset, provided
/// throttling, performance only, `runs` runs per page.
pub async fn lighthouse_api(ctx: &Ctx, urls: &[String], fidelity: bool, runs: usize) -> anyhow::Result<PeerRun> {
    let mut cmd = node(ctx);
    cmd.arg("lighthouse-api.mjs");
    if fidelity {
        cmd.arg("--fidelity");
    }
    cmd.arg("--runs").arg(runs.to_string()).args(urls);
    let run = run_measured(cmd, Duration::from_secs(3600)).await?;
    if !run.ok() {
        anyhow::bail!("lighthouse-api.mjs failed: {}", tail(&run.stderr, 1500));
    }
    let detail: Value = serde_json::from_str(run.stdout.lines().last().unwrap_or(""))?;
    let pages = detail["pages"].as_array().cloned().unwrap_or_default();
    Ok(PeerRun {
        wall_s: run.wall.as_secs_f64(),
        cpu_s: run.cpu.total_s,
        pages: pages.len(),
        errors: pages.iter().filter(|p| !p["error"].is_null() || !p["runtime_error"].is_null()).count(),
        peak: run.peak,
        per_page_s: pages.iter().filter_map(|p| p["ms"].as_f64()).map(|ms| ms / 1000.0).collect(),
        detail,
    })
}

/// pa11y with one shared browser, `concurrency` pages at once.
pub async fn pa11y(ctx: &Ctx, urls: &[String], concurrency: usize) -> anyhow::Result<PeerRun> {
    let mut cmd = node(ctx);
    cmd.arg("pa11y-run.mjs").arg(concurrency.to_string()).args(urls);
    let run = run_measured(cmd, Duration::from_secs(1800)).await?;
    if !run.ok() {
        anyhow::bail!("pa11y-run.mjs failed: {}", tail(&run.stderr, 1500));
    }
    let detail: Value = serde_json::from_str(run.stdout.lines().last().unwrap_or(""))?;
    let pages = detail["pages"].as_array().cloned().unwrap_or_default();
    Ok(PeerRun {
        wall_s: run.wall.as_secs_f64(),
        cpu_s: run.cpu.total_s,
        pages: pages.len(),
        errors: pages.iter().filter(|p| !p["error"].is_null()).count(),
        peak: run.peak,
        per_page_s: pages.iter().filter_map(|p| p["ms"].as_f64()).map(|ms| ms / 1000.0).collect(),
        detail,
    })
}

pub fn tail(text: &str, max: usize) -> String {
    let start = text.len().saturating_sub(max);
    let mut start = start;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    text[start..].to_string()
}

/// The first line a command prints (versions).
pub async fn first_line(program: &str, args: &[&str]) -> String {
    match Command::new(program).args(args).output().await {
        Ok(o) => String::from_utf8_lossy(&o.stdout).lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string(),
        Err(_) => String::new(),
    }
}
