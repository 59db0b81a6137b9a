//! Server-side sessions: a random id in an `HttpOnly; SameSite=Lax` cookie, its SHA-256 in the
//! `sessions` table (so every instance of a fleet shares them), an idle timeout of 12 hours and
//! an absolute one of 7 days. Each session has its own CSRF token.

use super::error::PageError;
use super::state::WebState;
use crate::accounts::secret::{digest, looks_like_secret, random_secret};
use crate::accounts::{User, users};
use crate::store::Store;
use crate::store::time::now_us;
use axum::extract::FromRequestParts;
use axum::http::HeaderMap;
use axum::http::request::Parts;

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "sitescan_session";
/// The pre-login CSRF cookie (double submit on `/login` and `/invite/{token}`).
pub const CSRF_COOKIE: &str = "sitescan_csrf";
/// A session ends after this long without a request (microseconds): 12 hours.
pub const IDLE_TIMEOUT_US: i64 = 12 * 3600 * 1_000_000;
/// A session ends this long after sign-in whatever happens (microseconds): 7 days.
pub const ABSOLUTE_TIMEOUT_US: i64 = 7 * 24 * 3600 * 1_000_000;
/// `last_seen_at` is written at most this often (microseconds).
const TOUCH_US: i64 = 60 * 1_000_000;

/// A signed-in person.
#[derive(Debug, Clone)]
pub struct Session {
    pub user: User,
    pub csrf: String,
    id_hash: String,
}

impl Session {
    /// The organisation the signed-in person acts for.
    pub fn org(&self) -> crate::model::OrgId<'_> {
        crate::model::OrgId::new(&self.user.org_id)
    }
}

/// The value of cookie `name` in the request.
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.trim())
}

/// A `Set-Cookie` value.
pub fn set_cookie(name: &str, value: &str, max_age_s: i64, secure: bool, same_site: &str) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{name}={value}; Path=/; HttpOnly; SameSite={same_site}; Max-Age={max_age_s}{secure}")
}

/// Starts a session for `user_id`; returns the cookie value (the plaintext id).
pub async fn start(store: &Store, user_id: &str) -> Result<String, PageError> {
    let id = random_secret();
    let now = now_us();
    store.insert_session(&digest(&id), user_id, &random_secret(), now).await.map_err(PageError::internal)?;
    Ok(id)
}

/// Ends the session whose cookie value is `id`.
pub async fn end(store: &Store, id: &str) -> Result<(), PageError> {
    store.delete_session(&digest(id)).await.map_err(PageError::internal)
}

/// The live session behind a cookie value, refreshed; expired sessions are deleted.
pub async fn load(store: &Store, id: &str) -> Result<Option<Session>, PageError> {
    if !looks_like_secret(id) {
        return Ok(None);
    }
    let id_hash = digest(id);
    let Some(row) = store.session(&id_hash).await.map_err(PageError::internal)? else { return Ok(None) };
    let now = now_us();
    if now - row.last_seen_at > IDLE_TIMEOUT_US || now - row.created_at > ABSOLUTE_TIMEOUT_US {
        end(store, id).await?;
        return Ok(None);
    }
    let user = users::by_id(store, &row.user_id).await.map_err(PageError::internal)?;
    let Some(user) = user.filter(|u| u.disabled_at.is_none()) else {
        end(store, id).await?;
        return Ok(None);
    };
    if now - row.last_seen_at > TOUCH_US {
        store.touch_session(&id_hash, now).await.map_err(PageError::internal)?;
    }
    Ok(Some(Session { user, csrf: row.csrf_token, id_hash }))
}

impl Session {
    /// The stored form of this session's id (never the id itself).
    pub fn id_hash(&self) -> &str {
        &self.id_hash
    }
}

/// Any signed-in user; others are sent to `/login`. Reads only the cookie: an
/// `Authorization` header opens nothing here.
impl FromRequestParts<WebState> for Session {
    type Rejection = PageError;

    async fn from_request_parts(parts: &mut Parts, state: &WebState) -> Result<Self, Self::Rejection> {
        let Some(id) = cookie(&parts.headers, SESSION_COOKIE) else { return Err(PageError::SignIn) };
        load(state.store(), id).await?.ok_or(PageError::SignIn)
    }
}

/// A signed-in owner; members get the 403 page.
#[derive(Debug, Clone)]
pub struct OwnerSession(pub Session);

impl FromRequestParts<WebState> for OwnerSession {
    type Rejection = PageError;

    async fn from_request_parts(parts: &mut Parts, state: &WebState) -> Result<Self, Self::Rejection> {
        let session = Session::from_request_parts(parts, state).await?;
        if session.user.is_owner() { Ok(OwnerSession(session)) } else { Err(PageError::Forbidden(Some(Box::new(session)))) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_cookies() {
        let mut h = HeaderMap::new();
        h.insert("cookie", "a=1; sitescan_session=abc ; b=2".parse().unwrap());
        assert_eq!(cookie(&h, SESSION_COOKIE), Some("abc"));
        assert_eq!(cookie(&h, "c"), None);
        let c = set_cookie(SESSION_COOKIE, "x", 10, true, "Lax");
        assert!(c.contains("HttpOnly") && c.contains("SameSite=Lax") && c.ends_with("; Secure"));
    }
}
