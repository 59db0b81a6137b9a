//! Organisations and their monthly scan quota.

use super::Store;
use super::entity::organisation;
use super::error::StoreResult;
use super::time::now_us;
use sea_orm::{ActiveValue::Set, EntityTrait, sea_query::OnConflict};

/// Scans an organisation may create per calendar month (UTC) unless set otherwise.
pub const DEFAULT_MONTHLY_SCAN_QUOTA: i64 = 1000;

pub use crate::model::Organisation;

impl Store {
    /// Creates the organisation if new; sets its quota when given.
    pub async fn set_org(&self, id: &str, monthly_scan_quota: Option<i64>) -> StoreResult<Organisation> {
        let model = organisation::ActiveModel {
            id: Set(id.to_string()),
            monthly_scan_quota: Set(monthly_scan_quota.unwrap_or(DEFAULT_MONTHLY_SCAN_QUOTA)),
            created_at: Set(now_us()),
        };
        let mut on_conflict = OnConflict::column(organisation::Column::Id);
        if monthly_scan_quota.is_some() {
            on_conflict.update_column(organisation::Column::MonthlyScanQuota);
        } else {
            on_conflict.do_nothing();
        }
        let result = organisation::Entity::insert(model).on_conflict(on_conflict).exec(self.conn()).await;
        match result {
            Ok(_) | Err(sea_orm::DbErr::RecordNotInserted) => {}
            Err(e) => return Err(e.into()),
        }
        self.org(id).await?.ok_or(super::StoreError::NotFound("organisation"))
    }

    pub async fn org(&self, id: &str) -> StoreResult<Option<Organisation>> {
        Ok(organisation::Entity::find_by_id(id.to_string()).one(self.conn()).await?.map(Into::into))
    }
}
