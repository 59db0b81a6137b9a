//! `make bench-scale`: the planners of a sitescan fleet against N sites on one PostgreSQL, by
//! simulation. Everything is the product's own code (the store, the migrations, `add_schedule`,
//! the `Scheduler` each `serve` runs) except that no browser scans anything: the question is how
//! the planners keep up when every schedule of N sites is due in the same minute (the 3 a.m.
//! rush), what an idle tick costs as N grows, and whether a one-hour outage gives exactly one
//! catch-up scan per schedule.
//!
//! ```text
//! cargo run --release --example scale -- --sites 10000,100000 --planners 2
//! cargo run --release --example scale -- --findings 10000,10000000
//! ```
//!
//! `--findings` measures the list endpoints over that many findings instead (`lists.rs`);
//! `--monitors N` and `--webhooks N` the probe and delivery rates of K instances (`rates.rs`,
//! `--latency-ms` per answer of the loopback site and receiver, default 50); `--queue N
//! --workers W[,W...]` how late N queued scans start with W worker loops whose browser work is
//! modelled (`workers.rs`: `--pages P --page-ms T --page-findings F`, default 5 pages of 400 ms
//! with 10 findings each); `--noisy N --workers W[,W...]` the noisy neighbour: organisation A
//! queues N scans at once, B queues ten one at a time while they drain, first come first served
//! against the fair claim (`workers.rs`).
//!
//! It drops and recreates the database `sitescan_scale` on the server of `--postgres` (default
//! `postgres://postgres@127.0.0.1:5432`). Each planner has a pool of its own, as a process would.

mod big_site;
mod lists;
mod rates;
mod workers;

use sitescan::model::{AddressPolicy, ScanMode};
use sitescan::recurring::schedule::Scheduler;
use sitescan_store::{Store, SystemClock};
use sea_orm::{ConnectionTrait, Statement};
use futures::stream::{self, StreamExt};
use std::sync::Arc;
use std::time::{Duration, Instant};

const ZONES: &[&str] = &["UTC", "Europe/Paris", "America/New_York", "Asia/Tokyo", "Australia/Sydney", "America/Sao_Paulo"];
const CRONS: &[&str] = &["0 3 * * *", "30 2 * * *", "0 * * * *", "15 */6 * * *", "0 4 * * 1", "45 1 * * *"];
const SITES_PER_ORG: usize = 100;

struct Args {
    sites: Vec<usize>,
    findings: Vec<usize>,
    monitors: Option<usize>,
    webhooks: Option<usize>,
    latency_ms: u64,
    queue: Option<usize>,
    noisy: Option<usize>,
    big_site: Option<usize>,
    one_loop_pages: Option<usize>,
    workers: Vec<usize>,
    pages: usize,
    page_ms: u64,
    page_findings: usize,
    planners: usize,
    postgres: String,
}

fn args() -> Args {
    let mut a = Args { sites: Vec::new(), findings: Vec::new(), monitors: None, webhooks: None, latency_ms: 50, queue: None, noisy: None, big_site: None, one_loop_pages: None, workers: vec![10, 40], pages: 5, page_ms: 400, page_findings: 10, planners: 2, postgres: "postgres://postgres@127.0.0.1:5432".into() };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_default();
        match flag.as_str() {
            "--sites" => a.sites = value.split(',').filter_map(|v| v.trim().parse().ok()).collect(),
            "--findings" => a.findings = value.split(',').filter_map(|v| v.trim().parse().ok()).collect(),
            "--monitors" => a.monitors = value.parse().ok(),
            "--webhooks" => a.webhooks = value.parse().ok(),
            "--latency-ms" => a.latency_ms = value.parse().unwrap_or(50),
            "--queue" => a.queue = value.parse().ok(),
            "--noisy" => a.noisy = value.parse().ok(),
            "--big-site" => a.big_site = value.parse().ok(),
            "--one-loop-pages" => a.one_loop_pages = value.parse().ok(),
            "--workers" => a.workers = value.split(',').filter_map(|v| v.trim().parse().ok()).collect(),
            "--pages" => a.pages = value.parse().unwrap_or(5),
            "--page-ms" => a.page_ms = value.parse().unwrap_or(400),
            "--page-findings" => a.page_findings = value.parse().unwrap_or(10),
            "--planners" => a.planners = value.parse().unwrap_or(2),
            "--postgres" => a.postgres = value.trim_end_matches('/').to_string(),
            other => {
                eprintln!("unknown argument {other}; use --sites N[,N...] --planners K --postgres URL, or --findings N[,N...], or --monitors N / --webhooks N [--latency-ms L], or --queue N / --noisy N --workers W[,W...] [--pages P --page-ms T --page-findings F], or --big-site N --workers W[,W...] [--page-ms T --one-loop-pages P]");
                std::process::exit(2);
            }
        }
    }
    if a.sites.is_empty() && a.findings.is_empty() && a.monitors.is_none() && a.webhooks.is_none() && a.queue.is_none() && a.noisy.is_none() && a.big_site.is_none() {
        a.sites = vec![10_000];
    }
    a
}

