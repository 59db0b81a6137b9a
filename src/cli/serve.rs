//! `sitescan serve`: the API on one port and, unless `--no-workers`, scan workers in-process.

use super::args::ServeArgs;
use super::admin::redact;
use crate::api::{ApiSettings, Application, RateWindow};
use crate::model::AddressPolicy;
use crate::store::Store;
use anyhow::Context;

pub async fn run(args: ServeArgs) -> anyhow::Result<()> {
    let store = Store::open(&args.db.database, true)
        .await
        .with_context(|| format!("opening the database {}", redact(&args.db.database)))?;
    let policy = AddressPolicy::new(args.policy.allow_target.clone());
    let sites = super::engine::site_service(&args.policy, &args.key, store.clone())?;
    // Secrets stored in the first format (not bound to their row) are sealed again, bound.
    if let Some(key) = super::engine::secret_box(&args.key)? {
        let sealed = sites.reseal_legacy_secrets().await.context("sealing stored site secrets again")?
            + crate::events::webhooks::reseal_legacy_secrets(&store, &key).await.context("sealing webhook secrets again")?;
        if sealed > 0 {
            tracing::info!(sealed, "stored secrets sealed again, bound to where they are stored");
        }
    }
    let settings = ApiSettings {
        listen: args.listen.clone(),
        rate_windows: vec![
            RateWindow::per_second(args.rate_limit_per_second),
            RateWindow::per_minute(args.rate_limit_per_minute),
        ],
        policy: policy.clone(),
        rate_limit_backend: args.rate_limit_backend.clone(),
        sites: Some(sites.clone()),
    };
    let web = crate::web::WebSettings::parse(args.public_url.as_deref())
        .map_err(anyhow::Error::msg)?
        .with_trusted_proxies(args.trusted_proxy.clone());
    let public_url = web.public_url.clone();
    let app = Application::build_with_web(&settings, store.clone(), web).await.with_context(|| format!("listening on {}", args.listen))?;
    tracing::info!(addr = %app.addr(), database = %redact(&args.db.database), "sitescan API listening");
    eprintln!("sitescan {} listening on http://{}", crate::VERSION, app.addr());
    if !crate::accounts::users::any_exist(&store).await.unwrap_or(true) {
        eprintln!(
            "no user yet: create the first owner with `{} user create --org ORG --email EMAIL --role owner --database {}` (the password is read from stdin), then sign in at http://{}/login",
            super::invoked_as(),
            redact(&args.db.database),
            app.addr()
        );
    }
    if !args.trusted_proxy.is_empty() {
        let proxies: Vec<String> = args.trusted_proxy.iter().map(ToString::to_string).collect();
        tracing::info!(trusted_proxies = %proxies.join(","), "forwarding headers are believed from these peers only");
    }
    let cleanup = super::cleanup::start(store.clone(), args.cleanup_interval_secs, args.retention_days);
    let deliveries = super::webhook::start_delivery(&args.key, policy.clone(), store.clone(), public_url)?;
    let recurring = super::recurring::start(&args.recurring, policy.clone(), store.clone())?;
    let workers = if args.no_workers {
        None
    } else {
        Some(super::worker::start(&args.browser, &args.crawl, &args.jobs, args.workers, policy, store.clone(), sites.clone()).await?)
    };
    let (tx, rx) = tokio::sync::watch::channel(false);
    let mut server_rx = rx.clone();
    let server = tokio::spawn(app.run_until(async move {
        let _ = server_rx.wait_for(|stop| *stop).await;
    }));
    super::signals::shutdown_signal().await;
    tracing::info!("shutting down: draining requests, releasing scans, closing browsers");
    let _ = tx.send(true);
    cleanup.abort();
    if let Some(workers) = workers {
        workers.shutdown().await;
    }
    if let Some((stop, handle)) = deliveries {
        stop.cancel();
        let _ = handle.await;
    }
    if let Some(recurring) = recurring {
        recurring.stop().await;
    }
    server.await.context("server task")?.context("serving")?;
    Ok(())
}
