//! Schedules: a site's cron expression, time zone and mode, and when it is next due.
//!
//! Fleet safety: any instance may see a schedule due; the scan of a due moment is created only
//! once (the `schedule_runs` key, in the scan's own transaction: [`Store::create_scan_with`]),
//! and `next_due_at` moves on by compare-and-set ([`Store::advance_schedule`]).

use super::{Store, decode};
use super::error::StoreResult;
use sea_orm::ConnectionTrait;
use uuid::Uuid;

/// A schedule as stored.
#[derive(Debug, Clone, PartialEq, Eq, sea_orm::FromQueryResult)]
pub struct ScheduleRow {
    pub id: Uuid,
    pub site_id: Uuid,
    pub org_id: String,
    /// A 5-field cron expression.
    pub cron: String,
    /// An IANA time zone name (`UTC`, `Europe/Paris`).
    pub timezone: String,
    /// `passive` or `active`.
    pub mode: String,
    /// The next due moment (µs since the epoch).
    pub next_due_at: i64,
    /// The last due moment a scan was created for.
    pub last_due_at: Option<i64>,
    /// Active schedules: JSON `{actor, client_addr, statement, attested_at}` of whoever
    /// confirmed the attestation when adding it; copied to each scan it creates.
    pub attestation: Option<String>,
    pub created_at: i64,
}

/// A schedule to add.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSchedule<'a> {
    pub org: &'a str,
    pub site_id: Uuid,
    pub cron: &'a str,
    pub timezone: &'a str,
    pub mode: &'a str,
    pub next_due_at: i64,
    pub attestation: Option<String>,
}

const COLUMNS: &str = "id, site_id, org_id, cron, timezone, mode, next_due_at, last_due_at, attestation, created_at";


impl Store {
    /// Adds a schedule unless the site has `per_site` schedules or the organisation `per_org`
    /// already (one statement, so two adds at once cannot both pass the count); returns it, or
    /// `None` at a cap.
    pub async fn add_schedule_within(&self, new: NewSchedule<'_>, now: i64, per_site: i64, per_org: i64) -> StoreResult<Option<ScheduleRow>> {
        let id = Uuid::now_v7();
        let stmt = self.stmt(
            "INSERT INTO schedules (id, site_id, org_id, cron, timezone, mode, next_due_at, attestation, created_at) \
             SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9 \
             WHERE (SELECT COUNT(*) FROM schedules WHERE site_id = $2) < $10 \
             AND (SELECT COUNT(*) FROM schedules WHERE org_id = $3) < $11",
            vec![
                id.into(),
                new.site_id.into(),
                new.org.into(),
                new.cron.into(),
                new.timezone.into(),
                new.mode.into(),
                new.next_due_at.into(),
                new.attestation.clone().into(),
                now.into(),
                per_site.into(),
                per_org.into(),
            ],
        );
        if self.conn().execute_raw(stmt).await?.rows_affected() != 1 {
            return Ok(None);
        }
        Ok(Some(ScheduleRow {
            id,
            site_id: new.site_id,
            org_id: new.org.to_string(),
            cron: new.cron.to_string(),
            timezone: new.timezone.to_string(),
            mode: new.mode.to_string(),
            next_due_at: new.next_due_at,
            last_due_at: None,
            attestation: new.attestation.clone(),
            created_at: now,
        }))
    }

    /// One schedule of the organisation (`None` for another organisation's).
    pub async fn schedule(&self, org: &str, id: Uuid) -> StoreResult<Option<ScheduleRow>> {
        let stmt =
            self.stmt(&format!("SELECT {COLUMNS} FROM schedules WHERE id = $1 AND org_id = $2"), vec![id.into(), org.into()]);
        self.conn().query_one_raw(stmt).await?.as_ref().map(decode).transpose()
    }

    /// One schedule whatever its organisation (the CLI's `schedule remove ID`, tests).
    pub async fn schedule_any_org(&self, id: Uuid) -> StoreResult<Option<ScheduleRow>> {
        let stmt = self.stmt(&format!("SELECT {COLUMNS} FROM schedules WHERE id = $1"), vec![id.into()]);
        self.conn().query_one_raw(stmt).await?.as_ref().map(decode).transpose()
    }

    /// The organisation's schedules (of one site when `site` is given), by next due moment.
    pub async fn list_schedules(&self, org: &str, site: Option<Uuid>) -> StoreResult<Vec<ScheduleRow>> {
        let stmt = match site {
            Some(site) => self.stmt(
                &format!("SELECT {COLUMNS} FROM schedules WHERE org_id = $1 AND site_id = $2 ORDER BY next_due_at, id"),
                vec![org.into(), site.into()],
            ),
            None => self.stmt(
                &format!("SELECT {COLUMNS} FROM schedules WHERE org_id = $1 ORDER BY next_due_at, id"),
                vec![org.into()],
            ),
        };
        self.conn().query_all_raw(stmt).await?.iter().map(decode).collect()
    }

