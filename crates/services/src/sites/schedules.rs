//! A site's recurring scans, as the site service offers them to every edge (the dashboard,
//! `OwnerService`, the CLI): schedules (cron, in a zone, passive or attested active) and monitors
//! (a light probe every N minutes). The rules are `recurring`'s, in one place: the cron expression
//! and zone, the attestation for active schedules, the monitor's interval bounds, the site looked
//! up by id or origin within the organisation.

use super::service::SiteService;
use crate::model::{Attestation, OrgId, ScanMode};
use crate::recurring::{self, RecurringError};
use crate::store::{MonitorRow, ScheduleRow};
use uuid::Uuid;

/// A schedule as the owner asked for it.
#[derive(Debug, Clone)]
pub struct ScheduleRequest<'a> {
    /// Five fields (`0 3 * * 1`).
    pub cron: &'a str,
    /// An IANA zone; blank: UTC.
    pub timezone: &'a str,
    pub mode: ScanMode,
    /// Required for an active schedule, confirmed for the site's origin.
    pub attestation: Option<Attestation>,
}

impl SiteService {
    /// Adds a schedule to the organisation's site `site` (its id or origin URL); its first run is
    /// the first occurrence after `now`.
    pub async fn add_schedule(&self, org: OrgId<'_>, site: &str, request: ScheduleRequest<'_>, now: i64) -> Result<ScheduleRow, RecurringError> {
        let ScheduleRequest { cron, timezone, mode, attestation } = request;
        recurring::add_schedule(self.store(), org.as_str(), site, cron, Some(timezone), mode, attestation, now).await
    }

    /// The organisation's schedules, of one site (id or origin) when `site` is given.
    pub async fn list_schedules(&self, org: OrgId<'_>, site: Option<&str>) -> Result<Vec<ScheduleRow>, RecurringError> {
        recurring::list_schedules(self.store(), org.as_str(), site).await
    }

    /// Removes one of the organisation's schedules, of site `site` when given (`NotFound`
    /// otherwise: a page of one site never removes another site's schedule).
    pub async fn remove_schedule(&self, org: OrgId<'_>, id: Uuid, site: Option<Uuid>) -> Result<(), RecurringError> {
        recurring::remove_schedule(self.store(), org.as_str(), id, site).await
    }

    /// Adds a monitor to the organisation's site `site` (id or origin) probing it `every` (`5m`,
    /// `1h`, `90s`; within the allowed bounds); its first probe, which only records, is due now.
    pub async fn add_monitor(&self, org: OrgId<'_>, site: &str, every: &str, now: i64) -> Result<MonitorRow, RecurringError> {
        let seconds = recurring::parse_every(every, recurring::monitor::min_every_seconds())?;
        recurring::add_monitor(self.store(), org.as_str(), site, seconds, now).await
    }

    /// The organisation's monitors, of one site (id or origin) when `site` is given.
    pub async fn list_monitors(&self, org: OrgId<'_>, site: Option<&str>) -> Result<Vec<MonitorRow>, RecurringError> {
        recurring::list_monitors(self.store(), org.as_str(), site).await
    }

    /// Removes one of the organisation's monitors, of site `site` when given (`NotFound` otherwise).
    pub async fn remove_monitor(&self, org: OrgId<'_>, id: Uuid, site: Option<Uuid>) -> Result<(), RecurringError> {
        recurring::remove_monitor(self.store(), org.as_str(), id, site).await
    }

    /// Removes a schedule whatever its organisation (the operator's CLI).
    pub async fn remove_any_schedule(&self, id: Uuid) -> Result<(), RecurringError> {
        let row = self.store().schedule_any_org(id).await?.ok_or_else(|| RecurringError::NotFound(format!("no schedule {id}")))?;
        self.remove_schedule(OrgId::new(&row.org_id), id, None).await
    }

    /// Removes a monitor whatever its organisation (the operator's CLI).
    pub async fn remove_any_monitor(&self, id: Uuid) -> Result<(), RecurringError> {
        let row = self.store().monitor_any_org(id).await?.ok_or_else(|| RecurringError::NotFound(format!("no monitor {id}")))?;
        self.remove_monitor(OrgId::new(&row.org_id), id, None).await
    }
}
