//! Invites: an owner asks for a single-use link (shown once, stored as SHA-256) that lets the
//! person it was made for choose a password and join the organisation within 7 days.

use super::error::{AccountError, AccountResult};
use super::password;
use super::secret::{digest, looks_like_secret, random_secret};
use super::users::{self, Role, User, normalize_email};
use crate::store::Store;
use crate::store::time::now_us;

/// How long an invite link works (microseconds): 7 days.
pub const INVITE_TTL_US: i64 = 7 * 24 * 3600 * 1_000_000;

pub use crate::store::invites::Invite;

const INVALID: &str = "This invitation link is not valid: it was used already, it expired, or it was mistyped.";

/// Cancels the pending invites of `org` that `user_id` made (they leave, or may no longer invite);
/// returns how many.
pub async fn cancel_made_by(store: &Store, org: &str, user_id: &str) -> AccountResult<u64> {
    Ok(store.delete_pending_invites_by(org, user_id).await?)
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
    store.insert_invite(&digest(&token), &invite, created_by, now).await?;
    Ok((token, invite))
}

/// The live (unused, unexpired) invite behind a token.
pub async fn peek(store: &Store, token: &str) -> AccountResult<Option<Invite>> {
    if !looks_like_secret(token) {
        return Ok(None);
    }
    Ok(store.live_invite(&digest(token), now_us()).await?)
}

/// Accepts an invite: the user is created with `password`, the invite is spent. A bad password
/// leaves the invite usable; a used or expired invite is refused.
pub async fn accept(store: &Store, token: &str, password_plain: &str) -> AccountResult<User> {
    let invite = peek(store, token).await?.ok_or_else(|| AccountError::Invalid(INVALID.into()))?;
    let phc = password::hash(password_plain).await?;
    if !store.spend_invite(&digest(token), now_us()).await? {
        return Err(AccountError::Invalid(INVALID.into()));
    }
    users::insert_user(store, &invite.org_id, &invite.email, invite.role, &phc).await
}

/// Moves an invite's expiry (tests and operators: `expires_at` in microseconds).
pub async fn set_expiry(store: &Store, token: &str, expires_at: i64) -> AccountResult<()> {
    Ok(store.set_invite_expiry(&digest(token), expires_at).await?)
}
