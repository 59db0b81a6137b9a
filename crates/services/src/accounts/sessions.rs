//! Server-side sessions: a random id (the cookie), its SHA-256 in the `sessions` table (so every
//! instance of a fleet shares them), an idle timeout of 12 hours and an absolute one of 7 days.
//! Each session has its own CSRF token.

use super::error::AccountResult;
use super::secret::{digest, looks_like_secret, random_secret};
use super::users::{self, User};
use crate::model::time::now_us;
use crate::store::Store;

/// A session ends after this long without a request (microseconds): 12 hours.
pub const IDLE_TIMEOUT_US: i64 = 12 * 3600 * 1_000_000;
/// A session ends this long after sign-in whatever happens (microseconds): 7 days.
pub const ABSOLUTE_TIMEOUT_US: i64 = 7 * 24 * 3600 * 1_000_000;
/// `last_seen_at` is written at most this often (microseconds).
const TOUCH_US: i64 = 60 * 1_000_000;

/// A live session: who, the session's CSRF token, and the stored form of its id.
#[derive(Debug, Clone)]
pub struct SignedIn {
    pub user: User,
    pub csrf: String,
    pub id_hash: String,
}

/// Starts a session for `user_id`; returns its plaintext id (the cookie's value).
pub async fn start(store: &Store, user_id: &str) -> AccountResult<String> {
    let id = random_secret();
    store.insert_session(&digest(&id), user_id, &random_secret(), now_us()).await?;
    Ok(id)
}

/// Ends the session whose plaintext id is `id`.
pub async fn end(store: &Store, id: &str) -> AccountResult<()> {
    Ok(store.delete_session(&digest(id)).await?)
}

/// The live session behind a plaintext id, refreshed. An expired session, or one whose user is
/// gone or disabled, is deleted and is none.
pub async fn load(store: &Store, id: &str) -> AccountResult<Option<SignedIn>> {
    if !looks_like_secret(id) {
        return Ok(None);
    }
    let id_hash = digest(id);
    let Some(row) = store.session(&id_hash).await? else { return Ok(None) };
    let now = now_us();
    if now - row.last_seen_at > IDLE_TIMEOUT_US || now - row.created_at > ABSOLUTE_TIMEOUT_US {
        end(store, id).await?;
        return Ok(None);
    }
    let Some(user) = users::by_id(store, &row.user_id).await?.filter(|u| u.disabled_at.is_none()) else {
        end(store, id).await?;
        return Ok(None);
    };
    if now - row.last_seen_at > TOUCH_US {
        store.touch_session(&id_hash, now).await?;
    }
    Ok(Some(SignedIn { user, csrf: row.csrf_token, id_hash }))
}
