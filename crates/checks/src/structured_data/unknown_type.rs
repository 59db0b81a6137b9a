use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::semantics::html_document::is_html_document;
use super::items::page_items;
use super::vocab::{schema_type, type_ignoring_case};
use crate::{declare_check, evidence};

declare_check! {
    /// `@type` is not a schema.org type.
    pub struct UnknownType {
        id: "structured-data.unknown-type",
        severity: Medium,
        title: "Unknown schema.org type",
        fires_when: "a JSON-LD @type (under a schema.org context) or a microdata itemtype on schema.org is not a type of the current schema.org vocabulary (case matters: \"product\" is not \"Product\"). One finding per item and type",
        description: "Search engines only understand schema.org types: an item whose type is misspelled or made up is ignored, with all its properties, and the rich result it was meant for does not appear.",
        remediation: "Use the exact type name from schema.org (case-sensitive), e.g. `Product`, `LocalBusiness`, `BlogPosting`; the evidence suggests the likely intended type when only the case differs.",
        cwe: None,
        evidence: ["url", "selector", "path", "value", "expected"],
        help_url: Some("https://schema.org/docs/full.html"),
        requires: [Dom],
    }
}

impl Check for UnknownType {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        for item in page_items(page.dom()) {
            for name in item.schema_types() {
                if schema_type(name).is_none() {
                    out.report(evidence! {
                        "url" => page.final_url,
                        "selector" => item.selector,
                        "path" => item.path,
                        "value" => name,
                        "expected" => type_ignoring_case(name),
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, json_ld_page, microdata, page};
    use crate::model::DomFacts;

    #[test]
    fn fires_on_misspelled_and_miscased_types() {
        let p = json_ld_page(&[
            r#"{"@context": "https://schema.org", "@type": ["product", "Prodcut"]}"#,
        ]);
        let f = findings(&p, "structured-data.unknown-type");
        assert_eq!(f.len(), 2);
        assert!(f.iter().any(|x| x.evidence["expected"] == "Product"));
        let p = page(DomFacts {
            microdata: vec![microdata("https://schema.org/Recipie", &[], false)],
            ..Default::default()
        });
        assert_eq!(findings(&p, "structured-data.unknown-type").len(), 1);
    }

    #[test]
    fn quiet_for_real_types_pending_types_and_other_vocabularies() {
        let p = json_ld_page(&[
            r#"{"@context": "https://schema.org", "@type": ["Product", "Car"], "offers": {"@type": "AggregateOffer"}}"#,
            r#"{"@context": "https://schema.org", "@type": "DefinedRegion"}"#,
            r#"{"@context": "https://example.org/vocab", "@type": "Widget"}"#,
            r#"{"@context": "https://schema.org", "@type": "http://purl.org/goodrelations/v1#Offering"}"#,
        ]);
        assert!(findings(&p, "structured-data.unknown-type").is_empty());
    }
}
