//! API tokens: `sitescan_` + 43 base64url characters (32 random bytes), stored as SHA-256 only.

use super::Store;
use super::entity::api_token;
use super::error::{StoreError, StoreResult};
use super::time::now_us;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, sea_query::Expr};
use sha2::{Digest, Sha256};
use uuid::Uuid;

/// The service prefix of every token.
pub const TOKEN_PREFIX: &str = "sitescan";
/// Scope to read scans and findings.
pub const SCOPE_READ: &str = "scans:read";
/// Scope to create scans.
pub const SCOPE_WRITE: &str = "scans:write";
/// Scope of the internal `OwnerService` (sites, journeys, secrets, active scans). Only an
/// organisation owner can issue it, and never by default.
pub const SCOPE_ACTIVE: &str = "scans:active";
/// Every scope a token can carry.
pub const ALL_SCOPES: [&str; 3] = [SCOPE_READ, SCOPE_WRITE, SCOPE_ACTIVE];
/// The scopes of a token created without naming any: the passive ones.
pub const DEFAULT_SCOPES: [&str; 2] = [SCOPE_READ, SCOPE_WRITE];
/// `last_used_at` is written at most this often per token (microseconds).
pub const LAST_USED_RESOLUTION_US: i64 = 60_000_000;

pub use crate::model::ApiToken;

