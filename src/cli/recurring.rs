//! `sitescan schedule add|list|remove`, `sitescan monitor add|list|remove`, and the schedule
//! and monitor loops `serve` and `worker` run.

use super::Exit;
use super::admin::redact;
use super::args::{DatabaseArgs, MonitorCommand, RecurringArgs, ScheduleCommand};
use crate::model::{AddressPolicy, Attestation, Attester, Confirmation, OrgId, ScanMode};
use crate::net::{EgressGuard, Fetcher, FetcherOptions};
use crate::recurring::{self, MonitorRunner, RecurringError, Scheduler, SystemClock, TriggerHook};
use crate::sites::{ScheduleRequest, SiteService};
use crate::store::Store;
use crate::store::time::{now_us, to_rfc3339};
use anyhow::Context;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

async fn open(db: &DatabaseArgs) -> anyhow::Result<Store> {
    Store::open(&db.database, true).await.with_context(|| format!("opening the database {}", redact(&db.database)))
}

/// The site service, for the schedule and monitor commands (they only read and write the store).
fn sites(store: &Store) -> SiteService {
    SiteService::with_defaults(store.clone(), AddressPolicy::default())
}

/// A bad input or a missing site/schedule/monitor: a clear message and exit 2.
fn refused(e: RecurringError) -> anyhow::Result<Exit> {
    match e {
        RecurringError::Store(e) => Err(e.into()),
        other => {
            eprintln!("error: {other}");
            Ok(Exit::Failed)
        }
    }
}

