//! Everything a page can refuse with, answered as an HTML page (never the API's JSON).

use super::session::Session;
use super::templates::{Chrome, ErrorPage, render};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};

/// A refusal or failure of a page.
#[derive(Debug)]
pub enum DashboardError {
    /// Not signed in (or the session ended): go to `/login`.
    SignIn,
    /// Signed in, but not allowed (a member on an owner page).
    Forbidden(Option<Box<Session>>),
    /// The CSRF token is missing or wrong, or the request came from another origin.
    Csrf,
    NotFound,
    BadRequest(String),
    /// Too many failed sign-ins: wait this many seconds.
    TooMany(i64),
    Internal(String),
}

impl DashboardError {
    /// A failure below the page (the database); logged without request data.
    pub fn internal(e: impl std::fmt::Display) -> DashboardError {
        DashboardError::Internal(e.to_string())
    }

    /// The status and the page's heading and text.
    fn parts(&self) -> (StatusCode, &'static str, String) {
        match self {
            DashboardError::SignIn => (StatusCode::UNAUTHORIZED, "Sign in required", "Sign in to see this page.".into()),
            DashboardError::Forbidden(_) => {
                (StatusCode::FORBIDDEN, "Not allowed", "Only an owner of the organisation can open this page.".into())
            }
            DashboardError::Csrf => (
                StatusCode::FORBIDDEN,
                "Request refused",
                "The form was stale or did not come from this site, so nothing was changed. Go back, reload the page and try again.".into(),
            ),
            DashboardError::NotFound => (StatusCode::NOT_FOUND, "Page not found", "There is nothing here, or it is not yours to see.".into()),
            DashboardError::BadRequest(m) => (StatusCode::BAD_REQUEST, "Request not understood", m.clone()),
            DashboardError::TooMany(s) => (
                StatusCode::TOO_MANY_REQUESTS,
                "Too many attempts",
                format!("Too many failed attempts. Wait {s} seconds before trying again."),
            ),
            DashboardError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "Something went wrong", "The server could not answer. Try again in a moment.".into()),
        }
    }
}

impl From<crate::accounts::AccountError> for DashboardError {
    fn from(e: crate::accounts::AccountError) -> Self {
        match e {
            crate::accounts::AccountError::Invalid(m) => DashboardError::BadRequest(m),
            crate::accounts::AccountError::NotFound(_) => DashboardError::NotFound,
            other => DashboardError::internal(other),
        }
    }
}

/// An HTML error page with `status`.
pub fn error_page(status: StatusCode, heading: &str, message: &str, session: Option<&Session>) -> Response {
    let page = ErrorPage { chrome: Chrome::new(heading, session, ""), heading: heading.to_string(), message: message.to_string() };
    let mut response = render(&page);
    *response.status_mut() = status;
    response
}

impl IntoResponse for DashboardError {
    fn into_response(self) -> Response {
        if let DashboardError::SignIn = self {
            return Redirect::to("/login").into_response();
        }
        if let DashboardError::Internal(detail) = &self {
            tracing::error!(error = %detail, "dashboard page failed");
        }
        let (status, heading, message) = self.parts();
        let session = match &self {
            DashboardError::Forbidden(s) => s.as_deref(),
            _ => None,
        };
        let mut response = error_page(status, heading, &message, session);
        if let DashboardError::TooMany(s) = self
            && let Ok(v) = HeaderValue::from_str(&s.to_string())
        {
            response.headers_mut().insert(header::RETRY_AFTER, v);
        }
        response
    }
}
