use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::DialogProbe;
use crate::{declare_check, evidence};

declare_check! {
    /// A dialog opens but focus stays behind it.
    ///
    /// Judged from the dialog facts (`browser/gather/dialogs.rs`): a control that opens a dialog
    /// (`aria-haspopup="dialog"`, or `aria-controls` naming a dialog) was focused and Enter was
    /// pressed, a dialog showed, and focus was not inside it: a keyboard or screen-reader user is
    /// left behind the dialog, most often on a page the dialog now covers.
    pub struct DialogFocusNotMoved {
        id: "accessibility.dialog-focus-not-moved",
        severity: Medium,
        title: "Focus does not move into an opened dialog",
        fires_when: "Enter on a control that opens a dialog shows the dialog, and focus is not inside it",
        description: "When a dialog opens, keyboard and screen-reader users need focus inside it: otherwise they go on reading and tabbing through the page behind it, often hidden or inert under the dialog, and may never learn the dialog is there: WCAG 2.2 success criteria 2.4.3 (Focus Order) and 2.4.11 (Focus Not Obscured).",
        remediation: "Open the dialog with `dialog.showModal()`, which moves focus into it, or move focus yourself when it opens: to its first control, or to the dialog itself (`tabindex=\"-1\"`) when the first control is far down; send focus back to the control that opened it when it closes.",
        cwe: None,
        evidence: ["url", "selector", "trigger", "modal", "wcag"],
        help_url: Some("https://www.w3.org/WAI/ARIA/apg/patterns/dialog-modal/"),
        requires: [Dialogs],
        level: A,
        wcag: ["2.4.3", "2.4.11"],
    }
}

/// True for a dialog that opened without taking focus.
fn fails(probe: &DialogProbe) -> bool {
    probe.opened && !probe.focus_moved_in
}

impl Check for DialogFocusNotMoved {
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
                "modal" => probe.modal,
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
    fn fires_where_focus_stayed_behind() {
        let f = run(&DialogFocusNotMoved, &probed(vec![
            DialogProbe { focus_moved_in: false, focus_left: None, ..opened("#behind") },
            opened("#fine"),
            DialogProbe { opened: false, focus_moved_in: false, ..opened("#never-opened") },
        ]));
        let got: Vec<_> = f.iter().map(|f| f.evidence["trigger"].as_str().unwrap_or_default()).collect();
        assert_eq!(got, ["#behind"]);
        assert_eq!(f[0].evidence["selector"], "#behind-dialog");
    }
}
