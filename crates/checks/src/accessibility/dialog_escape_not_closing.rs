use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::DialogProbe;
use crate::{declare_check, evidence};

declare_check! {
    /// Escape does not close an open dialog.
    ///
    /// Judged from the dialog facts (`browser/gather/dialogs.rs`): a dialog opened from the
    /// keyboard was still showing after Escape was pressed (and the page given 300 ms).
    pub struct DialogEscapeNotClosing {
        id: "accessibility.dialog-escape-not-closing",
        severity: Low,
        title: "Escape does not close the dialog",
        fires_when: "a dialog opened from the keyboard still shows after Escape",
        description: "Escape is how keyboard users expect to leave a dialog, and the way out when its close button is hard to reach or to find: the WAI-ARIA dialog pattern requires it, and without it a dialog is a dead end for some (WCAG 2.2 success criterion 2.1.1, Keyboard, where no other key closes it).",
        remediation: "Close the dialog on Escape: a native `<dialog>` shown with `showModal()` does it by itself; otherwise handle `keydown` for Escape on the dialog, close it, and send focus back to the control that opened it.",
        cwe: None,
        evidence: ["url", "selector", "trigger", "wcag"],
        help_url: Some("https://www.w3.org/WAI/ARIA/apg/patterns/dialog-modal/"),
        requires: [Dialogs],
        level: A,
        wcag: ["2.1.1"],
    }
}

/// True for a dialog Escape left open.
fn fails(probe: &DialogProbe) -> bool {
    probe.opened && probe.escape_closes == Some(false)
}

impl Check for DialogEscapeNotClosing {
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
    fn fires_where_escape_left_the_dialog_open() {
        let f = run(&DialogEscapeNotClosing, &probed(vec![DialogProbe { escape_closes: Some(false), ..opened("#stays") }, opened("#fine")]));
        let got: Vec<_> = f.iter().map(|f| f.evidence["trigger"].as_str().unwrap_or_default()).collect();
        assert_eq!(got, ["#stays"]);
    }
}
