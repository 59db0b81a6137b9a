use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::html_document::is_html_document;
use crate::{declare_check, evidence};

declare_check! {
    /// Two elements share an id.
    pub struct SemanticsDuplicateId {
        id: "semantics.duplicate-id",
        severity: Medium,
        title: "Duplicate id attribute",
        fires_when: "two or more elements of the rendered page carry the same id (one finding per duplicated id)",
        description: "An id must be unique in its document. With duplicates, label[for], aria-labelledby, aria-describedby, fragment links and getElementById all resolve to the first element only, so labels, descriptions, in-page links and scripts silently target the wrong element.",
        remediation: "Give every element a unique id; for repeated components generate ids with a per-instance suffix, and use classes or data attributes for styling and script hooks.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "value", "count", "selectors"],
        help_url: Some("https://developer.mozilla.org/en-US/docs/Web/HTML/Global_attributes/id"),
        requires: [Dom],
    }
}

impl Check for SemanticsDuplicateId {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        for dup in page
            .dom()
            .duplicate_ids
            .iter()
            .filter(|d| d.count > 1 && !d.id.is_empty())
        {
            let selectors: Vec<&String> = dup.selectors.iter().take(10).collect();
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => dup.selectors.first().cloned().unwrap_or_default(),
                "snippet" => dup.snippet,
                "value" => dup.id,
                "count" => dup.count,
                "selectors" => selectors,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, page};
    use crate::model::{DomFacts, DuplicateId};

    #[test]
    fn fires_once_per_duplicated_id() {
        let p = page(DomFacts {
            duplicate_ids: vec![DuplicateId {
                id: "email".into(),
                count: 2,
                selectors: vec!["form > #email".into(), "footer #email".into()],
                snippet: "<input id=\"email\">".into(),
            }],
            ..Default::default()
        });
        let f = findings(&p, "semantics.duplicate-id");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["value"], "email");
        assert_eq!(f[0].evidence["count"], 2);
    }

    #[test]
    fn quiet_without_duplicates() {
        let p = page(DomFacts::default());
        assert!(findings(&p, "semantics.duplicate-id").is_empty());
    }
}
