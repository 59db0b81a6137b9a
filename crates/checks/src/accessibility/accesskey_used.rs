use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

declare_check! {
    /// The page defines keyboard shortcuts with `accesskey`.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`): any element with a non-empty
    /// `accesskey` attribute. Duplicated keys are axe-core's `accesskeys`; this check names every
    /// one, since the shortcut itself is the problem. Not a WCAG failure (the browser's modifier
    /// keys keep it out of 2.1.4), so it runs at every conformance level.
    pub struct AccesskeyUsed {
        id: "accessibility.accesskey-used",
        severity: Low,
        title: "Keyboard shortcut defined with accesskey",
        fires_when: "an element has a non-empty accesskey attribute",
        description: "Access keys clash with the shortcuts of browsers, screen readers and magnifiers, which differ by platform: pressing one may do the page's action instead of the tool's, or the reverse. They are announced inconsistently and nothing on the page tells sighted users they exist.",
        remediation: "Remove `accesskey`; give frequent destinations a plain link or a skip link instead, and if the application needs shortcuts, let users see, turn off and remap them.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "value"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/character-key-shortcuts.html"),
        requires: [Barriers],
    }
}

impl Check for AccesskeyUsed {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        for access in &facts.access_keys {
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => access.selector,
                "snippet" => access.snippet,
                "value" => access.key,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_page, run};
    use super::*;
    use crate::model::{AccessKey, BarrierFacts};

    #[test]
    fn names_each_access_key() {
        let facts = BarrierFacts { access_keys: vec![AccessKey { selector: "#home".into(), key: "A".into(), ..Default::default() }], ..Default::default() };
        let f = run(&AccesskeyUsed, &barrier_page(facts));
        assert_eq!((f.len(), f[0].evidence["value"].as_str()), (1, Some("A")));
        assert!(run(&AccesskeyUsed, &barrier_page(BarrierFacts::default())).is_empty());
    }
}
