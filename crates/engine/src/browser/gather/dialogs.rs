//! Dialog gatherer: opens each dialog the page's controls open (`browser/dialogs.js` finds at most
//! three: `aria-haspopup="dialog"`, or `aria-controls` naming a hidden dialog) the way a keyboard
//! user does, and records what happens (`DialogFacts`):
//!
//! 1. focus the control and press Enter (`Input.dispatchKeyEvent`, trusted: a native button turns
//!    it into a click), wait for the page to settle, and read whether a dialog showed and where
//!    focus went;
//! 2. a modal dialog that took focus: press Tab up to `MAX_TABS_IN_DIALOG` times and note whether
//!    focus reached an element of the page behind it (the body, or focus in the browser's own UI
//!    after the last element, is no such element);
//! 3. press Escape and read whether the dialog closed. A dialog left open is closed (`close()` of
//!    a native dialog) and, if it stays open, the remaining controls are not probed: the page is
//!    no longer the one they belong to.
//!
//! A page with such controls is drawn again first (the in-page gatherers leave the window
//! minimized, and a dialog may open with an animation frame). It changes the page, so it runs
//! after every other gatherer; what the page's scripts do
//! meanwhile is left out of the event-based artifacts, as for the layout gatherer.

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::input::{DispatchKeyEventParams, DispatchKeyEventType};
use serde::Deserialize;
use std::time::{Duration, Instant};

use crate::browser::cdp::{Deadline, STEP_TIMEOUT, eval_string, run};
use crate::browser::error::BrowserError;
use crate::browser::instance::Instance;
use crate::browser::scripts::dialogs_script;
use crate::browser::window::PageWindow;
use crate::model::dialogs::{MAX_DIALOG_PROBES, MAX_TABS_IN_DIALOG};
use crate::model::{DialogFacts, DialogProbe};

/// How long a dialog may take to open or close after its key (an animation, a fetch of content).
const SETTLE: Duration = Duration::from_millis(300);

#[derive(Debug, Deserialize)]
struct Trigger {
    trigger: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct State {
    open: bool,
    dialog: Option<String>,
    modal: bool,
    focus_inside: bool,
    focus_behind: bool,
    active: Option<String>,
}

/// A key of `Input.dispatchKeyEvent`: `key`, its `code`, its virtual key code and the text a key
/// down types (Enter types `\r`, which makes the browser click a focused native button).
fn key(ty: DispatchKeyEventType, name: &str, code: i64, text: Option<&str>) -> DispatchKeyEventParams {
    DispatchKeyEventParams {
        r#type: ty,
        key: Some(name.into()),
        code: Some(name.into()),
        windows_virtual_key_code: Some(code),
        native_virtual_key_code: Some(code),
        text: text.map(str::to_string),
        unmodified_text: text.map(str::to_string),
        ..DispatchKeyEventParams::new(DispatchKeyEventType::KeyUp)
    }
}

async fn press(instance: &Instance, page: &Page, budget: &Deadline, name: &str, code: i64, text: Option<&str>) -> Result<(), BrowserError> {
    let down = if text.is_some() { DispatchKeyEventType::KeyDown } else { DispatchKeyEventType::RawKeyDown };
    run(instance, page, "Input.dispatchKeyEvent", budget.cap(STEP_TIMEOUT), key(down, name, code, text)).await?;
    run(instance, page, "Input.dispatchKeyEvent", budget.cap(STEP_TIMEOUT), key(DispatchKeyEventType::KeyUp, name, code, None)).await?;
    Ok(())
}

async fn ask(instance: &Instance, page: &Page, budget: &Deadline, mode: &str, index: usize) -> Result<String, BrowserError> {
    eval_string(instance, page, "dialogs", &dialogs_script(mode, index), budget.cap(STEP_TIMEOUT)).await
}

async fn state(instance: &Instance, page: &Page, budget: &Deadline, index: usize) -> Result<State, BrowserError> {
    let text = ask(instance, page, budget, "state", index).await?;
    crate::browser::lenient::from_json(&text).map_err(|e| BrowserError::Script { name: "dialogs", message: e.to_string() })
}

/// What `find` answers: the controls kept for the probes, and how many the page has.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Found {
    triggers: Vec<Trigger>,
    total: usize,
}

async fn settle(budget: &Deadline) {
    tokio::time::sleep(budget.cap(SETTLE)).await;
}

pub(crate) async fn gather(instance: &Instance, page: &Page, budget: &Deadline, window: Option<&PageWindow>) -> Result<DialogFacts, BrowserError> {
    let started = Instant::now();
    let found = ask(instance, page, budget, "find", 0).await?;
    let Found { triggers, total } = crate::browser::lenient::from_json(&found).map_err(|e| BrowserError::Script { name: "dialogs", message: e.to_string() })?;
    let mut facts = DialogFacts::default();
    let probed = triggers.len().min(MAX_DIALOG_PROBES);
    if total > probed {
        facts.sampled = Some(crate::model::Sample::new("controls that open a dialog", probed, total));
    }
    // A dialog may open with an animation frame or a transition: the page is drawn again first.
    if let (false, Some(window)) = (triggers.is_empty(), window) {
        window.restore(instance).await;
    }
    for (index, trigger) in triggers.iter().enumerate().take(MAX_DIALOG_PROBES) {
        if ask(instance, page, budget, "focus", index).await? != "focused" {
            continue;
        }
        press(instance, page, budget, "Enter", 13, Some("\r")).await?;
        settle(budget).await;
        let opened = state(instance, page, budget, index).await?;
        let mut probe = DialogProbe { trigger: trigger.trigger.clone(), ..Default::default() };
        if !opened.open {
            facts.probes.push(probe);
            continue;
        }
        probe.opened = true;
        probe.dialog = opened.dialog.clone();
        probe.modal = opened.modal;
        probe.focus_moved_in = opened.focus_inside;
        if opened.modal && opened.focus_inside {
            let mut left = false;
            for _ in 0..MAX_TABS_IN_DIALOG {
                press(instance, page, budget, "Tab", 9, None).await?;
                let now = state(instance, page, budget, index).await?;
                if !now.open {
                    break;
                }
                if now.focus_behind {
                    left = true;
                    probe.left_to = now.active;
                    break;
                }
            }
            probe.focus_left = Some(left);
        }
        press(instance, page, budget, "Escape", 27, None).await?;
        settle(budget).await;
        let after = state(instance, page, budget, index).await?;
        probe.escape_closes = Some(!after.open);
        facts.probes.push(probe);
        if after.open && ask(instance, page, budget, "close", index).await? == "open" {
            break;
        }
    }
    facts.ms = started.elapsed().as_millis() as u64;
    tracing::debug!(probes = facts.probes.len(), ms = facts.ms, "dialogs probed");
    Ok(facts)
}
