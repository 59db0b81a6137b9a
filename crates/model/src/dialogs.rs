//! The dialog facts: what happened when the dialog gatherer (`browser/gather/dialogs.rs`) opened
//! each dialog a page's controls open, from the keyboard (focus the control, Enter), moved on with
//! Tab and tried to close with Escape. Raw outcomes only: the checks judge them.

use serde::{Deserialize, Serialize};

/// Controls probed per page (`browser/dialogs.js`'s `MAX`).
pub const MAX_DIALOG_PROBES: usize = 3;

/// One control that opens a dialog, and what the keyboard met.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct DialogProbe {
    /// The control (selector).
    pub trigger: String,
    /// The dialog it opened (selector), when one opened.
    pub dialog: Option<String>,
    /// Enter on the focused control showed a dialog.
    pub opened: bool,
    /// `:modal` (shown by `showModal()`) or `aria-modal="true"`.
    pub modal: bool,
    /// Focus was inside the dialog once it opened.
    pub focus_moved_in: bool,
    /// Modal dialogs that took focus: whether Tab (pressed up to `MAX_TABS_IN_DIALOG` times)
    /// reached an element of the page behind the dialog; `None` when not tried.
    pub focus_left: Option<bool>,
    /// The element behind the dialog Tab reached, when it did.
    pub left_to: Option<String>,
    /// Whether Escape closed the dialog; `None` when not tried.
    pub escape_closes: Option<bool>,
}

/// Tab presses inside an open modal dialog.
pub const MAX_TABS_IN_DIALOG: usize = 12;

/// Everything the dialog gatherer found on one page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DialogFacts {
    pub probes: Vec<DialogProbe>,
    /// Time the probes took, in ms.
    pub ms: u64,
    /// How many of the page's controls that open a dialog were probed, when not all were.
    pub sampled: Option<super::Sample>,
}
