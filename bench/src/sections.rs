//! The benchmarks, in the order they run, and the report they fill.

use crate::RunArgs;
use crate::api::{self, ApiOptions};
use crate::fidelity_site;
use crate::proc::LoadSampler;
use crate::profile;
use crate::report::{Report, linear_fit, mean, median};
use crate::runners::{self, BareRun, Ctx, PeerRun, ScanRun, first_line};
use crate::site::GeneratedSite;
use crate::forms_site::FormsSite;
use crate::template_site::TemplateSite;
use serde_json::{Value, json};
use sitescan::browser::NETWORK_QUIET;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Default concurrency of `sitescan scan` (one browser, 4 pages).
const DEFAULT_CONCURRENCY: usize = 4;
/// Targets of the issue.
const TARGET_LH_RATIO: f64 = 30.0;
const TARGET_BARE_RATIO: f64 = 1.5;
/// sitescan with every check against axe-core alone on the same pages.
const TARGET_AXE_RATIO: f64 = 1.0;
const TARGET_RSS_MIB: f64 = 1536.0;
/// A re-scan of an unchanged site, and of one with 5% of its pages edited, against bare rendering.
const TARGET_RESCAN_UNCHANGED: f64 = 1.2;
const TARGET_RESCAN_CHANGED: f64 = 1.35;
const TARGET_FIDELITY_REL: f64 = 0.15;

pub async fn run_all(args: RunArgs, root: PathBuf) -> anyhow::Result<()> {
    let began = Instant::now();
    let started_at = chrono::Utc::now();
    let target_dir = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target"));
    let sitescan = args.sitescan.clone().unwrap_or_else(|| target_dir.join("release/sitescan"));
    anyhow::ensure!(sitescan.exists(), "no sitescan binary at {} (build it with `cargo build --release`)", sitescan.display());
    let chromium = match &args.chromium {
        Some(p) => p.clone(),
        None => sitescan::browser::find_chromium(None)?,
    };
    let peers = args.peers.clone().unwrap_or_else(|| root.join("bench/peers"));
    let work = tempfile::Builder::new().prefix("sitescan-bench-").tempdir()?;
    let ctx =
        Ctx { sitescan, chromium: chromium.clone(), peers: peers.clone(), bench_exe: std::env::current_exe()?, work: work.path().to_path_buf() };
    let with_peers = !args.skip_peers && peers.join("node_modules/lighthouse").exists() && peers.join("node_modules/pa11y").exists();
    let mut report = Report::default();
    if !args.skip_peers && !with_peers {
        report.problem(format!("peers not installed in {} (run `make bench-peers`): Lighthouse and pa11y left out", peers.display()));
    }
    let env = environment(&ctx, &root).await;
    println!("sitescan-bench: {}", serde_json::to_string(&env)?);
    let load = LoadSampler::start(Duration::from_secs(5));
    let only = |name: &str| args.only.iter().any(|o| o == name);

    let site = GeneratedSite::start(args.pages).await;
    report.data(
        "site",
        json!({
            "pages": site.pages,
            "html_kib_min": site.html_bytes.iter().min().copied().unwrap_or(0) as f64 / 1024.0,
            "html_kib_max": site.html_bytes.iter().max().copied().unwrap_or(0) as f64 / 1024.0,
            "html_kib_mean": mean(&site.html_bytes.iter().map(|b| *b as f64).collect::<Vec<_>>()) / 1024.0,
            "images": site.image_bytes.len(),
            "image_kib_min": site.image_bytes.iter().min().copied().unwrap_or(0) as f64 / 1024.0,
            "image_kib_max": site.image_bytes.iter().max().copied().unwrap_or(0) as f64 / 1024.0,
        }),
    );
    // Warm-up (not measured): disk caches, Chromium's first start.
    if let Err(e) = runners::sitescan_scan(&ctx, &site.url(0), 3, None, "warmup").await {
        report.problem(format!("warm-up scan failed: {e:#}"));
    }

    let mut main_scan: Option<ScanRun> = None;
    let mut bare = Bare::default();
    if only("throughput") {
        println!("== throughput");
        let (s, b) = throughput(&ctx, &args, &site, with_peers, &mut report).await;
        main_scan = s;
        bare = b;
    }
    if only("profile") {
        println!("== profile");
        profile_section(&ctx, &args, &site, main_scan.as_ref(), &bare, &mut report).await;
    }
    if only("page-cpu") {
        println!("== page-cpu");
        let template = TemplateSite::start(args.pages).await;
        let forms = FormsSite::start(args.pages).await;
        let sites = [("bench site", site.url(0), site.pages), ("template site", template.url(0), template.pages), ("forms site", forms.url(0), forms.pages)];
        crate::page_cpu::run(&ctx, &sites, &mut report).await;
    }
    if only("scaling") {
        println!("== scaling");
        scaling(&ctx, &args, &site, main_scan.as_ref(), &mut report).await;
    }
    if only("sharing") {
        println!("== sharing");
        sharing(&ctx, &args, &site, main_scan.as_ref(), &mut report).await;
    }
    if only("recurring") {
        println!("== recurring");
        recurring(&ctx, &args, &site, &bare, &mut report).await;
    }
    if only("fleet") {
        println!("== fleet");
        let postgres = Some(args.postgres.clone()).filter(|p| !p.trim().is_empty());
        crate::fleet::run(&ctx, &site.url(0), site.pages, postgres.as_deref(), &mut report).await;
    }
    drop(site);
    if only("fidelity") {
        println!("== fidelity");
        if with_peers {
            fidelity(&ctx, &args, &mut report).await;
        } else {
            report.problem("fidelity needs Lighthouse: left out".into());
        }
    }
    if only("api") {
        println!("== api");
        let opts = ApiOptions {
            sizes: args.api_findings.clone(),
            requests: args.api_requests,
            concurrency: args.api_concurrency,
            postgres: Some(args.postgres.clone()).filter(|p| !p.trim().is_empty()),
        };
        if let Err(e) = api::run(&ctx, &opts, &mut report).await {
            report.problem(format!("api: {e:#}"));
        }
    }

    let loads = load.finish();
    let load_line = format!(
        "load average (1 min) during the run: min {:.2}, mean {:.2}, max {:.2} on {} CPUs ({} samples, every 5 s)",
        loads.iter().copied().fold(f64::INFINITY, f64::min),
        mean(&loads),
        loads.iter().copied().fold(0.0, f64::max),
        env["cpus"],
        loads.len()
    );
    report.summary(load_line);
    report.summary(format!("total bench time: {:.1} min", began.elapsed().as_secs_f64() / 60.0));
    println!("\n{}", report.render());

    let out_dir = args.out.clone().unwrap_or_else(|| root.join("bench"));
    std::fs::create_dir_all(&out_dir)?;
    let file = out_dir.join(format!("results-{}.json", started_at.format("%Y%m%dT%H%M%SZ")));
    let json = json!({
        "started_at": started_at.to_rfc3339(),
        "seconds": began.elapsed().as_secs_f64(),
        "environment": env,
        "load_average_samples": loads,
        "args": format!("{args:?}"),
        "rows": report.rows,
        "summaries": report.summaries,
        "tables": report.tables.iter().map(|(t, l)| json!({"title": t, "lines": l})).collect::<Vec<_>>(),
        "problems": report.problems,
        "data": report.data,
    });
    std::fs::write(&file, serde_json::to_string_pretty(&json)?)?;
    println!("results written to {}", file.display());
    if let Some(lost) = report.problems.iter().find(|p| p.starts_with("findings differ") || p.starts_with("sharing changed") || p.starts_with("recurring changed") || p.starts_with("fleet changed")) {
        anyhow::bail!("the engine no longer finds what it found: {lost}");
    }
    Ok(())
}

