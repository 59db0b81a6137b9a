use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::link_does_nothing::inert_href;
use crate::model::barriers::normalize;
use crate::{declare_check, evidence};

/// Destinations listed per finding.
const MAX_LISTED_HREFS: usize = 5;

declare_check! {
    /// The same link text leads to different places.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`): visible links whose accessible
    /// names (aria-labelledby, aria-label, or their text with image alts), compared without case
    /// and extra white space, are equal while their resolved URLs differ, and whose titles and
    /// `aria-describedby` texts do not tell them apart either. Links to `#` or `javascript:` and
    /// links without a name (`accessibility.link-name`) are not compared. One finding per name,
    /// on its second link. axe-core's `identical-links-same-purpose` (AAA 2.4.9, not run) asks
    /// the converse. WCAG 2.4.4 lets the surrounding sentence, paragraph, list item or table cell
    /// say where a link goes, which only a person can weigh: `needs_review`.
    pub struct LinkTextAmbiguous {
        id: "accessibility.link-text-ambiguous",
        severity: Low,
        title: "Same link text leads to different destinations",
        fires_when: "two or more links on a page share the same accessible name (and no title or description tells them apart) but go to different URLs (needs review)",
        description: "Screen-reader users often list a page's links out of context; a list of \"Read more\", \"Read more\", \"Read more\" going to different pages tells them nothing, and voice users cannot say which one to follow: WCAG 2.2 success criterion 2.4.4 (Link Purpose (In Context)).",
        remediation: "Make each link's text say where it goes (\"Read more about the 2026 budget\"), or add the distinguishing words as visually hidden text or with `aria-describedby` pointing at the item's heading.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "text", "hrefs", "count", "needs_review", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/link-purpose-in-context.html"),
        requires: [Barriers],
        level: A,
        wcag: ["2.4.4"],
    }
}

impl Check for LinkTextAmbiguous {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        // Name (with title and description) -> (first link index, distinct hrefs, links).
        let mut groups: Vec<(String, Vec<usize>, Vec<&str>)> = Vec::new();
        for (i, link) in facts.links.iter().enumerate() {
            let name = normalize(&link.name);
            if name.is_empty() || inert_href(&link.href_raw) || link.href.is_empty() {
                continue;
            }
            let key = format!("{name}\u{1}{}\u{1}{}", normalize(link.title.as_deref().unwrap_or_default()), normalize(link.described.as_deref().unwrap_or_default()));
            let href = link.href.as_str();
            match groups.iter_mut().find(|(k, _, _)| *k == key) {
                Some((_, links, hrefs)) => {
                    links.push(i);
                    if !hrefs.contains(&href) {
                        hrefs.push(href);
                    }
                }
                None => groups.push((key, vec![i], vec![href])),
            }
        }
        for (_, links, hrefs) in groups.iter().filter(|(_, _, hrefs)| hrefs.len() >= 2) {
            let second = links.iter().map(|&i| &facts.links[i]).find(|l| l.href != facts.links[links[0]].href).unwrap_or(&facts.links[links[0]]);
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => second.selector,
                "snippet" => second.snippet,
                "text" => second.name,
                "hrefs" => hrefs.iter().take(MAX_LISTED_HREFS).collect::<Vec<_>>(),
                "count" => links.len(),
                "needs_review" => true,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_page, run};
    use super::*;
    use crate::model::{BarrierFacts, BarrierLink};

    fn link(selector: &str, name: &str, href: &str) -> BarrierLink {
        BarrierLink { selector: selector.into(), name: name.into(), href_raw: href.into(), href: format!("https://example.com{href}"), ..Default::default() }
    }

    #[test]
    fn fires_once_per_name_with_different_destinations() {
        let facts = BarrierFacts {
            links: vec![
                link("#m1", "Read more", "/a"),
                link("#m2", "read  MORE", "/b"),
                link("#m3", "Read more", "/c"),
                link("#home1", "Home", "/"),
                link("#home2", "Home", "/"),
            ],
            ..Default::default()
        };
        let f = run(&LinkTextAmbiguous, &barrier_page(facts));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["selector"], "#m2");
        assert_eq!(f[0].evidence["count"], 3);
        assert_eq!(f[0].evidence["hrefs"].as_array().map(Vec::len), Some(3));
    }

    #[test]
    fn quiet_when_a_description_tells_them_apart() {
        let mut second = link("#m2", "Read more", "/b");
        second.described = Some("Budget 2026".into());
        let facts = BarrierFacts { links: vec![link("#m1", "Read more", "/a"), second, link("#x", "Read more", "#")], ..Default::default() };
        assert!(run(&LinkTextAmbiguous, &barrier_page(facts)).is_empty());
    }
}
