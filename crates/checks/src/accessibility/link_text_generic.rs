use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::Severity;
use super::link_does_nothing::inert_href;
use super::super::search::link_text_generic::GENERIC_LINK_TEXTS;
use crate::model::barriers::normalize;
use crate::{declare_check, evidence};

declare_check! {
    /// A link's text says nothing about where it goes ("click here", "read more", "page"), or
    /// is only punctuation.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`): a visible link whose accessible
    /// name, without case and the punctuation around it, is a generic phrase (search's list,
    /// in seven languages, and a few more), or has no letter or digit at all (`.`, `»`, `→`),
    /// while neither its `title` nor its `aria-describedby` text adds words of its own. The same
    /// link's `search.link-text-generic` finding is merged into this one (`also_reported_as`).
    /// A generic text may be made clear
    /// by the sentence or list item around it (WCAG 2.4.4 allows that), which only a person can
    /// weigh: those findings ask for review; a link of punctuation alone is clear in no context.
    pub struct AccessibilityLinkTextGeneric {
        id: "accessibility.link-text-generic",
        severity: Low,
        title: "Link text does not say where the link goes",
        fires_when: "a link's text is a generic phrase (click here, read more, more, here, page, link) or only punctuation, and no title or description adds to it",
        description: "People who move through a page by its links (a screen reader's links list, voice control, a quick scan of the page) meet each link without the text around it; \"click here\" or \"read more\" tells them nothing, and a link that is only a full stop is nearly impossible to notice or to name: WCAG 2.2 success criterion 2.4.4 (Link Purpose (In Context)).",
        remediation: "Make the link's own words name its destination: write `<a href=\"/rockies\">more about the Rocky Mountains</a>` rather than `<a href=\"/rockies\">Click here</a> for more on the Rocky Mountains`. Where a design needs a short visible text, add the rest as visually hidden text inside the link.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "text", "href", "reason", "needs_review", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/link-purpose-in-context.html"),
        requires: [Barriers],
        level: A,
        wcag: ["2.4.4"],
    }
}

/// Link texts beyond search's list that name no destination either.
const MORE_GENERIC: &[&str] = &["page", "this link", "go here", "info", "read on", "click me"];

/// Why `name` says nothing: `punctuation` or `generic`.
fn emptiness(name: &str) -> Option<&'static str> {
    if !name.is_empty() && !name.chars().any(char::is_alphanumeric) {
        return Some("punctuation");
    }
    let core = normalize(name.trim_matches(|c: char| !c.is_alphanumeric()));
    (GENERIC_LINK_TEXTS.contains(&core.as_str()) || MORE_GENERIC.contains(&core.as_str())).then_some("generic")
}

/// True when `extra` (a title or description) adds words that are not themselves generic.
fn adds_words(extra: Option<&str>) -> bool {
    extra.is_some_and(|t| t.chars().any(char::is_alphanumeric) && emptiness(t).is_none())
}

impl Check for AccessibilityLinkTextGeneric {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        for link in &facts.links {
            if link.image_only || inert_href(&link.href_raw) || link.href.is_empty() {
                continue;
            }
            let Some(reason) = emptiness(link.name.trim()) else { continue };
            if adds_words(link.title.as_deref()) || adds_words(link.described.as_deref()) {
                continue;
            }
            let review = reason == "generic";
            let finding = evidence! {
                "url" => page.final_url,
                "selector" => link.selector,
                "snippet" => link.snippet,
                "text" => link.name,
                "href" => link.href,
                "reason" => if review { "the text is a generic phrase" } else { "the text is only punctuation" },
                "needs_review" => review,
            };
            if review {
                out.report(finding);
            } else {
                out.report_with(Severity::Medium, finding);
            }
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
    fn fires_on_generic_texts_and_on_punctuation() {
        let mut titled = link("#titled", "Read more", "/c");
        titled.title = Some("The 2026 budget".into());
        let facts = BarrierFacts {
            links: vec![
                link("#click", "Click here", "/rockies"),
                link("#more1", "Read more »", "/a"),
                link("#more2", "read  more", "/b"),
                link("#dot", ".", "/gov"),
                link("#page", "page", "/me"),
                titled,
                link("#clear", "More about the Rocky Mountains", "/rockies"),
                link("#inert", "Click here", "#"),
            ],
            ..Default::default()
        };
        let f = run(&AccessibilityLinkTextGeneric, &barrier_page(facts));
        let got: Vec<_> = f.iter().map(|f| (f.evidence["selector"].as_str().unwrap_or_default(), f.severity)).collect();
        assert_eq!(got, [("#click", Severity::Low), ("#more1", Severity::Low), ("#more2", Severity::Low), ("#dot", Severity::Medium), ("#page", Severity::Low)]);
        assert_eq!(f[3].evidence["needs_review"], false);
    }
}
