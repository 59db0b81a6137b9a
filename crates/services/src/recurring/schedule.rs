//! Schedules: a 5-field cron expression in an IANA time zone, per site, and the [`Scheduler`]
//! that creates each due scan once across the fleet.
//!
//! A tick finds schedules whose `next_due_at` has passed, creates the scan of the latest due
//! moment (ticks missed while everything was down give one catch-up scan, not a burst) through
//! [`Store::create_scan_with`] with the schedule's due moment as the exactly-once key, then moves
//! `next_due_at` to the first occurrence after now by compare-and-set.

use crate::store::Clock;
use super::error::RecurringError;
use super::sites::resolve_site;
use crate::model::{AddressPolicy, Attestation, ScanMode, Target, TriggeredBy};
use crate::store::time::to_rfc3339;
use crate::store::{CreateOutcome, NewSchedule, ScanExtras, ScheduleRow, Store};
use chrono::{DateTime, TimeZone, Utc};
use chrono_tz::Tz;
use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// The time zone of a schedule that names none.
pub const DEFAULT_TIMEZONE: &str = "UTC";
/// How often the scheduler looks for due schedules.
pub const DEFAULT_TICK: Duration = Duration::from_secs(5);
/// Schedules claimed at once by a planner (a tick takes batch after batch until none is due).
const TICK_BATCH: i64 = 200;
/// Schedules of a batch planned at once (each is a few queries; the database overlaps them).
const PLAN_AT_ONCE: usize = 8;
/// Schedules a site may have (cadences and modes; a fleet's test plans twenty on one site).
pub const MAX_SCHEDULES_PER_SITE: i64 = 20;
/// Schedules an organisation may have over all its sites.
pub const MAX_SCHEDULES_PER_ORG: i64 = 100;
/// How long a claimed batch is the claiming planner's (another takes it over after that).
const CLAIM_FOR: Duration = Duration::from_secs(120);

/// A parsed schedule: when it fires, in which zone.
#[derive(Debug, Clone)]
pub struct CronSpec {
    cron: Cron,
    tz: Tz,
}

/// The time zone named `name` (IANA, e.g. `Europe/Paris`; `UTC`).
pub fn parse_timezone(name: &str) -> Result<Tz, RecurringError> {
    name.trim().parse::<Tz>().map_err(|_| {
        RecurringError::Invalid(format!("unknown time zone {name:?}: use an IANA name such as UTC or Europe/Paris"))
    })
}

impl CronSpec {
    /// Parses a 5-field cron expression (minute hour day-of-month month day-of-week) and a zone.
    pub fn parse(expr: &str, timezone: &str) -> Result<CronSpec, RecurringError> {
        let fields = expr.split_whitespace().count();
        if fields != 5 {
            return Err(RecurringError::Invalid(format!(
                "cron: {expr:?} has {fields} fields; expected 5 (minute hour day-of-month month day-of-week)"
            )));
        }
        let cron = CronParser::builder()
            .seconds(Seconds::Disallowed)
            .year(Year::Disallowed)
            .build()
            .parse(expr)
            .map_err(|e| RecurringError::Invalid(format!("cron: {expr:?}: {e}")))?;
        let tz = parse_timezone(timezone)?;
        let spec = CronSpec { cron, tz };
        // A pattern that never fires (30 February) is refused now, not at the first tick.
        spec.next_after(crate::store::time::now_us())?;
        Ok(spec)
    }

    fn local(&self, us: i64) -> Result<DateTime<Tz>, RecurringError> {
        Utc.timestamp_micros(us)
            .single()
            .map(|t| t.with_timezone(&self.tz))
            .ok_or_else(|| RecurringError::Invalid(format!("time {us} µs is out of range")))
    }

    /// The first occurrence strictly after `us` (µs since the epoch), computed in the zone.
    pub fn next_after(&self, us: i64) -> Result<i64, RecurringError> {
        let at = self
            .cron
            .find_next_occurrence(&self.local(us)?, false)
            .map_err(|e| RecurringError::Invalid(format!("cron: no next occurrence: {e}")))?;
        Ok(at.timestamp_micros())
    }

