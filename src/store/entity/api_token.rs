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
