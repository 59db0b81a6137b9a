//! Invites: the SHA-256 of a single-use link's token, for whom and with which role, until when.
//! The rules (who may invite, the lifetime, accepting) live in `accounts::invites`.

use super::Store;
use super::error::{StoreError, StoreResult};
use crate::model::Role;
use sea_orm::ConnectionTrait;

/// A pending invite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invite {
    pub org_id: String,
    pub email: String,
    pub role: Role,
    pub expires_at: i64,
}

impl Store {
    pub async fn insert_invite(&self, token_hash: &str, invite: &Invite, created_by: &str, now: i64) -> StoreResult<()> {
        let stmt = self.stmt(
            "INSERT INTO invites (token_hash, org_id, email, role, created_by, created_at, expires_at, used_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, NULL)",
            vec![
                token_hash.into(),
                invite.org_id.as_str().into(),
                invite.email.as_str().into(),
                invite.role.as_str().into(),
                created_by.into(),
                now.into(),
                invite.expires_at.into(),
            ],
        );
        self.conn().execute_raw(stmt).await?;
        Ok(())
    }

    /// The unused invite behind `token_hash` that is still live at `now`.
    pub async fn live_invite(&self, token_hash: &str, now: i64) -> StoreResult<Option<Invite>> {
        let stmt = self.stmt(
            "SELECT org_id, email, role, expires_at FROM invites WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2",
            vec![token_hash.into(), now.into()],
        );
        let Some(row) = self.conn().query_one_raw(stmt).await? else { return Ok(None) };
        let role: String = row.try_get("", "role")?;
        Ok(Some(Invite {
            org_id: row.try_get("", "org_id")?,
            email: row.try_get("", "email")?,
            role: role.parse().map_err(|_| StoreError::Corrupt(format!("an invite has the unknown role {role:?}")))?,
            expires_at: row.try_get("", "expires_at")?,
        }))
    }

    /// Marks a live invite used; false when it was used already or expired (one winner among
    /// parallel attempts).
    pub async fn spend_invite(&self, token_hash: &str, now: i64) -> StoreResult<bool> {
        let stmt = self.stmt(
            "UPDATE invites SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $1",
            vec![now.into(), token_hash.into()],
        );
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    pub async fn set_invite_expiry(&self, token_hash: &str, expires_at: i64) -> StoreResult<()> {
        self.conn().execute_raw(self.stmt("UPDATE invites SET expires_at = $1 WHERE token_hash = $2", vec![expires_at.into(), token_hash.into()])).await?;
        Ok(())
    }

    /// Deletes the pending invites of `org` that `user_id` made; returns how many.
    pub async fn delete_pending_invites_by(&self, org: &str, user_id: &str) -> StoreResult<u64> {
        let stmt = self.stmt("DELETE FROM invites WHERE org_id = $1 AND created_by = $2 AND used_at IS NULL", vec![org.into(), user_id.into()]);
        Ok(self.conn().execute_raw(stmt).await?.rows_affected())
    }
}
