//! `organisations`: tenants, with their monthly scan quota.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "organisations")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub monthly_scan_quota: i64,
    pub created_at: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}

impl From<Model> for crate::model::Organisation {
    fn from(m: Model) -> Self {
        crate::model::Organisation { id: m.id, monthly_scan_quota: m.monthly_scan_quota, created_at: m.created_at }
    }
}
