//! The dashboard's stylesheet, script and icon, and the report's style and script for the scan
//! page, embedded in the binary.

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

const CSS: &str = include_str!("assets/dashboard.css");
const JS: &str = include_str!("assets/dashboard.js");
const FAVICON: &str = include_str!("assets/favicon.svg");

fn asset(body: &'static str, content_type: &'static str) -> Response {
    let mut r = body.into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=604800"));
    r
}

pub async fn css() -> Response {
    asset(CSS, "text/css; charset=utf-8")
}

pub async fn js() -> Response {
    asset(JS, "text/javascript; charset=utf-8")
}

pub async fn favicon() -> Response {
    asset(FAVICON, "image/svg+xml")
}

/// The report's own styles, for the report inside the scan page.
pub async fn report_css() -> Response {
    asset(crate::report::html::CONTENT_STYLE, "text/css; charset=utf-8")
}

/// The report's severity filter, for the report inside the scan page.
pub async fn report_js() -> Response {
    asset(crate::report::html::SCRIPT, "text/javascript; charset=utf-8")
}
