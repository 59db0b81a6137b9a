use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::semantics::html_document::is_html_document;
use super::canonical_links::{body_canonicals, canonicals};
use super::robots_directives::noindex;
use crate::{declare_check, evidence};

declare_check! {
    /// An indexable page declares no canonical URL.
    ///
    /// A `<link rel=canonical>` in `<body>` declares nothing (search engines ignore it); when the
    /// page has one, the finding's `value` says so and `selector` points to it.
    pub struct CanonicalMissing {
        id: "search.canonical-missing",
        severity: Low,
        title: "Indexable page declares no canonical URL",
        fires_when: "a 2xx HTML page without noindex has neither a <link rel=\"canonical\"> nor a Link: <...>; rel=\"canonical\" header",
        description: "The same page is usually reachable under several URLs (tracking parameters, trailing slashes, http/https, sort orders). Without a canonical, search engines guess which one to index and split ranking signals between the variants.",
        remediation: "Add `<link rel=\"canonical\" href=\"https://example.com/the-preferred-url\">` to <head> of every indexable page, pointing to itself on the preferred URL.",
        cwe: None,
        evidence: ["url", "selector", "value"],
        help_url: Some("https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls"),
        requires: [Dom],
    }
}

impl Check for CanonicalMissing {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) || !page.status.is_some_and(|s| (200..300).contains(&s)) {
            return;
        }
        if noindex(&page.dom().metas, page.response_headers).is_none() && canonicals(page).is_empty() {
            match body_canonicals(page).first() {
                Some(selector) => out.report(evidence! {
                    "url" => page.final_url,
                    "selector" => selector,
                    "value" => "a <link rel=canonical> in <body> is ignored by search engines: move it into <head>",
                }),
                None => out.report(evidence! { "url" => page.final_url }),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, meta_name, page};
    use crate::model::{DomFacts, Header, LinkTag};

    #[test]
    fn fires_without_any_canonical() {
        assert_eq!(
            findings(&page(DomFacts::default()), "search.canonical-missing").len(),
            1
        );
    }

    #[test]
    fn quiet_with_a_header_canonical_or_noindex() {
        let mut p = page(DomFacts::default());
        p.response_headers.push(Header {
            name: "link".into(),
            value: "<https://example.com/page>; rel=canonical".into(),
        });
        assert!(findings(&p, "search.canonical-missing").is_empty());
        let p = page(DomFacts {
            metas: vec![meta_name("robots", "noindex")],
            ..Default::default()
        });
        assert!(findings(&p, "search.canonical-missing").is_empty());
        let p = page(DomFacts {
            links: vec![LinkTag {
                rel: "canonical".into(),
                href: Some("https://example.com/page".into()),
                in_head: true,
                ..Default::default()
            }],
            ..Default::default()
        });
        assert!(findings(&p, "search.canonical-missing").is_empty());
    }

    #[test]
    fn a_canonical_in_the_body_is_no_canonical() {
        let p = page(DomFacts {
            links: vec![LinkTag {
                rel: "canonical".into(),
                href: Some("https://example.com/page".into()),
                in_head: false,
                selector: "body > link".into(),
                ..Default::default()
            }],
            ..Default::default()
        });
        let f = findings(&p, "search.canonical-missing");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["selector"], "body > link");
        assert!(f[0].evidence["value"].as_str().is_some_and(|v| v.contains("ignored")));
    }
}
