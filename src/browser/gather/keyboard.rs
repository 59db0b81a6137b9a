//! Keyboard gatherer: presses Tab (`Input.dispatchKeyEvent`) up to `MAX_TABS` times and records
//! where focus lands, whether focusing changed the element's rendering (computed styles of the
//! element, its pseudo-elements and parent, with transitions suspended; when styles show nothing,
//! a clipped screenshot focused vs blurred), and whether focus got stuck (a keyboard trap).
//!
//! Focus is the deepest focused element (through open shadow roots). A trap is focus that cannot
//! leave a region by Tab and by Shift+Tab: the walk suspects one when Tab leaves focus on the same
//! element `TRAP_PRESSES` times (`WIDGET_PRESSES` for elements whose focus moves inside them: date
//! and time inputs, media controls, selects, custom elements) or brings it back to an element met
//! before (a cycle), then presses Shift+Tab up to `ESCAPE_PRESSES` times; only when focus never
//! leaves the region is it a trap. Frames are walked through and never judged (their document is
//! not ours to see), nor are regions inside an open modal dialog (a modal may hold focus).

use crate::model::{FocusStep, KeyboardWalk};
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::emulation::SetFocusEmulationEnabledParams;
use chromiumoxide::cdp::browser_protocol::input::{DispatchKeyEventParams, DispatchKeyEventType};
use chromiumoxide::cdp::browser_protocol::page::Viewport;
use serde::Deserialize;
use std::time::Duration;

use crate::browser::cdp::{Budget, STEP_TIMEOUT, eval_string, run};
use crate::browser::error::BrowserError;
use crate::browser::gather::screenshot::clip_png;
use crate::browser::instance::Instance;
use crate::browser::scripts::KEYBOARD_INSTALL;

/// Tab presses per page.
pub const MAX_TABS: usize = 40;
/// Screenshot comparisons per page (only for steps the styles call invisible).
pub const MAX_PIXEL_CHECKS: usize = 10;
/// Consecutive presses that leave focus on the same element before a trap is suspected.
pub const TRAP_PRESSES: usize = 3;
/// The same, for widgets whose focus moves inside them while they stay the active element (a
/// datetime-local input has 7 fields, a player 6 controls in Chromium).
pub const WIDGET_PRESSES: usize = 16;
/// Shift+Tab presses that must all stay inside a suspected region for it to be a trap.
pub const ESCAPE_PRESSES: usize = 20;

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Probe {
    none: bool,
    selector: String,
    snippet: String,
    tag: String,
    changed: bool,
    rect: Rect,
    /// Why focus may move inside the element unseen (`temporal-input`, `media-controls`,
    /// `select`, `frame`, `shadow-host`), empty otherwise.
    widget: String,
    /// Inside an open modal dialog.
    modal: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Rect {
    x: f64,
    y: f64,
    width: f64,
    height: f64,
    in_view: bool,
}

/// `Input.dispatchKeyEvent` modifier bit of Shift.
const SHIFT: i64 = 8;

fn tab_key(ty: DispatchKeyEventType, shift: bool) -> DispatchKeyEventParams {
    DispatchKeyEventParams {
        r#type: ty,
        modifiers: shift.then_some(SHIFT),
        key: Some("Tab".into()),
        code: Some("Tab".into()),
        windows_virtual_key_code: Some(9),
        native_virtual_key_code: Some(9),
        ..DispatchKeyEventParams::new(DispatchKeyEventType::KeyUp)
    }
}

/// Presses Tab (focus moves on the key down) and reads where focus landed. The key up and the
/// probe go out together: focus is settled once the key down is acknowledged, and the release
/// changes nothing the probe reads, so a step costs two round trips instead of three.
async fn tab_and_probe(instance: &Instance, page: &Page, budget: &Budget, shift: bool) -> Result<Probe, BrowserError> {
    run(instance, page, "Input.dispatchKeyEvent", budget.cap(STEP_TIMEOUT), tab_key(DispatchKeyEventType::RawKeyDown, shift)).await?;
    let (up, probe) = tokio::join!(
        run(instance, page, "Input.dispatchKeyEvent", budget.cap(STEP_TIMEOUT), tab_key(DispatchKeyEventType::KeyUp, shift)),
        eval(instance, page, budget, "window.__sitescanFocus ? window.__sitescanFocus.probe() : '{\"none\":true}'")
    );
    up?;
    serde_json::from_str(&probe?).map_err(|e| BrowserError::Script { name: "keyboard", message: e.to_string() })
}

/// What the walk makes of a press that did not reach a new element.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Suspicion {
    /// Keep walking (a widget's inner focus, a frame, too few presses yet).
    None,
    /// Focus may be held by these elements (selectors): try Shift+Tab.
    Region(Vec<String>),
}

