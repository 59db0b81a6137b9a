//! Finding the network response that delivered an image, and its size.

use crate::PageView;
use crate::model::NetworkRequest;

/// Redirect hops followed from an image URL to its final response.
const MAX_REDIRECT_HOPS: usize = 5;

/// The URL without its `#fragment`.
pub fn without_fragment(url: &str) -> &str {
    url.split_once('#').map_or(url, |(u, _)| u)
}

/// True for `data:` and `blob:` URLs, which make no network request.
pub fn is_inline_url(url: &str) -> bool {
    let lower = url.trim_start().get(..5).unwrap_or("").to_ascii_lowercase();
    lower == "data:" || lower == "blob:"
}

/// `location` resolved against `base` (absolute, scheme-relative, absolute-path or relative).
fn resolve(base: &str, location: &str) -> String {
    if location.contains("://") {
        return location.to_string();
    }
    let Some((scheme, rest)) = base.split_once("://") else {
        return location.to_string();
    };
    if let Some(stripped) = location.strip_prefix("//") {
        return format!("{scheme}://{stripped}");
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    if location.starts_with('/') {
        return format!("{scheme}://{authority}{location}");
    }
    let path = without_fragment(base).split('?').next().unwrap_or(base);
    let path = path.get(scheme.len() + 3 + authority.len()..).unwrap_or("");
    let dir = path.rfind('/').map_or("/", |i| &path[..=i]);
    format!("{scheme}://{authority}{dir}{location}")
}

/// The last request made for exactly this URL (fragment ignored) that got an answer or failed.
fn request_to<'a>(page: &PageView<'a>, url: &str) -> Option<&'a NetworkRequest> {
    let url = without_fragment(url);
    let mut matching = page.requests().iter().rev().filter(|r| without_fragment(&r.url) == url);
    let answered = matching.clone().find(|r| r.status.is_some() || r.failure.is_some());
    answered.or_else(|| matching.next())
}

/// The response that delivered `url`, following redirects (3xx with a `location` header).
pub fn response_for<'a>(page: &PageView<'a>, url: &str) -> Option<&'a NetworkRequest> {
    let mut current = request_to(page, url)?;
    for _ in 0..MAX_REDIRECT_HOPS {
        let is_redirect = current.status.is_some_and(|s| (300..400).contains(&s) && s != 304);
        let location = crate::model::header(&current.response_headers, "location");
        match (is_redirect, location) {
            (true, Some(location)) => match request_to(page, &resolve(&current.url, location)) {
                Some(next) => current = next,
                None => break,
            },
            _ => break,
        }
    }
    Some(current)
}

/// True when the request failed: a network error or an HTTP error status. `net::ERR_ABORTED` is
/// not a failure: Chromium reports it for requests cancelled by the page or by the end of the
/// capture (an image still downloading when the snapshot was taken).
pub fn request_failed(request: &NetworkRequest) -> bool {
    let aborted = request.failure.as_deref().is_some_and(|f| f.contains("ERR_ABORTED"));
    (request.failure.is_some() && !aborted) || request.status.is_some_and(|s| s >= 400)
}

/// The size of the image file: decoded body bytes, else bytes on the wire.
pub fn body_bytes(request: &NetworkRequest) -> Option<u64> {
    request.decoded_bytes.filter(|b| *b > 0).or(request.encoded_bytes.filter(|b| *b > 0))
}

/// The decoded size of a `data:` URL's payload (base64 or percent-encoded), roughly.
pub fn data_url_bytes(url: &str) -> Option<u64> {
    let url = url.trim_start();
    if !url.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("data:")) {
        return None;
    }
    let rest = &url[5..];
    let (header, payload) = rest.split_once(',')?;
    let len = payload.len() as u64;
    Some(if header.to_ascii_lowercase().ends_with(";base64") { len * 3 / 4 } else { len })
}

/// The image's size in bytes, from its response or its `data:` URL.
pub fn image_bytes(page: &PageView<'_>, url: &str) -> Option<u64> {
    if is_inline_url(url) {
        return data_url_bytes(url);
    }
    response_for(page, url).and_then(body_bytes)
}

/// The MIME type (lowercase, parameters dropped) the image was served with.
pub fn image_mime(page: &PageView<'_>, url: &str) -> Option<String> {
    let raw = if is_inline_url(url) {
        url.trim_start().get(5..).and_then(|r| r.split([';', ',']).next()).map(str::to_string)
    } else {
        response_for(page, url).and_then(|r| r.mime_type.clone())
    }?;
    let mime = raw.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    (!mime.is_empty()).then_some(mime)
}

/// True for SVG images (by MIME type, else by file extension).
pub fn is_svg(page: &PageView<'_>, url: &str) -> bool {
    match image_mime(page, url) {
        Some(mime) => mime == "image/svg+xml",
        None => without_fragment(url).split('?').next().unwrap_or("").to_ascii_lowercase().ends_with(".svg"),
    }
}

#[cfg(test)]
mod tests {
    use crate::model::PageSnapshot;
    use crate::test_kit::view;
    use super::*;
    use crate::model::Header;

    fn req(url: &str, status: u16) -> NetworkRequest {
        NetworkRequest { url: url.into(), resource_type: "image".into(), status: Some(status), ..Default::default() }
    }

    #[test]
    fn follows_redirects_to_the_final_response() {
        let mut hop = req("https://example.com/a.jpg", 301);
        hop.response_headers = vec![Header { name: "location".into(), value: "/img/a.jpg".into() }];
        let mut fin = req("https://example.com/img/a.jpg", 200);
        fin.decoded_bytes = Some(5000);
        let page = PageSnapshot { requests: vec![hop, fin], ..Default::default() };
        let r = response_for(&view(&page), "https://example.com/a.jpg#x").expect("response");
        assert_eq!(r.url, "https://example.com/img/a.jpg");
        assert_eq!(image_bytes(&view(&page), "https://example.com/a.jpg"), Some(5000));
    }

    #[test]
    fn resolves_locations() {
        assert_eq!(resolve("https://a.test/x/y.png", "z.png"), "https://a.test/x/z.png");
        assert_eq!(resolve("https://a.test/y.png", "z.png"), "https://a.test/z.png");
        assert_eq!(resolve("https://a.test", "z.png"), "https://a.test/z.png");
        assert_eq!(resolve("https://a.test/x/y.png", "//cdn.test/z.png"), "https://cdn.test/z.png");
        assert_eq!(resolve("https://a.test/x/y.png", "/z.png"), "https://a.test/z.png");
        assert_eq!(resolve("https://a.test/x/y.png", "http://b.test/z.png"), "http://b.test/z.png");
    }

    #[test]
    fn data_urls_have_a_size_and_a_type() {
        let page = PageSnapshot::default();
        let url = format!("data:image/png;base64,{}", "A".repeat(400));
        assert_eq!(image_bytes(&view(&page), &url), Some(300));
        assert_eq!(image_mime(&view(&page), &url).as_deref(), Some("image/png"));
        assert!(is_svg(&view(&page), "data:image/svg+xml,%3Csvg%3E"));
        assert!(is_svg(&view(&page), "https://a.test/logo.svg?v=2"));
        assert!(!is_svg(&view(&page), "https://a.test/logo.png"));
    }
}
