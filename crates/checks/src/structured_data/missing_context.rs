use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::semantics::html_document::is_html_document;
use super::items::{Context, Syntax, page_items, schema_name};
use crate::{declare_check, evidence};

declare_check! {
    /// A JSON-LD item lacks @context or uses a context other than schema.org.
    pub struct MissingContext {
        id: "structured-data.missing-context",
        severity: Medium,
        title: "JSON-LD item without a schema.org @context",
        fires_when: "a top-level JSON-LD item (or @graph wrapper) has no @context, or one that is not schema.org (string, @vocab object or array), while its @type is not a full schema.org IRI",
        description: "Without \"@context\": \"https://schema.org\" the terms of the block (Product, name, offers) mean nothing to a JSON-LD processor, and search engines may ignore the item entirely.",
        remediation: "Start every JSON-LD block with `\"@context\": \"https://schema.org\"` (or put it on the @graph wrapper).",
        cwe: None,
        evidence: ["url", "selector", "path", "value", "expected"],
        help_url: Some("https://schema.org/docs/gs.html"),
        requires: [Dom],
    }
}

impl Check for MissingContext {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        for item in page_items(page.dom())
            .iter()
            .filter(|i| i.syntax == Syntax::JsonLd && i.top_level)
        {
            let value = match &item.context {
                Context::SchemaOrg => continue,
                Context::Missing => "no @context".to_string(),
                Context::Other(c) => format!("@context is {c}"),
            };
            // Types written as full schema.org IRIs need no context.
            if !item.types.is_empty()
                && item
                    .types
                    .iter()
                    .all(|t| schema_name(t, &Context::Missing).is_some())
            {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => item.selector,
                "path" => item.path,
                "value" => value,
                "expected" => "\"@context\": \"https://schema.org\"",
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, json_ld_page};

    #[test]
    fn fires_without_context_or_with_another_vocabulary() {
        let p = json_ld_page(&[
            r#"{"@type": "Product", "name": "Shoe"}"#,
            r#"{"@context": "https://data-vocabulary.org", "@type": "Product"}"#,
        ]);
        let f = findings(&p, "structured-data.missing-context");
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].evidence["value"], "no @context");
    }

    #[test]
    fn quiet_for_http_form_graph_wrappers_vocab_objects_and_full_iris() {
        let p = json_ld_page(&[
            r#"{"@context": "http://schema.org/", "@type": "Product"}"#,
            r#"{"@context": "https://schema.org", "@graph": [{"@type": "WebSite"}, {"@type": "Organization"}]}"#,
            r#"{"@context": {"@vocab": "https://schema.org/"}, "@type": "Thing"}"#,
            r#"{"@type": "https://schema.org/Thing", "https://schema.org/name": "x"}"#,
        ]);
        assert!(findings(&p, "structured-data.missing-context").is_empty());
    }
}