/// Judges a press that left focus on `selector` (`same` consecutive presses so far) or brought it
/// back to a step already walked.
fn suspect(steps: &[FocusStep], selector: &str, widget: &str, same: usize) -> Suspicion {
    if widget == "frame" {
        return Suspicion::None;
    }
    if same > 0 {
        let limit = if widget.is_empty() { TRAP_PRESSES } else { WIDGET_PRESSES };
        return if same + 1 >= limit { Suspicion::Region(vec![selector.to_string()]) } else { Suspicion::None };
    }
    match steps.iter().position(|s| s.selector == selector) {
        Some(i) if i > 0 => Suspicion::Region(steps[i..].iter().map(|s| s.selector.clone()).collect()),
        _ => Suspicion::None,
    }
}

/// True when Shift+Tab takes focus out of `region` (or the budget runs out: not judged).
async fn escapes_backward(instance: &Instance, page: &Page, budget: &Budget, region: &[String]) -> Result<bool, BrowserError> {
    for _ in 0..ESCAPE_PRESSES {
        if budget.left() < Duration::from_secs(2) {
            return Ok(true);
        }
        let probe = tab_and_probe(instance, page, budget, true).await?;
        if probe.none || !region.contains(&probe.selector) {
            return Ok(true);
        }
    }
    Ok(false)
}

async fn eval(instance: &Instance, page: &Page, budget: &Budget, expr: &str) -> Result<String, BrowserError> {
    eval_string(instance, page, "keyboard", expr, budget.cap(Duration::from_secs(5))).await
}

pub(crate) async fn walk(instance: &Instance, page: &Page, budget: &Budget) -> Result<KeyboardWalk, BrowserError> {
    run(instance, page, "Emulation.setFocusEmulationEnabled", budget.cap(STEP_TIMEOUT), SetFocusEmulationEnabledParams::new(true)).await?;
    let count = eval(instance, page, budget, &KEYBOARD_INSTALL).await?;
    let mut walk = KeyboardWalk { focusable_count: count.trim().parse().unwrap_or(0), ..KeyboardWalk::default() };
    eval(
        instance,
        page,
        budget,
        "(() => { if (document.activeElement && document.activeElement.blur) document.activeElement.blur(); window.scrollTo(0, 0); return 'ok'; })()",
    )
    .await?;
    if walk.focusable_count == 0 {
        return Ok(walk);
    }
    let mut last_selector: Option<String> = None;
    let mut same = 0usize;
    let mut pixel_checks = 0usize;
    let mut empty = 0usize;
    for _ in 0..MAX_TABS {
        if budget.left() < Duration::from_secs(2) {
            break;
        }
        let probe = tab_and_probe(instance, page, budget, false).await?;
        if probe.none {
            empty += 1;
            // Focus left the document (past the last element) or never entered it.
            if !walk.steps.is_empty() || empty >= 2 {
                break;
            }
            continue;
        }
        let repeated = last_selector.as_deref() == Some(probe.selector.as_str());
        same = if repeated { same + 1 } else { 0 };
        if !repeated && walk.steps.first().is_some_and(|s| s.selector == probe.selector) {
            break; // Wrapped around: every reachable element was visited.
        }
        let revisit = !repeated && walk.steps.iter().any(|s| s.selector == probe.selector);
        if repeated || revisit {
            if let Suspicion::Region(region) = suspect(&walk.steps, &probe.selector, &probe.widget, same) {
                // Held by a modal, or Shift+Tab gets out: not a trap. Either way Tab cannot take
                // the walk further.
                if !probe.modal && !escapes_backward(instance, page, budget, &region).await? {
                    walk.trapped_at = Some(region[0].clone());
                    walk.trapped_snippet = Some(probe.snippet.clone());
                }
                break;
            }
            last_selector = Some(probe.selector);
            continue;
        }
        let mut step = FocusStep {
            selector: probe.selector.clone(),
            snippet: probe.snippet.clone(),
            tag: probe.tag.clone(),
            visible_change: probe.changed,
            method: "style".into(),
        };
        if !probe.changed && pixel_checks < MAX_PIXEL_CHECKS && probe.rect.in_view && probe.rect.width > 0.0 && probe.rect.height > 0.0 {
            pixel_checks += 1;
            if let Ok(changed) = pixels_change(instance, page, budget, &probe.rect).await {
                step.visible_change = changed;
                step.method = "pixels".into();
            }
        }
        last_selector = Some(probe.selector);
        walk.steps.push(step);
    }
    let _ = eval(instance, page, budget, "window.__sitescanFocus ? window.__sitescanFocus.finish() : 'ok'").await;
    Ok(walk)
}

