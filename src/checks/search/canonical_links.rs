//! The canonical URLs a page declares: `<link rel=canonical>` elements and `Link` headers.

use crate::model::PageSnapshot;

/// One canonical declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Canonical {
    /// The target as written.
    pub raw: Option<String>,
    /// Resolved against the document (for headers: as written when absolute).
    pub href: Option<String>,
    /// `None` for an HTTP `Link` header.
    pub selector: Option<String>,
    pub in_head: bool,
}

/// True when a `rel` attribute value lists `canonical`.
fn rel_has_canonical(rel: &str) -> bool {
    rel.split_ascii_whitespace()
        .any(|r| r.eq_ignore_ascii_case("canonical"))
}

/// Canonical targets from `Link` headers (`<https://x/>; rel="canonical"`).
fn header_canonicals(page: &PageSnapshot) -> Vec<Canonical> {
    let mut found = Vec::new();
    for value in crate::model::header_all(&page.response_headers, "link") {
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
                    in_head: true,
                });
            }
        }
    }
    found
}

/// Every canonical the page declares, elements first.
pub fn canonicals(page: &PageSnapshot) -> Vec<Canonical> {
    let mut found: Vec<Canonical> = page
        .dom
        .links
        .iter()
        .filter(|l| rel_has_canonical(&l.rel))
        .map(|l| Canonical {
            raw: l.href_raw.clone(),
            href: l.href.clone(),
            selector: Some(l.selector.clone()),
            in_head: l.in_head,
        })
        .collect();
    found.extend(header_canonicals(page));
    found
}

#[cfg(test)]
mod tests {
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
        let c = canonicals(&page);
        assert_eq!(c.len(), 2);
        assert_eq!(c[1].href.as_deref(), Some("https://example.com/a"));
        assert_eq!(c[1].selector, None);
    }
}
