//! API latency: `sitescan serve --no-workers` (rate limits lifted) on SQLite and PostgreSQL,
//! with findings seeded through the store layer in big transactions; GET /api/v1/scans/{id},
//! GET /api/v1/findings (first page and a page deep in the table) over REST and over gRPC.

use crate::proc::terminate;
use crate::report::{percentile, Report};
use crate::runners::{Ctx, tail};
use sea_orm::{ConnectionTrait, Database};
use serde::Serialize;
use serde_json::{Value, json};
use sitescan::model::{AddressPolicy, Finding, ScanMode, Severity, Target, TriggeredBy};
use sitescan::proto::v1 as pb;
use sitescan::proto::v1::scan_service_client::ScanServiceClient;
use sitescan::model::ReportPage;
use sitescan_store::{CreateOutcome, CursorKind, Position, Store};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::process::Command;
use uuid::Uuid;

const ORG: &str = "bench";
/// Findings per seeding transaction (one `insert_findings` call: one transaction, INSERTs of
/// 500 rows).
const SEED_BATCH: usize = 10_000;

#[derive(Debug, Clone)]
pub struct ApiOptions {
    pub sizes: Vec<usize>,
    pub requests: usize,
    pub concurrency: usize,
    pub postgres: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Latency {
    pub backend: String,
    pub findings: usize,
    pub call: String,
    pub transport: String,
    pub n: usize,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub mean_ms: f64,
    /// Sequential, one connection.
    pub seq_rps: f64,
    /// `concurrency` requests in flight.
    pub conc_rps: f64,
    pub errors: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Seeding {
    pub backend: String,
    pub findings: usize,
    pub seconds: f64,
    pub rows_per_s: f64,
}

fn sample_findings(start: usize, n: usize) -> Vec<Finding> {
    let metas: Vec<_> = sitescan::checks::catalogue().collect();
    (start..start + n)
        .map(|i| {
            let meta = metas[i % metas.len()];
            let severity = [Severity::Critical, Severity::High, Severity::Medium, Severity::Low, Severity::Info][(i / 7) % 5];
            let mut evidence = serde_json::Map::new();
            evidence.insert("url".into(), Value::String(format!("https://bench.example/section-{}/page-{}", i % 40, i % 997)));
            evidence.insert("selector".into(), Value::String(format!("main > article > section:nth-of-type({}) > img", i % 12 + 1)));
            evidence.insert("snippet".into(), Value::String(format!("<img src=\"/img/photo-{}.png\" width=\"640\" height=\"400\">", i % 36)));
            Finding {
                check_id: meta.id.to_string(),
                severity,
                title: meta.title.to_string(),
                description: meta.description.to_string(),
                remediation: meta.remediation.to_string(),
                cwe_id: meta.cwe_id.map(str::to_string),
                evidence,
                ..Default::default()
            }
        })
        .collect()
}

/// A database of its own: a temp SQLite file, or a PostgreSQL database created for the bench.
pub(crate) struct Db {
    pub(crate) url: String,
    admin: Option<(String, String)>,
    _dir: Option<tempfile::TempDir>,
}

impl Db {
    pub(crate) async fn create(backend: &str, ctx: &Ctx, postgres: Option<&str>) -> anyhow::Result<Db> {
        if backend == "sqlite" {
            let dir = tempfile::tempdir_in(&ctx.work)?;
            let url = format!("sqlite://{}?mode=rwc", dir.path().join("bench.db").display());
            return Ok(Db { url, admin: None, _dir: Some(dir) });
        }
        let admin_url = postgres.ok_or_else(|| anyhow::anyhow!("no PostgreSQL URL"))?.to_string();
        let name = format!("sitescan_bench_{}_{}", std::process::id(), uuid::Uuid::new_v4().simple());
        let admin = Database::connect(admin_url.as_str()).await?;
        admin.execute_unprepared(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await?;
        admin.execute_unprepared(&format!("CREATE DATABASE {name}")).await?;
        let _ = admin.close().await;
        let mut url = url::Url::parse(&admin_url)?;
        url.set_path(&format!("/{name}"));
        Ok(Db { url: url.to_string(), admin: Some((admin_url, name)), _dir: None })
    }

    pub(crate) async fn drop_db(&self) {
        if let Some((admin_url, name)) = &self.admin
            && let Ok(admin) = Database::connect(admin_url.as_str()).await
        {
            let _ = admin.execute_unprepared(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await;
            let _ = admin.close().await;
        }
    }
}

/// The scan GET /api/v1/scans/{id} reads: completed, with a report, 10 pages, 200 findings.
async fn seed_target_scan(store: &Store) -> anyhow::Result<Uuid> {
    let target = Target::parse("https://bench.example/", &AddressPolicy::default())?;
    let row = match store.create_scan(ORG, &target, ScanMode::Passive, TriggeredBy::Api, Some(50)).await? {
        CreateOutcome::Created(r) => r,
        CreateOutcome::QuotaExceeded(q) => anyhow::bail!("quota: {q:?}"),
    };
    let owner = "bench-seeder";
    let claimed = store.claim_scan(owner, Duration::from_secs(3600), 1).await?.ok_or_else(|| anyhow::anyhow!("nothing to claim"))?;
    anyhow::ensure!(claimed.id == row.id, "claimed another scan");
    let mut summary = sitescan::model::ReportSummary::empty();
    for p in 0..10 {
        let findings = sample_findings(p * 20, 20);
        for f in &findings {
            summary.count(&f.check_id, f.severity, 1);
        }
        let page = ReportPage {
            url: format!("https://bench.example/page-{p}"),
            final_url: Some(format!("https://bench.example/page-{p}")),
            status: Some(200),
            title: Some(format!("Page {p}")),
            metrics: json!({"ttfb_ms": 42.0, "fcp_ms": 180.0, "lcp_ms": 420.0, "cls": 0.01, "tbt_ms": 30.0, "transfer_bytes": 512000, "requests": 24}),
            error: None,
            checks_not_run: Vec::new(),
        };
        store.insert_page_results(row.id, ORG, p as i32 + 1, &page, &findings).await?;
    }
    summary.pages_scanned = 10;
    summary.duration_ms = 8400;
    anyhow::ensure!(store.complete_scan(row.id, owner, &sitescan::model::StoredReport::of(summary.clone())).await?, "complete_scan refused");
    Ok(row.id)
}

/// Adds findings until the organisation has `total`, `SEED_BATCH` per transaction, each batch on
/// a scan of its own.
async fn seed_to(store: &Store, have: usize, total: usize) -> anyhow::Result<usize> {
    let target = Target::parse("https://bench.example/", &AddressPolicy::default())?;
    let mut have = have;
    while have < total {
        let n = SEED_BATCH.min(total - have);
        let scan = match store.create_scan(ORG, &target, ScanMode::Passive, TriggeredBy::Api, None).await? {
            CreateOutcome::Created(r) => r,
            CreateOutcome::QuotaExceeded(q) => anyhow::bail!("quota: {q:?}"),
        };
        let findings = sample_findings(have, n);
        store.insert_findings(scan.id, ORG, &findings).await?;
        have += n;
    }
    Ok(have)
}

/// Fresh planner statistics after a bulk load (what autovacuum would do a little later).
async fn analyze(store: &Store) {
    if let Err(e) = store.conn().execute_unprepared("ANALYZE").await {
        eprintln!("ANALYZE failed: {e}");
    }
}

/// A cursor pointing `fraction` of the way into the organisation's findings (newest first).
async fn deep_cursor(store: &Store, total: usize, fraction: f64) -> anyhow::Result<String> {
    let offset = ((total as f64 * fraction) as i64).max(1);
    let stmt = store.stmt(
        "SELECT created_at, id FROM findings WHERE org_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET $2",
        vec![ORG.into(), offset.into()],
    );
    let row = store.conn().query_one_raw(stmt).await?.ok_or_else(|| anyhow::anyhow!("no row at offset {offset}"))?;
    let created_at: i64 = row.try_get("", "created_at")?;
    let id: Uuid = row.try_get("", "id")?;
    Ok(store.cursors().encode(CursorKind::Findings, Position { created_at, id }))
}

fn free_port() -> anyhow::Result<u16> {
    let l = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(l.local_addr()?.port())
}

async fn start_server(ctx: &Ctx, db_url: &str) -> anyhow::Result<(tokio::process::Child, String)> {
    let port = free_port()?;
    let listen = format!("127.0.0.1:{port}");
    let log = ctx.work.join(format!("serve-{port}.log"));
    let mut cmd = Command::new(&ctx.sitescan);
    cmd.args(["serve", "--no-workers", "--listen", &listen, "--database", db_url])
        .args(["--rate-limit-per-second", "1000000000", "--rate-limit-per-minute", "1000000000"])
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(std::fs::File::create(&log)?))
        .kill_on_drop(true);
    let mut child = cmd.spawn()?;
    let base = format!("http://{listen}");
    let http = reqwest::Client::new();
    let started = Instant::now();
    loop {
        if let Ok(r) = http.get(format!("{base}/readyz")).send().await
            && r.status().is_success()
        {
            return Ok((child, base));
        }
        if let Ok(Some(status)) = child.try_wait() {
            let err = std::fs::read_to_string(&log).unwrap_or_default();
            anyhow::bail!("sitescan serve exited with {status}: {}", tail(&err, 1500));
        }
        if started.elapsed() > Duration::from_secs(60) {
            terminate(&mut child).await;
            anyhow::bail!("sitescan serve did not become ready in 60 s");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[derive(Clone)]
enum Call {
    GetScan(Uuid),
    ListFindings(Option<String>),
}

impl Call {
    fn name(&self) -> &'static str {
        match self {
            Call::GetScan(_) => "GET /api/v1/scans/{id}",
            Call::ListFindings(None) => "GET /api/v1/findings (first page)",
            Call::ListFindings(Some(_)) => "GET /api/v1/findings (cursor 90% deep)",
        }
    }
}

async fn rest_once(http: &reqwest::Client, base: &str, token: &str, call: &Call) -> bool {
    let url = match call {
        Call::GetScan(id) => format!("{base}/api/v1/scans/{id}"),
        Call::ListFindings(None) => format!("{base}/api/v1/findings"),
        Call::ListFindings(Some(c)) => format!("{base}/api/v1/findings?cursor={c}"),
    };
    match http.get(url).bearer_auth(token).send().await {
        Ok(r) => {
            let ok = r.status().is_success();
            ok && r.bytes().await.is_ok_and(|b| !b.is_empty())
        }
        Err(_) => false,
    }
}

async fn grpc_once(client: &mut ScanServiceClient<tonic::transport::Channel>, token: &str, call: &Call) -> bool {
    let auth: tonic::metadata::MetadataValue<_> = match format!("Bearer {token}").parse() {
        Ok(v) => v,
        Err(_) => return false,
    };
    match call {
        Call::GetScan(id) => {
            let mut req = tonic::Request::new(pb::GetScanRequest { scan_id: id.to_string(), include_findings: false });
            req.metadata_mut().insert("authorization", auth);
            client.get_scan(req).await.is_ok()
        }
        Call::ListFindings(cursor) => {
            let mut req = tonic::Request::new(pb::ListFindingsRequest { cursor: cursor.clone(), ..Default::default() });
            req.metadata_mut().insert("authorization", auth);
            client.list_findings(req).await.is_ok_and(|r| !r.get_ref().findings.is_empty())
        }
    }
}

/// Sequential latency over `n` calls (after a warm-up), then throughput with `concurrency` in
/// flight.
async fn measure(base: &str, token: &str, call: &Call, grpc: bool, n: usize, concurrency: usize) -> anyhow::Result<(Vec<f64>, f64, f64, usize)> {
    let http = reqwest::Client::builder().pool_max_idle_per_host(64).build()?;
    let mut client = ScanServiceClient::connect(base.to_string()).await?;
    let mut errors = 0;
    for _ in 0..(n / 10).max(20) {
        let ok = if grpc { grpc_once(&mut client, token, call).await } else { rest_once(&http, base, token, call).await };
        errors += usize::from(!ok);
    }
    anyhow::ensure!(errors == 0, "{} over {} fails during warm-up", call.name(), if grpc { "gRPC" } else { "REST" });
    let mut samples = Vec::with_capacity(n);
    let started = Instant::now();
    for _ in 0..n {
        let t = Instant::now();
        let ok = if grpc { grpc_once(&mut client, token, call).await } else { rest_once(&http, base, token, call).await };
        samples.push(t.elapsed().as_secs_f64() * 1000.0);
        errors += usize::from(!ok);
    }
    let seq_rps = n as f64 / started.elapsed().as_secs_f64();
    // Throughput: `concurrency` workers share the client (HTTP/1.1 keep-alive pool, one h2
    // connection for gRPC).
    let remaining = Arc::new(std::sync::atomic::AtomicUsize::new(n));
    let failed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..concurrency {
        let (http, mut client, call, base, token) = (http.clone(), client.clone(), call.clone(), base.to_string(), token.to_string());
        let (remaining, failed) = (remaining.clone(), failed.clone());
        tasks.push(tokio::spawn(async move {
            use std::sync::atomic::Ordering;
            while remaining.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |r| r.checked_sub(1)).is_ok() {
                let ok = if grpc { grpc_once(&mut client, &token, &call).await } else { rest_once(&http, &base, &token, &call).await };
                if !ok {
                    failed.fetch_add(1, Ordering::SeqCst);
                }
            }
        }));
    }
    for t in tasks {
        t.await?;
    }
    let conc_rps = n as f64 / started.elapsed().as_secs_f64();
    errors += failed.load(std::sync::atomic::Ordering::SeqCst);
    samples.sort_by(|a, b| a.total_cmp(b));
    Ok((samples, seq_rps, conc_rps, errors))
}

pub async fn run(ctx: &Ctx, opts: &ApiOptions, report: &mut Report) -> anyhow::Result<()> {
    let mut latencies: Vec<Latency> = Vec::new();
    let mut seeding: Vec<Seeding> = Vec::new();
    let mut backends = vec!["sqlite"];
    if opts.postgres.is_some() {
        backends.push("postgresql");
    }
    for backend in backends {
        println!("api: {backend}");
        let db = match Db::create(backend, ctx, opts.postgres.as_deref()).await {
            Ok(db) => db,
            Err(e) => {
                report.problem(format!("api on {backend}: cannot create the database: {e}"));
                continue;
            }
        };
        let result = run_backend(ctx, opts, backend, &db, &mut latencies, &mut seeding).await;
        db.drop_db().await;
        if let Err(e) = result {
            report.problem(format!("api on {backend}: {e:#}"));
        }
    }
    // Rows: the first page of findings per backend and size, and the GET scan, REST and gRPC.
    let mut lines = vec![format!(
        "{:<11} {:>9}  {:<38} {:<5} {:>8} {:>8} {:>8} {:>9} {:>9}",
        "backend", "findings", "call", "via", "p50 ms", "p99 ms", "mean ms", "seq rps", "conc rps"
    )];
    for l in &latencies {
        lines.push(format!(
            "{:<11} {:>9}  {:<38} {:<5} {:>8.2} {:>8.2} {:>8.2} {:>9.0} {:>9.0}{}",
            l.backend,
            l.findings,
            l.call,
            l.transport,
            l.p50_ms,
            l.p99_ms,
            l.mean_ms,
            l.seq_rps,
            l.conc_rps,
            if l.errors > 0 { format!("  {} errors", l.errors) } else { String::new() }
        ));
    }
    report.table(
        &format!(
            "API latency (sequential: {} calls on one connection; throughput: {} in flight; client and server share the 2 cores)",
            opts.requests, opts.concurrency
        ),
        lines,
    );
    for s in &seeding {
        report.row("api", &format!("seed {} findings ({})", s.findings, s.backend), s.seconds, "s").note =
            Some(format!("{:.0} rows/s", s.rows_per_s));
    }
    let sizes = &opts.sizes;
    let (small, big) = (sizes.first().copied().unwrap_or(0), sizes.last().copied().unwrap_or(0));
    let mut summary = Vec::new();
    for backend in ["sqlite", "postgresql"] {
        let find = |size: usize, call: &str, via: &str| {
            latencies.iter().find(|l| l.backend == backend && l.findings == size && l.call == call && l.transport == via)
        };
        for (call, label) in [
            (Call::GetScan(Uuid::nil()).name(), "GET scan"),
            (Call::ListFindings(None).name(), "list findings"),
            (Call::ListFindings(Some(String::new())).name(), "list findings, deep cursor"),
        ] {
            for via in ["rest", "grpc"] {
                for size in [small, big] {
                    if let Some(l) = find(size, call, via) {
                        let r = report.row("api", &format!("{backend} {label} {via} @{size} p50"), l.p50_ms, "ms");
                        r.note = Some(format!("p99 {:.2} ms, {:.0} req/s seq, {:.0} req/s x{}", l.p99_ms, l.seq_rps, l.conc_rps, opts.concurrency));
                    }
                }
            }
            if let (Some(a), Some(b)) = (find(small, call, "rest"), find(big, call, "rest"))
                && call != Call::GetScan(Uuid::nil()).name()
            {
                let growth = b.p50_ms / a.p50_ms;
                let r = report.row("api", &format!("{backend} {label}: p50 @{big} / @{small}"), growth, "x");
                r.target = Some("flat (<= 1.5x)".into());
                r.met = Some(growth <= 1.5);
                summary.push(format!("{backend} {label} p50 {:.2} -> {:.2} ms ({growth:.2}x)", a.p50_ms, b.p50_ms));
            }
        }
        for size in [small, big] {
            if let (Some(r), Some(g)) = (find(size, Call::ListFindings(None).name(), "rest"), find(size, Call::ListFindings(None).name(), "grpc")) {
                let overhead = r.p50_ms - g.p50_ms;
                report.row("api", &format!("{backend} list findings REST - gRPC p50 @{size}"), overhead, "ms").note =
                    Some(format!("REST/gRPC {:.2}x", r.p50_ms / g.p50_ms));
            }
        }
    }
    report.summary(format!("api: {}", if summary.is_empty() { "no results".to_string() } else { summary.join("; ") }));
    report.data("api", json!({"latency": latencies, "seeding": seeding, "requests": opts.requests, "concurrency": opts.concurrency}));
    Ok(())
}

async fn run_backend(
    ctx: &Ctx,
    opts: &ApiOptions,
    backend: &str,
    db: &Db,
    latencies: &mut Vec<Latency>,
    seeding: &mut Vec<Seeding>,
) -> anyhow::Result<()> {
    let store = Store::open(&db.url, true).await?;
    store.set_org(ORG, Some(i64::MAX)).await?;
    let (token, _) = store.create_token(ORG, Some("bench"), &[]).await?;
    let scan_id = seed_target_scan(&store).await?;
    let mut have = 200;
    for &size in &opts.sizes {
        let t = Instant::now();
        have = seed_to(&store, have, size).await?;
        analyze(&store).await;
        let secs = t.elapsed().as_secs_f64();
        println!("api: {backend}: {have} findings seeded ({secs:.1} s)");
        seeding.push(Seeding { backend: backend.to_string(), findings: have, seconds: secs, rows_per_s: (size.saturating_sub(200)) as f64 / secs.max(1e-9) });
        let deep = deep_cursor(&store, have, 0.9).await?;
        let (mut server, base) = start_server(ctx, &db.url).await?;
        let calls = [Call::GetScan(scan_id), Call::ListFindings(None), Call::ListFindings(Some(deep))];
        let mut failure = None;
        for call in &calls {
            for grpc in [false, true] {
                match measure(&base, &token, call, grpc, opts.requests, opts.concurrency).await {
                    Ok((samples, seq_rps, conc_rps, errors)) => latencies.push(Latency {
                        backend: backend.to_string(),
                        findings: have,
                        call: call.name().to_string(),
                        transport: if grpc { "grpc" } else { "rest" }.to_string(),
                        n: samples.len(),
                        p50_ms: percentile(&samples, 0.5),
                        p99_ms: percentile(&samples, 0.99),
                        mean_ms: crate::report::mean(&samples),
                        seq_rps,
                        conc_rps,
                        errors,
                    }),
                    Err(e) => failure = Some(e),
                }
            }
        }
        terminate(&mut server).await;
        if let Some(e) = failure {
            return Err(e);
        }
    }
    store.close().await;
    Ok(())
}