    /// The latest occurrence at or before `us`, if any can be found.
    pub fn latest_at_or_before(&self, us: i64) -> Option<i64> {
        let now = self.local(us).ok()?;
        self.cron.find_previous_occurrence(&now, true).ok().map(|t| t.timestamp_micros())
    }
}

/// Checks a mode name: `passive` or `active`.
pub fn parse_mode(mode: &str) -> Result<ScanMode, RecurringError> {
    mode.trim().parse().map_err(|_| RecurringError::Invalid(format!("mode: {mode:?}: expected passive or active")))
}

/// Adds a schedule to the organisation's site `site` (its id or origin URL). The cron
/// expression and zone are checked (`cron: ...`, `unknown time zone ...`); the first due moment
/// is the first occurrence after `now`. An active schedule needs the site's attestation
/// ([`Attestation::confirm`] for its origin): who confirmed it, from where and the statement are
/// recorded with the schedule and copied to every scan it creates, and each due scan is created
/// only while the site is verified (the worker proves it again).
#[allow(clippy::too_many_arguments)]
pub async fn add_schedule(
    store: &Store,
    org: &str,
    site: &str,
    cron: &str,
    timezone: Option<&str>,
    mode: ScanMode,
    attestation: Option<Attestation>,
    now: i64,
) -> Result<ScheduleRow, RecurringError> {
    let timezone = timezone.map(str::trim).filter(|t| !t.is_empty()).unwrap_or(DEFAULT_TIMEZONE);
    let spec = CronSpec::parse(cron, timezone)?;
    let site = resolve_site(store, org, site).await?;
    let cron = cron.split_whitespace().collect::<Vec<_>>().join(" ");
    let next_due_at = spec.next_after(now)?;
    let attestation = match (mode, attestation) {
        (ScanMode::Active, Some(a)) => {
            let a = a.for_origin(&site.origin).map_err(|e| RecurringError::Invalid(format!("attestation: {e}")))?;
            Some(
                serde_json::json!({
                    "actor": a.attester().actor,
                    "client_addr": a.attester().client_addr,
                    "statement": a.statement(),
                    "attested_at": to_rfc3339(now),
                })
                .to_string(),
            )
        }
        (ScanMode::Active, None) => {
            let statement = crate::model::attestation_statement(&site.origin);
            return Err(RecurringError::Invalid(format!("mode: an active schedule needs the attestation confirmed: \"{statement}\"")));
        }
        (ScanMode::Passive, _) => None,
    };
    let new = NewSchedule { org, site_id: site.id, cron: &cron, timezone, mode: mode.as_str(), next_due_at, attestation };
    match store.add_schedule_within(new, now, MAX_SCHEDULES_PER_SITE, MAX_SCHEDULES_PER_ORG).await? {
        Some(row) => Ok(row),
        None if store.list_schedules(org, Some(site.id)).await?.len() as i64 >= MAX_SCHEDULES_PER_SITE => Err(RecurringError::TooMany(format!(
            "the site {} has {MAX_SCHEDULES_PER_SITE} schedules, the most allowed; remove one first",
            site.origin
        ))),
        None => Err(RecurringError::TooMany(format!("the organisation has {MAX_SCHEDULES_PER_ORG} schedules, the most allowed; remove one first"))),
    }
}

/// The organisation's schedules, of one site (id or origin) when `site` is given.
pub async fn list_schedules(store: &Store, org: &str, site: Option<&str>) -> Result<Vec<ScheduleRow>, RecurringError> {
    let site_id = match site {
        Some(s) => Some(resolve_site(store, org, s).await?.id),
        None => None,
    };
    Ok(store.list_schedules(org, site_id).await?)
}

