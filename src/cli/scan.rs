//! `sitescan scan URL`: the same engine, in this process, its results kept in memory (no database); prints the report.

use super::Exit;
use super::args::{ReportFormat, ScanArgs};
use super::engine;
use crate::report as format;
use crate::model::{
    AddressPolicy, Change, JourneySecrets, JourneySpec, ReportSummary, ScanMode, ScanReport, ScanStatus, Severity, Target,
    parse_journey, validate_secrets,
};
use crate::net::{EgressGuard, Fetcher, FetcherOptions};
use crate::crawl::ScanError;
use crate::sites::{DnsServer, Verified, VerifyError, Verifier};
use crate::app::LocalScan;
use crate::crawl::{Outcome, Progress, ProgressFn};
use anyhow::Context;
use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

use crate::model::Budget;

pub async fn run(args: ScanArgs) -> anyhow::Result<Exit> {
    // The budget, journeys and secrets are read and validated before anything runs.
    let budget = match args.budget.as_deref().map(load_budget).transpose() {
        Ok(b) => b,
        Err(message) => {
            eprintln!("error: {message}");
            return Ok(Exit::Failed);
        }
    };
    let journeys = match load_journeys(&args.journeys, &args.secrets) {
        Ok(j) => j,
        Err(message) => {
            eprintln!("error: {message}");
            return Ok(Exit::Failed);
        }
    };
    let policy = AddressPolicy::new(args.policy.allow_target.clone());
    let target = match Target::parse(&args.url, &policy) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            if matches!(e, crate::model::TargetError::BlockedAddress { .. }) {
                eprintln!("hint: to scan a site on this address, pass --allow-target with its range (e.g. 127.0.0.1/32)");
            }
            return Ok(Exit::Failed);
        }
    };
    // Every journey stays on the target's origin and the origins it lists.
    for (spec, file) in journeys.iter().zip(&args.journeys) {
        if let Err(e) = spec.journey.check_origins(target.url().as_str()) {
            eprintln!("error: --journey {}: {e}", file.display());
            return Ok(Exit::Failed);
        }
    }
    let mut config = engine::worker_config(
        &super::args::WorkerPoolArgs { lease_seconds: 3600, max_attempts: 1, poll_ms: 100, max_running_per_org: 0, share_pages: false },
        &args.crawl,
        &args.browser,
        // Ownership is proved below, moments before the scan runs in this process.
        crate::crawl::worker::Ownership::ProvedByCaller(None),
    )?;
    config.options.probe_budget = args.probe_budget;
    if let Some(file) = args.cache.as_ref().filter(|_| args.browser.shares()) {
        match crate::app::local::region_cache_file(file).await {
            Ok(cache) => config.options.region_cache = Some(cache),
            Err(e) => {
                eprintln!("error: --cache {}: {e}", file.display());
                return Ok(Exit::Failed);
            }
        }
    }
    config.options.journeys = journeys;
    // The folder is made before the scan, so a bad path fails before anything runs.
    if let Some(dir) = &args.screenshots
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        eprintln!("error: --screenshots {}: {e}", dir.display());
        return Ok(Exit::Failed);
    }
    let mode = if args.active { ScanMode::Active } else { ScanMode::Passive };
    let scan = LocalScan::create(&target, mode, args.crawl.max_pages);
    if args.active {
        let token = args.verification_token.clone().unwrap_or_default();
        match verify_ownership(&target, &token, args.policy.dns_server, &policy).await? {
            Err(e) => {
                let error = ScanError::OwnershipUnverified(e.to_string());
                eprintln!("error: {error}");
                let summary = ReportSummary::failed_in(ScanMode::Active, error.code(), &error.to_string());
                scan.fail(summary);
                return write_report(&scan, &args, budget.as_ref()).await;
            }
            // The probes and journeys connect only where ownership was just proved.
            Ok(verified) => {
                let recheck = CliRecheck { target: target.url().clone(), token, dns: args.policy.dns_server, policy: policy.clone() };
                config.ownership = crate::crawl::worker::Ownership::ProvedByCaller(Some(crate::crawl::OwnershipPin {
                    host: verified.host,
                    addrs: verified.addresses,
                    recheck: Arc::new(recheck),
                }));
            }
        }
    }
    // One page, no journey, and nothing kept for the next scan: no other page can be given back
    // what this page's regions got, so they are not fingerprinted (the findings are the same).
    let alone = args.crawl.max_pages == 1 && args.cache.is_none() && config.options.journeys.is_empty();
    let browser = super::args::BrowserArgs { no_share: args.browser.no_share || alone, ..args.browser.clone() };
    let scanner = engine::scanner(&browser, policy).await?;

    let bar = (!args.quiet && std::io::stderr().is_terminal()).then(|| progress_bar(args.crawl.max_pages));
    let progress: Option<ProgressFn> = bar.clone().map(|bar| {
        Arc::new(move |p: Progress| match p {
            Progress::PageStarted { url, .. } => bar.set_message(url),
            Progress::PageDone { done, found, .. } => {
                bar.set_length(found as u64);
                bar.set_position(done as u64);
            }
            Progress::Phase(crate::model::ScanPhase::Crawling) => {}
            Progress::Phase(phase) => bar.set_message(phase.label().to_lowercase()),
        }) as ProgressFn
    });
    let cancel = CancellationToken::new();
    let ctrl_c = {
        let cancel = cancel.clone();
        let shutdown = super::signals::Shutdown::listen();
        tokio::spawn(async move {
            shutdown.wait().await;
            cancel.cancel();
        })
    };
    let outcome = scan.run(scanner.as_ref(), &config, &cancel, progress).await;
    ctrl_c.abort();
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    scanner.pool().shutdown().await;
    if let Some(cache) = config.options.region_cache.take() {
        cache.close().await;
    }
    let outcome = outcome?;
    if matches!(outcome, Outcome::Interrupted) {
        eprintln!("scan interrupted");
        return Ok(Exit::Failed);
    }
    if let Some(dir) = &args.screenshots {
        write_screenshots(&scan, dir)?;
    }

    write_report(&scan, &args, budget.as_ref()).await
}

