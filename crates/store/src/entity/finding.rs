//! `findings`: what checks reported, scoped by organisation for keyset listing.

use super::values::Text;
use crate::model::Severity;
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "findings")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub scan_id: Uuid,
    pub org_id: String,
    pub check_id: String,
    pub severity: Text<Severity>,
    pub title: Option<String>,
    pub description: Option<String>,
    /// JSON object.
    pub evidence: Option<String>,
    pub remediation: Option<String>,
    pub cwe_id: Option<String>,
    pub page_url: Option<String>,
    pub created_at: i64,
    /// `new` or `persisting` against the previous scan of the target; NULL until compared.
    pub change: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}

impl From<Model> for crate::model::FindingRow {
    fn from(m: Model) -> Self {
        crate::model::FindingRow {
            id: m.id,
            scan_id: m.scan_id,
            org_id: m.org_id,
            check_id: m.check_id,
            severity: m.severity.0,
            title: m.title,
            description: m.description,
            evidence: m.evidence,
            remediation: m.remediation,
            cwe_id: m.cwe_id,
            page_url: m.page_url,
            created_at: m.created_at,
            change: m.change,
        }
    }
}
