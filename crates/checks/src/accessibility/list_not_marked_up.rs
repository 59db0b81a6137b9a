use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

declare_check! {
    /// Lines that look like a list are not marked up as one.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`): two or more consecutive sibling
    /// paragraphs or divs, or `<br>`-separated lines of one block, that all start with the same
    /// bullet character (`•`, `·`, `▪`, `-`, `*`, `–`, ... followed by a space) or are numbered
    /// `1.`, `2.`, ... (or `1)`, `2)`) in order, outside any `ul`, `ol`, `role=list`, table,
    /// navigation, `pre` or `code`. A reading a person confirms: `needs_review`.
    pub struct ListNotMarkedUp {
        id: "accessibility.list-not-marked-up",
        severity: Medium,
        title: "Lines that look like a list are not marked up as a list",
        fires_when: "2+ consecutive lines or paragraphs start with a bullet character or count 1., 2., ... but are not in a ul, ol or role=list (needs review)",
        description: "Screen readers announce a list and its length (\"list, 4 items\") and let users skip it; typed bullets and numbers are read as stray characters in running text, and the grouping is lost: WCAG 2.2 success criterion 1.3.1 (Info and Relationships).",
        remediation: "Use `<ul>` with `<li>` items for bullets and `<ol>` for numbered steps, and style the markers with CSS (`list-style`) instead of typing them.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "items", "marker", "text", "needs_review", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Techniques/failures/F2"),
        requires: [Barriers],
        level: A,
        wcag: ["1.3.1"],
    }
}

impl Check for ListNotMarkedUp {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        for list in facts.visual_lists.iter().filter(|l| l.items >= 2) {
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => list.selector,
                "snippet" => list.snippet,
                "items" => list.items,
                "marker" => list.marker,
                "text" => list.text,
                "needs_review" => true,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_page, run};
    use super::*;
    use crate::model::{BarrierFacts, VisualList};

    #[test]
    fn fires_on_two_or_more_bulleted_lines_and_not_on_one() {
        let list = |sel: &str, items| VisualList { selector: sel.into(), items, marker: "•".into(), text: "• a / • b".into(), form: "br".into(), ..Default::default() };
        let facts = BarrierFacts { visual_lists: vec![list("#fake", 3), list("#one", 1)], ..Default::default() };
        let f = run(&ListNotMarkedUp, &barrier_page(facts));
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].evidence["selector"].as_str(), f[0].evidence["items"].as_u64()), (Some("#fake"), Some(3)));
        assert!(run(&ListNotMarkedUp, &barrier_page(BarrierFacts::default())).is_empty());
    }
}
