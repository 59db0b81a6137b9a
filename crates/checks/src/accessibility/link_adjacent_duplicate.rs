use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::link_does_nothing::inert_href;
use crate::{declare_check, evidence};

declare_check! {
    /// Two links side by side go to the same place.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`): a visible link whose previous link
    /// in document order goes to the same resolved URL with nothing but white space between
    /// them, both in the same block (their nearest ancestors not laid out inline are one) (typically a product image linked and its name linked again). Links to `#` or
    /// `javascript:` are left to `accessibility.link-does-nothing`. One finding on the second
    /// link, naming the first.
    pub struct LinkAdjacentDuplicate {
        id: "accessibility.link-adjacent-duplicate",
        severity: Low,
        title: "Adjacent links go to the same destination",
        fires_when: "two links next to each other (nothing but white space between them), e.g. an image link and a text link, go to the same URL",
        description: "Keyboard users must tab twice and screen-reader users hear the same link twice (often once as an image with unhelpful alt text), which doubles the effort of moving through lists of products or articles: WCAG technique H2 (combining adjacent image and text links).",
        remediation: "Put the image and the text in one link (`<a href=\"/p/42\"><img src=\"shoe.jpg\" alt=\"\"> Trail shoe</a>`), giving the image an empty alt when the text names the destination.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "previous_selector", "href"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Techniques/html/H2"),
        requires: [Barriers],
    }
}

impl Check for LinkAdjacentDuplicate {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        for link in &facts.links {
            let Some(previous) = &link.adjacent_same_href else { continue };
            if inert_href(&link.href_raw) || link.href.is_empty() {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => link.selector,
                "snippet" => link.snippet,
                "previous_selector" => previous,
                "href" => link.href,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_page, run};
    use super::*;
    use crate::model::{BarrierFacts, BarrierLink};

    #[test]
    fn fires_on_the_second_of_two_adjacent_links_to_one_url() {
        let link = |sel: &str, href: &str, prev: Option<&str>| BarrierLink {
            selector: sel.into(),
            href_raw: href.into(),
            href: format!("https://example.com/{href}"),
            adjacent_same_href: prev.map(str::to_string),
            ..Default::default()
        };
        let facts = BarrierFacts {
            links: vec![link("#img", "p/42", None), link("#name", "p/42", Some("#img")), link("#a", "#", None), link("#b", "#", Some("#a"))],
            ..Default::default()
        };
        let f = run(&LinkAdjacentDuplicate, &barrier_page(facts));
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].evidence["selector"].as_str(), f[0].evidence["previous_selector"].as_str()), (Some("#name"), Some("#img")));
    }
}