async fn environment(ctx: &Ctx, root: &std::path::Path) -> Value {
    let version = |pkg: &str| -> String {
        std::fs::read_to_string(ctx.peers.join(format!("node_modules/{pkg}/package.json")))
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .and_then(|v| v["version"].as_str().map(str::to_string))
            .unwrap_or_default()
    };
    let mem_total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| m.lines().next().and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse::<f64>().ok()))
        .unwrap_or(0.0)
        / 1048576.0;
    json!({
        "cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        "memory_gib": (mem_total * 10.0).round() / 10.0,
        "kernel": first_line("uname", &["-r"]).await,
        "sitescan": first_line(&ctx.sitescan.to_string_lossy(), &["--version"]).await,
        "git_commit": first_line("git", &["-C", &root.to_string_lossy(), "rev-parse", "--short", "HEAD"]).await,
        "chromium": first_line(&ctx.chromium.to_string_lossy(), &["--version"]).await,
        "node": first_line("node", &["--version"]).await,
        "lighthouse": version("lighthouse"),
        "pa11y": version("pa11y"),
        "puppeteer": version("puppeteer"),
        "load_average_at_start": crate::proc::loadavg(),
    })
}

/// The two bare renderings of the throughput benchmark.
#[derive(Default)]
struct Bare {
    /// `load`, then network quiet: the time target's denominator.
    quiet: Option<BareRun>,
    /// `load` only.
    load: Option<BareRun>,
}

