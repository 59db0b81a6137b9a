//! Monitors: a site's light probe every N seconds, the state it last saw and what last changed.
//!
//! Fleet safety: an instance claims a due probe by moving `next_check_at` with compare-and-set
//! ([`Store::claim_monitor`]), and records what it saw only if nobody recorded anything else in
//! between ([`Store::record_monitor_state`]), so one change starts one scan across the fleet.

use super::{Store, decode};
use super::error::StoreResult;
use sea_orm::ConnectionTrait;
use uuid::Uuid;

/// A monitor as stored.
#[derive(Debug, Clone, PartialEq, Eq, sea_orm::FromQueryResult)]
pub struct MonitorRow {
    pub id: Uuid,
    pub site_id: Uuid,
    pub org_id: String,
    pub every_seconds: i64,
    /// The next probe (µs since the epoch).
    pub next_check_at: i64,
    /// JSON: what the last probe saw (`None` before the first probe).
    pub last_state: Option<String>,
    pub last_checked_at: Option<i64>,
    /// JSON: the changes of the last probe that saw any.
    pub last_change: Option<String>,
    pub created_at: i64,
}

/// The most monitors a new one may join: per site and per organisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MonitorCaps {
    pub per_site: i64,
    pub per_org: i64,
}

const COLUMNS: &str =
    "id, site_id, org_id, every_seconds, next_check_at, last_state, last_checked_at, last_change, created_at";


impl Store {
    /// Adds a monitor whose first probe is at `next_check_at` whatever the site and the
    /// organisation have already (seeding, benchmarks; the app adds through
    /// [`Store::add_monitor_within`] and its caps).
    pub async fn add_monitor(&self, org: &str, site_id: Uuid, every_seconds: i64, next_check_at: i64, now: i64) -> StoreResult<MonitorRow> {
        let lifted = MonitorCaps { per_site: i64::MAX, per_org: i64::MAX };
        self.add_monitor_within(org, site_id, every_seconds, next_check_at, now, lifted)
            .await?
            .ok_or_else(|| super::error::StoreError::Invalid("the monitor was not added".into()))
    }

    /// Adds a monitor whose first probe is at `next_check_at`, unless the site or the
    /// organisation has its cap of monitors already (one statement, so two adds at once cannot
    /// both pass the count); returns it, or `None` at a cap.
    pub async fn add_monitor_within(
        &self,
        org: &str,
        site_id: Uuid,
        every_seconds: i64,
        next_check_at: i64,
        now: i64,
        caps: MonitorCaps,
    ) -> StoreResult<Option<MonitorRow>> {
        let id = Uuid::now_v7();
        let stmt = self.stmt(
            "INSERT INTO monitors (id, site_id, org_id, every_seconds, next_check_at, created_at) \
             SELECT $1, $2, $3, $4, $5, $6 \
             WHERE (SELECT COUNT(*) FROM monitors WHERE site_id = $2) < $7 \
             AND (SELECT COUNT(*) FROM monitors WHERE org_id = $3) < $8",
            vec![
                id.into(),
                site_id.into(),
                org.into(),
                every_seconds.into(),
                next_check_at.into(),
                now.into(),
                caps.per_site.into(),
                caps.per_org.into(),
            ],
        );
        if self.conn().execute_raw(stmt).await?.rows_affected() == 0 {
            return Ok(None);
        }
        Ok(Some(MonitorRow {
            id,
            site_id,
            org_id: org.to_string(),
            every_seconds,
            next_check_at,
            last_state: None,
            last_checked_at: None,
            last_change: None,
            created_at: now,
        }))
    }

    /// One monitor of the organisation (`None` for another organisation's).
    pub async fn monitor(&self, org: &str, id: Uuid) -> StoreResult<Option<MonitorRow>> {
        let stmt =
            self.stmt(&format!("SELECT {COLUMNS} FROM monitors WHERE id = $1 AND org_id = $2"), vec![id.into(), org.into()]);
        self.conn().query_one_raw(stmt).await?.as_ref().map(decode).transpose()
    }

