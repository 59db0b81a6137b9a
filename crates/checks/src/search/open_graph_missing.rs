use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::semantics::html_document::is_html_document;
use crate::{declare_check, evidence};

/// The four properties the Open Graph protocol requires of every page.
pub const REQUIRED_OG: [&str; 4] = ["og:title", "og:type", "og:image", "og:url"];

declare_check! {
    /// Required Open Graph properties are missing.
    pub struct OpenGraphMissing {
        id: "search.open-graph-missing",
        severity: Low,
        title: "Open Graph properties missing",
        fires_when: "any of og:title, og:type, og:image or og:url is missing or empty (one finding per page listing the missing ones)",
        description: "Open Graph tags decide how a link to the page looks when shared in social networks and messengers. Without them previews fall back to a bare URL or a random image and text from the page.",
        remediation: "Add to <head>: `<meta property=\"og:title\" content=\"...\">`, `og:type` (website, article, product...), `og:image` (absolute URL of a 1200x630 image) and `og:url` (the canonical URL).",
        cwe: None,
        evidence: ["url", "value", "expected"],
        help_url: Some("https://ogp.me/#metadata"),
        requires: [Dom],
    }
}

/// The content of `<meta property=NAME>` (or `name=NAME`, which most consumers also accept).
pub fn og_content<'a>(page: &PageView<'a>, name: &str) -> Option<&'a str> {
    page.dom()
        .metas
        .iter()
        .filter(|m| {
            m.property
                .as_deref()
                .is_some_and(|p| p.trim().eq_ignore_ascii_case(name))
                || m.name
                    .as_deref()
                    .is_some_and(|n| n.trim().eq_ignore_ascii_case(name))
        })
        .filter_map(|m| m.content.as_deref())
        .find(|c| !c.trim().is_empty())
}

impl Check for OpenGraphMissing {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        let missing: Vec<&str> = REQUIRED_OG
            .into_iter()
            .filter(|p| og_content(page, p).is_none())
            .collect();
        if !missing.is_empty() {
            out.report(evidence! {
                "url" => page.final_url,
                "value" => missing,
                "expected" => REQUIRED_OG,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, meta_name, meta_property, page};
    use crate::model::DomFacts;

    #[test]
    fn fires_listing_what_is_missing() {
        let p = page(DomFacts {
            metas: vec![
                meta_property("og:title", "Shoes"),
                meta_property("og:image", ""),
            ],
            ..Default::default()
        });
        let f = findings(&p, "search.open-graph-missing");
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].evidence["value"],
            serde_json::json!(["og:type", "og:image", "og:url"])
        );
    }

    #[test]
    fn quiet_when_complete_even_with_name_attributes() {
        let p = page(DomFacts {
            metas: vec![
                meta_property("og:title", "Shoes"),
                meta_property("OG:TYPE", "website"),
                meta_name("og:image", "https://example.com/a.png"),
                meta_property("og:url", "https://example.com/page"),
            ],
            ..Default::default()
        });
        assert!(findings(&p, "search.open-graph-missing").is_empty());
    }
}
