//! What every request handler shares: the application's services, the rate limiter and the
//! target policy.

use super::limiter::Limiter;
use super::limits::{RateLimiter, RateWindow};
use crate::app::App;
use crate::model::AddressPolicy;

/// The API's shared state.
#[derive(Debug)]
pub struct AppState {
    app: App,
    pub limiter: Limiter,
    pub policy: AddressPolicy,
}

impl AppState {
    /// State with the in-process limiter.
    pub fn new(app: App, rate_windows: Vec<RateWindow>) -> Self {
        Self::with_limiter(app, Limiter::Local(RateLimiter::new(rate_windows)))
    }

    pub fn with_limiter(app: App, limiter: Limiter) -> Self {
        let policy = app.policy().clone();
        AppState { app, limiter, policy }
    }

    /// The application (the dashboard is handed the same one).
    pub fn app(&self) -> &App {
        &self.app
    }

    /// Sites, ownership and active scans (OwnerService and the dashboard's `/sites`).
    pub fn sites(&self) -> &crate::sites::SiteService {
        self.app.sites()
    }

    /// Passive scans, reports and findings (ScanService over REST and gRPC, the dashboard).
    pub fn scans(&self) -> &crate::scans::ScanService {
        self.app.scans()
    }

    /// Tokens and the people who issued them.
    pub fn accounts(&self) -> &crate::accounts::Accounts {
        self.app.accounts()
    }
}
