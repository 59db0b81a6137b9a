//! Changes between scans: the baseline of a scan and the per-finding verdicts.

use super::Store;
use super::entity::{finding, scan};
use super::error::StoreResult;
use super::scans::ScanRow;
use crate::model::{Change, ScanStatus};
use sea_orm::{ColumnTrait, Condition, EntityTrait, QueryFilter, QueryOrder, sea_query::Expr};
use uuid::Uuid;

/// Ids per `IN (...)` list.
const ID_CHUNK: usize = 500;

impl Store {
    /// The previous completed scan of the same organisation, target and mode: created no later
    /// than `scan`, newest first.
    pub async fn baseline_scan(&self, scan: &ScanRow) -> StoreResult<Option<ScanRow>> {
        Ok(scan::Entity::find()
            .filter(scan::Column::OrgId.eq(scan.org_id.as_str()))
            .filter(scan::Column::TargetUrl.eq(scan.target_url.as_str()))
            .filter(scan::Column::Mode.eq(scan.mode.as_str()))
            .filter(scan::Column::Status.eq(ScanStatus::Completed.as_str()))
            .filter(scan::Column::CreatedAt.lte(scan.created_at))
            .filter(scan::Column::Id.ne(scan.id))
            .order_by_desc(scan::Column::CreatedAt)
            .order_by_desc(scan::Column::Id)
            .one(self.conn())
            .await?
            .map(Into::into))
    }

    /// Records each finding's verdict: the `persisting` ones by id, every other finding of the
    /// scan `new`. Findings written `new` already (a first scan's pages) are not written again:
    /// a big site's first scan has a million findings, and rewriting them took half a minute.
    pub async fn set_finding_changes(&self, scan_id: Uuid, persisting: &[Uuid]) -> StoreResult<()> {
        finding::Entity::update_many()
            .col_expr(finding::Column::Change, Expr::value(Change::New.as_str()))
            .filter(finding::Column::ScanId.eq(scan_id))
            .filter(Condition::any().add(finding::Column::Change.is_null()).add(finding::Column::Change.ne(Change::New.as_str())))
            .exec(self.conn())
            .await?;
        for chunk in persisting.chunks(ID_CHUNK) {
            finding::Entity::update_many()
                .col_expr(finding::Column::Change, Expr::value(Change::Persisting.as_str()))
                .filter(finding::Column::ScanId.eq(scan_id))
                .filter(finding::Column::Id.is_in(chunk.iter().copied()))
                .exec(self.conn())
                .await?;
        }
        Ok(())
    }
}