fn every_text(seconds: i64) -> String {
    match seconds {
        s if s % 3600 == 0 => format!("{}h", s / 3600),
        s if s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

pub async fn schedule(cmd: ScheduleCommand) -> anyhow::Result<Exit> {
    match cmd {
        ScheduleCommand::Add { org, site, cron, tz, mode, attest, db } => {
            let mode = match recurring::parse_mode(&mode) {
                Ok(m) => m,
                Err(e) => return refused(e),
            };
            // Checked before the database is opened: a typo never creates a file.
            if let Err(e) = recurring::CronSpec::parse(&cron, &tz) {
                return refused(e);
            }
            let store = open(&db).await?;
            let attestation = match mode {
                ScanMode::Active => {
                    let row = match recurring::resolve_site(&store, &org, &site).await {
                        Ok(row) => row,
                        Err(e) => return refused(e),
                    };
                    let cli = Attester { actor: "cli".into(), client_addr: None };
                    match Attestation::confirm(&row.origin, Confirmation::Ticked(attest), cli) {
                        Ok(a) => Some(a),
                        Err(e) => {
                            eprintln!("error: {e} (add --attest to confirm it)");
                            return Ok(Exit::Failed);
                        }
                    }
                }
                ScanMode::Passive => None,
            };
            let request = ScheduleRequest { cron: &cron, timezone: &tz, mode, attestation };
            match sites(&store).add_schedule(OrgId::new(&org), &site, request, now_us()).await {
                Ok(s) => {
                    println!("{}", s.id);
                    eprintln!("added schedule {} ({} {}, {}): next run {}", s.id, s.cron, s.timezone, s.mode, to_rfc3339(s.next_due_at));
                }
                Err(e) => return refused(e),
            }
        }
        ScheduleCommand::List { org, site, db } => {
            let store = open(&db).await?;
            let rows = match sites(&store).list_schedules(OrgId::new(&org), site.as_deref()).await {
                Ok(r) => r,
                Err(e) => return refused(e),
            };
            println!("{:<36}  {:<36}  {:<20}  {:<20}  {:<7}  NEXT RUN", "ID", "SITE", "CRON", "TZ", "MODE");
            for s in rows {
                println!("{:<36}  {:<36}  {:<20}  {:<20}  {:<7}  {}", s.id, s.site_id, s.cron, s.timezone, s.mode, to_rfc3339(s.next_due_at));
            }
        }
        ScheduleCommand::Remove { id, db } => {
            let store = open(&db).await?;
            let Some(row) = store.schedule_any_org(id).await? else {
                eprintln!("error: no schedule {id}");
                return Ok(Exit::Failed);
            };
            if let Err(e) = sites(&store).remove_schedule(OrgId::new(&row.org_id), id, None).await {
                return refused(e);
            }
            eprintln!("removed schedule {id}");
        }
    }
    Ok(Exit::Clean)
}

pub async fn monitor(cmd: MonitorCommand) -> anyhow::Result<Exit> {
    match cmd {
        MonitorCommand::Add { org, site, every, db } => {
            // Checked before the database is opened: a typo never creates a file.
            if let Err(e) = recurring::parse_every(&every, recurring::monitor::min_every_seconds()) {
                return refused(e);
            }
            let store = open(&db).await?;
            match sites(&store).add_monitor(OrgId::new(&org), &site, &every, now_us()).await {
                Ok(m) => {
                    println!("{}", m.id);
                    eprintln!("added monitor {} every {}: first probe {}", m.id, every_text(m.every_seconds), to_rfc3339(m.next_check_at));
                }
                Err(e) => return refused(e),
            }
        }
        MonitorCommand::List { org, site, db } => {
            let store = open(&db).await?;
            let rows = match sites(&store).list_monitors(OrgId::new(&org), site.as_deref()).await {
                Ok(r) => r,
                Err(e) => return refused(e),
            };
            println!("{:<36}  {:<36}  {:<6}  {:<27}  LAST CHECKED", "ID", "SITE", "EVERY", "NEXT PROBE");
            for m in rows {
                let checked = m.last_checked_at.map_or_else(|| "never".to_string(), to_rfc3339);
                println!("{:<36}  {:<36}  {:<6}  {:<27}  {}", m.id, m.site_id, every_text(m.every_seconds), to_rfc3339(m.next_check_at), checked);
            }
        }
        MonitorCommand::Remove { id, db } => {
            let store = open(&db).await?;
            let Some(row) = store.monitor_any_org(id).await? else {
                eprintln!("error: no monitor {id}");
                return Ok(Exit::Failed);
            };
            if let Err(e) = sites(&store).remove_monitor(OrgId::new(&row.org_id), id, None).await {
                return refused(e);
            }
            eprintln!("removed monitor {id}");
        }
    }
    Ok(Exit::Clean)
}

/// The `monitor.triggered` webhook event, queued for each scan a monitor starts.
pub fn webhook_hook() -> TriggerHook {
    Arc::new(|store: Store, t: recurring::MonitorTriggered| {
        Box::pin(async move {
            if let Err(e) = crate::events::webhooks::monitor_triggered(&store, &t.scan, t.monitor.id, &t.changes, now_us()).await {
                tracing::warn!(error = %e, monitor = %t.monitor.id, "could not queue monitor.triggered");
            }
        })
    })
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

/// Starts the scheduler and the monitor runner unless `--no-recurring`. Every instance of a
/// fleet may run them: each due moment is handled once.
pub fn start(args: &RecurringArgs, policy: AddressPolicy, store: Store) -> anyhow::Result<Option<RecurringLoops>> {
    if args.no_recurring {
        tracing::info!("schedules and monitors are off in this process (--no-recurring)");
        return Ok(None);
    }
    let every = Duration::from_millis(args.recurring_poll_ms.max(100));
    let stop = CancellationToken::new();
    let clock = Arc::new(SystemClock);
    let fetcher = Fetcher::new(Arc::new(EgressGuard::new(policy.clone())), FetcherOptions::default())?;
    let scheduler = Scheduler { store: store.clone(), clock: clock.clone(), policy: policy.clone() };
    let monitors = MonitorRunner {
        store,
        fetcher: Arc::new(fetcher),
        clock,
        policy,
        on_trigger: Some(webhook_hook()),
        probe_deadline: recurring::monitor::PROBE_DEADLINE,
    };
    let handles = vec![scheduler.spawn(every, stop.clone()), monitors.spawn(every, stop.clone())];
    Ok(Some(RecurringLoops { stop, handles }))
}
