//! Dashboard sessions: the SHA-256 of the cookie's random id, its user, its CSRF token and when
//! it started and was last used. The timeouts are `accounts::sessions`'s; expired rows are deleted on
//! a timer (`expiry`).

use super::{Store, decode};
use super::error::StoreResult;
use sea_orm::ConnectionTrait;

/// One stored session.
#[derive(Debug, Clone, PartialEq, Eq, sea_orm::FromQueryResult)]
pub struct SessionRow {
    pub user_id: String,
    pub csrf_token: String,
    pub created_at: i64,
    pub last_seen_at: i64,
}

impl Store {
    pub async fn insert_session(&self, id_hash: &str, user_id: &str, csrf_token: &str, now: i64) -> StoreResult<()> {
        let stmt = self.stmt(
            "INSERT INTO sessions (id_hash, user_id, csrf_token, created_at, last_seen_at) VALUES ($1, $2, $3, $4, $4)",
            vec![id_hash.into(), user_id.into(), csrf_token.into(), now.into()],
        );
        self.conn().execute_raw(stmt).await?;
        Ok(())
    }

    pub async fn session(&self, id_hash: &str) -> StoreResult<Option<SessionRow>> {
        let stmt = self.stmt("SELECT user_id, csrf_token, created_at, last_seen_at FROM sessions WHERE id_hash = $1", vec![id_hash.into()]);
        self.conn().query_one_raw(stmt).await?.as_ref().map(decode).transpose()
    }

    pub async fn touch_session(&self, id_hash: &str, now: i64) -> StoreResult<()> {
        self.conn().execute_raw(self.stmt("UPDATE sessions SET last_seen_at = $1 WHERE id_hash = $2", vec![now.into(), id_hash.into()])).await?;
        Ok(())
    }

    pub async fn delete_session(&self, id_hash: &str) -> StoreResult<()> {
        self.conn().execute_raw(self.stmt("DELETE FROM sessions WHERE id_hash = $1", vec![id_hash.into()])).await?;
        Ok(())
    }

    /// Ends every session of a user.
    pub async fn delete_user_sessions(&self, user_id: &str) -> StoreResult<()> {
        self.conn().execute_raw(self.stmt("DELETE FROM sessions WHERE user_id = $1", vec![user_id.into()])).await?;
        Ok(())
    }
}