    /// Clears the recorded attestation of schedule `id` of `org`: an active schedule without one
    /// is skipped by the planner (paused) until it is attested again.
    pub async fn clear_schedule_attestation(&self, org: &str, id: Uuid) -> StoreResult<bool> {
        let stmt = self.stmt("UPDATE schedules SET attestation = NULL WHERE id = $1 AND org_id = $2", vec![id.into(), org.into()]);
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// Removes a schedule; `false` when the organisation had none with this id (of site `site`,
    /// when given).
    pub async fn remove_schedule(&self, org: &str, id: Uuid, site: Option<Uuid>) -> StoreResult<bool> {
        let stmt = match site {
            Some(site) => self.stmt("DELETE FROM schedules WHERE id = $1 AND org_id = $2 AND site_id = $3", vec![id.into(), org.into(), site.into()]),
            None => self.stmt("DELETE FROM schedules WHERE id = $1 AND org_id = $2", vec![id.into(), org.into()]),
        };
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// Schedules due at `now` (every organisation), the most overdue first.
    /// Claims up to `limit` schedules due at `now` that no planner holds, until `until` (µs):
    /// the other planners skip them meanwhile (PostgreSQL: `FOR UPDATE SKIP LOCKED`; SQLite's one
    /// writer makes the `UPDATE ... RETURNING` atomic). Moving a schedule on ends its claim; a
    /// planner that dies leaves it to the others once `until` passed.
    pub async fn claim_due_schedules(&self, now: i64, until: i64, limit: i64) -> StoreResult<Vec<ScheduleRow>> {
        let lock = match self.backend() {
            sea_orm::DatabaseBackend::Postgres => " FOR UPDATE SKIP LOCKED",
            _ => "",
        };
        // In turns by organisation: each organisation's most overdue schedule, then each one's
        // second, and so on, so one organisation's rush of due schedules does not fill a batch.
        let stmt = self.stmt(
            &format!(
                "UPDATE schedules SET claimed_until = $1 WHERE id IN (SELECT id FROM schedules WHERE id IN \
                 (SELECT id FROM (SELECT id, next_due_at, ROW_NUMBER() OVER (PARTITION BY org_id ORDER BY next_due_at, id) AS turn \
                  FROM schedules WHERE next_due_at <= $2 AND (claimed_until IS NULL OR claimed_until < $2)) due \
                  ORDER BY turn, next_due_at, id LIMIT $3){lock}) RETURNING {COLUMNS}"
            ),
            vec![until.into(), now.into(), limit.into()],
        );
        let mut rows = self.conn().query_all_raw(stmt).await?.iter().map(decode).collect::<StoreResult<Vec<ScheduleRow>>>()?;
        rows.sort_by_key(|r| (r.next_due_at, r.id));
        Ok(rows)
    }

    /// Moves `next_due_at` from `expected` to `next` (compare-and-set); `false` when another
    /// instance moved it first. `last_due` is the due moment just handled.
    pub async fn advance_schedule(&self, id: Uuid, expected: i64, next: i64, last_due: Option<i64>) -> StoreResult<bool> {
        let stmt = match last_due {
            Some(due) => self.stmt(
                "UPDATE schedules SET next_due_at = $1, last_due_at = $2, claimed_until = NULL WHERE id = $3 AND next_due_at = $4",
                vec![next.into(), due.into(), id.into(), expected.into()],
            ),
            None => self.stmt(
                "UPDATE schedules SET next_due_at = $1, claimed_until = NULL WHERE id = $2 AND next_due_at = $3",
                vec![next.into(), id.into(), expected.into()],
            ),
        };
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// Sets `next_due_at` unconditionally (tests simulate downtime with it).
    pub async fn set_schedule_next_due(&self, id: Uuid, next: i64) -> StoreResult<()> {
        let stmt = self.stmt("UPDATE schedules SET next_due_at = $1, claimed_until = NULL WHERE id = $2", vec![next.into(), id.into()]);
        self.conn().execute_raw(stmt).await?;
        Ok(())
    }

    /// The due moments a scan was created for, with the scan: (due_at, scan_id), oldest first.
    pub async fn schedule_runs(&self, schedule_id: Uuid) -> StoreResult<Vec<(i64, Option<Uuid>)>> {
        let stmt = self.stmt(
            "SELECT due_at, scan_id FROM schedule_runs WHERE schedule_id = $1 ORDER BY due_at",
            vec![schedule_id.into()],
        );
        self.conn()
            .query_all_raw(stmt)
            .await?
            .iter()
            .map(|r| Ok((r.try_get("", "due_at")?, r.try_get("", "scan_id")?)))
            .collect()
    }
}
