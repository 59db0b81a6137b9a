use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::DialogProbe;
use crate::{declare_check, evidence};

declare_check! {
    /// Tab leaves an open modal dialog for the page behind it.
    ///
    /// Judged from the dialog facts (`browser/gather/dialogs.rs`): a modal dialog (`showModal()`
    /// or `aria-modal="true"`) opened from the keyboard with focus inside, and Tab, pressed up to
    /// 12 times, reached an element of the page behind it. Focus leaving for the browser's own
    /// controls after the last element is allowed and not counted.
    pub struct DialogFocusNotContained {
        id: "accessibility.dialog-focus-not-contained",
        severity: Medium,
        title: "Tab leaves a modal dialog for the page behind it",
        fires_when: "in a modal dialog opened from the keyboard, Tab reaches an element of the page behind the dialog",
        description: "A modal dialog says the page behind it is out of use until it closes. When Tab walks out of it, keyboard users land on controls they cannot see under the dialog, and screen-reader users lose the dialog they were in: WCAG 2.2 success criteria 2.4.3 (Focus Order) and 2.4.11 (Focus Not Obscured).",
        remediation: "Use `<dialog>` with `showModal()`, which makes the rest of the page inert, or set `inert` on everything outside the dialog while it is open; a focus trap in script must also cover Shift+Tab.",
        cwe: None,
        evidence: ["url", "selector", "trigger", "left_to", "wcag"],
        help_url: Some("https://www.w3.org/WAI/ARIA/apg/patterns/dialog-modal/"),
        requires: [Dialogs],
        level: A,
        wcag: ["2.4.3", "2.4.11"],
    }
}

/// True for a modal dialog Tab walked out of.
fn fails(probe: &DialogProbe) -> bool {
    probe.opened && probe.modal && probe.focus_left == Some(true)
}

impl Check for DialogFocusNotContained {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.dialogs() else { return };
        for probe in facts.probes.iter().filter(|p| fails(p)) {
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => probe.dialog.as_deref().unwrap_or(&probe.trigger),
                "trigger" => probe.trigger,
                "left_to" => probe.left_to,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{run, page};
    use super::*;
    use crate::model::{DialogFacts, DomFacts, PageSnapshot};

    fn probed(probes: Vec<DialogProbe>) -> PageSnapshot {
        PageSnapshot { dialogs: Some(DialogFacts { probes, ms: 1, sampled: None }), ..page(DomFacts::default()) }
    }

    fn opened(trigger: &str) -> DialogProbe {
        DialogProbe { trigger: trigger.into(), dialog: Some(format!("{trigger}-dialog")), opened: true, modal: true, focus_moved_in: true, focus_left: Some(false), escape_closes: Some(true), ..Default::default() }
    }

    #[test]
    fn fires_where_tab_reached_the_page_behind() {
        let f = run(&DialogFocusNotContained, &probed(vec![
            DialogProbe { focus_left: Some(true), left_to: Some("#search".into()), ..opened("#leaks") },
            DialogProbe { modal: false, focus_left: Some(true), ..opened("#not-modal") },
            opened("#fine"),
        ]));
        let got: Vec<_> = f.iter().map(|f| f.evidence["left_to"].as_str().unwrap_or_default()).collect();
        assert_eq!(got, ["#search"]);
    }
}
