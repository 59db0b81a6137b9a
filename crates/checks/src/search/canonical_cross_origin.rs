use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::semantics::html_document::is_html_document;
use super::canonical_links::canonicals;
use super::url_identity::origin;
use crate::{declare_check, evidence};

declare_check! {
    /// The canonical points to another origin.
    pub struct CanonicalCrossOrigin {
        id: "search.canonical-cross-origin",
        severity: Low,
        title: "Canonical URL points to another origin",
        fires_when: "a canonical's scheme, host or port differs from the page's (another domain, www vs bare domain, or http vs https)",
        description: "A cross-origin canonical tells search engines to index the other site's URL instead of this one. That is right for syndicated copies, but when it comes from a staging host, a www/non-www mix-up or an http:// leftover it removes this site's pages from search.",
        remediation: "Point canonicals at the page's own preferred origin (e.g. always https://www.example.com/...). Keep a cross-origin canonical only for content deliberately syndicated from the other site.",
        cwe: None,
        evidence: ["url", "selector", "resource", "value", "expected"],
        help_url: Some("https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls"),
        requires: [Dom],
    }
}

impl Check for CanonicalCrossOrigin {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        let Some(own) = origin(page.final_url) else {
            return;
        };
        for c in canonicals(page) {
            let Some(target) = c.href.as_deref().and_then(origin) else {
                continue;
            };
            if target != own {
                out.report(evidence! {
                    "url" => page.final_url,
                    "selector" => c.selector.unwrap_or_else(|| "Link header".to_string()),
                    "resource" => c.href,
                    "value" => target,
                    "expected" => own,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, page};
    use crate::model::{DomFacts, LinkTag};

    fn with_canonical(href: &str) -> crate::model::PageSnapshot {
        page(DomFacts {
            links: vec![LinkTag {
                rel: "canonical".into(),
                href_raw: Some(href.into()),
                href: Some(href.into()),
                in_head: true,
                selector: "head > link".into(),
                ..Default::default()
            }],
            ..Default::default()
        })
    }

    #[test]
    fn fires_for_staging_hosts_and_http() {
        let f = findings(
            &with_canonical("https://staging.example.com/page"),
            "search.canonical-cross-origin",
        );
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["value"], "https://staging.example.com");
        assert_eq!(f[0].evidence["expected"], "https://example.com");
        assert_eq!(
            findings(
                &with_canonical("http://example.com/page"),
                "search.canonical-cross-origin"
            )
            .len(),
            1
        );
    }

    #[test]
    fn quiet_for_same_origin_with_explicit_default_port() {
        assert!(
            findings(
                &with_canonical("https://EXAMPLE.com:443/other"),
                "search.canonical-cross-origin"
            )
            .is_empty()
        );
    }
}
