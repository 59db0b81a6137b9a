//! The purge timer of `sitescan serve`: every `--cleanup-interval-secs`, expired sessions and
//! stale sign-in throttle rows are deleted (`Store::purge_expired`), region verdicts unused for
//! 30 days (`Store::expire_region_verdicts`), and scans older than
//! `--retention-days` with what was recorded for them (`Store::delete_scans_before`).

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

/// Starts the timer (`retention_days` 0: scans are kept for ever); abort the handle to stop it.
pub fn start(store: Store, interval_secs: u64, retention_days: u32) -> tokio::task::JoinHandle<()> {
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
            // Region verdicts of sites no longer scanned (a scanned site prunes its own).
            let unused_since = crate::store::time::now_us() - crate::scan::region_cache::BOUNDS.expiry_us;
            match store.expire_region_verdicts(unused_since).await {
                Ok(n) if n > 0 => tracing::info!(rows = n, "dropped region verdicts unused for 30 days"),
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "dropping unused region verdicts failed; retried at the next tick"),
            }
            if retention_days == 0 {
                continue;
            }
            let cutoff = crate::store::time::now_us() - i64::from(retention_days) * 86_400_000_000;
            match store.delete_scans_before(cutoff, crate::store::retention::BATCH).await {
                Ok(s) if s.scans + s.schedule_runs > 0 => tracing::info!(
                    retention_days,
                    scans = s.scans,
                    findings = s.findings,
                    pages = s.pages,
                    screenshots = s.screenshots,
                    schedule_runs = s.schedule_runs,
                    "deleted scans past the retention period"
                ),
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "deleting scans past the retention period failed; retried at the next tick"),
            }
        }
    })
}