    /// One monitor whatever its organisation.
    pub async fn monitor_any_org(&self, id: Uuid) -> StoreResult<Option<MonitorRow>> {
        let stmt = self.stmt(&format!("SELECT {COLUMNS} FROM monitors WHERE id = $1"), vec![id.into()]);
        self.conn().query_one_raw(stmt).await?.as_ref().map(decode).transpose()
    }

    /// The organisation's monitors (of one site when `site` is given), oldest first.
    pub async fn list_monitors(&self, org: &str, site: Option<Uuid>) -> StoreResult<Vec<MonitorRow>> {
        let stmt = match site {
            Some(site) => self.stmt(
                &format!("SELECT {COLUMNS} FROM monitors WHERE org_id = $1 AND site_id = $2 ORDER BY created_at, id"),
                vec![org.into(), site.into()],
            ),
            None => self.stmt(
                &format!("SELECT {COLUMNS} FROM monitors WHERE org_id = $1 ORDER BY created_at, id"),
                vec![org.into()],
            ),
        };
        self.conn().query_all_raw(stmt).await?.iter().map(decode).collect()
    }

    /// Removes a monitor; `false` when the organisation had none with this id (of site `site`, when
    /// given).
    pub async fn remove_monitor(&self, org: &str, id: Uuid, site: Option<Uuid>) -> StoreResult<bool> {
        let stmt = match site {
            Some(site) => self.stmt("DELETE FROM monitors WHERE id = $1 AND org_id = $2 AND site_id = $3", vec![id.into(), org.into(), site.into()]),
            None => self.stmt("DELETE FROM monitors WHERE id = $1 AND org_id = $2", vec![id.into(), org.into()]),
        };
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// Monitors due at `now` (every organisation), organisations taking turns: each one's most
    /// overdue first, then each one's second, and so on (one organisation's thousand due
    /// monitors do not fill the page before another's first).
    pub async fn due_monitors(&self, now: i64, limit: i64) -> StoreResult<Vec<MonitorRow>> {
        let stmt = self.stmt(
            &format!(
                "SELECT {COLUMNS} FROM (SELECT {COLUMNS}, ROW_NUMBER() OVER (PARTITION BY org_id ORDER BY next_check_at, id) AS turn \
                 FROM monitors WHERE next_check_at <= $1) due ORDER BY turn, next_check_at, id LIMIT $2"
            ),
            vec![now.into(), limit.into()],
        );
        self.conn().query_all_raw(stmt).await?.iter().map(decode).collect()
    }

    /// Claims a due probe: moves `next_check_at` from `expected` to `next` (compare-and-set);
    /// `false` when another instance claimed it first.
    pub async fn claim_monitor(&self, id: Uuid, expected: i64, next: i64) -> StoreResult<bool> {
        let stmt = self.stmt(
            "UPDATE monitors SET next_check_at = $1 WHERE id = $2 AND next_check_at = $3",
            vec![next.into(), id.into(), expected.into()],
        );
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// Records what a probe saw, only if the stored state is still `previous` (compare-and-set:
    /// `false` when another instance recorded a probe in between). `change` replaces
    /// `last_change` when given.
    pub async fn record_monitor_state(
        &self,
        id: Uuid,
        previous: Option<&str>,
        state: &str,
        change: Option<&str>,
        now: i64,
    ) -> StoreResult<bool> {
        let stmt = match change {
            Some(change) => self.stmt(
                "UPDATE monitors SET last_state = $1, last_checked_at = $2, last_change = $3 \
                 WHERE id = $4 AND COALESCE(last_state, '') = $5",
                vec![state.into(), now.into(), change.into(), id.into(), previous.unwrap_or("").into()],
            ),
            None => self.stmt(
                "UPDATE monitors SET last_state = $1, last_checked_at = $2 WHERE id = $3 AND COALESCE(last_state, '') = $4",
                vec![state.into(), now.into(), id.into(), previous.unwrap_or("").into()],
            ),
        };
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// Sets `next_check_at` unconditionally (tests).
    pub async fn set_monitor_next_check(&self, id: Uuid, next: i64) -> StoreResult<()> {
        let stmt = self.stmt("UPDATE monitors SET next_check_at = $1 WHERE id = $2", vec![next.into(), id.into()]);
        self.conn().execute_raw(stmt).await?;
        Ok(())
    }
}
