//! The canonical URLs a page declares: `<link rel=canonical>` elements in `<head>` and `Link`
//! headers. Search engines ignore a canonical link in `<body>` (Google: "the rel=canonical link
//! element is only accepted if it appears in the <head>"; Lighthouse passes such a page), so it
//! declares nothing; `body_canonicals` lists those for evidence.

use crate::PageView;

/// One canonical declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Canonical {
    /// The target as written.
    pub raw: Option<String>,
    /// Resolved against the document (for headers: as written when absolute).
    pub href: Option<String>,
    /// `None` for an HTTP `Link` header.
    pub selector: Option<String>,
}

/// True when a `rel` attribute value lists `canonical`.
fn rel_has_canonical(rel: &str) -> bool {
    rel.split_ascii_whitespace()
        .any(|r| r.eq_ignore_ascii_case("canonical"))
}

/// Canonical targets from `Link` headers (`<https://x/>; rel="canonical"`).
fn header_canonicals(page: &PageView<'_>) -> Vec<Canonical> {
    let mut found = Vec::new();
    for value in crate::model::header_all(page.response_headers, "link") {
        for entry in value.split(',') {
            let entry = entry.trim();
            let Some(rest) = entry.strip_prefix('<') else {
                continue;
            };
            let Some((target, params)) = rest.split_once('>') else {
                continue;
            };
            let is_canonical = params.split(';').any(|p| {
                let p = p.trim();
                p.get(..4).is_some_and(|k| k.eq_ignore_ascii_case("rel="))
                    && rel_has_canonical(p[4..].trim_matches('"'))
            });
            if is_canonical {
                let absolute = super::url_identity::is_absolute_http(target);
                found.push(Canonical {
                    raw: Some(target.to_string()),
                    href: absolute.then(|| target.to_string()),
                    selector: None,
                });
            }
        }
    }
    found
}

/// Every canonical the page declares: `<head>` elements first, then `Link` headers.
pub fn canonicals(page: &PageView<'_>) -> Vec<Canonical> {
    let mut found: Vec<Canonical> = page
        .dom()
        .links
        .iter()
        .filter(|l| l.in_head && rel_has_canonical(&l.rel))
        .map(|l| Canonical {
            raw: l.href_raw.clone(),
            href: l.href.clone(),
            selector: Some(l.selector.clone()),
        })
        .collect();
    found.extend(header_canonicals(page));
    found
}

/// Selectors of `<link rel=canonical>` elements outside `<head>` (ignored by search engines).
pub fn body_canonicals<'a>(page: &PageView<'a>) -> Vec<&'a str> {
    page.dom().links.iter().filter(|l| !l.in_head && rel_has_canonical(&l.rel)).map(|l| l.selector.as_str()).collect()
}

#[cfg(test)]
mod tests {
    use crate::model::PageSnapshot;
    use crate::test_kit::view;
    use super::*;
    use crate::model::{Header, LinkTag};

    #[test]
    fn reads_elements_and_headers() {
        let mut page = PageSnapshot::default();
        page.dom.links.push(LinkTag {
            rel: "stylesheet".into(),
            ..Default::default()
        });
        page.dom.links.push(LinkTag {
            rel: "Canonical".into(),
            href_raw: Some("/a".into()),
            href: Some("https://example.com/a".into()),
            in_head: true,
            selector: "link".into(),
            ..Default::default()
        });
        page.response_headers.push(Header {
            name: "link".into(),
            value: "</style.css>; rel=preload, <https://example.com/a>; rel=\"canonical\"".into(),
        });
        let c = canonicals(&view(&page));
        assert_eq!(c.len(), 2);
        assert_eq!(c[1].href.as_deref(), Some("https://example.com/a"));
        assert_eq!(c[1].selector, None);
    }

    #[test]
    fn a_canonical_in_the_body_declares_nothing() {
        let mut page = PageSnapshot::default();
        page.dom.links.push(LinkTag {
            rel: "canonical".into(),
            href_raw: Some("https://example.com/b".into()),
            href: Some("https://example.com/b".into()),
            in_head: false,
            selector: "#body-canonical".into(),
            ..Default::default()
        });
        assert!(canonicals(&view(&page)).is_empty());
        assert_eq!(body_canonicals(&view(&page)), vec!["#body-canonical"]);
    }
}
