//! Scans: creation under the monthly quota, reads and keyset listing, scoped by organisation.

use super::Store;
use super::cursor::{CursorKind, Position};
use super::entity::values::Text;
use super::entity::{organisation, scan};
use super::error::{StoreError, StoreResult};
use super::paging::{Keyset, Page};
use super::time::{month_of, now_us};
use crate::model::{ScanMode, ScanStatus, Target, TriggeredBy};
use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, TransactionTrait,
};
use uuid::Uuid;

pub use crate::model::ScanRow;

/// The monthly quota is used up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuotaExceeded {
    pub limit: i64,
    pub used: i64,
    pub resets_at: DateTime<Utc>,
}

/// The outcome of asking for a new scan (returned once and matched at once: not worth a box).
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum CreateOutcome {
    Created(ScanRow),
    QuotaExceeded(QuotaExceeded),
}

/// What a scan started from a site carries beyond a plain scan.
#[derive(Debug, Clone, Default)]
pub struct ScanExtras {
    pub site_id: Option<Uuid>,
    /// JSON recorded as `report.summary.trigger` (what a monitor saw change, which schedule).
    pub trigger: Option<String>,
    /// Recorded with an active scan, in the same transaction as the scan.
    pub attestation: Option<NewAttestation>,
    /// A schedule's due moment (schedule id, due time in µs): the scan is created only if no
    /// other instance created one for that moment (the key is unique), in the same transaction.
    pub schedule_due: Option<(Uuid, i64)>,
    /// The WCAG conformance level it judges against (`None`: the default, AA).
    pub level: Option<crate::model::Level>,
}

/// Who confirmed they may test a site, when, from where, and what they confirmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAttestation {
    pub site_id: Uuid,
    pub actor: String,
    pub client_addr: Option<String>,
    pub statement: String,
}


impl Store {
    /// Creates a queued scan if the organisation's monthly quota allows it (atomically: two
    /// concurrent requests cannot both take the last slot).
    pub async fn create_scan(
        &self,
        org: &str,
        target: &Target,
        mode: ScanMode,
        triggered_by: TriggeredBy,
        max_pages: Option<i32>,
    ) -> StoreResult<CreateOutcome> {
        let created = self.create_scan_with(org, target, mode, triggered_by, max_pages, ScanExtras::default()).await?;
        created.ok_or(StoreError::NotFound("scan"))
    }

    /// [`Store::create_scan`] with a site, a trigger, an attestation or a schedule's due moment,
    /// all written in the scan's own transaction. `None`: another instance already created the
    /// scan of this schedule's due moment.
    pub async fn create_scan_with(
        &self,
        org: &str,
        target: &Target,
        mode: ScanMode,
        triggered_by: TriggeredBy,
        max_pages: Option<i32>,
        extras: ScanExtras,
    ) -> StoreResult<Option<CreateOutcome>> {
        let org_row = organisation::Entity::find_by_id(org.to_string())
            .one(self.conn())
            .await?
            .ok_or(StoreError::NotFound("organisation"))?;
        let now = now_us();
        let (month, resets_at) = month_of(now);
        let txn = self.conn().begin().await?;
        let id = Uuid::now_v7();
        if let Some((schedule_id, due_at)) = extras.schedule_due {
            let claim = self.stmt(
                "INSERT INTO schedule_runs (schedule_id, due_at, scan_id, created_at) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT DO NOTHING",
                vec![schedule_id.into(), due_at.into(), id.into(), now.into()],
            );
            if txn.execute_raw(claim).await?.rows_affected() == 0 {
                txn.rollback().await?;
                return Ok(None);
            }
        }
        let insert_usage = self.stmt(
            "INSERT INTO org_usage (org_id, month, scans_created) VALUES ($1, $2, 0) ON CONFLICT DO NOTHING",
            vec![org.into(), month.clone().into()],
        );
        txn.execute_raw(insert_usage).await?;
        let take = self.stmt(
            "UPDATE org_usage SET scans_created = scans_created + 1 \
             WHERE org_id = $1 AND month = $2 AND scans_created < $3",
            vec![org.into(), month.clone().into(), org_row.monthly_scan_quota.into()],
        );
        if txn.execute_raw(take).await?.rows_affected() == 0 {
            let used = self
                .stmt("SELECT scans_created FROM org_usage WHERE org_id = $1 AND month = $2", vec![
                    org.into(),
                    month.into(),
                ]);
            let used: i64 = match txn.query_one_raw(used).await? {
                Some(row) => row.try_get("", "scans_created")?,
                None => 0,
            };
            txn.rollback().await?;
            return Ok(Some(CreateOutcome::QuotaExceeded(QuotaExceeded {
                limit: org_row.monthly_scan_quota,
                used,
                resets_at,
            })));
        }
        let model = scan::ActiveModel {
            id: Set(id),
            org_id: Set(org.to_string()),
            target_url: Set(target.to_string()),
            target_hostname: Set(target.hostname()),
            mode: Set(Text(mode)),
            status: Set(Text(ScanStatus::Queued)),
            triggered_by: Set(Text(triggered_by)),
            created_at: Set(now),
            started_at: Set(None),
            completed_at: Set(None),
            findings_count: Set(None),
            report: Set(None),
            max_pages: Set(max_pages),
            lease_owner: Set(None),
            lease_expires_at: Set(None),
            attempts: Set(0),
            site_id: Set(extras.site_id),
            trigger: Set(extras.trigger),
            progress: Set(None),
            level: Set(extras.level.map(|l| l.as_str().to_string())),
        };
        let row = scan::Entity::insert(model).exec_with_returning(&txn).await?;
        if let Some(a) = extras.attestation {
            let record = self.stmt(
                "INSERT INTO scan_attestations (scan_id, site_id, org_id, actor, client_addr, statement, attested_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
                vec![
                    id.into(),
                    a.site_id.into(),
                    org.into(),
                    a.actor.into(),
                    a.client_addr.into(),
                    a.statement.into(),
                    now.into(),
                ],
            );
            txn.execute_raw(record).await?;
        }
        txn.commit().await?;
        Ok(Some(CreateOutcome::Created(row.into())))
    }

    /// One scan of the organisation (`None` for another organisation's scan).
    pub async fn scan(&self, org: &str, id: Uuid) -> StoreResult<Option<ScanRow>> {
        Ok(scan::Entity::find_by_id(id).filter(scan::Column::OrgId.eq(org)).one(self.conn()).await?.map(Into::into))
    }

    /// A scan by id, whatever its organisation (workers).
    pub async fn scan_any_org(&self, id: Uuid) -> StoreResult<Option<ScanRow>> {
        Ok(scan::Entity::find_by_id(id).one(self.conn()).await?.map(Into::into))
    }

    /// The organisation's scans, newest first, `limit` per page after `cursor`.
    pub async fn list_scans(&self, org: &str, limit: u64, cursor: Option<Position>) -> StoreResult<Page<ScanRow>> {
        let query = scan::Entity::find().filter(scan::Column::OrgId.eq(org));
        let keys = Keyset {
            kind: CursorKind::Scans,
            created_at: scan::Column::CreatedAt,
            id: scan::Column::Id,
            position: |r: &scan::Model| Position { created_at: r.created_at, id: r.id },
        };
        Ok(self.keyset_page(query, keys, limit, cursor).await?.map(Into::into))
    }
}
