//! The background work of a process, over the application's database: scan workers, the
//! schedule and monitor loops, webhook delivery, and the purge timer (expired sessions and
//! throttle rows, unused region verdicts, scans past the retention period).

use super::App;
use crate::model::AddressPolicy;
use crate::model::time::now_us;
use crate::net::{EgressGuard, Fetcher, FetcherOptions};
use crate::recurring::{self, MonitorRunner, Scheduler, SystemClock, TriggerHook};
use crate::crawl::{SiteScanner, WorkerConfig, Workers};
use crate::store::Store;
use crate::store::expiry::Lifetimes;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How often the delivery loop looks for due messages.
pub const DELIVERY_POLL: Duration = Duration::from_secs(1);

/// The lifetimes the dashboard and the throttle use.
pub fn lifetimes() -> Lifetimes {
    Lifetimes {
        session_idle_us: crate::accounts::sessions::IDLE_TIMEOUT_US,
        session_absolute_us: crate::accounts::sessions::ABSOLUTE_TIMEOUT_US,
        throttle_window_us: crate::accounts::throttle::WINDOW_US,
    }
}

/// The purge timer; aborted when dropped or stopped.
#[derive(Debug)]
pub struct Cleanup(tokio::task::JoinHandle<()>);

impl Cleanup {
    pub fn stop(self) {
        self.0.abort();
    }
}

/// The schedule and monitor loops of this process.
pub struct RecurringLoops {
    stop: CancellationToken,
    handles: Vec<tokio::task::JoinHandle<()>>,
}

impl RecurringLoops {
    pub async fn stop(self) {
        self.stop.cancel();
        for h in self.handles {
            let _ = h.await;
        }
    }
}

/// The webhook delivery loop of this process.
pub struct Delivery {
    stop: CancellationToken,
    handle: tokio::task::JoinHandle<()>,
}

impl Delivery {
    pub async fn stop(self) {
        self.stop.cancel();
        let _ = self.handle.await;
    }
}

/// The `monitor.triggered` webhook event, queued for each scan a monitor starts.
fn webhook_hook() -> TriggerHook {
    Arc::new(|store: Store, t: recurring::MonitorTriggered| {
        Box::pin(async move {
            if let Err(e) = crate::events::webhooks::monitor_triggered(&store, &t.scan, t.monitor.id, &t.changes, now_us()).await {
                tracing::warn!(error = %e, monitor = %t.monitor.id, "could not queue monitor.triggered");
            }
        })
    })
}

impl App {
    /// `count` scan workers over `scanner`; with `share_regions`, their region verdicts are
    /// kept in this database.
    pub fn spawn_workers(&self, scanner: Arc<dyn SiteScanner>, count: usize, mut config: WorkerConfig, share_regions: bool) -> Workers {
        if share_regions {
            config.options.region_cache = Some(crate::crawl::RegionCache::new(Arc::new(self.store.clone())));
        }
        Workers::spawn(self.store.clone(), scanner, count, config)
    }

    /// Starts the scheduler and the monitor runner, polling every `every`. Every instance of a
    /// fleet may run them: each due moment is handled once.
    pub fn start_recurring(&self, every: Duration) -> Result<RecurringLoops, crate::net::NetError> {
        let stop = CancellationToken::new();
        let clock = Arc::new(SystemClock);
        let policy = self.policy.clone();
        let fetcher = Fetcher::new(Arc::new(EgressGuard::new(policy.clone())), FetcherOptions::default())?;
        let scheduler = Scheduler { store: self.store.clone(), clock: clock.clone(), policy: policy.clone() };
        let monitors = MonitorRunner {
            store: self.store.clone(),
            fetcher: Arc::new(fetcher),
            clock,
            policy,
            on_trigger: Some(webhook_hook()),
            probe_deadline: recurring::monitor::PROBE_DEADLINE,
        };
        let handles = vec![scheduler.spawn(every, stop.clone()), monitors.spawn(every, stop.clone())];
        Ok(RecurringLoops { stop, handles })
    }

    /// Starts delivering webhooks when a secret key is configured (without one no endpoint can
    /// have been added, so there is nothing to deliver). Chat messages link to `dashboard`.
    pub fn start_delivery(&self, dashboard: Option<url::Url>) -> Result<Option<Delivery>, crate::net::NetError> {
        let Some(deliverer) = self.webhooks.deliverer(self.policy.clone(), dashboard, crate::crawl::worker::owner_id(0))? else {
            tracing::info!("no secret key: webhook delivery is off");
            return Ok(None);
        };
        let stop = CancellationToken::new();
        let handle = deliverer.spawn(DELIVERY_POLL, stop.clone());
        Ok(Some(Delivery { stop, handle }))
    }

    /// Starts the purge timer: every `interval_secs`, expired sessions and throttle rows, region
    /// verdicts unused for 30 days, and (`retention_days` above 0) scans older than that.
    pub fn start_cleanup(&self, interval_secs: u64, retention_days: u32) -> Cleanup {
        let store = self.store.clone();
        let period = Duration::from_secs(interval_secs.max(1));
        Cleanup(tokio::spawn(async move {
            let mut tick = tokio::time::interval(period);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                purge_once(&store, retention_days).await;
            }
        }))
    }

    /// A deliverer for the operator's `webhook test` (posting under `policy`).
    pub fn deliverer(&self, policy: AddressPolicy) -> anyhow::Result<crate::events::Deliverer> {
        self.webhooks
            .deliverer(policy, None, crate::crawl::worker::owner_id(0))?
            .ok_or_else(|| anyhow::anyhow!("cannot send: no secret key is configured"))
    }
}

async fn purge_once(store: &Store, retention_days: u32) {
    match store.purge_expired(now_us(), lifetimes()).await {
        Ok(p) if p.sessions + p.throttle > 0 => {
            tracing::info!(sessions = p.sessions, throttle_rows = p.throttle, "purged expired rows");
        }
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "purging expired rows failed; retried at the next tick"),
    }
    // Region verdicts of sites no longer scanned (a scanned site prunes its own).
    let unused_since = now_us() - crate::crawl::region_cache::BOUNDS.expiry_us;
    match store.expire_region_verdicts(unused_since).await {
        Ok(n) if n > 0 => tracing::info!(rows = n, "dropped region verdicts unused for 30 days"),
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "dropping unused region verdicts failed; retried at the next tick"),
    }
    // The webhook delivery log: by age with the scans, and never more than a screenful of
    // pages an endpoint whatever the retention (a failing endpoint logs every retry).
    let log_cutoff = (retention_days > 0).then(|| now_us() - i64::from(retention_days) * 86_400_000_000);
    match store.prune_webhook_log(log_cutoff, crate::events::webhooks::DELIVERY_LOG_KEEP).await {
        Ok((attempts, messages)) if attempts + messages > 0 => tracing::info!(attempts, messages, "pruned the webhook delivery log"),
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "pruning the webhook delivery log failed; retried at the next tick"),
    }
    if retention_days == 0 {
        return;
    }
    let cutoff = now_us() - i64::from(retention_days) * 86_400_000_000;
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
