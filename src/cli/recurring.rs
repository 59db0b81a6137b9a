//! `sitescan schedule add|list|remove`, `sitescan monitor add|list|remove`, and the schedule
//! and monitor loops `serve` and `worker` run.

use super::Exit;
use super::args::{IdArgs, MonitorCommand, OrgSiteArgs, RecurringArgs, ScheduleCommand};
use super::admin::open;
use crate::model::time::{now_us, to_rfc3339};
use crate::model::{Attestation, Attester, Confirmation, OrgId, ScanMode};
use crate::recurring::{self, RecurringError};
use crate::sites::ScheduleRequest;
use std::time::Duration;

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
            let app = open(&db).await?;
            let attestation = match mode {
                ScanMode::Active => {
                    let row = match app.sites().find(OrgId::new(&org), &site).await {
                        Ok(row) => row,
                        Err(e) => return super::site::refused(e),
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
            match app.sites().add_schedule(OrgId::new(&org), &site, request, now_us()).await {
                Ok(s) => {
                    println!("{}", s.id);
                    eprintln!("added schedule {} ({} {}, {}): next run {}", s.id, s.cron, s.timezone, s.mode, to_rfc3339(s.next_due_at));
                }
                Err(e) => return refused(e),
            }
        }
        ScheduleCommand::List(OrgSiteArgs { org, site, db }) => {
            let app = open(&db).await?;
            let rows = match app.sites().list_schedules(OrgId::new(&org), site.as_deref()).await {
                Ok(r) => r,
                Err(e) => return refused(e),
            };
            println!("{:<36}  {:<36}  {:<20}  {:<20}  {:<7}  NEXT RUN", "ID", "SITE", "CRON", "TZ", "MODE");
            for s in rows {
                println!("{:<36}  {:<36}  {:<20}  {:<20}  {:<7}  {}", s.id, s.site_id, s.cron, s.timezone, s.mode, to_rfc3339(s.next_due_at));
            }
        }
        ScheduleCommand::Remove(IdArgs { id, db }) => {
            let app = open(&db).await?;
            if let Err(e) = app.sites().remove_any_schedule(id).await {
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
            let app = open(&db).await?;
            match app.sites().add_monitor(OrgId::new(&org), &site, &every, now_us()).await {
                Ok(m) => {
                    println!("{}", m.id);
                    eprintln!("added monitor {} every {}: first probe {}", m.id, every_text(m.every_seconds), to_rfc3339(m.next_check_at));
                }
                Err(e) => return refused(e),
            }
        }
        MonitorCommand::List(OrgSiteArgs { org, site, db }) => {
            let app = open(&db).await?;
            let rows = match app.sites().list_monitors(OrgId::new(&org), site.as_deref()).await {
                Ok(r) => r,
                Err(e) => return refused(e),
            };
            println!("{:<36}  {:<36}  {:<6}  {:<27}  LAST CHECKED", "ID", "SITE", "EVERY", "NEXT PROBE");
            for m in rows {
                let checked = m.last_checked_at.map_or_else(|| "never".to_string(), to_rfc3339);
                println!("{:<36}  {:<36}  {:<6}  {:<27}  {}", m.id, m.site_id, every_text(m.every_seconds), to_rfc3339(m.next_check_at), checked);
            }
        }
        MonitorCommand::Remove(IdArgs { id, db }) => {
            let app = open(&db).await?;
            if let Err(e) = app.sites().remove_any_monitor(id).await {
                return refused(e);
            }
            eprintln!("removed monitor {id}");
        }
    }
    Ok(Exit::Clean)
}

/// Starts the scheduler and the monitor runner of `app` unless `--no-recurring`. Every instance
/// of a fleet may run them: each due moment is handled once.
pub fn start(args: &RecurringArgs, app: &crate::app::App) -> anyhow::Result<Option<crate::app::RecurringLoops>> {
    if args.no_recurring {
        tracing::info!("schedules and monitors are off in this process (--no-recurring)");
        return Ok(None);
    }
    Ok(Some(app.start_recurring(Duration::from_millis(args.recurring_poll_ms.max(100)))?))
}