/// The SHA-256 of a plaintext token, hex.
pub fn hash_token(plaintext: &str) -> String {
    let digest = Sha256::digest(plaintext.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// True when `s` has the token's shape (`sitescan_` + 43 base64url characters).
pub fn looks_like_token(s: &str) -> bool {
    s.strip_prefix(TOKEN_PREFIX)
        .and_then(|rest| rest.strip_prefix('_'))
        .is_some_and(|b| b.len() == 43 && b.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'))
}

fn generate_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    format!("{TOKEN_PREFIX}_{}", URL_SAFE_NO_PAD.encode(bytes))
}


impl Store {
    /// Creates a token (and its organisation if new); returns the plaintext, shown only once.
    pub async fn create_token(
        &self,
        org: &str,
        name: Option<&str>,
        scopes: &[String],
    ) -> StoreResult<(String, ApiToken)> {
        self.create_token_with(org, name, scopes, None, None).await
    }

    /// `create_token` with who made it and when it expires (microseconds).
    pub async fn create_token_with(
        &self,
        org: &str,
        name: Option<&str>,
        scopes: &[String],
        created_by: Option<&str>,
        expires_at: Option<i64>,
    ) -> StoreResult<(String, ApiToken)> {
        for scope in scopes {
            if !ALL_SCOPES.contains(&scope.as_str()) {
                return Err(StoreError::Invalid(format!(
                    "unknown scope {scope:?}: expected {}",
                    ALL_SCOPES.join(", ")
                )));
            }
        }
        let scopes = if scopes.is_empty() {
            DEFAULT_SCOPES.join(" ")
        } else {
            let mut s: Vec<&str> = scopes.iter().map(String::as_str).collect();
            s.sort_unstable();
            s.dedup();
            s.join(" ")
        };
        self.set_org(org, None).await?;
        let plaintext = generate_token();
        let model = api_token::ActiveModel {
            id: Set(Uuid::now_v7()),
            org_id: Set(org.to_string()),
            name: Set(name.map(str::to_string)),
            token_hash: Set(hash_token(&plaintext)),
            scopes: Set(scopes),
            created_at: Set(now_us()),
            last_used_at: Set(None),
            revoked_at: Set(None),
            created_by: Set(created_by.map(str::to_string)),
            expires_at: Set(expires_at),
        };
        let token = api_token::Entity::insert(model).exec_with_returning(self.conn()).await?;
        Ok((plaintext, token.into()))
    }

    pub async fn list_tokens(&self, org: &str) -> StoreResult<Vec<ApiToken>> {
        Ok(api_token::Entity::find()
            .filter(api_token::Column::OrgId.eq(org))
            .order_by_asc(api_token::Column::CreatedAt)
            .all(self.conn())
            .await?
            .into_iter()
            .map(Into::into)
            .collect())
    }

    /// Revokes a token given its id or its plaintext. Returns the revoked token.
    pub async fn revoke_token(&self, id_or_token: &str) -> StoreResult<ApiToken> {
        let token = if let Ok(id) = Uuid::parse_str(id_or_token) {
            api_token::Entity::find_by_id(id).one(self.conn()).await?
        } else {
            api_token::Entity::find()
                .filter(api_token::Column::TokenHash.eq(hash_token(id_or_token)))
                .one(self.conn())
                .await?
        };
        let token = token.ok_or(StoreError::NotFound("token"))?;
        api_token::Entity::update_many()
            .col_expr(api_token::Column::RevokedAt, Expr::value(now_us()))
            .filter(api_token::Column::Id.eq(token.id))
            .filter(api_token::Column::RevokedAt.is_null())
            .exec(self.conn())
            .await?;
        api_token::Entity::find_by_id(token.id).one(self.conn()).await?.map(Into::into).ok_or(StoreError::NotFound("token"))
    }

    /// The tokens of `org` that `user_id` made and that still work (not revoked, not expired).
    pub async fn live_tokens_created_by(&self, org: &str, user_id: &str) -> StoreResult<Vec<ApiToken>> {
        Ok(api_token::Entity::find()
            .filter(api_token::Column::OrgId.eq(org))
            .filter(api_token::Column::CreatedBy.eq(user_id))
            .filter(api_token::Column::RevokedAt.is_null())
            .filter(
                sea_orm::Condition::any()
                    .add(api_token::Column::ExpiresAt.is_null())
                    .add(api_token::Column::ExpiresAt.gt(now_us())),
            )
            .order_by_asc(api_token::Column::CreatedAt)
            .all(self.conn())
            .await?
            .into_iter()
            .map(Into::into)
            .collect())
    }

    /// Revokes the tokens `ids` of `org`; returns how many were live.
    pub async fn revoke_org_tokens(&self, org: &str, ids: &[Uuid]) -> StoreResult<u64> {
        if ids.is_empty() {
            return Ok(0);
        }
        Ok(api_token::Entity::update_many()
            .col_expr(api_token::Column::RevokedAt, Expr::value(now_us()))
            .filter(api_token::Column::OrgId.eq(org))
            .filter(api_token::Column::Id.is_in(ids.iter().copied()))
            .filter(api_token::Column::RevokedAt.is_null())
            .exec(self.conn())
            .await?
            .rows_affected)
    }

    /// Revokes the token `id` of organisation `org` (None when it has no such token).
    pub async fn revoke_org_token(&self, org: &str, id: Uuid) -> StoreResult<Option<ApiToken>> {
        let found = api_token::Entity::find_by_id(id)
            .filter(api_token::Column::OrgId.eq(org))
            .one(self.conn())
            .await?;
        match found {
            Some(t) => self.revoke_token(&t.id.to_string()).await.map(Some),
            None => Ok(None),
        }
    }

    /// The live (not revoked, not expired) token with this hash. Read on every request: no
    /// cache, so a revocation takes effect on the next call on every instance.
    pub async fn token_by_hash(&self, hash: &str) -> StoreResult<Option<ApiToken>> {
        Ok(api_token::Entity::find()
            .filter(api_token::Column::TokenHash.eq(hash))
            .filter(api_token::Column::RevokedAt.is_null())
            .filter(
                sea_orm::Condition::any()
                    .add(api_token::Column::ExpiresAt.is_null())
                    .add(api_token::Column::ExpiresAt.gt(now_us())),
            )
            .one(self.conn())
            .await?
            .map(Into::into))
    }

    /// Records use of a token, at most once per `LAST_USED_RESOLUTION_US`.
    pub async fn touch_token(&self, token: &ApiToken) -> StoreResult<()> {
        let now = now_us();
        if token.last_used_at.is_some_and(|t| now - t < LAST_USED_RESOLUTION_US) {
            return Ok(());
        }
        api_token::Entity::update_many()
            .col_expr(api_token::Column::LastUsedAt, Expr::value(now))
            .filter(api_token::Column::Id.eq(token.id))
            .filter(
                sea_orm::Condition::any()
                    .add(api_token::Column::LastUsedAt.is_null())
                    .add(api_token::Column::LastUsedAt.lt(now - LAST_USED_RESOLUTION_US)),
            )
            .exec(self.conn())
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_have_the_documented_shape() {
        let t = generate_token();
        assert!(looks_like_token(&t), "{t}");
        assert_eq!(t.len(), "sitescan_".len() + 43);
        assert!(!looks_like_token("sitescan_short"));
        assert!(!looks_like_token(&format!("other_{}", &t[9..])));
        assert_eq!(hash_token("a").len(), 64);
        assert_ne!(generate_token(), generate_token());
    }
}