async fn exec(store: &Store, sql: &str) -> anyhow::Result<()> {
    store.conn().execute_raw(Statement::from_string(store.backend(), sql.to_string())).await?;
    Ok(())
}

async fn count(store: &Store, sql: &str) -> anyhow::Result<i64> {
    let row = store.conn().query_one_raw(Statement::from_string(store.backend(), sql.to_string())).await?.ok_or_else(|| anyhow::anyhow!("no row"))?;
    Ok(row.try_get_by_index::<i64>(0)?)
}

async fn fresh_database(server: &str) -> anyhow::Result<String> {
    let admin = sea_orm::Database::connect(format!("{server}/postgres")).await?;
    admin.execute_unprepared("DROP DATABASE IF EXISTS sitescan_scale WITH (FORCE)").await?;
    admin.execute_unprepared("CREATE DATABASE sitescan_scale").await?;
    admin.close().await?;
    Ok(format!("{server}/sitescan_scale"))
}

/// N sites, each with a schedule (varied cron expressions and zones), through the store.
async fn seed(store: &Store, n: usize) -> anyhow::Result<Duration> {
    let began = Instant::now();
    for org in 0..n.div_ceil(SITES_PER_ORG) {
        store.set_org(&format!("org-{org}"), Some(10_000_000)).await?;
    }
    let results: Vec<anyhow::Result<()>> = stream::iter(0..n)
        .map(|i| async move {
            let org = format!("org-{}", i / SITES_PER_ORG);
            let origin = format!("https://site-{i}.scale.test");
            store.add_site(&org, &origin, &format!("site-{i}.scale.test"), "scale-token-0123456789abcdef", "scale", 1).await?;
            let (cron, zone) = (CRONS[i % CRONS.len()], ZONES[i % ZONES.len()]);
            sitescan::recurring::add_schedule(store, &org, &origin, cron, Some(zone), ScanMode::Passive, None, 1).await?;
            Ok(())
        })
        .buffer_unordered(16)
        .collect()
        .await;
    for r in results {
        r?;
    }
    Ok(began.elapsed())
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

struct Rush {
    planned_in: Duration,
    created: i64,
    duplicates: i64,
    p50_s: f64,
    p99_s: f64,
}

/// Every schedule due at once; K planners (pools of their own) tick as `serve` does until every
/// scan exists.
async fn rush(url: &str, planners: usize, n: usize, due_offset_us: i64) -> anyhow::Result<Rush> {
    let admin = Store::open(url, false).await?;
    exec(&admin, "DELETE FROM schedule_runs").await?;
    exec(&admin, "DELETE FROM scans").await?;
    let t0 = sitescan_store::time::now_us();
    exec(&admin, &format!("UPDATE schedules SET next_due_at = {}, claimed_until = NULL, last_due_at = NULL", t0 - due_offset_us)).await?;
    let began = Instant::now();
    let stop = tokio_util::sync::CancellationToken::new();
    let mut handles = Vec::new();
    for _ in 0..planners {
        let scheduler = Scheduler { store: Store::open(url, false).await?, clock: Arc::new(SystemClock), policy: AddressPolicy::new(vec![]) };
        handles.push(scheduler.spawn(sitescan::recurring::schedule::DEFAULT_TICK, stop.clone()));
    }
    let deadline = Instant::now() + Duration::from_secs(3600);
    let mut created = 0;
    while Instant::now() < deadline {
        created = count(&admin, "SELECT COUNT(*) FROM scans").await?;
        if created >= n as i64 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let planned_in = began.elapsed();
    // A few more ticks: nothing may be created twice.
    tokio::time::sleep(sitescan::recurring::schedule::DEFAULT_TICK * 2).await;
    stop.cancel();
    for h in handles {
        let _ = h.await;
    }
    let created_total = count(&admin, "SELECT COUNT(*) FROM scans").await?;
    let distinct = count(&admin, "SELECT COUNT(DISTINCT site_id) FROM scans").await?;
    let rows = admin.conn().query_all_raw(Statement::from_string(admin.backend(), "SELECT created_at FROM scans".to_string())).await?;
    let mut lateness: Vec<f64> = rows.iter().filter_map(|r| r.try_get_by_index::<i64>(0).ok()).map(|c| (c - t0) as f64 / 1e6).collect();
    lateness.sort_by(f64::total_cmp);
    Ok(Rush { planned_in, created: created.min(created_total), duplicates: created_total - distinct, p50_s: percentile(&lateness, 0.5), p99_s: percentile(&lateness, 0.99) })
}

/// What a tick costs when nothing is due (the planner's standing cost per N).
async fn idle_tick(url: &str) -> anyhow::Result<Duration> {
    let store = Store::open(url, false).await?;
    exec(&store, &format!("UPDATE schedules SET next_due_at = {}", sitescan_store::time::now_us() + 3_600_000_000)).await?;
    // As autovacuum leaves it in a running fleet: the rushes' dead row versions gone, statistics
    // current (without this, an idle tick walks every dead index entry of the last rush).
    exec(&store, "VACUUM ANALYZE schedules").await?;
    let scheduler = Scheduler { store, clock: Arc::new(SystemClock), policy: AddressPolicy::new(vec![]) };
    scheduler.run_once().await?;
    let began = Instant::now();
    const TICKS: u32 = 50;
    for _ in 0..TICKS {
        scheduler.run_once().await?;
    }
    Ok(began.elapsed() / TICKS)
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> anyhow::Result<()> {
    let args = args();
    if !args.findings.is_empty() {
        let mut runs = Vec::new();
        for &f in &args.findings {
            let url = fresh_database(&args.postgres).await?;
            let run = lists::measure(&url, f).await?;
            eprintln!("{f} findings seeded in {:.0} s; the findings table and its indexes: {:.1} MiB", run.seeded_in.as_secs_f64(), run.table_bytes as f64 / 1048576.0);
            runs.push(run);
        }
        let head: Vec<String> = runs.iter().map(|r| format!("{} findings: p50 / p99 (ms)", r.findings)).collect();
        println!("| request | {} |{}", head.join(" | "), if runs.len() > 1 { " largest over smallest: p50 / p99 |" } else { "" });
        println!("|---|{}{}", "---|".repeat(runs.len()), if runs.len() > 1 { "---|" } else { "" });
        for (i, (name, ..)) in runs[0].timings.iter().enumerate() {
            let cells: Vec<String> = runs.iter().map(|r| format!("{:.1} / {:.1} ({} rows)", r.timings[i].1, r.timings[i].2, r.timings[i].3)).collect();
            let ratio = match (runs.first(), runs.last()) {
                (Some(a), Some(b)) if runs.len() > 1 => format!(" {:.2}x / {:.2}x |", b.timings[i].1 / a.timings[i].1, b.timings[i].2 / a.timings[i].2),
                _ => String::new(),
            };
            println!("| {name} | {} |{ratio}", cells.join(" | "));
        }
        for r in &runs {
            println!("\n{} findings: the table with its indexes {:.1} MiB ({:.0} bytes a finding, {:.2} GiB per million)", r.findings, r.table_bytes as f64 / 1048576.0, r.table_bytes as f64 / r.findings as f64, r.table_bytes as f64 / r.findings as f64 * 1e6 / 1073741824.0);
        }
    }
    let latency = Duration::from_millis(args.latency_ms);
    let mut rates = Vec::new();
    if let Some(n) = args.monitors {
        rates.push(rates::monitors(&fresh_database(&args.postgres).await?, n, args.planners, latency).await?);
    }
    if let Some(n) = args.webhooks {
        rates.push(rates::webhooks(&fresh_database(&args.postgres).await?, (n / 10).max(1), n, args.planners, latency).await?);
    }
    if !rates.is_empty() {
        println!("| work | items | instances | answer latency | took | done | per minute | duplicates |");
        println!("|---|---|---|---|---|---|---|---|");
        for r in &rates {
            println!(
                "| {} | {} | {} | {} ms | {:.1} s | {} | {:.0} | {} |",
                r.what,
                r.items,
                args.planners,
                args.latency_ms,
                r.took.as_secs_f64(),
                r.done,
                r.per_minute(),
                r.duplicates
            );
        }
    }
    if let Some(n) = args.queue {
        println!("| queued scans | worker loops | a scan (modelled) | all done in | start p50 | start p99 | completed | findings written |");
        println!("|---|---|---|---|---|---|---|---|");
        for &w in &args.workers {
            let model = workers::SimScanner { pages: args.pages, page_time: Duration::from_millis(args.page_ms), findings: args.page_findings };
            let r = workers::measure(&fresh_database(&args.postgres).await?, n, w, model).await?;
            println!(
                "| {} | {} | {} pages x {} ms, {} findings each | {:.1} s | {:.1} s | {:.1} s | {} | {} |",
                r.scans,
                r.workers,
                args.pages,
                args.page_ms,
                args.page_findings,
                r.drained_in.as_secs_f64(),
                r.start_p50_s,
                r.start_p99_s,
                r.completed,
                r.findings
            );
        }
    }
    if let Some(n) = args.noisy {
        println!("| A's backlog | worker loops | a scan (modelled) | claim order | B's scans | B's wait p50 | B's wait p99 | all done in | scans per minute |");
        println!("|---|---|---|---|---|---|---|---|---|");
        for &w in &args.workers {
            for fair in [false, true] {
                let model = workers::SimScanner { pages: args.pages, page_time: Duration::from_millis(args.page_ms), findings: args.page_findings };
                let r = workers::noisy_neighbour(&fresh_database(&args.postgres).await?, n, w, 10, fair, model).await?;
                println!(
                    "| {} | {} | {} pages x {} ms | {} | {} | {:.1} s | {:.1} s | {:.1} s | {:.0} |",
                    r.backlog,
                    r.workers,
                    args.pages,
                    args.page_ms,
                    if r.fair { "fair (sitescan)" } else { "first come, first served" },
                    r.b_scans,
                    r.b_wait_p50_s,
                    r.b_wait_p99_s,
                    r.drained_in.as_secs_f64(),
                    r.per_minute
                );
            }
        }
    }
    if let Some(n) = args.big_site {
        let page_time = Duration::from_millis(args.page_ms);
        println!("| site | worker loops | a page (modelled) | one loop killed half-way | scan took | against one loop | pages judged | distinct | most requests at once (host allows {}) | scan attempts |", big_site::HOST_CONCURRENCY);
        println!("|---|---|---|---|---|---|---|---|---|---|");
        let mut one_loop_per_page: Option<f64> = None;
        for &w in &args.workers {
            for kill in [false, true] {
                if kill && w < 2 {
                    continue;
                }
                // One loop on the whole site would take pages x page time; it is measured on a
                // part of the site and scaled to the whole (its pages take turns: linear).
                let pages = if w == 1 { args.one_loop_pages.unwrap_or(n).min(n) } else { n };
                let r = big_site::measure(&fresh_database(&args.postgres).await?, pages, page_time, w, kill).await?;
                let per_page = r.took.as_secs_f64() / r.pages as f64;
                let whole = per_page * n as f64;
                if w == 1 {
                    one_loop_per_page = Some(per_page);
                }
                let against = one_loop_per_page.map_or("-".to_string(), |p| format!("1/{:.1}", (p * n as f64) / whole));
                println!(
                    "| {} pages{} | {} | {} ms | {} | {:.1} s{} | {} | {} | {} | {} | {} |",
                    n,
                    if pages < n { format!(" (measured on {pages})") } else { String::new() },
                    w,
                    args.page_ms,
                    if r.killed { "yes" } else { "no" },
                    whole,
                    if pages < n { " (scaled)" } else { "" },
                    against,
                    r.judged,
                    r.distinct,
                    r.max_in_flight,
                    r.attempts
                );
            }
        }
    }
    if args.sites.is_empty() {
        return Ok(());
    }
    println!("| sites | planners | seeded in | rush: all scans created in | per minute | lateness p50 | p99 | duplicates | 1-hour outage: scans | idle tick |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for &n in &args.sites {
        let url = fresh_database(&args.postgres).await?;
        let store = Store::open(&url, true).await?;
        let seeded = seed(&store, n).await?;
        let r = rush(&url, args.planners, n, 0).await?;
        // Down for an hour: every schedule missed at least one due moment; one scan each.
        let outage = rush(&url, args.planners, n, 3_600_000_000).await?;
        let idle = idle_tick(&url).await?;
        let per_min = r.created as f64 / r.planned_in.as_secs_f64().max(0.001) * 60.0;
        println!(
            "| {n} | {} | {:.0} s | {:.1} s ({} of {n}) | {:.0} | {:.1} s | {:.1} s | {} | {} of {n}, {} twice | {:.1} ms |",
            args.planners,
            seeded.as_secs_f64(),
            r.planned_in.as_secs_f64(),
            r.created,
            per_min,
            r.p50_s,
            r.p99_s,
            r.duplicates,
            outage.created,
            outage.duplicates,
            idle.as_secs_f64() * 1000.0
        );
        store.close().await;
    }
    Ok(())
}