async fn throughput(ctx: &Ctx, args: &RunArgs, site: &GeneratedSite, with_peers: bool, report: &mut Report) -> (Option<ScanRun>, Bare) {
    const B: &str = "throughput";
    let all: Vec<String> = (0..site.pages).map(|i| site.url(i)).collect();
    let scan = match runners::sitescan_scan(ctx, &site.url(0), site.pages, None, "throughput").await {
        Ok(s) => Some(s),
        Err(e) => {
            report.problem(format!("sitescan scan over the site failed: {e:#}"));
            None
        }
    };
    if let Some(s) = &scan {
        println!("throughput: sitescan {} pages in {:.1} s", s.pages, s.wall_s);
        report.row(B, &format!("sitescan scan: {} pages, wall", s.pages), s.wall_s, "s").note =
            Some(format!("{} findings, {} page errors, {} gatherer errors", s.findings, s.page_errors, s.gather_errors));
        report.row(B, "sitescan pages/min", s.pages_per_min(), "pages/min");
        report.row(B, "sitescan CPU per page (process tree, user+sys)", s.cpu_s / s.pages.max(1) as f64, "s").note =
            Some(format!("{:.0} CPU-s over {:.1} s wall: {:.2} cores busy", s.cpu_s, s.wall_s, s.cpu_s / s.wall_s));
        let mut kinds: Vec<(&String, &f64)> = s.cpu_by_kind.iter().collect();
        kinds.sort_by(|a, b| b.1.total_cmp(a.1));
        for (kind, secs) in kinds.into_iter().filter(|(_, s)| **s >= 0.5) {
            report.row(B, &format!("  CPU per page: {kind}"), secs / s.pages.max(1) as f64, "s");
        }
        let r = report.row(B, "sitescan peak RSS (process tree)", s.peak.rss_mib(), "MiB");
        r.target = Some(format!("< {TARGET_RSS_MIB:.0} MiB"));
        r.met = Some(s.peak.rss_mib() < TARGET_RSS_MIB);
        r.note = Some(format!("PSS {:.0} MiB, {} processes", s.peak.pss_mib(), s.peak.processes));
        if s.pages != site.pages {
            report.problem(format!("sitescan rendered {} of {} pages", s.pages, site.pages));
        }
        findings_against_baseline(s, site.pages, report);
    }
    // Bare rendering (`load`, then network quiet as sitescan awaits it, nothing else): the
    // ratio's denominator. And `load` alone, to show what the quiet costs. Then the same with
    // axe-core run on every page: what any axe-based tool does at the least.
    let bare = bare_rendering(ctx, &all, NETWORK_QUIET, false, "load + network quiet", report).await;
    let bare_load = bare_rendering(ctx, &all, Duration::ZERO, false, "load only", report).await;
    let axe_alone = bare_rendering(ctx, &all, NETWORK_QUIET, true, "axe-core alone", report).await;
    let mut lh_cli: Option<PeerRun> = None;
    let mut lh_api: Option<PeerRun> = None;
    let mut pa: Option<PeerRun> = None;
    let sample = site.sample(args.sample);
    if with_peers {
        println!("throughput: Lighthouse CLI over {} pages", sample.len());
        match runners::lighthouse_cli(ctx, &sample).await {
            Ok(r) => lh_cli = Some(r),
            Err(e) => report.problem(format!("Lighthouse CLI: {e:#}")),
        }
        println!("throughput: Lighthouse API over {} pages", sample.len());
        match runners::lighthouse_api(ctx, &sample, false, 1).await {
            Ok(r) => lh_api = Some(r),
            Err(e) => report.problem(format!("Lighthouse API: {e:#}")),
        }
        println!("throughput: pa11y over {} pages", sample.len());
        match runners::pa11y(ctx, &sample, args.pa11y_concurrency).await {
            Ok(r) => pa = Some(r),
            Err(e) => report.problem(format!("pa11y: {e:#}")),
        }
    }
    let pa11y_label = format!("pa11y (one browser, {} at once)", args.pa11y_concurrency);
    for (label, run) in [
        ("Lighthouse CLI (Chrome per page, all categories)", &lh_cli),
        ("Lighthouse API (one Chrome, all categories)", &lh_api),
        (pa11y_label.as_str(), &pa),
    ] {
        if let Some(r) = run {
            report.row(B, &format!("{label}: {} pages, wall", r.pages), r.wall_s, "s").note =
                Some(format!("{} errors, per page median {:.1} s", r.errors, median(&r.per_page_s)));
            report.row(B, &format!("{label} pages/min"), r.pages_per_min(), "pages/min").note =
                Some(format!("peak RSS {:.0} MiB, CPU {:.1} s per page", r.peak.rss_mib(), r.cpu_s / r.pages.max(1) as f64));
        }
    }
    let mut summary = Vec::new();
    if let Some(s) = &scan {
        summary.push(format!(
            "sitescan {} pages in {:.1} s = {:.1} pages/min, peak RSS {:.0} MiB",
            s.pages,
            s.wall_s,
            s.pages_per_min(),
            s.peak.rss_mib()
        ));
        for (label, run, target) in [("Lighthouse CLI", &lh_cli, false), ("Lighthouse API", &lh_api, true), ("pa11y", &pa, false)] {
            if let Some(r) = run {
                let ratio = s.pages_per_min() / r.pages_per_min();
                let row = report.row(B, &format!("ratio sitescan / {label} (pages/min)"), ratio, "x");
                if target {
                    row.target = Some(format!(">= {TARGET_LH_RATIO:.0}x"));
                    row.met = Some(ratio >= TARGET_LH_RATIO);
                } else if label == "Lighthouse CLI" {
                    row.target = Some(format!(">= {TARGET_LH_RATIO:.0}x"));
                    row.met = Some(ratio >= TARGET_LH_RATIO);
                }
                summary.push(format!("{ratio:.1}x {label}"));
            }
        }
        if let Some(b) = &bare {
            let ratio = s.wall_s / b.wall_s;
            let row = report.row(B, "ratio sitescan time / bare rendering time", ratio, "x");
            row.note = Some(format!("bare: load + {} ms network quiet", b.report.quiet_ms));
            row.target = Some(format!("<= {TARGET_BARE_RATIO}x"));
            row.met = Some(ratio <= TARGET_BARE_RATIO);
            summary.push(format!("{ratio:.2}x the time of bare rendering"));
            let cpu = (s.cpu_s / s.pages.max(1) as f64) / (b.cpu_s / b.report.pages.max(1) as f64);
            report.row(B, "ratio sitescan CPU / bare rendering CPU (per page)", cpu, "x").note = Some("what the gatherers cost in compute".into());
            summary.push(format!("{cpu:.2}x its CPU"));
        }
        if let Some(a) = &axe_alone {
            let ratio = s.wall_s / a.wall_s;
            let row = report.row(B, "ratio sitescan time / axe-core alone time", ratio, "x");
            row.note = Some(format!("axe-core alone: the same pages rendered alike, then axe-core with sitescan's tags ({} results)", a.report.axe_results));
            row.target = Some(format!("<= {TARGET_AXE_RATIO}x"));
            row.met = Some(ratio <= TARGET_AXE_RATIO);
            summary.push(format!("{ratio:.2}x the time of axe-core alone"));
        }
        if let Some(b) = &bare_load {
            let ratio = s.wall_s / b.wall_s;
            report.row(B, "ratio sitescan time / bare rendering time (load only)", ratio, "x").note =
                Some("not the target's measure: no network quiet after load".into());
            summary.push(format!("{ratio:.2}x bare rendering to load only"));
        }
    }
    report.summary(format!("throughput: {}", if summary.is_empty() { "no result".into() } else { summary.join(", ") }));
    report.data(B, json!({"sitescan": scan, "bare": bare, "bare_load_only": bare_load, "axe_alone": axe_alone, "lighthouse_cli": lh_cli, "lighthouse_api": lh_api, "pa11y": pa, "sample": sample}));
    (scan, Bare { quiet: bare, load: bare_load })
}

/// Bare rendering of `urls` at sitescan's concurrency, waiting `quiet` of network quiet after
/// `load`; its rows are labelled with `what`.
async fn bare_rendering(ctx: &Ctx, urls: &[String], quiet: Duration, axe: bool, what: &str, report: &mut Report) -> Option<BareRun> {
    const B: &str = "throughput";
    let b = match runners::bare(ctx, urls, DEFAULT_CONCURRENCY, quiet, axe).await {
        Ok(b) => b,
        Err(e) => {
            report.problem(format!("bare rendering ({what}) failed: {e:#}"));
            return None;
        }
    };
    println!("throughput: bare ({what}) {} pages in {:.1} s", b.report.pages, b.wall_s);
    report.row(B, &format!("bare Chromium ({what}): {} pages, wall", b.report.pages), b.wall_s, "s").note = Some(format!(
        "launch {:.2} s, render {:.1} s, {} errors, page p50 {:.0} ms",
        b.report.launch_ms / 1000.0,
        b.report.render_ms / 1000.0,
        b.report.errors,
        median(&b.report.page_ms)
    ));
    report.row(B, &format!("bare Chromium ({what}) pages/min"), b.report.pages as f64 / b.wall_s * 60.0, "pages/min");
    report.row(B, &format!("bare Chromium ({what}) peak RSS"), b.peak.rss_mib(), "MiB").note = Some(format!("PSS {:.0} MiB", b.peak.pss_mib()));
    report.row(B, &format!("bare Chromium ({what}) CPU per page"), b.cpu_s / b.report.pages.max(1) as f64, "s").note =
        Some(format!("{:.0} CPU-s over {:.1} s wall: {:.2} cores busy", b.cpu_s, b.wall_s, b.cpu_s / b.wall_s));
    Some(b)
}

