//! The purge timer of `sitescan serve`: every `--cleanup-interval-secs`, expired sessions and
//! stale sign-in throttle rows are deleted (`Store::purge_expired`).

use crate::store::Store;
use crate::store::expiry::Lifetimes;
use std::time::Duration;

/// The lifetimes the dashboard and the throttle use.
pub fn lifetimes() -> Lifetimes {
    Lifetimes {
        session_idle_us: crate::web::session::IDLE_TIMEOUT_US,
        session_absolute_us: crate::web::session::ABSOLUTE_TIMEOUT_US,
        throttle_window_us: crate::accounts::throttle::WINDOW_US,
    }
}

/// Starts the timer; abort the handle to stop it.
pub fn start(store: Store, interval_secs: u64) -> tokio::task::JoinHandle<()> {
    let period = Duration::from_secs(interval_secs.max(1));
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(period);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            match store.purge_expired(crate::store::time::now_us(), lifetimes()).await {
                Ok(p) if p.sessions + p.throttle > 0 => {
                    tracing::info!(sessions = p.sessions, throttle_rows = p.throttle, "purged expired rows");
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "purging expired rows failed; retried at the next tick"),
            }
        }
    })
}