/// Removes one of the organisation's schedules, of site `site` when given (`NotFound` otherwise).
pub async fn remove_schedule(store: &Store, org: &str, id: Uuid, site: Option<Uuid>) -> Result<(), RecurringError> {
    if store.remove_schedule(org, id, site).await? {
        Ok(())
    } else {
        Err(RecurringError::NotFound(match site {
            Some(site) => format!("no schedule {id} of site {site} in organisation {org}"),
            None => format!("no schedule {id} in organisation {org}"),
        }))
    }
}

/// The attestation an active schedule's scans carry: who confirmed it when adding the schedule.
fn schedule_attestation(row: &ScheduleRow, site: &crate::store::SiteRow) -> Option<crate::store::NewAttestation> {
    let recorded: serde_json::Value = serde_json::from_str(row.attestation.as_deref()?).ok()?;
    let actor = recorded.get("actor")?.as_str()?;
    let attested_at = recorded.get("attested_at").and_then(|t| t.as_str()).unwrap_or("?");
    Some(crate::store::NewAttestation {
        site_id: site.id,
        actor: format!("{actor} (schedule {}, attested {attested_at})", row.id),
        client_addr: recorded.get("client_addr").and_then(|c| c.as_str()).map(str::to_string),
        statement: recorded.get("statement")?.as_str()?.to_string(),
    })
}

/// What one tick did with one due schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tick {
    /// The scan of this due moment was created here.
    Created { schedule_id: Uuid, due_at: i64, scan_id: Uuid },
    /// Another instance had already created it.
    AlreadyCreated { schedule_id: Uuid, due_at: i64 },
    /// No scan for this due moment, and why (unverified site for an active scan, quota, ...).
    Skipped { schedule_id: Uuid, due_at: i64, reason: String },
}

/// Creates the scans of due schedules.
#[derive(Debug, Clone)]
pub struct Scheduler {
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    /// The egress policy targets are parsed under (`--allow-target`).
    pub policy: AddressPolicy,
}

