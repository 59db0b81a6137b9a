//! One scan across worker processes, for real: the bench site scanned by `sitescan worker`
//! processes on one PostgreSQL database: one worker alone, its scan crawled in its memory
//! (`--share-pages false`), the same worker with the crawl in the store (`--share-pages true`,
//! the default), then two sharing the scan's pages. The scan's time is the store's (claimed to
//! completed), so the processes' start (Chromium's launch) is not counted; findings are
//! compared by check id, page and selector, and each worker's share is read off its log.

use crate::api::Db;
use crate::report::Report;
use crate::runners::Ctx;
use sitescan::model::{AddressPolicy, ScanMode, ScanStatus, Target, TriggeredBy};
use sitescan_store::{CreateOutcome, Store};
use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::process::Command;

const B: &str = "fleet";
const ORG: &str = "bench";

/// One run: the scan's seconds, its findings by key, its pages and each worker's pages.
struct FleetRun {
    seconds: f64,
    pages: usize,
    findings: BTreeMap<String, usize>,
    shares: Vec<usize>,
}

pub async fn run(ctx: &Ctx, start: &str, pages: usize, postgres: Option<&str>, report: &mut Report) {
    let mut runs = Vec::new();
    for (label, workers, share) in [("one worker", 1usize, false), ("one worker, its pages in the store", 1, true), ("two workers sharing its pages", 2, true)] {
        match run_one(ctx, start, pages, postgres, workers, share).await {
            Ok(r) => {
                println!("fleet: {label}: {:.1} s, {} pages, shares {:?}", r.seconds, r.pages, r.shares);
                runs.push((label, r));
            }
            Err(e) => {
                report.problem(format!("fleet: {label}: {e:#}"));
                return;
            }
        }
    }
    let [(_, one), (_, one_shared), (_, two)] = &runs[..] else { return };
    report.row(B, "one scan, 1 worker process: scan time", one.seconds, "s");
    let row = report.row(B, "one scan, 1 worker process, its pages in the store: scan time", one_shared.seconds, "s");
    row.note = Some(format!("{:.2}x the scan in the worker's memory: what the shared frontier costs", one_shared.seconds / one.seconds));
    let ratio = two.seconds / one.seconds;
    let row = report.row(B, "one scan, 2 worker processes sharing its pages: scan time", two.seconds, "s");
    row.target = Some("<= 1.10x one worker".into());
    row.met = Some(ratio <= 1.10);
    row.note = Some(format!("{ratio:.2}x one worker on this {}-core machine (CPU-bound)", num_cpus()));
    let row = report.row(B, "pages judged by the second worker", two.shares.iter().copied().min().unwrap_or(0) as f64, "pages");
    row.target = Some("> 0 (the work is split)".into());
    row.met = Some(two.shares.len() == 2 && two.shares.iter().all(|n| *n > 0));
    row.note = Some(format!("shares {:?} of {} pages", two.shares, two.pages));
    let differences: usize = one
        .findings
        .iter()
        .map(|(k, n)| two.findings.get(k).map_or(*n, |m| n.abs_diff(*m)))
        .sum::<usize>()
        + two.findings.iter().filter(|(k, _)| !one.findings.contains_key(*k)).map(|(_, n)| n).sum::<usize>();
    let row = report.row(B, "finding differences, 2 workers against 1 (check, page, selector)", differences as f64, "findings");
    row.target = Some("0".into());
    let same_alone = one.findings == one_shared.findings && one.pages == one_shared.pages;
    row.met = Some(differences == 0 && one.pages == two.pages && same_alone);
    if !same_alone {
        report.problem("fleet changed the findings: one worker with its pages in the store found other findings than in its memory".into());
    }
    if differences > 0 || one.pages != two.pages {
        report.problem(format!("fleet changed the findings: two workers found {differences} other than one worker's ({} and {} pages)", two.pages, one.pages));
    }
}

fn num_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

async fn run_one(ctx: &Ctx, start: &str, pages: usize, postgres: Option<&str>, workers: usize, share: bool) -> anyhow::Result<FleetRun> {
    let db = Db::create("postgresql", ctx, postgres).await?;
    let result = scan_with(ctx, &db.url, start, pages, workers, share).await;
    db.drop_db().await;
    result
}

