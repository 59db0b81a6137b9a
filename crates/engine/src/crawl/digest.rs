//! From a page snapshot to what outlives it: the digest site checks read, and the report's page
//! entry. Pure functions.

use crate::model::{LinkRef, PageDigest, PageSnapshot};
use crate::model::ReportPage;
use serde_json::json;
use url::Url;

fn round(v: Option<f64>, digits: i32) -> Option<f64> {
    let f = 10f64.powi(digits);
    v.map(|x| (x * f).round() / f)
}

/// True when a robots meta tag or `X-Robots-Tag` says `noindex` (or `none`) for every crawler or
/// Google's: the same reading as the checks' (`robots_directives::noindex`), directive by directive,
/// so `max-image-preview:none` is not mistaken for `none`.
pub fn is_noindex(page: &PageSnapshot) -> bool {
    crate::checks::search::robots_directives::noindex(&page.dom.metas, &page.response_headers).is_some()
}

/// A page's title or description as kept past the page: cut to the finding budget's value size
/// (a 4 MB `<title>` is 2 KiB in the digest, the report's page entry and any finding).
fn bounded(text: &str) -> String {
    crate::model::finding_size::cut(text, crate::model::finding_size::MAX_VALUE_BYTES).unwrap_or_else(|| text.to_string())
}

/// The digest of a rendered page; `internal` decides which links are the site's own.
pub fn digest(page: &PageSnapshot, depth: u32, internal: impl Fn(&Url) -> bool) -> PageDigest {
    let dom = &page.dom;
    let rel_has = |rel: &str, want: &str| rel.split_ascii_whitespace().any(|r| r.eq_ignore_ascii_case(want));
    // Search engines read canonical and hreflang links in <head> only.
    let canonical = dom.links.iter().find(|l| l.in_head && rel_has(&l.rel, "canonical")).and_then(|l| l.href.clone());
    let hreflang = dom
        .links
        .iter()
        .filter(|l| l.in_head && rel_has(&l.rel, "alternate"))
        .filter_map(|l| Some((l.hreflang.clone()?, l.href.clone()?)))
        .collect();
    let og_image = dom
        .metas
        .iter()
        .find(|m| m.property.as_deref().is_some_and(|p| p.eq_ignore_ascii_case("og:image")))
        .and_then(|m| m.content.clone())
        .and_then(|c| Url::parse(&page.final_url).ok().and_then(|base| base.join(c.trim()).ok()))
        .map(|u| u.to_string());
    let mut seen = std::collections::HashSet::new();
    let internal_links = dom
        .anchors
        .iter()
        .filter_map(|a| {
            let href = a.href.as_deref()?;
            let url = super::frontier::normalize(href, None)?;
            (internal(&url) && seen.insert((url.to_string(), a.selector.clone())))
                .then(|| LinkRef { href: url.to_string(), selector: a.selector.clone(), snippet: a.snippet.clone() })
        })
        .collect();
    PageDigest {
        url: page.requested_url.clone(),
        final_url: page.final_url.clone(),
        status: page.status,
        depth,
        dom_failed: !page.rendered() || page.artifact_error(crate::model::Artifact::Dom).is_some(),
        title: dom.title.as_deref().map(bounded),
        meta_description: page.meta_named("description").and_then(|m| m.content.as_deref()).map(bounded),
        canonical,
        noindex: is_noindex(page),
        hreflang,
        og_image,
        has_icon_link: dom.links.iter().any(|l| rel_has(&l.rel, "icon")),
        internal_links,
    }
}

/// The report's entry for a page.
pub fn page_record(page: &PageSnapshot) -> ReportPage {
    let m = &page.metrics;
    ReportPage {
        url: page.requested_url.clone(),
        final_url: (!page.final_url.is_empty()).then(|| page.final_url.clone()),
        status: page.status,
        title: page.dom.title.as_deref().map(bounded),
        metrics: json!({
            "ttfb_ms": round(m.ttfb_ms, 1),
            "fcp_ms": round(m.fcp_ms, 1),
            "lcp_ms": round(m.lcp_ms, 1),
            "cls": round(m.cls, 4),
            "tbt_ms": round(m.tbt_ms, 1),
            "transfer_bytes": m.transfer_bytes,
            "requests": m.requests,
        }),
        error: page.error.as_ref().map(|e| json!({"kind": e.kind, "message": e.message})),
        checks_not_run: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Anchor, Header, LinkTag, MetaTag};

    #[test]
    fn digests_a_page() {
        let mut page = PageSnapshot { requested_url: "http://a.test/".into(), final_url: "http://a.test/".into(), status: Some(200), ..Default::default() };
        page.dom.title = Some("Home".into());
        page.dom.metas.push(MetaTag { name: Some("description".into()), content: Some("D".into()), ..Default::default() });
        page.dom.metas.push(MetaTag { property: Some("og:image".into()), content: Some("/og.png".into()), ..Default::default() });
        page.dom.links.push(LinkTag { rel: "canonical".into(), href: Some("http://a.test/".into()), in_head: true, ..Default::default() });
        page.dom.links.push(LinkTag { rel: "alternate".into(), hreflang: Some("de".into()), href: Some("http://a.test/de/".into()), in_head: true, ..Default::default() });
        page.dom.anchors.push(Anchor { href: Some("http://a.test/x#top".into()), selector: "a".into(), ..Default::default() });
        page.dom.anchors.push(Anchor { href: Some("http://b.test/".into()), selector: "a:nth-of-type(2)".into(), ..Default::default() });
        let d = digest(&page, 0, |u| u.host_str() == Some("a.test"));
        assert_eq!(d.og_image.as_deref(), Some("http://a.test/og.png"));
        assert_eq!(d.internal_links.len(), 1);
        assert_eq!(d.internal_links[0].href, "http://a.test/x");
        assert_eq!(d.hreflang, vec![("de".to_string(), "http://a.test/de/".to_string())]);
        assert!(!d.noindex);
        page.response_headers.push(Header { name: "x-robots-tag".into(), value: "otherbot: noindex".into() });
        assert!(!is_noindex(&page));
        page.dom.metas.push(MetaTag { name: Some("robots".into()), content: Some("max-image-preview:none, max-snippet:50".into()), ..Default::default() });
        assert!(!is_noindex(&page), "max-image-preview:none limits previews, it is not noindex");
        page.response_headers.push(Header { name: "x-robots-tag".into(), value: "noindex, nofollow".into() });
        assert!(is_noindex(&page));
    }
}
