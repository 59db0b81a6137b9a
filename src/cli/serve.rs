//! `sitescan serve`: the API on one port and, unless `--no-workers`, scan workers in a process
//! of their own that it supervises (`app/worker_process.rs`), or in its own process with
//! `--workers-in-process`.

use super::args::ServeArgs;
use super::admin::redact;
use crate::api::{ApiSettings, Application, RateWindow};
use anyhow::Context;

/// Where `serve`'s scan workers run.
enum ScanWorkers {
    Process(crate::app::WorkerProcess),
    InProcess(crate::crawl::Workers),
}

pub async fn run(args: ServeArgs) -> anyhow::Result<()> {
    let shutdown = super::signals::Shutdown::listen();
    let app = super::engine::open_app(&args.db, super::engine::app_config(&args.policy, &args.engine.key, &args.db, super::engine::KeyBeside::Create)?).await?;
    if args.worker_process {
        return run_worker_process(args, app, shutdown).await;
    }
    // Secrets stored in the first format (not bound to their row) are sealed again, bound.
    let sealed = app.reseal_legacy_secrets().await.context("sealing stored secrets again")?;
    if sealed > 0 {
        tracing::info!(sealed, "stored secrets sealed again, bound to where they are stored");
    }
    let settings = ApiSettings {
        listen: args.listen.clone(),
        rate_windows: vec![
            RateWindow::per_second(args.rate_limit_per_second),
            RateWindow::per_minute(args.rate_limit_per_minute),
        ],
        rate_limit_backend: args.rate_limit_backend.clone(),
    };
    let web = crate::web::WebSettings::parse(args.public_url.as_deref())
        .map_err(anyhow::Error::msg)?
        .with_trusted_proxies(args.trusted_proxy.clone());
    let public_url = web.public_url.clone();
    let server = Application::build_with_web(&settings, app.clone(), web).await.with_context(|| format!("listening on {}", args.listen))?;
    tracing::info!(addr = %server.addr(), database = %redact(&args.db.database), "sitescan API listening");
    crate::telemetry::hint(format_args!("sitescan {} listening on http://{}", crate::VERSION, server.addr()));
    if !app.has_users().await {
        let create = format!("{} user create --org ORG --email EMAIL --role owner --database {}", super::invoked_as(), redact(&args.db.database));
        let sign_in = format!("http://{}/login", server.addr());
        if crate::telemetry::json_log() {
            tracing::info!(%create, %sign_in, "no user yet: create the first owner (the password is read from stdin), then sign in");
        } else {
            eprintln!("no user yet: create the first owner with `{create}` (the password is read from stdin), then sign in at {sign_in}");
        }
    }
    if !args.trusted_proxy.is_empty() {
        let proxies: Vec<String> = args.trusted_proxy.iter().map(ToString::to_string).collect();
        tracing::info!(trusted_proxies = %proxies.join(","), "forwarding headers are believed from these peers only");
    }
    let cleanup = app.start_cleanup(args.cleanup_interval_secs, args.retention_days);
    let deliveries = app.start_delivery(public_url)?;
    let recurring = super::recurring::start(&args.engine.recurring, &app)?;
    // An in-memory database is this process's alone: its workers must share the process.
    let memory_db = args.db.database.contains(":memory:") || args.db.database.contains("mode=memory");
    let workers = if args.no_workers {
        None
    } else if args.workers_in_process || memory_db {
        Some(ScanWorkers::InProcess(super::worker::start(&args.engine, args.workers, &app).await?))
    } else {
        Some(ScanWorkers::Process(crate::app::WorkerProcess::start(&app, args.worker_memory_mb)))
    };
    let (tx, rx) = tokio::sync::watch::channel(false);
    let mut server_rx = rx.clone();
    let server = tokio::spawn(server.run_until(async move {
        let _ = server_rx.wait_for(|stop| *stop).await;
    }));
    shutdown.wait().await;
    tracing::info!("shutting down: draining requests, releasing scans, closing browsers");
    let _ = tx.send(true);
    cleanup.stop();
    match workers {
        Some(ScanWorkers::Process(supervisor)) => supervisor.stop().await,
        Some(ScanWorkers::InProcess(workers)) => workers.shutdown().await,
        None => {}
    }
    if let Some(deliveries) = deliveries {
        deliveries.stop().await;
    }
    if let Some(recurring) = recurring {
        recurring.stop().await;
    }
    server.await.context("server task")?.context("serving")?;
    Ok(())
}

/// The worker process `serve` started (`--worker-process`): only the scan workers, under the
/// memory limit `serve` set, until SIGTERM (sent by `serve` when it stops or dies).
async fn run_worker_process(args: ServeArgs, app: crate::app::App, shutdown: super::signals::Shutdown) -> anyhow::Result<()> {
    let workers = super::worker::start(&args.engine, args.workers, &app).await?;
    tracing::info!(pid = std::process::id(), workers = args.workers.max(1), memory_mb = args.worker_memory_mb, "scan worker process running");
    // The engine's metrics, for `serve`'s `/metrics`.
    let report = std::env::var_os(crate::metrics::WORKER_FILE_ENV).map(std::path::PathBuf::from).map(|file| {
        tokio::spawn(async move {
            loop {
                if let Err(e) = crate::metrics::write_engine(&file) {
                    tracing::debug!(error = %e, "could not write the engine metrics for serve");
                }
                tokio::time::sleep(crate::app::worker_process::METRICS_EVERY).await;
            }
        })
    });
    shutdown.wait().await;
    if let Some(report) = report {
        report.abort();
    }
    tracing::info!("worker process stopping: releasing scans, closing browsers");
    workers.shutdown().await;
    Ok(())
}