/// Screenshots the element's surroundings focused and blurred; true when they differ.
async fn pixels_change(instance: &Instance, page: &Page, budget: &Budget, rect: &Rect) -> Result<bool, BrowserError> {
    const MARGIN: f64 = 8.0;
    let clip = Viewport {
        x: (rect.x - MARGIN).max(0.0),
        y: (rect.y - MARGIN).max(0.0),
        width: (rect.width + 2.0 * MARGIN).min(2000.0),
        height: (rect.height + 2.0 * MARGIN).min(2000.0),
        scale: 1.0,
    };
    let focused = clip_png(instance, page, budget, clip.clone()).await?;
    eval(instance, page, budget, "window.__sitescanFocus.blur()").await?;
    let blurred = clip_png(instance, page, budget, clip).await;
    eval(instance, page, budget, "window.__sitescanFocus.refocus()").await?;
    Ok(focused != blurred?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(selectors: &[&str]) -> Vec<FocusStep> {
        selectors.iter().map(|s| FocusStep { selector: (*s).into(), ..FocusStep::default() }).collect()
    }

    #[test]
    fn ordinary_element_is_suspected_after_trap_presses() {
        let walked = steps(&["#a", "#code"]);
        assert_eq!(suspect(&walked, "#code", "", 1), Suspicion::None);
        assert_eq!(suspect(&walked, "#code", "", TRAP_PRESSES - 1), Suspicion::Region(vec!["#code".into()]));
    }

    #[test]
    fn widgets_with_inner_focus_are_walked_through() {
        let walked = steps(&["#a", "#date"]);
        // A datetime-local input keeps focus for 7 presses, a player for 6.
        for same in 1..WIDGET_PRESSES - 1 {
            assert_eq!(suspect(&walked, "#date", "temporal-input", same), Suspicion::None, "{same}");
            assert_eq!(suspect(&walked, "#film", "media-controls", same), Suspicion::None, "{same}");
        }
        assert_eq!(suspect(&walked, "#date", "temporal-input", WIDGET_PRESSES - 1), Suspicion::Region(vec!["#date".into()]));
        // A frame's document is not ours to judge, however long focus stays in it.
        assert_eq!(suspect(&walked, "#map", "frame", 100), Suspicion::None);
    }

    #[test]
    fn coming_back_to_an_earlier_stop_is_a_suspected_cycle() {
        let walked = steps(&["#before", "#first", "#second"]);
        assert_eq!(suspect(&walked, "#first", "", 0), Suspicion::Region(vec!["#first".into(), "#second".into()]));
        // Back at the very first stop: the walk wrapped around the page.
        assert_eq!(suspect(&walked, "#before", "", 0), Suspicion::None);
    }
}
