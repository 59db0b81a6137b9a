//! Test helpers: a rendered page, images and requests, and one check's findings.

use crate::model::{DomFacts, Image, NetworkRequest, PageSnapshot};
pub use crate::test_kit::{run};
use crate::test_kit::html_page;

pub use crate::test_kit::URL;

/// A rendered 200 HTML page at `URL` (viewport 1280x800) with these images and requests.
pub fn page(images: Vec<Image>, requests: Vec<NetworkRequest>) -> PageSnapshot {
    PageSnapshot {
        dom: DomFacts { images, viewport_width: 1280, viewport_height: 800, ..Default::default() },
        requests,
        ..html_page(URL)
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

