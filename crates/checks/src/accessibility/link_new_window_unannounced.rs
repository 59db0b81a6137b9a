use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::BarrierLink;
use crate::{declare_check, evidence};

declare_check! {
    /// A link opens a new window or tab without saying so.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`): a visible link with
    /// `target="_blank"` whose accessible name (with image alts and icon names), title and
    /// `aria-describedby` text mention neither a new window or tab nor an external site (English,
    /// German, French, Spanish and Dutch wordings). Advisory (WCAG technique G201 for 3.2.5,
    /// AAA): `needs_review`.
    pub struct LinkNewWindowUnannounced {
        id: "accessibility.link-new-window-unannounced",
        severity: Low,
        title: "Link opens a new window without warning",
        fires_when: "a link with target=_blank says nothing (text, hidden text, icon name, title or description) about opening a new window or tab (needs review)",
        description: "A new window or tab that opens unannounced disorients screen-reader, magnifier and cognitively impaired users: the Back button no longer works and they may not notice they are elsewhere: WCAG technique G201 (advisory for success criterion 3.2.5 Change on Request).",
        remediation: "Say it in the link: visible text or an icon with a text alternative, e.g. `<a href=\"...\" target=\"_blank\">Annual report <span class=\"visually-hidden\">(opens in a new tab)</span></a>`; or open the link in the same window.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "text", "needs_review", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Techniques/general/G201"),
        requires: [Barriers],
        level: AAA,
        wcag: ["3.2.5"],
    }
}

/// Words that tell a link opens a new window or tab, or leaves the site.
const WARNINGS: &[&str] = &[
    "new window", "new tab", "new browser", "opens in", "external", "neues fenster", "neuen fenster", "neuer tab", "neuen tab", "neues tab",
    "nouvelle fenêtre", "nouvel onglet", "nueva ventana", "nueva pestaña", "nieuw venster", "nieuw tabblad", "externe", "extern",
];

fn announced(link: &BarrierLink) -> bool {
    let all = [Some(link.name.as_str()), link.title.as_deref(), link.described.as_deref()];
    all.iter().flatten().any(|t| {
        let t = t.to_lowercase();
        WARNINGS.iter().any(|w| t.contains(w))
    })
}

impl Check for LinkNewWindowUnannounced {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        for link in &facts.links {
            if !link.target.as_deref().is_some_and(|t| t.trim().eq_ignore_ascii_case("_blank")) || link.name.trim().is_empty() || announced(link) {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => link.selector,
                "snippet" => link.snippet,
                "text" => link.name,
                "needs_review" => true,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_page, run};
    use super::*;
    use crate::model::BarrierFacts;

    fn link(selector: &str, name: &str, target: Option<&str>) -> BarrierLink {
        BarrierLink { selector: selector.into(), name: name.into(), href: "https://example.com/r".into(), target: target.map(str::to_string), ..Default::default() }
    }

    #[test]
    fn fires_on_blank_targets_that_say_nothing() {
        let mut titled = link("#titled", "Report", Some("_blank"));
        titled.title = Some("Opens in a new tab".into());
        let facts = BarrierFacts {
            links: vec![
                link("#silent", "Annual report", Some("_BLANK")),
                link("#said", "Annual report (opens in a new window)", Some("_blank")),
                titled,
                link("#same", "Annual report", None),
                link("#named", "Help", Some("help")),
            ],
            ..Default::default()
        };
        let f = run(&LinkNewWindowUnannounced, &barrier_page(facts));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["selector"], "#silent");
        assert_eq!(f[0].evidence["needs_review"], true);
    }
}