async fn profile_section(ctx: &Ctx, args: &RunArgs, site: &GeneratedSite, scan: Option<&ScanRun>, bares: &Bare, report: &mut Report) {
    let bare = bares.load.as_ref();
    const B: &str = "profile";
    let mut lines = Vec::new();
    let mut data = serde_json::Map::new();
    if let Some(s) = scan {
        let n = s.pages.max(1) as f64;
        let e = |k: &str| s.engine.get(k).copied().unwrap_or(f64::NAN);
        let (render, checks, store, site_ms, dur) = (e("render_ms"), e("checks_ms"), e("store_ms"), e("site_ms"), e("duration_ms"));
        report.row(B, "engine: render per page (capture, summed)", render / n, "ms").note = Some(format!(
            "capture p50 {:.0} ms, max {:.0} ms; {DEFAULT_CONCURRENCY} at once",
            median(&s.capture_ms),
            s.capture_ms.iter().copied().fold(0.0, f64::max)
        ));
        report.row(B, "engine: checks per page", checks / n, "ms");
        report.row(B, "engine: store per page", store / n, "ms");
        report.row(B, "engine: site phase (links, site checks)", site_ms, "ms");
        let process_overhead = s.wall_s * 1000.0 - dur;
        report.row(B, "process: wall - engine duration (launch, report, exit)", process_overhead, "ms");
        lines.push(format!(
            "engine log of the {}-page scan: duration {:.1} s = crawl (render {:.1} s summed over {DEFAULT_CONCURRENCY} lanes ~ {:.1} s) + site phase {:.1} s; checks {:.2} s, store {:.2} s (summed); process wall {:.1} s",
            s.pages,
            dur / 1000.0,
            render / 1000.0,
            render / 1000.0 / DEFAULT_CONCURRENCY as f64,
            site_ms / 1000.0,
            checks / 1000.0,
            store / 1000.0,
            s.wall_s
        ));
        data.insert("engine".into(), json!(s.engine));
        // The engine's own account of each page, phase by phase (in capture order).
        let mut names: Vec<&String> = s.phases.keys().collect();
        names.sort_by_key(|n| runners::phase_rank(n));
        let total: f64 = s.phases.values().map(|v| mean(v)).sum();
        lines.push(format!(
            "capture phases of the {}-page scan (mean ms per page, {DEFAULT_CONCURRENCY} at once; total {total:.0} ms; cores busy: the whole process tree's mean while pages were in the phase, of {}):",
            s.pages,
            std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0)
        ));
        for name in names {
            let v = &s.phases[name];
            let m = mean(v);
            let cores = s.cores_by_phase.get(name.as_str()).map(|c| format!(", {c:.2} cores busy meanwhile")).unwrap_or_default();
            report.row(B, &format!("phase {name}: mean per page"), m, "ms").note = Some(format!(
                "median {:.0} ms, max {:.0} ms, {:.0}% of the capture{cores}",
                median(v),
                v.iter().copied().fold(0.0, f64::max),
                m / total * 100.0
            ));
            let busy = s.cores_by_phase.get(name.as_str()).map(|c| format!("  {c:>4.2} cores busy")).unwrap_or_default();
            lines.push(format!("  {name:<13} {m:>7.0} ms  {:>4.0}%{busy}", m / total * 100.0));
        }
        if !s.time_by_cores.is_empty() {
            let spans: Vec<String> = runners::CORE_BANDS
                .iter()
                .zip(runners::CORE_BANDS.iter().skip(1).map(Some).chain([None]))
                .zip(&s.time_by_cores)
                .map(|((lo, hi), t)| match hi {
                    Some(hi) => format!("{lo}-{hi} cores {t:.1} s"),
                    None => format!(">= {lo} cores {t:.1} s"),
                })
                .collect();
            lines.push(format!("  time of the scan by cores busy: {}", spans.join(", ")));
            report.row(B, "scan time with fewer than 1.5 cores busy", s.time_by_cores.iter().take(2).sum(), "s").note =
                Some(format!("of {:.1} s; {}", s.wall_s, spans.join(", ")));
        }
        data.insert("cores_by_phase".into(), json!(s.cores_by_phase));
        data.insert("time_by_cores".into(), json!(s.time_by_cores));
        data.insert("phases".into(), json!(s.phases));
    }
    if let Some(b) = bare {
        report.row(B, "bare Chromium: load per page", median(&b.report.page_ms), "ms").note =
            Some("median, new tab + navigate + load + close".into());
    }
    let n = args.profile_pages.min(site.pages);
    let urls: Vec<String> = (0..n).map(|i| site.url(i * site.pages / n.max(1))).collect();
    match profile::capture_variants(&urls, DEFAULT_CONCURRENCY, ctx.chromium.clone()).await {
        Ok(variants) => {
            let mut prev: Option<f64> = None;
            lines.push(format!("capture variants through sitescan's own pool (library, {n} pages, {DEFAULT_CONCURRENCY} at once):"));
            for v in &variants {
                let delta = prev.map(|p| v.capture_mean_ms - p);
                report.row(B, &format!("capture {}: mean per page", v.name), v.capture_mean_ms, "ms").note = Some(format!(
                    "{:.1} pages/min, CPU {:.2} s per page{}{}",
                    v.pages_per_min,
                    v.cpu_per_page_s,
                    delta.map(|d| format!(", +{d:.0} ms over the previous")).unwrap_or_default(),
                    if v.errors > 0 { format!(", {} errors", v.errors) } else { String::new() }
                ));
                lines.push(format!(
                    "  {:<18} mean {:>6.0} ms  median {:>6.0} ms  {:>6.1} pages/min  CPU {:>5.2} s/page  {}",
                    v.name, v.capture_mean_ms, v.capture_median_ms, v.pages_per_min, v.cpu_per_page_s, v.what
                ));
                prev = Some(v.capture_mean_ms);
            }
            data.insert("capture_variants".into(), json!(variants));
            let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
            if let (Some(b), Some(s)) = (bares.quiet.as_ref(), scan)
                && let Some(f) = axe_floor(&variants, b, s.pages, cores)
            {
                let row = report.row(B, "time floor: bare rendering + axe-core, every core busy", f.ratio, "x");
                row.note = Some(format!(
                    "({:.3} bare + {:.3} axe CPU-s a page) x {} pages / {cores} cores = {:.1} s against bare {:.1} s{}",
                    f.bare_cpu,
                    f.axe_cpu,
                    s.pages,
                    f.seconds,
                    b.wall_s,
                    if f.ratio > TARGET_BARE_RATIO { format!("; above {TARGET_BARE_RATIO}x: out of reach here while axe-core runs in full") } else { String::new() }
                ));
                lines.push(format!(
                    "time floor: bare rendering ({:.3} CPU-s a page) and axe-core ({:.3}, +axe over +scroll) alone, on {cores} cores always busy: {:.1} s for {} pages, {:.2}x bare rendering",
                    f.bare_cpu, f.axe_cpu, f.seconds, s.pages, f.ratio
                ));
                data.insert("time_floor".into(), json!({"bare_cpu_per_page": f.bare_cpu, "axe_cpu_per_page": f.axe_cpu, "seconds": f.seconds, "ratio": f.ratio, "cores": cores}));
            }
            if let (Some(first), Some(last)) = (variants.first(), variants.last()) {
                report.summary(format!(
                    "profile: a full capture averages {:.0} ms per page; the engine's bare capture (load + network quiet + DOM facts) {:.0} ms; scroll, axe and the keyboard walk add {:.0} ms{}",
                    last.capture_mean_ms,
                    first.capture_mean_ms,
                    last.capture_mean_ms - first.capture_mean_ms,
                    bare.map(|b| format!("; bare Chromium needs {:.0} ms (median)", median(&b.report.page_ms))).unwrap_or_default()
                ));
            }
        }
        Err(e) => report.problem(format!("profile capture variants: {e:#}")),
    }
    report.table("Profile: where a page's time goes", lines);
    report.data(B, Value::Object(data));
}

