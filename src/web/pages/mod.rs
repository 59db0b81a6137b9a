//! The dashboard's pages, one file per area.

pub mod account;
pub mod auth;
pub mod compare;
pub mod members;
pub mod scan;
pub mod scans;
pub mod sites;
pub mod tokens;
pub mod webhooks;

use crate::model::time::to_datetime;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// A time for people: `2026-11-25 13:05 UTC`.
pub fn when(us: i64) -> String {
    to_datetime(us).format("%Y-%m-%d %H:%M UTC").to_string()
}

/// A 303 redirect, optionally setting cookies.
pub fn see_other(location: &str, cookies: &[String]) -> Response {
    let mut r = StatusCode::SEE_OTHER.into_response();
    if let Ok(v) = HeaderValue::from_str(location) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    for c in cookies {
        if let Ok(v) = HeaderValue::from_str(c) {
            r.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    r
}

/// The `done` query flag of a page, as a fixed notice.
pub fn notice(query: Option<&str>, known: &[(&str, &'static str)]) -> Option<String> {
    let done = url::form_urlencoded::parse(query?.as_bytes()).find(|(k, _)| k == "done")?.1.into_owned();
    known.iter().find(|(k, _)| *k == done).map(|(_, m)| m.to_string())
}
