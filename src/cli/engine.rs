//! Flags to a running engine: the egress guard, the fetcher, the browser pool, the scanner.

use super::args::{BrowserArgs, CrawlArgs, DatabaseArgs, PolicyArgs, SecretKeyArgs, WorkerPoolArgs};
use crate::browser::{BrowserOptions, BrowserPool, CaptureOptions};
use crate::model::AddressPolicy;
use crate::net::{EgressGuard, Fetcher, FetcherOptions};
use crate::crawl::worker::Ownership;
use crate::crawl::{DEFAULT_HOST_CONCURRENCY, MAX_PAGES_LIMIT, ScanOptions, Scanner, WorkerConfig};
use crate::app::{App, AppConfig};
use crate::events::{SecretBox, SecretError};
use crate::events::key_file;
use anyhow::Context;
use std::sync::Arc;
use std::time::Duration;

/// Starts Chromium (or connects to remote CDP endpoints) behind the egress guard.
pub async fn scanner(browser: &BrowserArgs, policy: AddressPolicy) -> anyhow::Result<Arc<Scanner>> {
    let guard = Arc::new(EgressGuard::new(policy));
    let fetcher = Arc::new(Fetcher::new(guard.clone(), FetcherOptions::default()).context("building the HTTP fetcher")?);
    let options = BrowserOptions {
        chromium: browser.chromium.clone(),
        cdp_endpoints: browser.cdp.clone(),
        browsers: browser.browsers.max(1),
        pages_per_browser: browser.pages_per_browser.max(1),
        proxy_listen: browser.proxy_listen,
        no_sandbox: browser.chromium_no_sandbox,
        capture: CaptureOptions { share: browser.shares(), ocr: browser.ocr_mode(), ..CaptureOptions::default() },
        ..BrowserOptions::default()
    };
    let pool = BrowserPool::start(options, guard).await.context("starting the browser pool")?;
    Ok(Arc::new(Scanner::new(pool, fetcher)))
}

/// Crawl flags to scan options.
pub fn scan_options(crawl: &CrawlArgs, browser: &BrowserArgs) -> anyhow::Result<ScanOptions> {
    anyhow::ensure!((1..=MAX_PAGES_LIMIT).contains(&crawl.max_pages), "--max-pages must be between 1 and {MAX_PAGES_LIMIT}");
    let page_concurrency = (browser.browsers.max(1) * browser.pages_per_browser.max(1)).max(1);
    anyhow::ensure!(crawl.host_concurrency.is_none_or(|n| (1..=256).contains(&n)), "--host-concurrency must be between 1 and 256");
    Ok(ScanOptions {
        max_pages: crawl.max_pages,
        max_depth: crawl.max_depth,
        page_concurrency,
        // A page holds a host slot while it renders: an operator who gives a scan more pages at
        // once gives the host as many slots (the default stays the polite 4).
        host_concurrency: crawl.host_concurrency.unwrap_or(page_concurrency.max(DEFAULT_HOST_CONCURRENCY)),
        thresholds: crate::checks::Thresholds { level: crawl.level, ..Default::default() },
        ..ScanOptions::default()
    })
}

/// Job flags to the worker configuration.
pub fn worker_config(
    jobs: &WorkerPoolArgs,
    crawl: &CrawlArgs,
    browser: &BrowserArgs,
    ownership: Ownership,
) -> anyhow::Result<WorkerConfig> {
    anyhow::ensure!(jobs.lease_seconds >= 1, "--lease-seconds must be at least 1");
    Ok(WorkerConfig {
        lease: Duration::from_secs(jobs.lease_seconds),
        max_attempts: jobs.max_attempts.max(1),
        poll: Duration::from_millis(jobs.poll_ms.max(10)),
        options: scan_options(crawl, browser)?,
        ownership,
        max_running_per_org: jobs.max_running_per_org,
        page_sharing: jobs.share_pages,
    })
}

/// Whether a missing key file beside an SQLite database is made (`serve`) or only read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyBeside {
    Create,
    ReadIfThere,
}

/// The key that opens stored secrets: `--secret-key-file`, else `SITESCAN_SECRET_KEY`, else the
/// key file beside an SQLite `database` (made first by `serve`). `None` when there is none (the
/// features that need it say so when asked), an error when one is configured but unusable.
pub fn secret_box(key: &SecretKeyArgs, database: &str, beside: KeyBeside) -> anyhow::Result<Option<SecretBox>> {
    match SecretBox::from_env_or_file(key.secret_key_file.as_deref()) {
        Ok(b) => return Ok(Some(b)),
        Err(SecretError::Missing) => {}
        Err(e) => return Err(e.into()),
    }
    let Some(path) = key_file::beside(database) else {
        return Ok(None);
    };
    let found = match beside {
        KeyBeside::Create => Some(key_file::read_or_create(&path)?),
        KeyBeside::ReadIfThere => key_file::read(&path)?,
    };
    Ok(found.map(|f| {
        if f.created {
            tracing::info!(path = %f.path.display(), "created the secret key file");
            crate::telemetry::hint(format_args!(
                "created the secret key file {} (owner-only): it seals webhook, chat and site secrets; keep it with the database and back it up with it",
                f.path.display()
            ));
        } else {
            tracing::info!(path = %f.path.display(), "secret key from the file beside the database");
        }
        f.key
    }))
}

/// The application's settings from the policy and key flags: targets, webhooks and ownership
/// proofs held to the policy, proofs asking the configured DNS server, secrets sealed with the
/// key of [`secret_box`].
pub fn app_config(policy: &PolicyArgs, key: &SecretKeyArgs, db: &DatabaseArgs, beside: KeyBeside) -> anyhow::Result<AppConfig> {
    Ok(AppConfig {
        policy: AddressPolicy::new(policy.allow_target.clone()),
        secrets: secret_box(key, &db.database, beside)?,
        dns_server: policy.dns_server,
        ..AppConfig::default()
    })
}

/// Opens (and migrates) the `--database` with `config`.
pub async fn open_app(db: &DatabaseArgs, config: AppConfig) -> anyhow::Result<App> {
    App::open(&db.database, config).await.with_context(|| format!("opening the database {}", super::admin::redact(&db.database)))
}
