//! Document gatherer: the main document's body exactly as served (`Network.getResponseBody`),
//! where its meta charset declaration sits in the served bytes, and the rendered DOM's HTML.

use base64::Engine;
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::network::GetResponseBodyParams;
use regex::bytes::Regex;
use std::sync::LazyLock;
use std::time::Duration;

use crate::browser::cdp::{Deadline, STEP_TIMEOUT, eval_string, run};
use crate::browser::error::BrowserError;
use crate::browser::instance::Instance;
use crate::browser::scripts::RENDERED_HTML;

/// Served and rendered HTML are cut at this many bytes.
pub const MAX_HTML_BYTES: usize = 5 * 1024 * 1024;
/// A served document larger than this is not read at all: Chromium sends a response body whole,
/// in one message (base64 when binary), and this is what one page may make the scanner hold.
pub const MAX_SERVED_READ_BYTES: usize = 32 * 1024 * 1024;

static META_CHARSET: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"(?i)<meta\s[^>]*?(?:charset\s*=|http-equiv\s*=\s*["']?\s*content-type)"#).ok());
static COMMENT: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"(?s)<!--.*?-->").ok());

/// The served body (as text, capped) and the byte offset of its first meta charset declaration.
pub(crate) async fn served(instance: &Instance, page: &Page, budget: &Deadline, request_id: &str) -> Result<(String, Option<usize>), BrowserError> {
    let body = run(instance, page, "Network.getResponseBody", budget.cap(STEP_TIMEOUT), GetResponseBodyParams::new(request_id.to_string())).await?;
    let bytes = if body.base64_encoded {
        base64::engine::general_purpose::STANDARD
            .decode(body.body.as_bytes())
            .map_err(|e| BrowserError::Cdp { what: "Network.getResponseBody", message: format!("bad base64: {e}") })?
    } else {
        body.body.into_bytes()
    };
    let offset = meta_charset_offset(&bytes);
    Ok((cap_text(String::from_utf8_lossy(&bytes).into_owned()), offset))
}

/// `document.documentElement.outerHTML`, capped.
pub(crate) async fn rendered(instance: &Instance, page: &Page, budget: &Deadline) -> Result<String, BrowserError> {
    let html = eval_string(instance, page, "rendered-html", &RENDERED_HTML, budget.cap(Duration::from_secs(15))).await?;
    Ok(cap_text(html))
}

fn cap_text(mut s: String) -> String {
    if s.len() > MAX_HTML_BYTES {
        let mut end = MAX_HTML_BYTES;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
    }
    s
}

/// Byte offset of the first `<meta charset=...>` or `<meta http-equiv="content-type">` outside
/// comments.
pub(crate) fn meta_charset_offset(bytes: &[u8]) -> Option<usize> {
    let (meta, comment) = (META_CHARSET.as_ref()?, COMMENT.as_ref()?);
    let mut masked = bytes.to_vec();
    for m in comment.find_iter(bytes) {
        masked[m.start()..m.end()].fill(b' ');
    }
    meta.find(&masked).map(|m| m.start())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_meta_charset_in_either_form() {
        assert_eq!(meta_charset_offset(b"<!doctype html><meta charset=utf-8>"), Some(15));
        assert_eq!(meta_charset_offset(b"<html><head><META HTTP-EQUIV=\"Content-Type\" content=\"text/html; charset=utf-8\">"), Some(12));
        assert_eq!(meta_charset_offset(b"<!-- <meta charset=x> --><title>x</title>"), None);
        assert_eq!(meta_charset_offset(b"<meta name=viewport content=x>"), None);
    }

    #[test]
    fn caps_on_a_char_boundary() {
        let s = "é".repeat(MAX_HTML_BYTES);
        let capped = cap_text(s);
        assert!(capped.len() <= MAX_HTML_BYTES && capped.len() >= MAX_HTML_BYTES - 1);
    }
}
