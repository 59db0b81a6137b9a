//! `scan_pages`: each page a scan rendered, with its metrics (the report's `pages`).

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "scan_pages")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub scan_id: Uuid,
    pub seq: i32,
    pub url: String,
    pub final_url: Option<String>,
    pub status: Option<i32>,
    pub title: Option<String>,
    /// JSON metrics object.
    pub metrics: Option<String>,
    /// JSON `{"kind", "message"}` when the page could not be captured.
    pub error: Option<String>,
    /// JSON array of `{"check_id", "reason"}`: checks that did not judge the page.
    pub checks_not_run: Option<String>,
    pub created_at: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}

impl From<Model> for crate::model::PageRow {
    fn from(m: Model) -> Self {
        crate::model::PageRow {
            id: m.id,
            scan_id: m.scan_id,
            seq: m.seq,
            url: m.url,
            final_url: m.final_url,
            status: m.status,
            title: m.title,
            metrics: m.metrics,
            error: m.error,
            checks_not_run: m.checks_not_run,
            created_at: m.created_at,
        }
    }
}
