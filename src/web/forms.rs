//! Reading form posts: every field as text (so a wrong type is a form error, not a framework
//! rejection), the body capped, and the CSRF token compared in constant time.

use super::error::DashboardError;
use super::session::Session;
use crate::accounts::secret::constant_time_eq;
use axum::extract::{FromRequest, Request};

/// Largest form body accepted (bytes).
pub const MAX_FORM_BYTES: usize = 16 * 1024;
/// The hidden field carrying the CSRF token.
pub const CSRF_FIELD: &str = "csrf";

/// A posted `application/x-www-form-urlencoded` form.
#[derive(Debug, Clone, Default)]
pub struct FormData(pub Vec<(String, String)>);

impl FormData {
    /// The first value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// The first value of `name`, or "".
    pub fn text(&self, name: &str) -> &str {
        self.get(name).unwrap_or("")
    }

    /// Every value of `name` (checkbox groups).
    pub fn all(&self, name: &str) -> Vec<&str> {
        self.0.iter().filter(|(k, _)| k == name).map(|(_, v)| v.as_str()).collect()
    }

    /// Refuses the form (403, nothing changed) unless its CSRF field equals `expected`.
    pub fn check_csrf(&self, expected: &str) -> Result<(), DashboardError> {
        match self.get(CSRF_FIELD) {
            Some(given) if !expected.is_empty() && constant_time_eq(given, expected) => Ok(()),
            _ => Err(DashboardError::Csrf),
        }
    }

    /// `check_csrf` against the session's token.
    pub fn check_session(&self, session: &Session) -> Result<(), DashboardError> {
        self.check_csrf(&session.csrf)
    }
}

impl<S: Send + Sync> FromRequest<S> for FormData {
    type Rejection = DashboardError;

    async fn from_request(req: Request, _: &S) -> Result<Self, Self::Rejection> {
        let form_type = req
            .headers()
            .get(axum::http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|c| c.starts_with("application/x-www-form-urlencoded"));
        if !form_type {
            return Err(DashboardError::BadRequest("Send the form from its page.".into()));
        }
        let bytes = axum::body::to_bytes(req.into_body(), MAX_FORM_BYTES)
            .await
            .map_err(|_| DashboardError::BadRequest("The form is too large.".into()))?;
        Ok(FormData(url::form_urlencoded::parse(&bytes).into_owned().collect()))
    }
}

/// Checks that a field is at most `max` characters and has no control characters.
pub fn bounded<'a>(value: &'a str, max: usize, label: &str) -> Result<&'a str, String> {
    let value = value.trim();
    if value.chars().count() > max {
        return Err(format!("{label} must be at most {max} characters."));
    }
    if value.chars().any(|c| c.is_control()) {
        return Err(format!("{label} must not contain control characters."));
    }
    Ok(value)
}