/// The least time the time target's ratio allows for on this machine while axe-core runs in full.
struct Floor {
    bare_cpu: f64,
    axe_cpu: f64,
    seconds: f64,
    ratio: f64,
}

/// The time `pages` would take if sitescan did nothing but bare rendering and axe-core with every
/// core busy throughout: bare rendering's CPU per page plus what axe adds per page (the `+axe`
/// capture variant's CPU over `+scroll`'s, both 4 pages at once), times the pages, over the
/// cores; and that time over bare rendering's. No scan that runs axe-core in full on every page
/// can be faster on this machine, whatever else it saves.
fn axe_floor(variants: &[profile::Variant], bare: &BareRun, pages: usize, cores: usize) -> Option<Floor> {
    let cpu = |name: &str| variants.iter().find(|v| v.name == name && v.errors == 0).map(|v| v.cpu_per_page_s);
    let axe_cpu = cpu("+axe")? - cpu("+scroll")?;
    let bare_cpu = bare.cpu_s / bare.report.pages.max(1) as f64;
    if axe_cpu <= 0.0 || bare.wall_s <= 0.0 || cores == 0 {
        return None;
    }
    let seconds = (bare_cpu + axe_cpu) * pages as f64 / cores as f64;
    Some(Floor { bare_cpu, axe_cpu, seconds, ratio: seconds / bare.wall_s })
}

async fn scaling(ctx: &Ctx, args: &RunArgs, main_site: &GeneratedSite, main_scan: Option<&ScanRun>, report: &mut Report) {
    const B: &str = "scaling";
    let mut points = Vec::new();
    let mut runs = BTreeMap::new();
    for &n in &args.scaling {
        let run = if n == main_site.pages && main_scan.is_some() {
            main_scan.cloned()
        } else {
            let site = GeneratedSite::start(n).await;
            match runners::sitescan_scan(ctx, &site.url(0), n, None, &format!("scale-{n}")).await {
                Ok(r) => Some(r),
                Err(e) => {
                    report.problem(format!("scaling scan of {n} pages: {e:#}"));
                    None
                }
            }
        };
        if let Some(r) = run {
            println!("scaling: {n} pages in {:.1} s", r.wall_s);
            report.row(B, &format!("{n} pages: wall"), r.wall_s, "s").note = Some(format!(
                "{:.2} s/page, {:.1} pages/min, peak RSS {:.0} MiB",
                r.wall_s / r.pages.max(1) as f64,
                r.pages_per_min(),
                r.peak.rss_mib()
            ));
            points.push((r.pages as f64, r.wall_s));
            runs.insert(n.to_string(), r);
        }
    }
    let mut summary = Vec::new();
    if points.len() >= 2 {
        let (a, b, r2) = linear_fit(&points);
        report.row(B, "fit wall = a + b*pages: b (marginal)", b, "s/page").note = Some(format!("a = {a:.2} s fixed, R^2 = {r2:.4}"));
        let (first, last) = (points[0], points[points.len() - 1]);
        let growth = (last.1 / last.0) / (first.1 / first.0);
        let marginal = {
            let mid = points.iter().find(|p| p.0 == main_site.pages as f64).copied().unwrap_or(points[points.len() / 2]);
            (last.1 - mid.1) / (last.0 - mid.0) / (mid.1 / mid.0)
        };
        let row = report.row(B, &format!("per-page time @{} / @{} pages", last.0, first.0), growth, "x");
        row.note = Some("below 1: fixed costs amortised".into());
        let row = report.row(B, "marginal page cost at the top / per-page cost at the default size", marginal, "x");
        row.target = Some("linear (<= 1.25x)".into());
        row.met = Some(marginal <= 1.25);
        summary.push(format!(
            "{} -> fixed {a:.1} s + {b:.2} s/page (R^2 {r2:.3}); marginal cost at the top {marginal:.2}x the average at {} pages",
            points.iter().map(|p| format!("{:.0} pages {:.1} s", p.0, p.1)).collect::<Vec<_>>().join(", "),
            main_site.pages
        ));
    }
    // Concurrency sweep on a site of its own.
    let sweep_site = GeneratedSite::start(args.sweep_pages).await;
    let mut sweep = BTreeMap::new();
    for &k in &args.concurrency {
        match runners::sitescan_scan(ctx, &sweep_site.url(0), args.sweep_pages, Some(k), &format!("conc-{k}")).await {
            Ok(r) => {
                println!("scaling: --pages-per-browser {k}: {:.1} pages/min", r.pages_per_min());
                let row = report.row(B, &format!("--pages-per-browser {k} ({} pages)", r.pages), r.pages_per_min(), "pages/min");
                row.note = Some(format!("wall {:.1} s, peak RSS {:.0} MiB, capture p50 {:.0} ms", r.wall_s, r.peak.rss_mib(), median(&r.capture_ms)));
                sweep.insert(k, r);
            }
            Err(e) => report.problem(format!("scan at --pages-per-browser {k}: {e:#}")),
        }
    }
    if !sweep.is_empty() {
        summary.push(format!(
            "pages/min by concurrency: {}",
            sweep.iter().map(|(k, r)| format!("{k}: {:.1}", r.pages_per_min())).collect::<Vec<_>>().join(", ")
        ));
    }
    report.summary(format!("scaling: {}", summary.join("; ")));
    report.data(B, json!({"sizes": runs, "concurrency": sweep.iter().map(|(k, r)| (k.to_string(), r)).collect::<BTreeMap<_, _>>(), "sweep_pages": args.sweep_pages}));
}

