//! The dashboard's side of sessions: a random id in an `HttpOnly; SameSite=Lax` cookie, and the
//! extractors that turn it into the signed-in person. What a session is (stored as a hash,
//! shared by a fleet, its timeouts, its CSRF token) is the accounts service's.

use super::error::DashboardError;
use super::state::WebState;
use crate::accounts::User;
use axum::extract::FromRequestParts;
use axum::http::HeaderMap;
use axum::http::request::Parts;

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "sitescan_session";
/// The pre-login CSRF cookie (double submit on `/login` and `/invite/{token}`).
pub const CSRF_COOKIE: &str = "sitescan_csrf";
pub use crate::accounts::sessions::{ABSOLUTE_TIMEOUT_US, IDLE_TIMEOUT_US};

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
pub async fn start(state: &WebState, user_id: &str) -> Result<String, DashboardError> {
    Ok(state.accounts().start_session(user_id).await?)
}

/// Ends the session whose cookie value is `id`.
pub async fn end(state: &WebState, id: &str) -> Result<(), DashboardError> {
    Ok(state.accounts().end_session(id).await?)
}

/// The live session behind a cookie value, refreshed (the rules are the accounts service's).
pub async fn load(state: &WebState, id: &str) -> Result<Option<Session>, DashboardError> {
    Ok(state.accounts().session(id).await?.map(|s| Session { user: s.user, csrf: s.csrf, id_hash: s.id_hash }))
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
    type Rejection = DashboardError;

    async fn from_request_parts(parts: &mut Parts, state: &WebState) -> Result<Self, Self::Rejection> {
        let Some(id) = cookie(&parts.headers, SESSION_COOKIE) else { return Err(DashboardError::SignIn) };
        load(state, id).await?.ok_or(DashboardError::SignIn)
    }
}

/// A signed-in owner; members get the 403 page.
#[derive(Debug, Clone)]
pub struct OwnerSession(pub Session);

impl FromRequestParts<WebState> for OwnerSession {
    type Rejection = DashboardError;

    async fn from_request_parts(parts: &mut Parts, state: &WebState) -> Result<Self, Self::Rejection> {
        let session = Session::from_request_parts(parts, state).await?;
        if session.user.is_owner() { Ok(OwnerSession(session)) } else { Err(DashboardError::Forbidden(Some(Box::new(session)))) }
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
