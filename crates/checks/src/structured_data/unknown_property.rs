use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::semantics::html_document::is_html_document;
use super::items::{Context, page_items, schema_name};
use super::vocab::{SchemaType, property, property_ignoring_case, schema_type};
use crate::{declare_check, evidence};

declare_check! {
    /// A property is not defined for its schema.org type.
    pub struct UnknownProperty {
        id: "structured-data.unknown-property",
        severity: Low,
        title: "Property not defined for its schema.org type",
        fires_when: "an item of a known schema.org type uses a property that schema.org does not define at all, or does not define for that type or any of its supertypes (schema:domainIncludes with inheritance). One finding per item and property",
        description: "Search engines ignore properties that do not belong to the item's type, so the information (a price on a Product instead of its Offer, a misspelled property) never reaches the search result.",
        remediation: "Use the property on the type schema.org defines it for (e.g. move `price` and `priceCurrency` into the Product's `offers` Offer) and check the spelling against the type's page on schema.org.",
        cwe: None,
        evidence: ["url", "selector", "path", "value", "expected"],
        help_url: Some("https://schema.org/docs/datamodel.html"),
        requires: [Dom],
    }
}

impl Check for UnknownProperty {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        for item in page_items(page.dom()) {
            let types: Vec<&SchemaType> = item
                .schema_types()
                .into_iter()
                .filter_map(schema_type)
                .collect();
            // Items without a known type cannot be judged (unknown-type reports them).
            if types.is_empty() || types.len() != item.schema_types().len() {
                continue;
            }
            let type_names = types.iter().map(|t| t.name).collect::<Vec<_>>().join(", ");
            let context = match item.syntax {
                super::items::Syntax::JsonLd => item.context.clone(),
                super::items::Syntax::Microdata => Context::SchemaOrg,
            };
            for prop in &item.properties {
                let Some(name) = schema_name(&prop.name, &context) else {
                    continue;
                };
                let (value, expected) = match property(name) {
                    None => (
                        format!("\"{name}\" is not a schema.org property"),
                        property_ignoring_case(name).map(str::to_string),
                    ),
                    Some(p) if types.iter().any(|t| p.applies_to(t)) => continue,
                    Some(p) => (
                        format!("\"{name}\" is not defined for {type_names}"),
                        Some(format!(
                            "a property of {}",
                            p.domain_names().take(6).collect::<Vec<_>>().join(", ")
                        )),
                    ),
                };
                out.report(evidence! {
                    "url" => page.final_url,
                    "selector" => item.selector,
                    "path" => item.path,
                    "value" => value,
                    "expected" => expected,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, json_ld_page, microdata, page};
    use crate::model::DomFacts;

    #[test]
    fn fires_on_misplaced_and_made_up_properties() {
        let p = json_ld_page(&[
            r##"{"@context": "https://schema.org", "@type": "Product", "name": "Shoe", "price": "10", "colour": "red"}"##,
        ]);
        let f = findings(&p, "structured-data.unknown-property");
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(
            f.iter()
                .any(|x| x.evidence["value"] == "\"price\" is not defined for Product")
        );
        assert!(
            f.iter()
                .any(|x| x.evidence["value"] == "\"colour\" is not a schema.org property")
        );
        let p = page(DomFacts {
            microdata: vec![microdata(
                "https://schema.org/Event",
                &[("name", "Gig"), ("ratingValue", "4")],
                false,
            )],
            ..Default::default()
        });
        assert_eq!(findings(&p, "structured-data.unknown-property").len(), 1);
    }

    #[test]
    fn quiet_for_inherited_properties_multiple_types_and_foreign_terms() {
        let p = json_ld_page(&[
            r##"{"@context": "https://schema.org", "@type": "NewsArticle", "headline": "H", "name": "n", "url": "https://e.com/", "author": {"@type": "Person", "name": "A", "jobTitle": "Editor"}}"##,
            r##"{"@context": "https://schema.org", "@type": ["Product", "Car"], "vehicleEngine": {"@type": "EngineSpecification"}, "sku": "1"}"##,
            r##"{"@context": ["https://schema.org", {"ex": "https://example.org/"}], "@type": "Restaurant", "servesCuisine": "Thai", "ex:internal": 1, "@id": "#r"}"##,
        ]);
        assert!(
            findings(&p, "structured-data.unknown-property").is_empty(),
            "{:?}",
            findings(&p, "structured-data.unknown-property")
        );
    }
}