async fn scan_with(ctx: &Ctx, url: &str, start: &str, pages: usize, workers: usize, share: bool) -> anyhow::Result<FleetRun> {
    let store = Store::open(url, true).await?;
    store.set_org(ORG, None).await?;
    let target = Target::parse(start, &AddressPolicy::new(vec!["127.0.0.1/32".parse()?]))?;
    let scan = match store.create_scan(ORG, &target, ScanMode::Passive, TriggeredBy::Api, Some(pages as i32)).await? {
        CreateOutcome::Created(row) => row,
        CreateOutcome::QuotaExceeded(q) => anyhow::bail!("quota: {q:?}"),
    };
    let mut children = Vec::new();
    let mut logs = Vec::new();
    for w in 0..workers {
        let log = ctx.work.join(format!("fleet-{workers}-{w}.log"));
        let file = std::fs::File::create(&log)?;
        let mut cmd = Command::new(&ctx.sitescan);
        cmd.args(["worker", "--database", url, "--allow-target", "127.0.0.1/32", "--workers", "1"])
            .args(["--max-pages", &pages.to_string(), "--chromium"])
            .arg(&ctx.chromium)
            .env("RUST_LOG", "info,sqlx=warn,sea_orm=warn,chromiumoxide=off")
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(file)
            .kill_on_drop(true);
        cmd.args(["--share-pages", if share { "true" } else { "false" }]);
        children.push(cmd.spawn()?);
        logs.push(log);
    }
    let began = Instant::now();
    let row = loop {
        let row = store.scan_any_org(scan.id).await?.ok_or_else(|| anyhow::anyhow!("the scan vanished"))?;
        if matches!(row.status, ScanStatus::Completed | ScanStatus::Failed) {
            break row;
        }
        anyhow::ensure!(began.elapsed() < Duration::from_secs(900), "the scan did not finish in 15 minutes");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    for child in &mut children {
        if let Some(pid) = child.id() {
            // SAFETY: kill(2) on our own child's pid.
            unsafe { libc::kill(pid as i32, libc::SIGTERM) };
        }
    }
    for child in &mut children {
        let _ = tokio::time::timeout(Duration::from_secs(30), child.wait()).await;
    }
    anyhow::ensure!(row.status == ScanStatus::Completed, "the scan failed: {:?}", row.report);
    let seconds = (row.completed_at.unwrap_or(0) - row.started_at.unwrap_or(0)) as f64 / 1e6;
    let mut findings = BTreeMap::new();
    for f in store.scan_findings(scan.id).await? {
        let key = format!("{} {} {}", f.finding.check_id, f.finding.url().unwrap_or_default(), f.finding.selector().unwrap_or(""));
        *findings.entry(key).or_insert(0) += 1;
    }
    let pages_done = store.scan_pages(scan.id).await?.len();
    let texts: Vec<String> = logs.iter().map(|log| std::fs::read_to_string(log).unwrap_or_default()).collect();
    let shares = if workers == 1 { vec![pages_done] } else { shares_in_logs(&texts) };
    store.close().await;
    Ok(FleetRun { seconds, pages: pages_done, findings, shares })
}

/// Each worker's pages, from the logs: the scan's own worker names every worker's share when
/// its crawl drained (`shares=holder=N,...`), and each worker names itself when it starts
/// (`worker=holder`). A worker the line does not name judged none.
fn shares_in_logs(logs: &[String]) -> Vec<usize> {
    let field = |line: &str, name: &str| -> Option<String> { line.split_whitespace().find_map(|w| w.strip_prefix(name)).map(|v| v.trim_matches('"').to_string()) };
    let shares: BTreeMap<String, usize> = logs
        .iter()
        .flat_map(|log| log.lines())
        .filter(|l| l.contains("crawl drained"))
        .filter_map(|l| field(l, "shares="))
        .flat_map(|list| {
            list.split(',')
                .filter_map(|pair| pair.rsplit_once('=').and_then(|(by, n)| Some((by.to_string(), n.parse().ok()?))))
                .collect::<Vec<_>>()
        })
        .collect();
    logs.iter()
        .map(|log| {
            let me = log.lines().filter(|l| l.contains("worker started")).find_map(|l| field(l, "worker="));
            me.and_then(|me| shares.get(&me).copied()).unwrap_or(0)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::shares_in_logs;

    #[test]
    fn each_workers_share_is_read_from_the_owners_line() {
        let owner = "INFO sitescan::crawl::worker: worker started worker=h-1-0-aa\nINFO scan{...}: sitescan::crawl::shared_crawl: crawl drained; finishing the site pages=60 own=33 workers=2 shares=h-1-0-aa=33,h-2-0-bb=27\n";
        let helper = "INFO sitescan::crawl::worker: worker started worker=h-2-0-bb\n";
        let idle = "INFO sitescan::crawl::worker: worker started worker=h-3-0-cc\n";
        assert_eq!(shares_in_logs(&[owner.into(), helper.into(), idle.into()]), vec![33, 27, 0]);
    }
}
