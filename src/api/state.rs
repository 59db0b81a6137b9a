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
}

impl AppState {
    /// State with the in-process limiter.
    pub fn new(store: Store, rate_windows: Vec<RateWindow>, policy: AddressPolicy) -> Self {
        AppState { store, limiter: Limiter::Local(RateLimiter::new(rate_windows)), policy }
    }

    pub fn with_limiter(store: Store, limiter: Limiter, policy: AddressPolicy) -> Self {
        AppState { store, limiter, policy }
    }
}
