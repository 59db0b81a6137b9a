//! Where a page declares its character encoding: the Content-Type header, a BOM, or a meta tag.

use crate::PageView;

/// The `charset` parameter of a Content-Type value.
pub fn charset_param(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|param| {
        let (key, value) = param.split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches(['"', '\'']).to_string())
            .filter(|v| !v.is_empty())
    })
}

/// The byte offset of the first `<meta>` that declares a charset (`charset=` or an http-equiv
/// content-type with `charset=`) in the served HTML, found by a simple prescan.
pub fn prescan_meta_charset(html: &str) -> Option<usize> {
    let lower = html.to_ascii_lowercase();
    let mut from = 0;
    while let Some(pos) = lower[from..].find("<meta") {
        let start = from + pos;
        let end = lower[start..].find('>').map_or(lower.len(), |e| start + e);
        if lower[start..end].contains("charset") {
            return Some(start);
        }
        from = start + 5;
    }
    None
}

/// One declaration of the page's encoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    /// `header` or `meta`.
    pub source: &'static str,
    pub charset: String,
    pub selector: Option<String>,
}

/// Every declaration: the header's charset parameter, then meta charset / http-equiv tags.
pub fn declarations(page: &PageView<'_>) -> Vec<Declaration> {
    let mut found = Vec::new();
    if let Some(charset) = page.header("content-type").and_then(charset_param) {
        found.push(Declaration {
            source: "header",
            charset,
            selector: None,
        });
    }
    for meta in &page.dom().metas {
        let charset = meta
            .charset
            .clone()
            .filter(|c| !c.trim().is_empty())
            .or_else(|| {
                meta.http_equiv
                    .as_deref()
                    .filter(|h| h.trim().eq_ignore_ascii_case("content-type"))
                    .and(meta.content.as_deref())
                    .and_then(charset_param)
            });
        if let Some(charset) = charset {
            found.push(Declaration {
                source: "meta",
                charset: charset.trim().to_string(),
                selector: Some(meta.selector.clone()),
            });
        }
    }
    found
}

/// True for every WHATWG label of UTF-8.
pub fn is_utf8_label(label: &str) -> bool {
    matches!(
        label.trim().to_ascii_lowercase().as_str(),
        "utf-8"
            | "utf8"
            | "unicode-1-1-utf-8"
            | "unicode11utf8"
            | "unicode20utf8"
            | "x-unicode20utf8"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_declarations() {
        assert_eq!(
            charset_param("text/html; Charset=\"UTF-8\"").as_deref(),
            Some("UTF-8")
        );
        assert_eq!(charset_param("text/html"), None);
        assert_eq!(
            prescan_meta_charset(
                "<html><head><META http-equiv=Content-Type content='text/html; charset=utf-8'>"
            ),
            Some(12)
        );
        assert_eq!(
            prescan_meta_charset("<meta name=viewport content=x><title>charset</title>"),
            None
        );
        assert!(is_utf8_label(" UTF8") && !is_utf8_label("iso-8859-1"));
    }
}
