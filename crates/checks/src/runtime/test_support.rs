//! Test helpers: a rendered page and one check's findings.

use crate::model::{Header, NetworkRequest, PageSnapshot};
pub use crate::test_kit::{run};
use crate::test_kit::html_page;

pub use crate::test_kit::URL;

/// A rendered 200 HTML page at `url`.
pub fn page_at(url: &str) -> PageSnapshot {
    PageSnapshot {
        response_headers: vec![Header { name: "content-type".into(), value: "text/html; charset=utf-8".into() }],
        ..html_page(url)
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

