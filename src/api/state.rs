//! What every request handler shares: the store, the rate limiter and the target policy.

use super::limiter::Limiter;
use super::limits::{RateLimiter, RateWindow};
use crate::model::AddressPolicy;
use crate::store::Store;

/// The API's shared state.
#[derive(Debug)]
pub struct AppState {
    pub store: Store,
    pub limiter: Limiter,
    pub policy: AddressPolicy,
    /// Sites, ownership and active scans (OwnerService and the dashboard's `/sites`).
    pub sites: crate::sites::SiteService,
    /// Passive scans, reports and findings (ScanService over REST and gRPC, the dashboard).
    pub scans: crate::scans::ScanService,
}

impl AppState {
    /// State with the in-process limiter.
    pub fn new(store: Store, rate_windows: Vec<RateWindow>, policy: AddressPolicy) -> Self {
        Self::with_limiter(store, Limiter::Local(RateLimiter::new(rate_windows)), policy)
    }

    /// State whose site service uses the system resolver and `SITESCAN_SECRET_KEY` if set.
    pub fn with_limiter(store: Store, limiter: Limiter, policy: AddressPolicy) -> Self {
        let sites = crate::sites::SiteService::with_defaults(store.clone(), policy.clone());
        let scans = crate::scans::ScanService::new(store.clone(), policy.clone());
        AppState { store, limiter, policy, sites, scans }
    }

    /// This state with `caps` on the live streams (the dashboard's and `WatchScan`).
    pub fn with_stream_caps(mut self, caps: crate::scans::StreamCaps) -> Self {
        self.scans = crate::scans::ScanService::with_stream_caps(self.store.clone(), self.policy.clone(), caps);
        self
    }

    pub fn with_sites(mut self, sites: crate::sites::SiteService) -> Self {
        self.sites = sites;
        self
    }
}
