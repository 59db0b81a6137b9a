//! `sitescan worker`, and the in-process workers of `sitescan serve`.

use super::admin::redact;
use super::args::{BrowserArgs, CrawlArgs, WorkerArgs, WorkerPoolArgs};
use super::engine;
use crate::model::AddressPolicy;
use crate::scan::Workers;
use crate::store::Store;
use anyhow::Context;

/// Starts `count` workers on `store`.
pub async fn start(
    browser: &BrowserArgs,
    crawl: &CrawlArgs,
    jobs: &WorkerPoolArgs,
    count: usize,
    policy: AddressPolicy,
    store: Store,
    sites: crate::sites::SiteService,
) -> anyhow::Result<Workers> {
    let mut config = engine::worker_config(jobs, crawl, browser, crate::scan::worker::Ownership::Reverify(sites))?;
    // Region verdicts live beside the scans, shared by every worker of the fleet.
    if browser.shares() {
        config.options.region_cache = Some(crate::scan::RegionCache::new(store.clone()));
    }
    let scanner = engine::scanner(browser, policy).await?;
    Ok(Workers::spawn(store, scanner, count, config))
}

pub async fn run(args: WorkerArgs) -> anyhow::Result<()> {
    let store = Store::open(&args.db.database, true)
        .await
        .with_context(|| format!("opening the database {}", redact(&args.db.database)))?;
    let policy = AddressPolicy::new(args.policy.allow_target.clone());
    // The same --public-url as `serve`: chat messages link to the dashboard whichever process delivers them.
    let public_url = crate::web::WebSettings::parse(args.public_url.as_deref()).map_err(anyhow::Error::msg)?.public_url;
    let deliveries = super::webhook::start_delivery(&args.key, policy.clone(), store.clone(), public_url)?;
    let sites = engine::site_service(&args.policy, &args.key, store.clone())?;
    let recurring = super::recurring::start(&args.recurring, policy.clone(), store.clone())?;
    let workers = start(&args.browser, &args.crawl, &args.jobs, args.workers, policy, store, sites).await?;
    eprintln!("sitescan {} worker(s) running; Ctrl-C to stop", args.workers.max(1));
    super::signals::shutdown_signal().await;
    tracing::info!("shutting down: releasing scans, closing browsers");
    workers.shutdown().await;
    if let Some((stop, handle)) = deliveries {
        stop.cancel();
        let _ = handle.await;
    }
    if let Some(recurring) = recurring {
        recurring.stop().await;
    }
    Ok(())
}
