//! The application layer: the one door to the data. Every edge (REST and gRPC in `api`, the
//! dashboard in `web`, the commands in `cli`) holds an [`App`] and reaches data only through
//! its services, which take typed ids and return model types; none of them sees the store or a
//! database type. The background work a process runs over the same database (scan workers,
//! schedules and monitors, webhook delivery, the purge timer) is started from here too.

pub mod background;
pub mod local;
pub mod operations;
mod worker_output;
pub mod worker_process;

use crate::accounts::Accounts;
use crate::events::Webhooks;
use crate::model::AddressPolicy;
use crate::scans::{ScanService, StreamCaps};
use crate::sites::{DnsServer, SiteService, Verifier};
use crate::store::{SecretBox, Store, StoreError};
use std::sync::Arc;

pub use background::{Cleanup, RecurringLoops};
pub use local::LocalScan;
pub use worker_process::WorkerProcess;

/// How a process's services are set up.
#[derive(Debug, Clone, Default)]
pub struct AppConfig {
    /// Where targets, webhooks and ownership proofs may connect.
    pub policy: AddressPolicy,
    /// Seals stored secrets (site secrets, webhook signing secrets); none: those features are
    /// off and say so.
    pub secrets: Option<SecretBox>,
    /// The DNS server ownership proofs ask (none: the system resolver).
    pub dns_server: Option<std::net::SocketAddr>,
    /// Caps on the live streams (the dashboard's live views and `WatchScan`).
    pub streams: StreamCaps,
}

/// Why the database could not be opened (a message naming the cause).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct OpenError(#[from] StoreError);

/// Every service of the application over one database.
#[derive(Debug, Clone)]
pub struct App {
    store: Store,
    policy: AddressPolicy,
    secrets: Option<SecretBox>,
    scans: ScanService,
    sites: SiteService,
    accounts: Accounts,
    webhooks: Webhooks,
}

impl App {
    /// Opens (and migrates) the database at `url` and builds the services over it.
    pub async fn open(url: &str, config: AppConfig) -> Result<App, OpenError> {
        let store = Store::open(url, true).await?;
        Ok(App::new(store, config))
    }

    /// The services over an open store (tests and embedders open it themselves).
    pub fn new(store: Store, config: AppConfig) -> App {
        let AppConfig { policy, secrets, dns_server, streams } = config;
        let guard = Arc::new(crate::net::EgressGuard::new(policy.clone()));
        let fetcher = crate::net::Fetcher::new(guard, crate::net::FetcherOptions::default())
            .expect("the default HTTP client builds (static TLS configuration)");
        let verifier = Verifier::new(Arc::new(fetcher), dns_server.map_or(DnsServer::System, DnsServer::At));
        App {
            scans: ScanService::with_stream_caps(store.clone(), policy.clone(), streams),
            sites: SiteService::new(store.clone(), verifier, policy.clone(), secrets.clone()),
            accounts: Accounts::new(store.clone()),
            webhooks: Webhooks::new(store.clone(), secrets.clone(), policy.clone()),
            store,
            policy,
            secrets,
        }
    }

    /// This application with `sites` as its site service (tests give one with their own
    /// resolver and key).
    pub fn with_sites(mut self, sites: SiteService) -> App {
        // One key seals every secret: the webhooks' is the site service's.
        self.secrets = sites.secrets().cloned();
        self.webhooks = Webhooks::new(self.store.clone(), self.secrets.clone(), self.policy.clone());
        self.sites = sites;
        self
    }

    /// Passive scans, reports, findings, history, compare and live views.
    pub fn scans(&self) -> &ScanService {
        &self.scans
    }

    /// Sites, ownership, journeys, secrets, active scans, schedules and monitors.
    pub fn sites(&self) -> &SiteService {
        &self.sites
    }

    /// Users, invites, sessions, organisations and API tokens.
    pub fn accounts(&self) -> &Accounts {
        &self.accounts
    }

    /// An organisation's webhook endpoints.
    pub fn webhooks(&self) -> &Webhooks {
        &self.webhooks
    }

    /// The address policy the services hold targets to.
    pub fn policy(&self) -> &AddressPolicy {
        &self.policy
    }
}

/// The defaults of the settings a process is started with.
pub mod defaults {
    /// The embedded SQLite database in the working directory.
    pub use crate::store::DEFAULT_DATABASE_URL as DATABASE_URL;
    /// Seconds between purges of expired rows.
    pub use crate::store::expiry::DEFAULT_INTERVAL_SECS as CLEANUP_INTERVAL_SECS;
    /// Attempts a scan gets before it is failed.
    pub use crate::store::jobs::DEFAULT_MAX_ATTEMPTS as MAX_ATTEMPTS;
    /// Days scans are kept.
    pub use crate::store::retention::DEFAULT_DAYS as RETENTION_DAYS;
}
