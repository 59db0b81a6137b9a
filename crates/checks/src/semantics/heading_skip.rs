use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::html_document::is_html_document;
use crate::{declare_check, evidence};

declare_check! {
    /// A heading level is skipped on the way down (h2 followed by h4).
    pub struct HeadingSkip {
        id: "semantics.heading-skip",
        severity: Low,
        title: "Heading level skipped",
        fires_when: "a heading is more than one level deeper than the heading before it (h2 followed by h4); going back up (h4 then h2) and the level of the first heading are fine",
        description: "Headings form the page's outline. Screen-reader users navigate by heading level, and a jump from h2 to h4 suggests a missing section, so they may think content is missing or wrongly nested.",
        remediation: "Use heading levels for structure, not for size: follow an h2 with an h3, and style headings with CSS to get the look you want.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "value", "expected"],
        help_url: Some("https://www.w3.org/WAI/tutorials/page-structure/headings/"),
        requires: [Dom],
    }
}

impl Check for HeadingSkip {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        for pair in page.dom().headings.windows(2) {
            let (prev, cur) = (&pair[0], &pair[1]);
            if cur.level > prev.level + 1 {
                out.report(evidence! {
                    "url" => page.final_url,
                    "selector" => cur.selector,
                    "snippet" => cur.text,
                    "value" => format!("h{} follows h{}", cur.level, prev.level),
                    "expected" => format!("h{} or higher", prev.level + 1),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, page};
    use crate::model::{DomFacts, Heading};

    fn hs(levels: &[u8]) -> Vec<Heading> {
        levels
            .iter()
            .enumerate()
            .map(|(i, &level)| Heading {
                level,
                text: format!("t{i}"),
                selector: format!("#h{i}"),
                visible: true,
            })
            .collect()
    }

    #[test]
    fn fires_on_h2_then_h4() {
        let p = page(DomFacts {
            headings: hs(&[1, 2, 4]),
            ..Default::default()
        });
        let f = findings(&p, "semantics.heading-skip");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["selector"], "#h2");
        assert_eq!(f[0].evidence["value"], "h4 follows h2");
    }

    #[test]
    fn quiet_when_going_back_up_or_starting_below_h1() {
        let p = page(DomFacts {
            headings: hs(&[2, 3, 4, 2, 3, 1, 2]),
            ..Default::default()
        });
        assert!(findings(&p, "semantics.heading-skip").is_empty());
    }
}
