//! What every request handler shares: the store, the rate limiter and the target policy.

use super::limits::{RateLimiter, RateWindow};
use crate::model::AddressPolicy;
use crate::store::Store;

/// The API's shared state.
#[derive(Debug)]
pub struct AppState {
    pub store: Store,
    pub limiter: RateLimiter,
    pub policy: AddressPolicy,
}

impl AppState {
    pub fn new(store: Store, rate_windows: Vec<RateWindow>, policy: AddressPolicy) -> Self {
        AppState { store, limiter: RateLimiter::new(rate_windows), policy }
    }
}