/// Reads `--secret NAME=@FILE` values and `--journey FILE`s; every journey must parse and name
/// only secrets given. The error names the file, and the step and field (never a secret value).
pub fn load_journeys(files: &[std::path::PathBuf], secrets: &[String]) -> Result<Vec<JourneySpec>, String> {
    let mut all = JourneySecrets::new();
    for arg in secrets {
        let Some((name, source)) = arg.split_once('=') else {
            // Never echo the argument: it may be the secret itself.
            return Err("--secret: expected NAME=@FILE".to_string());
        };
        let name = crate::model::SecretName::parse(name).map_err(|e| format!("--secret: {e} (NAME=@FILE)"))?;
        let Some(path) = source.strip_prefix('@') else {
            return Err(format!("--secret {name}: give the value in a file, NAME=@FILE (never on the command line)"));
        };
        let mut value = std::fs::read_to_string(path).map_err(|e| format!("--secret {name}: cannot read {path}: {e}"))?;
        if value.ends_with('\n') {
            value.pop();
            if value.ends_with('\r') {
                value.pop();
            }
        }
        if value.is_empty() {
            return Err(format!("--secret {name}: {path} is empty"));
        }
        all.insert(name.into_string(), value);
    }
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("--journey {}: {e}", file.display()))?;
        let journey = parse_journey(&text).map_err(|e| format!("--journey {}: {e}", file.display()))?;
        let needed = journey.secret_names();
        validate_secrets(&journey, &all.names()).map_err(|e| format!("--journey {}: {e}", file.display()))?;
        out.push(JourneySpec { journey, secrets: all.only(&needed) });
    }
    Ok(out)
}

/// Proves the one-shot scan's ownership again at the pinned addresses, before the probes.
struct CliRecheck {
    target: url::Url,
    token: String,
    dns: Option<std::net::SocketAddr>,
    policy: AddressPolicy,
}

#[async_trait::async_trait]
impl crate::crawl::OwnershipRecheck for CliRecheck {
    async fn recheck(&self, addrs: &[std::net::IpAddr]) -> Result<(), String> {
        let fetcher = Fetcher::new(Arc::new(EgressGuard::new(self.policy.clone())), FetcherOptions::default()).map_err(|e| e.to_string())?;
        let dns = self.dns.map_or(DnsServer::System, DnsServer::At);
        Verifier::new(Arc::new(fetcher), dns).verify_at(&self.target, &self.token, addrs).await.map(|_| ()).map_err(|e| e.to_string())
    }
}

/// Proves ownership of the target's site by the file, meta tag or DNS method (outer `Err` only
/// when the check itself cannot be set up).
async fn verify_ownership(
    target: &Target,
    token: &str,
    dns_server: Option<std::net::SocketAddr>,
    policy: &AddressPolicy,
) -> anyhow::Result<Result<Verified, VerifyError>> {
    let fetcher = Fetcher::new(Arc::new(EgressGuard::new(policy.clone())), FetcherOptions::default()).context("building the HTTP fetcher")?;
    let dns = dns_server.map_or(DnsServer::System, DnsServer::At);
    let verified = Verifier::new(Arc::new(fetcher), dns).verify(target.url(), token).await;
    if let Ok(v) = &verified {
        tracing::info!(method = v.method.as_str(), proof = %v.proof, "ownership verified");
    }
    Ok(verified)
}

/// Renders the scan's report in the chosen format to stdout or `--output`; the exit status.
/// Reads and checks `--budget FILE` (JSON or YAML), naming every broken assertion.
pub fn load_budget(path: &std::path::Path) -> Result<Budget, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("--budget {}: {e}", path.display()))?;
    Budget::parse(&text, &|id| crate::checks::registry::find(id).is_some())
        .map_err(|errors| format!("--budget {}: {}", path.display(), errors.join("; ")))
}

