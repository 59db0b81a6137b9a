use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::semantics::html_document::is_html_document;
use crate::{declare_check, evidence};

declare_check! {
    /// The page carries no structured data at all.
    pub struct NoStructuredData {
        id: "structured-data.none",
        severity: Info,
        title: "Page has no structured data",
        fires_when: "a 2xx HTML page has no JSON-LD block, no microdata item and no RDFa",
        description: "Structured data lets search engines understand what a page is (an article, a product, an event, the organisation behind the site) and makes it eligible for rich results; pages without any rely on what search engines infer.",
        remediation: "Add a JSON-LD block describing the page's main entity with schema.org, e.g. `{\"@context\": \"https://schema.org\", \"@type\": \"Article\", \"headline\": \"...\"}`, using the types in Google's structured-data gallery that fit the content.",
        cwe: None,
        evidence: ["url"],
        help_url: Some("https://developers.google.com/search/docs/appearance/structured-data/intro-structured-data"),
        requires: [Dom],
    }
}

impl Check for NoStructuredData {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) || !page.status.is_some_and(|s| (200..300).contains(&s)) {
            return;
        }
        let dom = &page.dom();
        if dom.json_ld.is_empty() && dom.microdata.is_empty() && dom.rdfa_count == 0 {
            out.report(evidence! { "url" => page.final_url });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, json_ld_page, page};
    use crate::model::{DomFacts, Severity};

    #[test]
    fn fires_as_info_on_a_bare_page() {
        let f = findings(&page(DomFacts::default()), "structured-data.none");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].severity, Severity::Info);
    }

    #[test]
    fn quiet_with_json_ld_or_rdfa() {
        assert!(findings(&json_ld_page(&["{}"]), "structured-data.none").is_empty());
        assert!(
            findings(
                &page(DomFacts {
                    rdfa_count: 3,
                    ..Default::default()
                }),
                "structured-data.none"
            )
            .is_empty()
        );
    }
}
