//! Test helpers: a rendered page with metrics and requests, and one check's findings.

use crate::model::{DomFacts, Header, NetworkRequest, PageMetrics, PageSnapshot};
pub use crate::test_kit::{run, run_with};
use crate::test_kit::html_page;

pub use crate::test_kit::URL;

/// A rendered 200 HTML page at `URL` with these metrics and requests.
pub fn page(metrics: PageMetrics, requests: Vec<NetworkRequest>) -> PageSnapshot {
    PageSnapshot {
        metrics,
        requests,
        dom: DomFacts { viewport_width: 1280, viewport_height: 800, ..Default::default() },
        ..html_page(URL)
    }
}

/// A 200 GET response of this type and MIME type, `bytes` long, with these headers.
pub fn response(url: &str, resource_type: &str, mime: &str, bytes: u64, headers: &[(&str, &str)]) -> NetworkRequest {
    let response_headers: Vec<Header> =
        headers.iter().map(|(n, v)| Header { name: n.to_ascii_lowercase(), value: (*v).into() }).collect();
    let find = |name: &str| response_headers.iter().find(|h| h.name == name).map(|h| h.value.clone());
    NetworkRequest {
        url: url.into(),
        resource_type: resource_type.into(),
        method: "GET".into(),
        status: Some(200),
        mime_type: Some(mime.into()),
        encoded_bytes: Some(bytes + 250),
        decoded_bytes: Some(bytes),
        content_encoding: find("content-encoding"),
        cache_control: find("cache-control"),
        expires: find("expires"),
        response_headers,
        ..Default::default()
    }
}

