//! `scans`: one row per scan; also the job queue (status, lease owner and expiry, attempts).

use super::values::Text;
use crate::model::{ScanMode, ScanStatus, TriggeredBy};
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "scans")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub org_id: String,
    pub target_url: String,
    pub target_hostname: String,
    pub mode: Text<ScanMode>,
    pub status: Text<ScanStatus>,
    pub triggered_by: Text<TriggeredBy>,
    pub created_at: i64,
    pub started_at: Option<i64>,
    pub completed_at: Option<i64>,
    /// JSON `SeverityCounts`, written when the scan ends.
    pub findings_count: Option<String>,
    /// JSON report (`{"summary": ...}`), written when the scan ends.
    pub report: Option<String>,
    pub max_pages: Option<i32>,
    pub lease_owner: Option<String>,
    pub lease_expires_at: Option<i64>,
    pub attempts: i32,
    /// The site this scan belongs to (scans started from a site: active, scheduled, monitored).
    pub site_id: Option<Uuid>,
    /// JSON: why a schedule or monitor started it (`report.summary.trigger`).
    pub trigger: Option<String>,
    /// JSON `ScanProgressState` while the scan runs (phase, pages done and found).
    pub progress: Option<String>,
    /// The WCAG conformance level it judges against (`A`, `AA`, `AAA`); `None`: the default.
    pub level: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}

impl From<Model> for crate::model::ScanRow {
    fn from(m: Model) -> Self {
        crate::model::ScanRow {
            id: m.id,
            org_id: m.org_id,
            target_url: m.target_url,
            target_hostname: m.target_hostname,
            mode: m.mode.0,
            status: m.status.0,
            triggered_by: m.triggered_by.0,
            created_at: m.created_at,
            started_at: m.started_at,
            completed_at: m.completed_at,
            findings_count: m.findings_count,
            report: m.report,
            max_pages: m.max_pages,
            lease_owner: m.lease_owner,
            lease_expires_at: m.lease_expires_at,
            attempts: m.attempts,
            site_id: m.site_id,
            trigger: m.trigger,
            progress: m.progress,
            // A value this version cannot read is the default, as `NULL` is.
            level: m.level.as_deref().and_then(|l| l.parse().ok()),
        }
    }
}
