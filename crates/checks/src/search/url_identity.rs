//! When two URLs name the same resource, and which origin a URL belongs to.

use url::Url;

/// The URL in a comparable form: parsed (scheme and host lowercased, default port dropped, empty
/// path made `/`), without its fragment. `None` when it does not parse as an absolute URL.
pub fn normalized(url: &str) -> Option<String> {
    let mut parsed = Url::parse(url.trim()).ok()?;
    parsed.set_fragment(None);
    Some(parsed.to_string())
}

/// True when both parse and name the same resource (fragments ignored).
pub fn same_url(a: &str, b: &str) -> bool {
    match (normalized(a), normalized(b)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// The origin (`https://example.com:8443`), or `None` for URLs without one.
pub fn origin(url: &str) -> Option<String> {
    let parsed = Url::parse(url.trim()).ok()?;
    let origin = parsed.origin();
    origin.is_tuple().then(|| origin.ascii_serialization())
}

/// True for `http://` or `https://` URLs with a host (what a crawler can fetch).
pub fn is_absolute_http(url: &str) -> bool {
    let t = url.trim();
    let lower = t.get(..8).unwrap_or(t).to_ascii_lowercase();
    (lower.starts_with("http://") || lower.starts_with("https://"))
        && Url::parse(t).is_ok_and(|u| u.host_str().is_some_and(|h| !h.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compares_urls_like_a_browser() {
        assert!(same_url("https://Example.com", "https://example.com/"));
        assert!(same_url(
            "https://example.com:443/a#top",
            "https://example.com/a"
        ));
        assert!(!same_url("https://example.com/a", "https://example.com/a/"));
        assert!(!same_url("/a", "/a"));
        assert_eq!(
            origin("https://example.com/x").as_deref(),
            Some("https://example.com")
        );
        assert_ne!(
            origin("http://example.com/"),
            origin("https://example.com/")
        );
        assert!(is_absolute_http("https://example.com/x"));
        assert!(!is_absolute_http("//example.com/x"));
        assert!(!is_absolute_http("/x"));
        assert!(!is_absolute_http("ftp://example.com/x"));
    }
}
