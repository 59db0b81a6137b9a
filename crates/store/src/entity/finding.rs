//! `findings`: what checks reported, scoped by organisation for keyset listing.

use super::values::Text;
use crate::model::{Change, Finding, Severity};
use sea_orm::entity::prelude::*;
use sea_orm::Iterable;

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
    pub help_url: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}

impl Model {
    /// The row of `finding`, one of scan `scan_id`'s in `org`, written at `created_at` with
    /// `change`; a new id.
    pub fn of(scan_id: Uuid, org: &str, created_at: i64, finding: &Finding, change: Option<Change>) -> Model {
        Model {
            id: Uuid::now_v7(),
            scan_id,
            org_id: org.to_string(),
            check_id: finding.check_id.clone(),
            severity: Text(finding.severity),
            title: Some(finding.title.clone()),
            description: Some(finding.description.clone()),
            evidence: Some(serde_json::Value::Object(finding.evidence.clone()).to_string()),
            remediation: Some(finding.remediation.clone()),
            cwe_id: finding.cwe_id.clone(),
            page_url: finding.url().map(str::to_string),
            created_at,
            change: change.map(|c| c.as_str().to_string()),
            help_url: finding.help_url.clone(),
        }
    }

    /// Its values, in the order of [`columns`].
    pub fn values(&self) -> Vec<sea_orm::Value> {
        Column::iter().map(|column| self.get(column)).collect()
    }
}

/// The table's columns as a statement lists them (`id, scan_id, ...`), in the order of
/// [`Model::values`]: the raw multi-row inserts follow the entity, never a list of their own.
pub fn columns() -> &'static str {
    static COLUMNS: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| Column::iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", "));
    &COLUMNS
}

impl From<Model> for crate::model::StoredFinding {
    fn from(m: Model) -> Self {
        use crate::model::{Finding, StoredFinding, report_rows::json_column, time::to_datetime};
        let evidence = match json_column(m.evidence.as_deref()) {
            Some(serde_json::Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        StoredFinding {
            change: m.change.as_deref().and_then(|c| c.parse().ok()),
            id: m.id,
            scan_id: m.scan_id,
            finding: Finding {
                check_id: m.check_id,
                severity: m.severity.0,
                title: m.title.unwrap_or_default(),
                description: m.description.unwrap_or_default(),
                remediation: m.remediation.unwrap_or_default(),
                cwe_id: m.cwe_id,
                help_url: m.help_url,
                evidence,
            },
            created_at: to_datetime(m.created_at),
        }
    }
}