async fn write_report(scan: &LocalScan, args: &ScanArgs, budget: Option<&Budget>) -> anyhow::Result<Exit> {
    let mut report = scan.report();
    if let Some(path) = &args.baseline {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading the baseline {}", path.display()))?;
        let baseline: serde_json::Value =
            serde_json::from_str(&text).with_context(|| format!("the baseline {} is not JSON", path.display()))?;
        crate::compare::annotate_report(&mut report, &baseline)
            .map_err(|e| anyhow::anyhow!("the baseline {}: {e}", path.display()))?;
    }
    // Judged after the baseline, so `new-findings` counts what the comparison calls new.
    let verdict = budget.map(|b| b.judge(report.findings(), report.pages()));
    if let (Some(verdict), Some(r)) = (&verdict, report.report.as_mut()) {
        r.summary.budget = Some(verdict.clone());
    }
    let rendered = match args.format {
        ReportFormat::Json => serde_json::to_string_pretty(&report.to_body())? + "\n",
        ReportFormat::Text => {
            let color = args.output.is_none() && std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            format::text::render(&report, color)
        }
        ReportFormat::Sarif => format::sarif::render(&report)?,
        ReportFormat::Junit => format::junit::render(&report, args.fail_on)?,
        ReportFormat::Html => format::html::render(&report)?,
        ReportFormat::Gitlab => format::gitlab::render(&report)?,
    };
    match &args.output {
        Some(path) => std::fs::write(path, rendered).with_context(|| format!("writing {}", path.display()))?,
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(rendered.as_bytes())?;
            out.flush()?;
        }
    }
    if let Some(verdict) = verdict.as_ref().filter(|v| !v.passed) {
        for a in verdict.failed() {
            eprintln!("budget failed: {}", a.message);
        }
    }
    let findings = match args.fail_on_new {
        Some(threshold) => exit_status_new(&report, threshold),
        None => exit_status(&report, args.fail_on),
    };
    let exit = match (findings, verdict) {
        (Exit::Clean, Some(v)) if !v.passed => Exit::Findings,
        (exit, _) => exit,
    };
    // Findings decide first (1); a clean result from an incomplete scan is no clean bill.
    let incomplete = report.scan.status == ScanStatus::Completed && report.summary().is_some_and(|s| s.incomplete());
    if incomplete && let Some(gaps) = report.summary().and_then(|s| s.checks_not_run.as_ref()) {
        eprintln!("incomplete: {}", gaps.headline());
    }
    Ok(match exit {
        Exit::Clean if incomplete && !args.allow_incomplete => Exit::Incomplete,
        exit => exit,
    })
}

/// 2 when the scan failed, 1 when a finding marked `new` is at or above `threshold`, else 0.
pub fn exit_status_new(report: &ScanReport, threshold: Severity) -> Exit {
    if report.scan.status == ScanStatus::Failed {
        return Exit::Failed;
    }
    let failing = report.findings().iter().any(|f| f.change != Some(Change::Persisting) && f.finding.severity >= threshold);
    if failing { Exit::Findings } else { Exit::Clean }
}

/// 2 when the scan failed, 1 when a finding is at or above `fail_on`, else 0.
pub fn exit_status(report: &ScanReport, fail_on: Option<Severity>) -> Exit {
    if report.scan.status == ScanStatus::Failed {
        return Exit::Failed;
    }
    let Some(threshold) = fail_on else { return Exit::Clean };
    let failing = report.findings().iter().any(|f| f.finding.severity >= threshold);
    if failing { Exit::Findings } else { Exit::Clean }
}

fn progress_bar(budget: usize) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(budget as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} [{elapsed_precise}] {pos}/{len} pages  {wide_msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

/// Writes the scan's journey screenshots to `dir` as
/// `<journey>-step<N>-<name>.png`.
fn write_screenshots(scan: &LocalScan, dir: &std::path::Path) -> anyhow::Result<()> {
    for (journey, step, name, png) in scan.screenshots() {
        let file = dir.join(screenshot_file_name(&journey, step, &name));
        std::fs::write(&file, png).with_context(|| format!("--screenshots: writing {}", file.display()))?;
    }
    Ok(())
}

/// `sign in`, step 3, `after login` -> `sign-in-step3-after-login.png` (names reduced to
/// letters, digits, `.`, `_` and `-`, so no name leaves the folder).
pub fn screenshot_file_name(journey: &str, step: i32, name: &str) -> String {
    let slug = |s: &str| {
        let kept: String = s.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '-' }).collect();
        let trimmed = kept.trim_matches(|c| c == '-' || c == '.').to_string();
        if trimmed.is_empty() { "x".to_string() } else { trimmed.chars().take(60).collect() }
    };
    format!("{}-step{step}-{}.png", slug(journey), slug(name))
}

#[cfg(test)]
mod screenshot_names {
    use super::screenshot_file_name;

    #[test]
    fn screenshot_files_are_named_by_journey_step_and_name() {
        assert_eq!(screenshot_file_name("sign in", 3, "after login"), "sign-in-step3-after-login.png");
        assert_eq!(screenshot_file_name("../../etc", 0, "pass/wd"), "etc-step0-pass-wd.png", "no path escapes the folder");
        assert_eq!(screenshot_file_name("", 1, "..."), "x-step1-x.png");
    }
}
