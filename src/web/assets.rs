//! The dashboard's stylesheet, script and icon, and the report's style and script for the scan
//! page, embedded in the binary.

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

const CSS: &str = include_str!("assets/dashboard.css");
const JS: &str = include_str!("assets/dashboard.js");
const FAVICON: &str = include_str!("assets/favicon.svg");

/// A short hash of every asset, appended to their URLs (`?v=`): a new build's assets are new
/// URLs, so the week-long cache never serves last release's script to this release's pages.
pub fn version() -> &'static str {
    static VERSION: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        for part in [CSS, JS, FAVICON, crate::report::html::CONTENT_STYLE, crate::report::html::SCRIPT] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        h.finalize().iter().take(6).map(|b| format!("{b:02x}")).collect()
    });
    &VERSION
}

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
