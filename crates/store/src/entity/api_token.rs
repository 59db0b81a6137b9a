//! `api_tokens`: bearer tokens, stored only as their SHA-256 hash.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "api_tokens")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub org_id: String,
    pub name: Option<String>,
    #[sea_orm(unique)]
    pub token_hash: String,
    /// Space-separated scopes.
    pub scopes: String,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
    pub revoked_at: Option<i64>,
    /// The user who made it from the dashboard (None: the CLI).
    pub created_by: Option<String>,
    /// When it stops working (None: never).
    pub expires_at: Option<i64>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}

impl From<Model> for crate::model::ApiToken {
    fn from(m: Model) -> Self {
        crate::model::ApiToken {
            id: m.id,
            org_id: m.org_id,
            name: m.name,
            token_hash: m.token_hash,
            scopes: m.scopes,
            created_at: m.created_at,
            last_used_at: m.last_used_at,
            revoked_at: m.revoked_at,
            created_by: m.created_by,
            expires_at: m.expires_at,
        }
    }
}
