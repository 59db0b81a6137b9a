//! Indexing directives of a page: `<meta name="robots|googlebot">` and `X-Robots-Tag`.

use crate::model::{Header, MetaTag};

/// Where a `noindex` came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoindexSource {
    /// A meta tag, with its selector and content.
    Meta { selector: String, content: String },
    /// An `X-Robots-Tag` header value.
    Header(String),
}

/// True when a comma-separated directive list says `noindex` (or `none`).
fn says_noindex(directives: &str) -> bool {
    directives.split(',').any(|d| {
        let d = d.trim().to_ascii_lowercase();
        d == "noindex" || d == "none"
    })
}

/// True when one `X-Robots-Tag` value forbids indexing for every crawler or for Googlebot. A
/// value may start with a user agent (`googlebot: noindex`); `unavailable_after: <date>` is a
/// directive, not a user agent.
pub fn header_says_noindex(value: &str) -> bool {
    let mut agent: Option<String> = None;
    let mut noindex_for_all_or_google = false;
    for part in value.split(',') {
        let part = part.trim();
        let directive = match part.split_once(':') {
            Some((head, rest))
                if !head.trim().eq_ignore_ascii_case("unavailable_after")
                    && !head.contains(' ') =>
            {
                agent = Some(head.trim().to_ascii_lowercase());
                rest
            }
            _ => part,
        };
        let applies = agent
            .as_deref()
            .is_none_or(|a| a == "googlebot" || a == "*");
        if applies && says_noindex(directive) {
            noindex_for_all_or_google = true;
        }
    }
    noindex_for_all_or_google
}

/// The first `noindex` directive of a page with these meta tags and response headers, if any.
pub fn noindex(metas: &[MetaTag], response_headers: &[Header]) -> Option<NoindexSource> {
    for meta in metas {
        let Some(name) = meta.name.as_deref() else {
            continue;
        };
        if !(name.eq_ignore_ascii_case("robots") || name.eq_ignore_ascii_case("googlebot")) {
            continue;
        }
        let content = meta.content.as_deref().unwrap_or("");
        if says_noindex(content) {
            return Some(NoindexSource::Meta {
                selector: meta.selector.clone(),
                content: content.to_string(),
            });
        }
    }
    crate::model::header_all(response_headers, "x-robots-tag")
        .find(|v| header_says_noindex(v))
        .map(|v| NoindexSource::Header(v.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::PageSnapshot;

    fn says(page: &PageSnapshot) -> Option<NoindexSource> {
        noindex(&page.dom.metas, &page.response_headers)
    }

    fn with_header(value: &str) -> PageSnapshot {
        PageSnapshot {
            response_headers: vec![Header {
                name: "x-robots-tag".into(),
                value: value.into(),
            }],
            ..Default::default()
        }
    }

    #[test]
    fn reads_meta_and_header() {
        let mut page = PageSnapshot::default();
        page.dom.metas.push(MetaTag {
            name: Some("ROBOTS".into()),
            content: Some("index, follow".into()),
            ..Default::default()
        });
        assert_eq!(says(&page), None);
        page.dom.metas.push(MetaTag {
            name: Some("googlebot".into()),
            content: Some("NoIndex".into()),
            selector: "meta".into(),
            ..Default::default()
        });
        assert!(matches!(says(&page), Some(NoindexSource::Meta { .. })));
        assert!(says(&with_header("noindex, nofollow")).is_some());
        assert!(says(&with_header("none")).is_some());
        assert!(says(&with_header("googlebot: noindex")).is_some());
        assert!(says(&with_header("otherbot: noindex")).is_none());
        assert!(says(&with_header("unavailable_after: 25 Jun 2010 15:00:00 PST")).is_none());
        assert!(says(&with_header("nofollow")).is_none());
    }
}