impl Scheduler {
    /// Handles every schedule due now, batch after claimed batch until none is left (the other
    /// planners of the fleet take batches of their own meanwhile); returns what became of each.
    pub async fn run_once(&self) -> Result<Vec<Tick>, RecurringError> {
        use futures::stream::StreamExt;
        let now = self.clock.now_us();
        let mut out = Vec::new();
        loop {
            let until = self.clock.now_us() + CLAIM_FOR.as_micros() as i64;
            let batch = self.store.claim_due_schedules(now, until, TICK_BATCH).await?;
            if batch.is_empty() {
                return Ok(out);
            }
            let planned: Vec<_> = batch
                .into_iter()
                .map(|row| -> std::pin::Pin<Box<dyn std::future::Future<Output = (Uuid, Result<Option<Tick>, RecurringError>)> + Send + '_>> {
                    Box::pin(async move { (row.id, self.handle(&row, now).await) })
                })
                .collect();
            let mut handled = futures::stream::iter(planned).buffer_unordered(PLAN_AT_ONCE);
            while let Some((id, result)) = handled.next().await {
                match result {
                    Ok(Some(tick)) => out.push(tick),
                    Ok(None) => {}
                    Err(e) => tracing::warn!(schedule = %id, error = %e, "schedule tick failed"),
                }
            }
        }
    }

    async fn handle(&self, row: &ScheduleRow, now: i64) -> Result<Option<Tick>, RecurringError> {
        let spec = match CronSpec::parse(&row.cron, &row.timezone) {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(schedule = %row.id, error = %e, "schedule cannot be evaluated: retried in a day");
                self.store.advance_schedule(row.id, row.next_due_at, now + 86_400_000_000, None).await?;
                return Ok(None);
            }
        };
        // The latest due moment (one catch-up scan after downtime), never before the stored one.
        let due_at = spec.latest_at_or_before(now).map_or(row.next_due_at, |d| d.max(row.next_due_at));
        let next = spec.next_after(now)?;
        let tick = self.create(row, due_at).await?;
        if let Tick::Skipped { reason, .. } = &tick {
            tracing::warn!(schedule = %row.id, site = %row.site_id, due_at = %to_rfc3339(due_at), reason = %reason, "scheduled scan skipped");
        }
        if !self.store.advance_schedule(row.id, row.next_due_at, next, Some(due_at)).await? {
            tracing::debug!(schedule = %row.id, "another instance moved the schedule on");
        }
        Ok(Some(tick))
    }

    async fn create(&self, row: &ScheduleRow, due_at: i64) -> Result<Tick, RecurringError> {
        let skipped = |reason: String| Tick::Skipped { schedule_id: row.id, due_at, reason };
        let Some(site) = self.store.site_any_org(row.site_id).await? else {
            return Ok(skipped("the site is gone".into()));
        };
        let mode = parse_mode(&row.mode)?;
        if mode == ScanMode::Active && !site.verified() {
            return Ok(skipped(format!("active scan of {} skipped: the site's ownership is not verified", site.origin)));
        }
        let target = match Target::parse(&site.origin, &self.policy) {
            Ok(t) => t,
            Err(e) => return Ok(skipped(format!("the site's origin is not a valid target: {e}"))),
        };
        let trigger = crate::model::ScanTrigger {
            kind: "schedule".into(),
            schedule_id: Some(row.id.to_string()),
            cron: Some(row.cron.clone()),
            timezone: Some(row.timezone.clone()),
            due_at: Some(to_rfc3339(due_at)),
            ..Default::default()
        };
        let attestation = match mode {
            ScanMode::Passive => None,
            ScanMode::Active => match schedule_attestation(row, &site) {
                Some(a) => Some(a),
                None => return Ok(skipped("active schedule without a recorded attestation".into())),
            },
        };
        let extras = ScanExtras {
            site_id: Some(site.id),
            trigger: serde_json::to_string(&trigger).ok(),
            attestation,
            schedule_due: Some((row.id, due_at)),
            level: site.level(),
        };
        match self.store.create_scan_with(&row.org_id, &target, mode, TriggeredBy::Schedule, None, extras).await? {
            None => Ok(Tick::AlreadyCreated { schedule_id: row.id, due_at }),
            Some(CreateOutcome::Created(scan)) => {
                tracing::info!(schedule = %row.id, scan_id = %scan.id, due_at = %to_rfc3339(due_at), "scheduled scan created");
                Ok(Tick::Created { schedule_id: row.id, due_at, scan_id: scan.id })
            }
            Some(CreateOutcome::QuotaExceeded(q)) => {
                Ok(skipped(format!("the organisation's monthly scan quota ({}) is used up", q.limit)))
            }
        }
    }

    /// Runs until `stop`: a tick every `every`.
    pub fn spawn(self, every: Duration, stop: CancellationToken) -> tokio::task::JoinHandle<()> {
        crate::tasks::spawn_rounds(self, every, stop, "schedule tick failed", |scheduler| async move { scheduler.run_once().await })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(rfc: &str) -> i64 {
        DateTime::parse_from_rfc3339(rfc).unwrap().timestamp_micros()
    }

    #[test]
    fn five_fields_are_required_and_errors_say_cron() {
        for bad in ["* * * *", "0 * * * * *", "61 * * * *", "* * * * mon-", ""] {
            let e = CronSpec::parse(bad, "UTC").unwrap_err().to_string();
            assert!(e.starts_with("cron: "), "{bad:?}: {e}");
        }
        assert!(CronSpec::parse("*/15 9-17 * * mon-fri", "UTC").is_ok());
    }

    #[test]
    fn an_unknown_zone_is_refused_clearly() {
        let e = CronSpec::parse("0 3 * * *", "Mars/Olympus").unwrap_err().to_string();
        assert!(e.contains("unknown time zone") && e.contains("Mars/Olympus"), "{e}");
    }

    #[test]
    fn next_due_is_computed_in_the_zone_across_daylight_saving() {
        let spec = CronSpec::parse("0 9 * * *", "Europe/Paris").unwrap();
        // Winter (UTC+1): 09:00 Paris is 08:00Z.
        assert_eq!(spec.next_after(us("2026-03-27T12:00:00Z")).unwrap(), us("2026-03-28T08:00:00Z"));
        // The clocks go forward on 29 March 2026: 09:00 Paris is then 07:00Z.
        assert_eq!(spec.next_after(us("2026-03-28T12:00:00Z")).unwrap(), us("2026-03-29T07:00:00Z"));
        let utc = CronSpec::parse("0 9 * * *", "UTC").unwrap();
        assert_eq!(utc.next_after(us("2026-03-28T12:00:00Z")).unwrap(), us("2026-03-29T09:00:00Z"));
    }

    #[test]
    fn next_is_strictly_after_and_latest_is_at_or_before() {
        let spec = CronSpec::parse("*/10 * * * *", "UTC").unwrap();
        assert_eq!(spec.next_after(us("2026-01-01T10:00:00Z")).unwrap(), us("2026-01-01T10:10:00Z"));
        assert_eq!(spec.latest_at_or_before(us("2026-01-01T10:00:00Z")), Some(us("2026-01-01T10:00:00Z")));
        assert_eq!(spec.latest_at_or_before(us("2026-01-01T10:29:59Z")), Some(us("2026-01-01T10:20:00Z")));
    }

    async fn store_with_site(org: &str, origin: &str) -> (tempfile::TempDir, Store, crate::store::SiteRow) {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("s.db").display());
        let store = Store::open(&url, true).await.unwrap();
        store.set_org(org, None).await.unwrap();
        let host = url::Url::parse(origin).unwrap().host_str().unwrap().to_string();
        let site = store.add_site(org, origin, &host, "tok", "test", 0).await.unwrap().unwrap();
        (dir, store, site)
    }

    #[tokio::test]
    async fn downtime_gives_one_catch_up_scan_for_the_latest_due_moment() {
        let (_dir, store, site) = store_with_site("acme", "https://shop.example.com").await;
        let clock = Arc::new(crate::store::ManualClock::at(us("2026-01-01T10:00:30Z")));
        let s = add_schedule(&store, "acme", &site.origin, "*/10 * * * *", None, ScanMode::Passive, None, clock.now_us()).await.unwrap();
        assert_eq!(s.next_due_at, us("2026-01-01T10:10:00Z"));
        let sched = Scheduler { store: store.clone(), clock: clock.clone(), policy: AddressPolicy::default() };
        assert!(sched.run_once().await.unwrap().is_empty(), "nothing due yet");
        // Down for 45 minutes: 10:10, 10:20, 10:30, 10:40 and 10:50 were missed.
        clock.set(us("2026-01-01T10:55:00Z"));
        let ticks = sched.run_once().await.unwrap();
        assert!(matches!(&ticks[..], [Tick::Created { due_at, .. }] if *due_at == us("2026-01-01T10:50:00Z")), "{ticks:?}");
        assert!(sched.run_once().await.unwrap().is_empty(), "one catch-up scan, not a burst");
        let row = store.schedule("acme", s.id).await.unwrap().unwrap();
        assert_eq!(row.next_due_at, us("2026-01-01T11:00:00Z"));
        assert_eq!(row.last_due_at, Some(us("2026-01-01T10:50:00Z")));
        clock.set(us("2026-01-01T11:00:01Z"));
        let ticks = sched.run_once().await.unwrap();
        assert!(matches!(&ticks[..], [Tick::Created { due_at, .. }] if *due_at == us("2026-01-01T11:00:00Z")), "{ticks:?}");
        let runs = store.schedule_runs(s.id).await.unwrap();
        assert_eq!(runs.len(), 2);
        let Tick::Created { scan_id, .. } = ticks[0] else { unreachable!() };
        let scan = store.scan_any_org(scan_id).await.unwrap().unwrap();
        assert_eq!(scan.triggered_by, TriggeredBy::Schedule);
        assert_eq!(scan.site_id, Some(site.id));
        let trigger: serde_json::Value = serde_json::from_str(scan.trigger.as_deref().unwrap()).unwrap();
        assert_eq!(trigger["kind"], "schedule");
        assert_eq!(trigger["schedule_id"], s.id.to_string());
        assert_eq!(trigger["due_at"], to_rfc3339(us("2026-01-01T11:00:00Z")));
    }

    #[tokio::test]
    async fn two_schedulers_on_one_due_moment_create_one_scan() {
        let (_dir, store, site) = store_with_site("acme", "https://shop.example.com").await;
        let clock = Arc::new(crate::store::ManualClock::at(us("2026-01-01T10:00:30Z")));
        let s = add_schedule(&store, "acme", &site.id.to_string(), "0 * * * *", Some("UTC"), ScanMode::Passive, None, clock.now_us())
            .await
            .unwrap();
        clock.set(us("2026-01-01T11:00:02Z"));
        let a = Scheduler { store: store.clone(), clock: clock.clone(), policy: AddressPolicy::default() };
        let b = a.clone();
        // Both see the schedule due before either moves it on.
        let row = store.schedule("acme", s.id).await.unwrap().unwrap();
        let (ta, tb) = tokio::join!(a.handle(&row, clock.now_us()), b.handle(&row, clock.now_us()));
        let ticks = [ta.unwrap().unwrap(), tb.unwrap().unwrap()];
        assert_eq!(ticks.iter().filter(|t| matches!(t, Tick::Created { .. })).count(), 1, "{ticks:?}");
        assert_eq!(ticks.iter().filter(|t| matches!(t, Tick::AlreadyCreated { .. })).count(), 1, "{ticks:?}");
        assert_eq!(store.schedule_runs(s.id).await.unwrap().len(), 1);
    }

    #[tokio::test]
    async fn an_active_schedule_of_an_unverified_site_is_skipped() {
        let (_dir, store, site) = store_with_site("acme", "https://shop.example.com").await;
        let clock = Arc::new(crate::store::ManualClock::at(us("2026-01-01T10:00:30Z")));
        let cli = crate::model::Attester { actor: "cli".into(), client_addr: None };
        let other = Attestation::confirm("https://other.example.com", crate::model::Confirmation::Ticked(true), cli.clone()).unwrap();
        let refused = add_schedule(&store, "acme", &site.origin, "0 * * * *", None, ScanMode::Active, Some(other), clock.now_us()).await;
        assert!(matches!(&refused, Err(RecurringError::Invalid(m)) if m.contains("not for https://shop.example.com")), "another site's attestation: {refused:?}");
        let attestation = Attestation::confirm(&site.origin, crate::model::Confirmation::Ticked(true), cli).unwrap();
        let s = add_schedule(&store, "acme", &site.origin, "0 * * * *", None, ScanMode::Active, Some(attestation), clock.now_us()).await.unwrap();
        clock.set(us("2026-01-01T11:00:02Z"));
        let sched = Scheduler { store: store.clone(), clock: clock.clone(), policy: AddressPolicy::default() };
        let ticks = sched.run_once().await.unwrap();
        assert!(matches!(&ticks[..], [Tick::Skipped { reason, .. }] if reason.contains("not verified")), "{ticks:?}");
        assert!(store.schedule_runs(s.id).await.unwrap().is_empty());
        store.record_site_verification(site.id, Ok("file"), clock.now_us()).await.unwrap();
        clock.set(us("2026-01-01T12:00:02Z"));
        let ticks = sched.run_once().await.unwrap();
        let Tick::Created { scan_id, .. } = ticks[0] else { panic!("{ticks:?}") };
        assert_eq!(store.scan_any_org(scan_id).await.unwrap().unwrap().mode, ScanMode::Active);
        let attested = store.attestation(scan_id).await.unwrap().expect("the schedule's attestation is copied to the scan");
        assert!(attested.actor.starts_with("cli (schedule "), "{}", attested.actor);
        assert_eq!(attested.statement, crate::model::attestation_statement(&site.origin));
        let refused = add_schedule(&store, "acme", &site.origin, "0 * * * *", None, ScanMode::Active, None, clock.now_us()).await;
        assert!(matches!(&refused, Err(RecurringError::Invalid(m)) if m.contains("attestation")), "{refused:?}");
    }

    #[tokio::test]
    async fn schedules_are_capped_per_site_and_claimed_in_turns_by_organisation() {
        let (_dir, store, site) = store_with_site("acme", "https://shop.example.com").await;
        for _ in 0..MAX_SCHEDULES_PER_SITE {
            add_schedule(&store, "acme", &site.origin, "*/5 * * * *", None, ScanMode::Passive, None, 0).await.unwrap();
        }
        let refused = add_schedule(&store, "acme", &site.origin, "0 * * * *", None, ScanMode::Passive, None, 0).await;
        assert!(matches!(&refused, Err(RecurringError::TooMany(m)) if m.contains(&format!("{MAX_SCHEDULES_PER_SITE} schedules"))), "{refused:?}");
        assert_eq!(list_schedules(&store, "acme", None).await.unwrap().len() as i64, MAX_SCHEDULES_PER_SITE, "nothing added");
        // Another organisation's one schedule, due after all of acme's: claimed in the first two.
        store.set_org("globex", None).await.unwrap();
        let other = store.add_site("globex", "https://globex.example.com", "globex.example.com", "tok", "test", 0).await.unwrap().unwrap();
        let theirs = add_schedule(&store, "globex", &other.origin, "*/7 * * * *", None, ScanMode::Passive, None, 60_000_000).await.unwrap();
        let due = theirs.next_due_at + 1;
        let claimed = store.claim_due_schedules(due, due + 1_000_000, 2).await.unwrap();
        let orgs: Vec<&str> = claimed.iter().map(|s| s.org_id.as_str()).collect();
        assert_eq!(orgs.len(), 2);
        assert!(orgs.contains(&"acme") && orgs.contains(&"globex"), "one of each organisation first: {orgs:?}");
    }

    #[tokio::test]
    async fn adding_checks_site_cron_zone_and_mode() {
        let (_dir, store, _site) = store_with_site("acme", "https://shop.example.com").await;
        let add = |site: &'static str, cron: &'static str, tz: Option<&'static str>| {
            let store = store.clone();
            async move { add_schedule(&store, "acme", site, cron, tz, ScanMode::Passive, None, 0).await }
        };
        assert!(matches!(add("https://other.example.com", "0 * * * *", None).await, Err(RecurringError::NotFound(_))));
        assert!(matches!(add("not a site", "0 * * * *", None).await, Err(RecurringError::Invalid(_))));
        assert!(add("https://shop.example.com/", "0 * * *", None).await.unwrap_err().to_string().starts_with("cron: "));
        assert!(add("https://shop.example.com", "0 * * * *", Some("Nowhere/Town")).await.unwrap_err().to_string().contains("time zone"));
        assert!(parse_mode("aggressive").unwrap_err().to_string().starts_with("mode: "));
        let s = add("https://shop.example.com/", "0 * * * *", Some("Europe/Paris")).await.unwrap();
        assert_eq!(s.timezone, "Europe/Paris");
        assert_eq!(list_schedules(&store, "acme", Some("https://shop.example.com")).await.unwrap().len(), 1);
        assert!(list_schedules(&store, "other", None).await.unwrap().is_empty());
        assert!(matches!(remove_schedule(&store, "other", s.id, None).await, Err(RecurringError::NotFound(_))));
        assert!(matches!(remove_schedule(&store, "acme", s.id, Some(Uuid::new_v4())).await, Err(RecurringError::NotFound(_))));
        remove_schedule(&store, "acme", s.id, Some(s.site_id)).await.unwrap();
        assert!(list_schedules(&store, "acme", None).await.unwrap().is_empty());
    }
}