const METRICS: [(&str, &str, f64); 5] =
    [("ttfb_ms", "TTFB", 50.0), ("fcp_ms", "FCP", 50.0), ("lcp_ms", "LCP", 50.0), ("cls", "CLS", 0.02), ("tbt_ms", "TBT", 50.0)];

async fn fidelity(ctx: &Ctx, args: &RunArgs, report: &mut Report) {
    const B: &str = "fidelity";
    let site = fidelity_site::start().await;
    let urls: Vec<String> = fidelity_site::PAGES.iter().map(|(_, p, _)| site.url(p)).collect();
    let runs = args.fidelity_runs.max(1);
    // sitescan: `runs` scans at the default concurrency and `runs` at one page at a time.
    let mut ours: BTreeMap<(usize, String, &str), Vec<f64>> = BTreeMap::new();
    for conc in [DEFAULT_CONCURRENCY, 1] {
        for r in 0..runs {
            match runners::sitescan_scan(ctx, &site.url("/"), fidelity_site::PAGES.len(), Some(conc), &format!("fid-{conc}-{r}")).await {
                Ok(scan) => {
                    for (url, m) in &scan.metrics {
                        let path = url::Url::parse(url).map(|u| u.path().to_string()).unwrap_or_default();
                        for (key, _, _) in METRICS {
                            if let Some(v) = m[key].as_f64() {
                                ours.entry((conc, path.clone(), key)).or_default().push(v);
                            }
                        }
                    }
                }
                Err(e) => report.problem(format!("fidelity scan (concurrency {conc}): {e:#}")),
            }
        }
    }
    let lh = match runners::lighthouse_api(ctx, &urls, true, runs).await {
        Ok(r) => r,
        Err(e) => {
            report.problem(format!("Lighthouse (fidelity): {e:#}"));
            return;
        }
    };
    let mut theirs: BTreeMap<(String, &str), Vec<f64>> = BTreeMap::new();
    for p in lh.detail["pages"].as_array().cloned().unwrap_or_default() {
        let path = p["url"].as_str().and_then(|u| url::Url::parse(u).ok()).map(|u| u.path().to_string()).unwrap_or_default();
        if let Some(e) = p["error"].as_str().or(p["runtime_error"].as_str()) {
            report.problem(format!("Lighthouse (fidelity) on {path}: {e}"));
        }
        for (key, _, _) in METRICS {
            if let Some(v) = p["metrics"][key].as_f64() {
                theirs.entry((path.clone(), key)).or_default().push(v);
            }
        }
    }
    let mut lines = vec![format!(
        "{:<13} {:<5} {:>10} {:>10} {:>10} {:>9} {:>9} {:>6} {:>6}",
        "page", "metric", "sitescan", "ss (1 pg)", "Lighthouse", "diff", "diff 1pg", "ok", "ok 1pg"
    )];
    let (mut pass, mut total, mut pass1) = (0, 0, 0);
    let mut cells = Vec::new();
    for (name, path, _) in fidelity_site::PAGES {
        for (key, label, floor) in METRICS {
            let ss = ours.get(&(DEFAULT_CONCURRENCY, path.to_string(), key)).map(|v| median(v)).unwrap_or(f64::NAN);
            let ss1 = ours.get(&(1, path.to_string(), key)).map(|v| median(v)).unwrap_or(f64::NAN);
            let lh_v = theirs.get(&(path.to_string(), key)).map(|v| median(v)).unwrap_or(f64::NAN);
            let tol = (lh_v.abs() * TARGET_FIDELITY_REL).max(floor);
            let ok = (ss - lh_v).abs() <= tol;
            let ok1 = (ss1 - lh_v).abs() <= tol;
            let rel = |v: f64| {
                if lh_v.abs() > 1e-9 { format!("{:+.0}%", (v - lh_v) / lh_v * 100.0) } else { format!("{:+.3}", v - lh_v) }
            };
            let fmt = |v: f64| {
                if key == "cls" { format!("{v:.3}") } else { format!("{v:.0}") }
            };
            total += 1;
            pass += usize::from(ok);
            pass1 += usize::from(ok1);
            lines.push(format!(
                "{:<13} {:<5} {:>10} {:>10} {:>10} {:>9} {:>9} {:>6} {:>6}",
                name,
                label,
                fmt(ss),
                fmt(ss1),
                fmt(lh_v),
                rel(ss),
                rel(ss1),
                if ok { "yes" } else { "NO" },
                if ok1 { "yes" } else { "NO" }
            ));
            cells.push(json!({"page": name, "metric": key, "sitescan": ss, "sitescan_1": ss1, "lighthouse": lh_v, "tolerance": tol, "ok": ok, "ok_1": ok1,
                "sitescan_runs": ours.get(&(DEFAULT_CONCURRENCY, path.to_string(), key)), "sitescan_1_runs": ours.get(&(1, path.to_string(), key)), "lighthouse_runs": theirs.get(&(path.to_string(), key))}));
        }
    }
    report.table(
        &format!(
            "Metric fidelity: medians of {runs} runs; sitescan at {DEFAULT_CONCURRENCY} pages at once and at 1; Lighthouse desktop, --throttling-method=provided, observed values; ok = within 15% (or 50 ms / 0.02 CLS)"
        ),
        lines,
    );
    let row = report.row(B, &format!("metrics within tolerance ({DEFAULT_CONCURRENCY} pages at once)"), pass as f64, &format!("of {total}"));
    row.target = Some(format!("{total} of {total}"));
    row.met = Some(pass == total);
    let row = report.row(B, "metrics within tolerance (1 page at a time)", pass1 as f64, &format!("of {total}"));
    row.target = Some(format!("{total} of {total}"));
    row.met = Some(pass1 == total);
    report.summary(format!(
        "fidelity: {pass}/{total} metrics within tolerance of Lighthouse at sitescan's default concurrency, {pass1}/{total} at one page at a time"
    ));
    report.data(B, json!({"cells": cells, "runs": runs, "lighthouse": lh}));
}

