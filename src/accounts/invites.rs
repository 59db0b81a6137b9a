//! Invites: an owner asks for a single-use link (shown once, stored as SHA-256) that lets the
//! person it was made for choose a password and join the organisation within 7 days.

use super::error::{AccountError, AccountResult};
use super::password;
use super::secret::{digest, looks_like_secret, random_secret};
use super::users::{self, Role, User, normalize_email};
use crate::store::Store;
use crate::store::time::now_us;
use sea_orm::ConnectionTrait;

/// How long an invite link works (microseconds): 7 days.
pub const INVITE_TTL_US: i64 = 7 * 24 * 3600 * 1_000_000;

/// A pending invite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invite {
    pub org_id: String,
    pub email: String,
    pub role: Role,
    pub expires_at: i64,
}

const INVALID: &str = "This invitation link is not valid: it was used already, it expired, or it was mistyped.";

/// Cancels the pending invites of `org` that `user_id` made (they leave, or may no longer invite);
/// returns how many.
pub async fn cancel_made_by(store: &Store, org: &str, user_id: &str) -> AccountResult<u64> {
    let stmt = store.stmt(
        "DELETE FROM invites WHERE org_id = $1 AND created_by = $2 AND used_at IS NULL",
        vec![org.into(), user_id.into()],
    );
    Ok(store.conn().execute_raw(stmt).await?.rows_affected())
}

/// Creates an invite; returns the plaintext token (for the link, shown once) and the invite.
pub async fn create(store: &Store, org: &str, email: &str, role: Role, created_by: &str) -> AccountResult<(String, Invite)> {
    let email = normalize_email(email)?;
    if users::by_email(store, &email).await?.is_some() {
        return Err(AccountError::Invalid("A user with this email address exists already.".into()));
    }
    let token = random_secret();
    let now = now_us();
    let invite = Invite { org_id: org.to_string(), email, role, expires_at: now + INVITE_TTL_US };
    let stmt = store.stmt(
        "INSERT INTO invites (token_hash, org_id, email, role, created_by, created_at, expires_at, used_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, NULL)",
        vec![
            digest(&token).into(),
            org.into(),
            invite.email.clone().into(),
            role.as_str().into(),
            created_by.into(),
            now.into(),
            invite.expires_at.into(),
        ],
    );
    store.conn().execute_raw(stmt).await?;
    Ok((token, invite))
}

/// The live (unused, unexpired) invite behind a token.
pub async fn peek(store: &Store, token: &str) -> AccountResult<Option<Invite>> {
    if !looks_like_secret(token) {
        return Ok(None);
    }
    let stmt = store.stmt(
        "SELECT org_id, email, role, expires_at FROM invites WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2",
        vec![digest(token).into(), now_us().into()],
    );
    let Some(row) = store.conn().query_one_raw(stmt).await? else { return Ok(None) };
    let role: String = row.try_get("", "role")?;
    Ok(Some(Invite {
        org_id: row.try_get("", "org_id")?,
        email: row.try_get("", "email")?,
        role: role.parse().unwrap_or(Role::Member),
        expires_at: row.try_get("", "expires_at")?,
    }))
}

/// Accepts an invite: the user is created with `password`, the invite is spent. A bad password
/// leaves the invite usable; a used or expired invite is refused.
pub async fn accept(store: &Store, token: &str, password_plain: &str) -> AccountResult<User> {
    let invite = peek(store, token).await?.ok_or_else(|| AccountError::Invalid(INVALID.into()))?;
    let phc = password::hash(password_plain).await?;
    let spent = store.stmt(
        "UPDATE invites SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $1",
        vec![now_us().into(), digest(token).into()],
    );
    if store.conn().execute_raw(spent).await?.rows_affected() != 1 {
        return Err(AccountError::Invalid(INVALID.into()));
    }
    users::insert_user(store, &invite.org_id, &invite.email, invite.role, &phc).await
}

/// Moves an invite's expiry (tests and operators: `expires_at` in microseconds).
pub async fn set_expiry(store: &Store, token: &str, expires_at: i64) -> AccountResult<()> {
    let stmt = store.stmt("UPDATE invites SET expires_at = $1 WHERE token_hash = $2", vec![expires_at.into(), digest(token).into()]);
    store.conn().execute_raw(stmt).await?;
    Ok(())
}
