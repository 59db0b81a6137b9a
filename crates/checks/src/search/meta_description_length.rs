use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::semantics::html_document::is_html_document;
use super::meta_description_missing::meta_description;
use crate::{declare_check, evidence};

declare_check! {
    /// The meta description is too short or too long.
    pub struct MetaDescriptionLength {
        id: "search.meta-description-length",
        severity: Low,
        title: "Meta description too short or too long",
        fires_when: "the meta description has fewer than 50 or more than 160 characters (whitespace collapsed; thresholds description_min_chars and description_max_chars)",
        description: "Result snippets show about 150-160 characters: longer descriptions are cut mid-sentence, and very short ones are usually replaced by text the search engine picks from the page.",
        remediation: "Write a 50-160 character summary that tells searchers what they get on this page, with the most important words first.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "value", "limit"],
        help_url: Some("https://developers.google.com/search/docs/appearance/snippet#meta-descriptions"),
        requires: [Dom],
    }
}

impl Check for MetaDescriptionLength {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        let Some(description) = meta_description(page) else {
            return;
        };
        let chars = description.chars().count();
        let limit = if chars < thresholds.description_min_chars {
            thresholds.description_min_chars
        } else if chars > thresholds.description_max_chars {
            thresholds.description_max_chars
        } else {
            return;
        };
        let selector = page
            .meta_named("description")
            .map(|m| m.selector.clone())
            .unwrap_or_default();
        out.report(evidence! {
            "url" => page.final_url,
            "selector" => selector,
            "snippet" => description,
            "value" => chars,
            "limit" => limit,
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, meta_name, page};
    use crate::model::DomFacts;

    fn described(d: &str) -> crate::model::PageSnapshot {
        page(DomFacts {
            metas: vec![meta_name("description", d)],
            ..Default::default()
        })
    }

    #[test]
    fn fires_on_short_and_long_descriptions() {
        let f = findings(&described("Shoes."), "search.meta-description-length");
        assert_eq!(f[0].evidence["value"], 6);
        assert_eq!(f[0].evidence["limit"], 50);
        assert_eq!(
            findings(
                &described(&"word ".repeat(40)),
                "search.meta-description-length"
            )[0]
            .evidence["limit"],
            160
        );
    }

    #[test]
    fn quiet_within_limits_and_when_missing() {
        let ok = "Lightweight running shoes for road and trail, with free returns.";
        assert!(findings(&described(ok), "search.meta-description-length").is_empty());
        assert!(findings(&page(DomFacts::default()), "search.meta-description-length").is_empty());
    }
}