/// Shared regions judged once per scan against every page judged in full (`--no-share`): on the
/// bench site (its throughput scan, when there is one, is the shared run), on a generated
/// template-heavy site and on a generated site of long pages full of forms and images that share
/// little; on the last two axe-core alone is measured too. Any difference in findings is a
/// problem that fails the run; the times show what sharing saves.
async fn sharing(ctx: &Ctx, args: &RunArgs, site: &GeneratedSite, main_scan: Option<&ScanRun>, report: &mut Report) {
    const B: &str = "sharing";
    let template = TemplateSite::start(args.pages).await;
    let forms = FormsSite::start(args.pages).await;
    let mut data = Vec::new();
    let sites: [(&str, String, usize); 3] = [
        ("bench site", site.url(0), site.pages),
        ("template site", template.url(0), template.pages),
        ("forms site", forms.url(0), forms.pages),
    ];
    for (k, (name, start, pages)) in sites.into_iter().enumerate() {
        let shared = match main_scan.filter(|_| k == 0) {
            Some(s) => Ok(s.clone()),
            None => runners::sitescan_scan(ctx, &start, pages, None, &format!("shared-{k}")).await,
        };
        let full = runners::sitescan_scan_with(ctx, &start, pages, None, &format!("full-{k}"), &["--no-share"]).await;
        let (shared, full) = match (shared, full) {
            (Ok(a), Ok(b)) => (a, b),
            (a, b) => {
                for e in [a.err(), b.err()].into_iter().flatten() {
                    report.problem(format!("sharing: scan of the {name} failed: {e:#}"));
                }
                continue;
            }
        };
        let differences = finding_differences(&shared, &full, "shared", "full");
        println!("sharing: {name}: {:.1} s shared ({} regions given back), {:.1} s full, {} findings, {} differences", shared.wall_s, shared.regions_reused, full.wall_s, shared.findings, differences.len());
        report.row(B, &format!("{name}: sitescan, shared regions judged once"), shared.wall_s, "s").note =
            Some(format!("{} pages, {} findings, {} regions given back instead of judged", shared.pages, shared.findings, shared.regions_reused));
        report.row(B, &format!("{name}: sitescan --no-share (every page in full)"), full.wall_s, "s").note =
            Some(format!("{} pages, {} findings, CPU {:.2} s a page against {:.2} shared", full.pages, full.findings, full.cpu_s / full.pages.max(1) as f64, shared.cpu_s / shared.pages.max(1) as f64));
        report.row(B, &format!("{name}: ratio shared / full (time)"), shared.wall_s / full.wall_s, "x");
        let identical = report.row(B, &format!("{name}: findings differing between shared and full"), differences.len() as f64, "");
        identical.target = Some("0".into());
        identical.met = Some(differences.is_empty());
        if !differences.is_empty() {
            report.problem(format!("sharing changed the findings on the {name}: {}", differences.iter().take(10).cloned().collect::<Vec<_>>().join(" | ")));
        }
        let mut axe = None;
        if k >= 1 {
            let urls: Vec<String> = (0..pages).map(|i| if k == 1 { template.url(i) } else { forms.url(i) }).collect();
            axe = bare_rendering(ctx, &urls, NETWORK_QUIET, true, &format!("{name}: axe-core alone"), report).await;
            if let Some(a) = &axe {
                let row = report.row(B, &format!("{name}: ratio sitescan (shared) / axe-core alone (time)"), shared.wall_s / a.wall_s, "x");
                row.target = Some(format!("<= {TARGET_AXE_RATIO}x"));
                row.met = Some(shared.wall_s / a.wall_s <= TARGET_AXE_RATIO);
                report.summary(format!(
                    "sharing: {name} {:.1} s shared against {:.1} s full ({:.2}x) and {:.1} s axe-core alone ({:.2}x); findings identical: {}",
                    shared.wall_s,
                    full.wall_s,
                    shared.wall_s / full.wall_s,
                    a.wall_s,
                    shared.wall_s / a.wall_s,
                    differences.is_empty()
                ));
            }
        }
        data.push(json!({"site": name, "shared": shared, "full": full, "axe_alone": axe, "differences": differences}));
    }
    report.data(B, json!(data));
}

/// The findings (by check id, page, selector and evidence) one scan has and the other has not,
/// leaving out the checks whose findings depend on timing.
fn finding_differences(a: &ScanRun, b: &ScanRun, a_name: &str, b_name: &str) -> Vec<String> {
    a.findings_by_key
        .keys()
        .chain(b.findings_by_key.keys())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .filter(|key| !TIMED_CHECKS.iter().any(|t| key.starts_with(&format!("{t} "))))
        .filter_map(|key| {
            let (x, y) = (a.findings_by_key.get(key).copied().unwrap_or(0), b.findings_by_key.get(key).copied().unwrap_or(0));
            (x != y).then(|| format!("{x} {a_name}, {y} {b_name}: {}", key.chars().take(300).collect::<String>()))
        })
        .collect()
}

