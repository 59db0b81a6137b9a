//! `sitescan worker`, and the in-process workers of `sitescan serve`.

use super::args::{EngineArgs, WorkerArgs};
use super::engine;
use crate::app::App;
use crate::crawl::Workers;

/// Starts `count` workers over `app`'s database.
pub async fn start(args: &EngineArgs, count: usize, app: &App) -> anyhow::Result<Workers> {
    let config = engine::worker_config(&args.jobs, &args.crawl, &args.browser, crate::crawl::worker::Ownership::Reverify(app.sites().clone()))?;
    let scanner = engine::scanner(&args.browser, app.policy().clone()).await?;
    Ok(app.spawn_workers(scanner, count, config, args.browser.shares()))
}

pub async fn run(args: WorkerArgs) -> anyhow::Result<()> {
    let shutdown = super::signals::Shutdown::listen();
    let app = engine::open_app(&args.db, engine::app_config(&args.policy, &args.engine.key, &args.db, engine::KeyBeside::ReadIfThere)?).await?;
    let public_url = crate::web::WebSettings::parse(args.public_url.as_deref()).map_err(anyhow::Error::msg)?.public_url;
    let deliveries = app.start_delivery(public_url)?;
    let recurring = super::recurring::start(&args.engine.recurring, &app)?;
    let workers = start(&args.engine, args.workers, &app).await?;
    if crate::telemetry::json_log() {
        tracing::info!(workers = args.workers.max(1), "sitescan workers running");
    } else {
        eprintln!("sitescan {} worker(s) running; Ctrl-C to stop", args.workers.max(1));
    }
    shutdown.wait().await;
    tracing::info!("shutting down: releasing scans, closing browsers");
    workers.shutdown().await;
    if let Some(deliveries) = deliveries {
        deliveries.stop().await;
    }
    if let Some(recurring) = recurring {
        recurring.stop().await;
    }
    Ok(())
}
