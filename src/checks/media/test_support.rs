//! Test helpers: a rendered page, images and requests, and one check's findings.

use crate::checks::{Check, Findings, Thresholds};
use crate::model::{DomFacts, Finding, Image, NetworkRequest, PageSnapshot};

pub const URL: &str = "https://example.com/page";

/// A rendered 200 HTML page at `URL` (viewport 1280x800) with these images and requests.
pub fn page(images: Vec<Image>, requests: Vec<NetworkRequest>) -> PageSnapshot {
    PageSnapshot {
        requested_url: URL.into(),
        final_url: URL.into(),
        status: Some(200),
        mime_type: Some("text/html".into()),
        dom: DomFacts { images, viewport_width: 1280, viewport_height: 800, ..Default::default() },
        requests,
        ..Default::default()
    }
}

/// A visible, loaded `<img>` of 800x600 shown at 400x300, in the first viewport, sized by
/// attributes.
pub fn img(selector: &str, url: &str) -> Image {
    Image {
        kind: "img".into(),
        src_raw: Some(url.into()),
        url: Some(url.into()),
        alt: Some("A photo".into()),
        natural_width: 800,
        natural_height: 600,
        rendered_width: 400,
        rendered_height: 300,
        has_width_attr: true,
        has_height_attr: true,
        in_first_viewport: true,
        top_px: 100.0,
        visible: true,
        selector: selector.into(),
        snippet: format!("<img src=\"{url}\">"),
        ..Default::default()
    }
}

/// A 200 image response of `bytes` bytes with this MIME type.
pub fn image_response(url: &str, mime: &str, bytes: u64) -> NetworkRequest {
    NetworkRequest {
        url: url.into(),
        resource_type: "image".into(),
        method: "GET".into(),
        status: Some(200),
        mime_type: Some(mime.into()),
        encoded_bytes: Some(bytes + 300),
        decoded_bytes: Some(bytes),
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