/// Re-scans: the bench site and the template site scanned with the region verdicts kept
/// (`--cache`), then again unchanged, then with 5% of their pages edited; each re-scan against
/// bare rendering of the same pages, against the first scan, and its findings against a scan
/// that reuses nothing (`--no-cache`) of the same state of the site: any difference is a problem.
async fn recurring(ctx: &Ctx, args: &RunArgs, site: &GeneratedSite, bare: &Bare, report: &mut Report) {
    const B: &str = "recurring";
    let template = TemplateSite::start(args.pages).await;
    let mut data = Vec::new();
    for k in 0..2 {
        let (name, start, pages) = if k == 0 { ("bench site", site.url(0), site.pages) } else { ("template site", template.url(0), template.pages) };
        let edit = |i: usize, edited: bool| if k == 0 { site.edit(i, edited) } else { template.edit(i, edited) };
        let urls: Vec<String> = (0..pages).map(|i| if k == 0 { site.url(i) } else { template.url(i) }).collect();
        let bare_run = match (k, &bare.quiet) {
            (0, Some(b)) => Some(b.clone()),
            _ => bare_rendering(ctx, &urls, NETWORK_QUIET, false, &format!("{name}: load + network quiet"), report).await,
        };
        let cache = ctx.work.join(format!("verdicts-{k}.sqlite"));
        let cache_arg = cache.display().to_string();
        let cached = ["--cache", cache_arg.as_str()];
        let changed = (pages * 5).div_ceil(100).max(1);
        let mut runs = Vec::new();
        let mut failed = false;
        for (tag, flags, edited) in [
            ("first", &cached[..], false),
            ("unchanged", &cached[..], false),
            ("unchanged-nocache", &["--no-cache"][..], false),
            ("changed", &cached[..], true),
            ("changed-nocache", &["--no-cache"][..], true),
        ] {
            for i in 0..changed {
                edit(i * pages / changed, edited);
            }
            match runners::sitescan_scan_with(ctx, &start, pages, None, &format!("recurring-{k}-{tag}"), flags).await {
                Ok(r) => runs.push(r),
                Err(e) => {
                    report.problem(format!("recurring: {tag} scan of the {name} failed: {e:#}"));
                    failed = true;
                    break;
                }
            }
        }
        for i in 0..changed {
            edit(i * pages / changed, false);
        }
        if failed {
            continue;
        }
        let [first, unchanged, unchanged_full, edited, edited_full] = &runs[..] else { continue };
        let diff_unchanged = finding_differences(unchanged, unchanged_full, "re-scan", "--no-cache");
        let diff_edited = finding_differences(edited, edited_full, "re-scan", "--no-cache");
        let bare_s = bare_run.as_ref().map(|b| b.wall_s);
        println!(
            "recurring: {name}: first {:.1} s, unchanged {:.1} s ({} regions from the first), {changed} pages edited {:.1} s, bare {:?} s; differences {} and {}",
            first.wall_s,
            unchanged.wall_s,
            unchanged.regions_from_earlier_scans,
            edited.wall_s,
            bare_s,
            diff_unchanged.len(),
            diff_edited.len()
        );
        report.row(B, &format!("{name}: first scan, verdicts kept"), first.wall_s, "s").note =
            Some(format!("{} pages, {} findings, CPU {:.2} s a page", first.pages, first.findings, first.cpu_s / first.pages.max(1) as f64));
        for (what, run, target) in [("unchanged", unchanged, TARGET_RESCAN_UNCHANGED), (&format!("{changed} of {pages} pages edited") as &str, edited, TARGET_RESCAN_CHANGED)] {
            let row = report.row(B, &format!("{name}: re-scan, {what}"), run.wall_s, "s");
            row.note = Some(format!(
                "{:.2}x the first scan's time, CPU {:.2} s a page ({:.2}x the first), {} regions given back from the first scan",
                run.wall_s / first.wall_s,
                run.cpu_s / run.pages.max(1) as f64,
                run.cpu_s / first.cpu_s.max(f64::EPSILON),
                run.regions_from_earlier_scans
            ));
            if let Some(b) = &bare_run {
                let r = report.row(B, &format!("{name}: re-scan, {what} / bare rendering (time)"), run.wall_s / b.wall_s, "x");
                r.target = Some(format!("<= {target}x"));
                r.met = Some(run.wall_s / b.wall_s <= target);
                r.note = Some(format!("CPU {:.2}x bare's", run.cpu_s / b.cpu_s.max(f64::EPSILON)));
            }
        }
        for (what, diff) in [("unchanged", &diff_unchanged), ("edited", &diff_edited)] {
            let row = report.row(B, &format!("{name}: findings differing from --no-cache, {what}"), diff.len() as f64, "");
            row.target = Some("0".into());
            row.met = Some(diff.is_empty());
            if !diff.is_empty() {
                report.problem(format!("recurring changed the findings on the {name} ({what}): {}", diff.iter().take(10).cloned().collect::<Vec<_>>().join(" | ")));
            }
        }
        // The database file and its write-ahead log: what was not checkpointed yet is in the log.
        let wal = std::path::PathBuf::from(format!("{}-wal", cache.display()));
        if let Ok(meta) = std::fs::metadata(&cache) {
            let bytes = meta.len() + std::fs::metadata(&wal).map_or(0, |m| m.len());
            report.row(B, &format!("{name}: verdicts kept, bytes per page"), bytes as f64 / pages.max(1) as f64, "B").note =
                Some(format!("{bytes} bytes of SQLite file and log for {pages} pages"));
        }
        data.push(json!({"site": name, "first": first, "unchanged": unchanged, "unchanged_no_cache": unchanged_full, "edited": edited,
            "edited_no_cache": edited_full, "bare": bare_run, "differences_unchanged": diff_unchanged, "differences_edited": diff_edited}));
    }
    report.data(B, json!(data));
}

/// The findings of the throughput scan by check id, against `bench/findings-baseline.json` (the
/// counts of the default site, reviewed): a faster engine must find the same things. A
/// difference is a problem of the run; `SITESCAN_BENCH_WRITE_BASELINE=1` rewrites the file.
/// The checks whose findings depend on how fast this machine is.
const TIMED_CHECKS: &[&str] = &[
    "performance.lcp",
    "performance.cls",
    "performance.tbt",
    "performance.fcp",
    "performance.ttfb",
    "performance.long-task",
    "journeys.slow-interaction",
];

fn findings_against_baseline(scan: &ScanRun, pages: usize, report: &mut Report) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("findings-baseline.json");
    println!("throughput: findings by check id: {}", serde_json::to_string(&scan.findings_by_check).unwrap_or_default());
    if pages != 60 {
        return; // The baseline is of the default 60-page site.
    }
    if std::env::var_os("SITESCAN_BENCH_WRITE_BASELINE").is_some() {
        match serde_json::to_string_pretty(&scan.findings_by_check) {
            Ok(text) => {
                if let Err(e) = std::fs::write(&path, text + "\n") {
                    report.problem(format!("writing {}: {e}", path.display()));
                }
            }
            Err(e) => report.problem(format!("findings baseline: {e}")),
        }
        return;
    }
    let baseline: BTreeMap<String, usize> = match std::fs::read_to_string(&path).map(|t| serde_json::from_str(&t)) {
        Ok(Ok(b)) => b,
        Ok(Err(e)) => return report.problem(format!("{}: {e}", path.display())),
        Err(e) => return report.problem(format!("{}: {e}", path.display())),
    };
    // Checks that judge time measured on this machine (a long task, a slow paint) depend on the
    // machine and its load, not on the engine: they are printed, not compared.
    let timed = |id: &str| TIMED_CHECKS.contains(&id);
    let ids: std::collections::BTreeSet<&String> =
        baseline.keys().chain(scan.findings_by_check.keys()).filter(|id| !timed(id)).collect();
    let differences: Vec<String> = ids
        .into_iter()
        .filter_map(|id| {
            let (was, now) = (baseline.get(id).copied().unwrap_or(0), scan.findings_by_check.get(id).copied().unwrap_or(0));
            (was != now).then(|| format!("{id}: {was} -> {now}"))
        })
        .collect();
    if differences.is_empty() {
        println!("throughput: findings by check id match bench/findings-baseline.json");
    } else {
        report.problem(format!("findings differ from bench/findings-baseline.json: {}", differences.join(", ")));
    }
}
