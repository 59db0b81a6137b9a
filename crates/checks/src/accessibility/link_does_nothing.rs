use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::BarrierLink;
use crate::{declare_check, evidence};

declare_check! {
    /// A link that goes nowhere and runs nothing.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`, with the listener record of
    /// `browser/hooks.js`, installed before the page's own scripts): a visible `<a>` whose href
    /// is `#`, `#!` or a `javascript:` URL that does nothing (`javascript:`, `javascript:;`,
    /// `javascript:void(0)`), with no role of its own, no click or key handler on it or on any
    /// ancestor, and a page whose document and window listen to neither clicks, hash changes nor
    /// history (where a router or a framework may handle links by delegation). Where the page's
    /// listeners could not be known, nothing is judged. `crawlability.non-crawlable-link`
    /// reports every script-only link for crawlers; this one the links that fail everyone.
    pub struct LinkDoesNothing {
        id: "accessibility.link-does-nothing",
        severity: Medium,
        title: "Link does nothing when activated",
        fires_when: "a visible link to `#` or `javascript:void(0)` has no click or key handler on it or an ancestor, and the page handles no clicks, hash changes or history by delegation",
        description: "A link promises to go somewhere or do something. One that does nothing leaves every visitor stuck, and keyboard and screen-reader users, who cannot see a hover effect or a nearby alternative, cannot tell why: WCAG 2.2 success criteria 2.4.4 (Link Purpose) and 4.1.2 (Name, Role, Value).",
        remediation: "Give the link the URL it should open (`<a href=\"/offers\">`), or, if it should run an action, make it a `<button type=\"button\">` with the handler; remove links that do nothing.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "href", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/link-purpose-in-context.html"),
        requires: [Barriers],
        level: A,
        wcag: ["2.4.4", "4.1.2"],
    }
}

/// True for an href that neither navigates nor runs code.
pub fn inert_href(raw: &str) -> bool {
    let compact: String = raw.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
    matches!(compact.as_str(), "#" | "#!" | "javascript:" | "javascript:;" | "javascript:void(0)" | "javascript:void(0);" | "javascript:void0" | "javascript:void0;" | "javascript:undefined" | "javascript://")
}

fn does_nothing(link: &BarrierLink) -> bool {
    inert_href(&link.href_raw) && link.role.is_none() && link.has_handler == Some(false)
}

impl Check for LinkDoesNothing {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        if facts.click_delegation != Some(false) {
            return;
        }
        for link in facts.links.iter().filter(|l| does_nothing(l)) {
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => link.selector,
                "snippet" => link.snippet,
                "href" => link.href_raw,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_page, run};
    use super::*;
    use crate::model::BarrierFacts;

    fn link(selector: &str, href: &str, handler: Option<bool>) -> BarrierLink {
        BarrierLink { selector: selector.into(), href_raw: href.into(), has_handler: handler, ..Default::default() }
    }

    #[test]
    fn fires_on_inert_links_without_handlers() {
        let facts = BarrierFacts {
            click_delegation: Some(false),
            links: vec![
                link("#dead", "#", Some(false)),
                link("#void", "javascript:void(0)", Some(false)),
                link("#handled", "#", Some(true)),
                link("#code", "javascript:openMenu()", Some(false)),
                link("#real", "/offers", Some(false)),
                link("#unknown", "#", None),
                BarrierLink { role: Some("button".into()), ..link("#role", "#", Some(false)) },
            ],
            ..Default::default()
        };
        let f = run(&LinkDoesNothing, &barrier_page(facts));
        let selectors: Vec<_> = f.iter().map(|f| f.evidence["selector"].as_str().unwrap_or_default()).collect();
        assert_eq!(selectors, ["#dead", "#void"]);
    }

    #[test]
    fn quiet_where_the_page_may_handle_links_by_delegation() {
        for delegation in [Some(true), None] {
            let facts = BarrierFacts { click_delegation: delegation, links: vec![link("#dead", "#", Some(false))], ..Default::default() };
            assert!(run(&LinkDoesNothing, &barrier_page(facts)).is_empty());
        }
    }
}
