use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::semantics::html_document::is_html_document;
use super::super::semantics::html_parse_errors::truncate;
use crate::{declare_check, evidence};

declare_check! {
    /// An `application/ld+json` block is not valid JSON.
    pub struct JsonLdInvalid {
        id: "structured-data.json-ld-invalid",
        severity: High,
        title: "JSON-LD block is not valid JSON",
        fires_when: "the text of a <script type=\"application/ld+json\"> does not parse as JSON (trailing commas, comments, single quotes, unescaped quotes or line breaks in strings, an empty block), or is larger than sitescan parses (1 MB). One finding per block",
        description: "Search engines discard a JSON-LD block that does not parse, so none of its structured data (products, breadcrumbs, articles, events...) counts, and rich results for the page disappear.",
        remediation: "Fix the JSON at the reported line and column: no trailing commas or comments, double quotes only, escape quotes and line breaks inside strings. Generate the block with a JSON serializer (JSON.stringify, json_encode) instead of string templates.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "value"],
        help_url: Some("https://developers.google.com/search/docs/appearance/structured-data/intro-structured-data#structured-data-format"),
        requires: [Dom],
    }
}

impl Check for JsonLdInvalid {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        for block in &page.dom().json_ld {
            if let Some(why) = super::items::json_ld_too_large(block) {
                out.report(evidence! {
                    "url" => page.final_url,
                    "selector" => block.selector,
                    "snippet" => truncate(block.text.trim(), 200),
                    "value" => why,
                });
            } else if let Err(error) = serde_json::from_str::<serde_json::Value>(block.text.trim()) {
                out.report(evidence! {
                    "url" => page.final_url,
                    "selector" => block.selector,
                    "snippet" => truncate(block.text.trim(), 200),
                    "value" => error.to_string(),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, json_ld_page};

    #[test]
    fn a_block_over_the_budget_is_reported_not_parsed() {
        let big = format!("{{\"@context\": \"https://schema.org\", \"@type\": \"Thing\", \"name\": \"{}\"}}", "x".repeat(2 << 20));
        let p = json_ld_page(&[big.as_str()]);
        let f = findings(&p, "structured-data.json-ld-invalid");
        assert_eq!(f.len(), 1);
        assert!(f[0].evidence["value"].as_str().is_some_and(|v| v.contains("over sitescan's limit of 1 MB")), "{f:?}");
    }

    /// A block the collector read only in part (over its budget in the page) is said to be so,
    /// and not judged as broken JSON.
    #[test]
    fn a_block_read_only_in_part_says_so() {
        let mut p = json_ld_page(&["{\"@context\": \"https://schema.org\", \"name\": \"xxxx"]);
        p.dom.json_ld[0].length = Some(4_194_330);
        let f = findings(&p, "structured-data.json-ld-invalid");
        assert_eq!(f.len(), 1);
        let value = f[0].evidence["value"].as_str().unwrap();
        assert!(value.contains("4194330 characters") && value.contains("read only in part"), "{value}");
    }

    /// The collector's budgets are the ones the check names.
    #[test]
    fn the_collectors_budgets_are_the_checks() {
        let collector = include_str!("../../../../browser/collector.js");
        assert_eq!(super::super::items::MAX_JSON_LD_BYTES, 1 << 20);
        assert_eq!(super::super::items::MAX_PAGE_JSON_LD_BYTES, 4 << 20);
        assert!(collector.contains("jsonldBlock: 1 << 20, jsonldPage: 4 << 20"), "browser/collector.js budgets changed");
    }

    #[test]
    fn fires_on_trailing_commas_and_empty_blocks() {
        let p = json_ld_page(&[
            "{\"@context\": \"https://schema.org\", \"@type\": \"Thing\",}",
            "  ",
        ]);
        let f = findings(&p, "structured-data.json-ld-invalid");
        assert_eq!(f.len(), 2);
        assert!(f[0].evidence["value"].as_str().unwrap().contains("line 1"));
    }

    #[test]
    fn quiet_on_valid_json_with_whitespace_and_unicode() {
        let p = json_ld_page(&[
            "\n  [{\"@context\": \"https://schema.org\", \"@type\": \"Thing\", \"name\": \"Café \\u00e9\"}]\n",
        ]);
        assert!(findings(&p, "structured-data.json-ld-invalid").is_empty());
    }
}
