//! Test helpers: a rendered page and one check's findings.

use crate::checks::{Check, Findings, Thresholds};
use crate::model::{Finding, Header, NetworkRequest, PageSnapshot};

pub const URL: &str = "https://example.com/page";

/// A rendered 200 HTML page at `url`.
pub fn page_at(url: &str) -> PageSnapshot {
    PageSnapshot {
        requested_url: url.into(),
        final_url: url.into(),
        status: Some(200),
        mime_type: Some("text/html".into()),
        response_headers: vec![Header { name: "content-type".into(), value: "text/html; charset=utf-8".into() }],
        ..Default::default()
    }
}

/// The same at `URL` (https).
pub fn page() -> PageSnapshot {
    page_at(URL)
}

/// A subresource request that answered `status`.
pub fn request(url: &str, resource_type: &str, status: Option<u16>) -> NetworkRequest {
    NetworkRequest {
        url: url.into(),
        resource_type: resource_type.into(),
        method: "GET".into(),
        status,
        ..Default::default()
    }
}

/// The findings `check` reports for `page` with default thresholds.
pub fn run(check: &dyn Check, page: &PageSnapshot) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut sink = Findings::new(check.meta(), &mut out);
    check.page(page, &Thresholds::default(), &mut sink);
    drop(sink);
    out
}
