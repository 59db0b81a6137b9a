//! Cookies gatherer: every `Set-Cookie` a response carried (the raw headers come from
//! `Network.responseReceivedExtraInfo`, merged into the requests by the network gatherer), parsed,
//! with the value masked.

use crate::model::{CookieSet, NetworkRequest, header_all};

/// Cookies kept per page.
pub const MAX_COOKIES: usize = 300;

pub(crate) fn gather(requests: &[NetworkRequest]) -> Vec<CookieSet> {
    let mut out = Vec::new();
    for r in requests {
        for line in header_all(&r.response_headers, "set-cookie") {
            if out.len() >= MAX_COOKIES {
                return out;
            }
            if let Some(c) = parse(line, &r.url) {
                out.push(c);
            }
        }
    }
    out
}

/// Parses one `Set-Cookie` line set by a response from `url`.
pub(crate) fn parse(line: &str, url: &str) -> Option<CookieSet> {
    let mut parts = line.split(';');
    let pair = parts.next()?.trim();
    let (name, _value) = pair.split_once('=').unwrap_or(("", pair));
    let name = name.trim();
    let mut c = CookieSet {
        name: name.to_string(),
        set_by: url.to_string(),
        set_over_https: url.starts_with("https://"),
        ..CookieSet::default()
    };
    let attrs: Vec<&str> = parts.collect();
    for attr in &attrs {
        let (k, v) = attr.split_once('=').map(|(k, v)| (k.trim(), Some(v.trim()))).unwrap_or((attr.trim(), None));
        match k.to_ascii_lowercase().as_str() {
            "secure" => c.secure = true,
            "httponly" => c.http_only = true,
            "samesite" => c.same_site = v.map(str::to_string),
            "domain" => c.domain = v.map(str::to_string),
            "path" => c.path = v.map(str::to_string),
            _ => {}
        }
    }
    let rest = if attrs.is_empty() { String::new() } else { format!(";{}", attrs.join(";")) };
    c.raw_masked = if name.is_empty() { format!("***{rest}") } else { format!("{name}=***{rest}") };
    Some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_attributes_and_masks_the_value() {
        let c = parse("sid=s3cr3t; Path=/; Secure; HttpOnly; SameSite=Lax", "https://a.test/login").unwrap();
        assert_eq!(c.name, "sid");
        assert!(c.secure && c.http_only && c.set_over_https);
        assert_eq!((c.same_site.as_deref(), c.path.as_deref()), (Some("Lax"), Some("/")));
        assert_eq!(c.raw_masked, "sid=***; Path=/; Secure; HttpOnly; SameSite=Lax");
        assert!(!c.raw_masked.contains("s3cr3t"));
        let plain = parse("theme=dark", "http://a.test/").unwrap();
        assert!(!plain.secure && !plain.http_only && !plain.set_over_https);
        assert_eq!(plain.raw_masked, "theme=***");
    }
}
