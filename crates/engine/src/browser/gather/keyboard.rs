//! Keyboard gatherer: presses Tab (`Input.dispatchKeyEvent`) up to `MAX_TABS` times and records
//! where focus lands, whether focusing changed the element's rendering (computed styles of the
//! element, its pseudo-elements and parent, with transitions suspended; when styles show nothing,
//! a clipped screenshot focused vs blurred), and whether focus got stuck (a keyboard trap).
//!
//! Real key presses, so that the page's own handlers run as a visitor's would; but cheaply: the
//! page's window is minimized during the walk (no frame is drawn per press), the presses go out
//! `PRESSES_PER_ROUND` at a time and a key-up listener in the page probes after each one, so a
//! round costs one read instead of a probe per press. Pixel comparisons come after the walk,
//! with the window restored.
//!
//! Where no script can change what Tab does (no key or focus listener anywhere, none of the elements whose
//! Tab order a script cannot see: shadow roots, frames, radio groups, widgets with inner focus,
//! positive tabindex, focusable scroll containers, a modal; `keyboard.js`, `plan`), the walk needs
//! no key at all: Tab then only moves focus to the next element with a tabindex of 0 in document
//! order, so the page computes that order and focuses each element as Tab would (scrolled into
//! view, focus visible), probing as it goes. A focus handler that turns a step away sends the
//! walk back to real presses. On the benchmark site's 60 pages and the 139 fixture pages where
//! it applied, both walks gave the same steps, styles and geometry.
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

use crate::browser::cdp::{Deadline, STEP_TIMEOUT, eval_string, run};
use crate::browser::error::BrowserError;
use crate::browser::gather::screenshot::clip_png;
use crate::browser::instance::Instance;
use crate::browser::scripts::KEYBOARD_INSTALL;
use crate::browser::window::PageWindow;

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
    /// The element's index in the page's list of walked elements (first visit only).
    index: Option<usize>,
    /// A computed Tab order step that the page's own focus handling turned away.
    diverged: bool,
}

/// `__sitescanFocus.plan()`: the number of elements in the Tab order computed in the page, or
/// why it cannot be computed there.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Plan {
    count: Option<usize>,
    why: String,
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
async fn tab_and_probe(instance: &Instance, page: &Page, budget: &Deadline, shift: bool) -> Result<Probe, BrowserError> {
    run(instance, page, "Input.dispatchKeyEvent", budget.cap(STEP_TIMEOUT), tab_key(DispatchKeyEventType::RawKeyDown, shift)).await?;
    let (up, probe) = tokio::join!(
        run(instance, page, "Input.dispatchKeyEvent", budget.cap(STEP_TIMEOUT), tab_key(DispatchKeyEventType::KeyUp, shift)),
        eval(instance, page, budget, "window.__sitescanFocus ? window.__sitescanFocus.probe() : '{\"none\":true}'")
    );
    up?;
    crate::browser::lenient::from_json(&probe?).map_err(|e| BrowserError::Script { name: "keyboard", message: e.to_string() })
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
async fn escapes_backward(instance: &Instance, page: &Page, budget: &Deadline, region: &[String]) -> Result<bool, BrowserError> {
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

async fn eval(instance: &Instance, page: &Page, budget: &Deadline, expr: &str) -> Result<String, BrowserError> {
    eval_string(instance, page, "keyboard", expr, budget.cap(Duration::from_secs(5))).await
}

/// Tab presses sent in one go when the page records them itself.
pub const PRESSES_PER_ROUND: usize = 10;

/// What the walk does after one probe.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Next {
    Continue,
    /// Every reachable element was visited (or focus left the document).
    Stop,
    /// Tab cannot take focus out of these elements: try Shift+Tab.
    Suspect { region: Vec<String>, modal: bool, snippet: String },
}

/// The walk's judgement of the probes in press order, whether they were read one press at a
/// time or from the page's log.
#[derive(Debug, Default)]
struct Walker {
    walk: KeyboardWalk,
    last_selector: Option<String>,
    same: usize,
    empty: usize,
    /// Steps the styles call invisible, to compare in pixels: (step, in-page index).
    pixel_checks: Vec<(usize, usize)>,
    /// The walk came back round (or focus left the page): every tab stop was seen.
    ended: bool,
}

impl Walker {
    fn take(&mut self, probe: Probe) -> Next {
        if probe.none {
            self.empty += 1;
            // Focus left the document (past the last element) or never entered it.
            return if !self.walk.steps.is_empty() || self.empty >= 2 { Next::Stop } else { Next::Continue };
        }
        let repeated = self.last_selector.as_deref() == Some(probe.selector.as_str());
        self.same = if repeated { self.same + 1 } else { 0 };
        if !repeated && self.walk.steps.first().is_some_and(|s| s.selector == probe.selector) {
            return Next::Stop; // Wrapped around: every reachable element was visited.
        }
        let revisit = !repeated && self.walk.steps.iter().any(|s| s.selector == probe.selector);
        if repeated || revisit {
            if let Suspicion::Region(region) = suspect(&self.walk.steps, &probe.selector, &probe.widget, self.same) {
                return Next::Suspect { region, modal: probe.modal, snippet: probe.snippet };
            }
            self.last_selector = Some(probe.selector);
            return Next::Continue;
        }
        if !probe.changed
            && self.pixel_checks.len() < MAX_PIXEL_CHECKS
            && probe.rect.in_view
            && probe.rect.width > 0.0
            && probe.rect.height > 0.0
            && let Some(index) = probe.index
        {
            self.pixel_checks.push((self.walk.steps.len(), index));
        }
        self.walk.steps.push(FocusStep {
            selector: probe.selector.clone(),
            snippet: probe.snippet,
            tag: probe.tag,
            visible_change: probe.changed,
            method: "style".into(),
        });
        self.last_selector = Some(probe.selector);
        Next::Continue
    }
}

/// Walks the page; `window` is the page's window when the capture minimized it (restored here
/// before the pixel comparisons).
pub(crate) async fn walk(instance: &Instance, page: &Page, budget: &Deadline, window: Option<&PageWindow>) -> Result<KeyboardWalk, BrowserError> {
    run(instance, page, "Emulation.setFocusEmulationEnabled", budget.cap(STEP_TIMEOUT), SetFocusEmulationEnabledParams::new(true)).await?;
    let count = eval(instance, page, budget, &KEYBOARD_INSTALL).await?;
    let focusable_count = count.trim().parse().unwrap_or(0);
    eval(instance, page, budget, "window.__sitescanFocus.reset()").await?;
    if focusable_count == 0 {
        return Ok(KeyboardWalk { focusable_count, ..KeyboardWalk::default() });
    }
    // In a minimized window (see `window`) a press that scrolls and moves the focus ring costs
    // no frame; drawn, that frame is most of the walk's CPU. Focus, styles and geometry are the
    // same either way.
    let started = std::time::Instant::now();
    let walked = walk_through(instance, page, budget).await;
    let walk_ms = started.elapsed().as_millis();
    if let Some(window) = window {
        window.restore(instance).await;
    }
    let (mut walker, order) = walked?;
    let pixel_checks = walker.pixel_checks.len();
    let pixels_started = std::time::Instant::now();
    // Pixels of the steps whose styles showed nothing, now that the window draws again.
    for (step, index) in std::mem::take(&mut walker.pixel_checks) {
        if budget.left() < Duration::from_secs(2) {
            break;
        }
        let shown = eval(instance, page, budget, &format!("window.__sitescanFocus.show({index})")).await?;
        let shown: Probe = crate::browser::lenient::from_json(&shown).map_err(|e| BrowserError::Script { name: "keyboard", message: e.to_string() })?;
        if shown.none || !shown.rect.in_view || shown.rect.width <= 0.0 || shown.rect.height <= 0.0 {
            continue;
        }
        if let Ok(changed) = pixels_change(instance, page, budget, &shown.rect).await {
            walker.walk.steps[step].visible_change = changed;
            walker.walk.steps[step].method = "pixels".into();
        }
    }
    let _ = eval(instance, page, budget, "window.__sitescanFocus.finish()").await;
    tracing::debug!(steps = walker.walk.steps.len(), order, walk_ms, pixel_checks, pixels_ms = pixels_started.elapsed().as_millis(), "keyboard walk");
    // A walk that neither came round nor was trapped stopped at its budget (tab stops or time):
    // it judged the first part of the page's tab order.
    let seen = walker.walk.steps.len();
    let sampled = (!walker.ended && walker.walk.trapped_at.is_none() && focusable_count > seen)
        .then(|| crate::model::Sample::new("tab stops", seen, focusable_count));
    Ok(KeyboardWalk { focusable_count, sampled, ..walker.walk })
}

/// Walks the page by the Tab order computed in the page when no script can change what Tab does
/// there (`keyboard.js`, `plan`), otherwise by pressing Tab (`press_through`).
async fn walk_through(instance: &Instance, page: &Page, budget: &Deadline) -> Result<(Walker, &'static str), BrowserError> {
    let plan = eval(instance, page, budget, "window.__sitescanFocus.plan()").await?;
    let plan: Plan = crate::browser::lenient::from_json(&plan).map_err(|e| BrowserError::Script { name: "keyboard", message: e.to_string() })?;
    if plan.count.is_some() {
        if let Some(walker) = focus_through(instance, page, budget).await? {
            return Ok((walker, "computed"));
        }
        tracing::debug!("the page turned focus away from the computed Tab order; pressing Tab instead");
        eval(instance, page, budget, "window.__sitescanFocus.reset()").await?;
    } else {
        tracing::debug!(why = %plan.why, "Tab order not computed in the page; pressing Tab");
    }
    Ok((press_through(instance, page, budget).await?, "pressed"))
}

/// Walks the computed Tab order in one call, as many steps as the presses the walk would make.
/// `None` when the page turned focus away from a step, or focus came back to an element already
/// walked (only real presses may judge a trap): the walk is then pressed.
async fn focus_through(instance: &Instance, page: &Page, budget: &Deadline) -> Result<Option<Walker>, BrowserError> {
    let mut walker = Walker::default();
    let probes = eval(instance, page, budget, &format!("window.__sitescanFocus.steps({MAX_TABS})")).await?;
    let probes: Vec<Probe> = crate::browser::lenient::from_json(&probes).map_err(|e| BrowserError::Script { name: "keyboard", message: e.to_string() })?;
    for probe in probes {
        if probe.diverged {
            return Ok(None);
        }
        match walker.take(probe) {
            Next::Continue => {}
            Next::Stop => break,
            Next::Suspect { .. } => return Ok(None),
        }
    }
    Ok(Some(walker))
}

/// Presses Tab until the walk ends: `PRESSES_PER_ROUND` presses in one go, read back from the
/// page's log, or one press and one probe at a time when a frame can take focus (its document
/// gets the key events, so the log would miss them) or the log missed a press after all (the
/// walk then starts over that way).
async fn press_through(instance: &Instance, page: &Page, budget: &Deadline) -> Result<Walker, BrowserError> {
    let mut one_by_one = eval(instance, page, budget, "window.__sitescanFocus.framed()").await? == "true";
    let mut walker = Walker::default();
    let mut pressed = 0usize;
    if !one_by_one {
        eval(instance, page, budget, "window.__sitescanFocus.record(true)").await?;
    }
    'walk: while pressed < MAX_TABS {
        if budget.left() < Duration::from_secs(2) {
            break;
        }
        let probes = if one_by_one {
            pressed += 1;
            vec![tab_and_probe(instance, page, budget, false).await?]
        } else {
            let presses = PRESSES_PER_ROUND.min(MAX_TABS - pressed);
            pressed += presses;
            press_tabs(instance, page, budget, presses).await?;
            let log = eval(instance, page, budget, "window.__sitescanFocus.take()").await?;
            let probes: Vec<Probe> = crate::browser::lenient::from_json(&log).map_err(|e| BrowserError::Script { name: "keyboard", message: e.to_string() })?;
            if probes.len() != presses {
                tracing::debug!(presses, logged = probes.len(), "the page's log missed Tab presses; walking one press at a time");
                eval(instance, page, budget, "window.__sitescanFocus.record(false)").await?;
                eval(instance, page, budget, "window.__sitescanFocus.reset()").await?;
                (one_by_one, walker, pressed) = (true, Walker::default(), 0);
                continue;
            }
            probes
        };
        for probe in probes {
            match walker.take(probe) {
                Next::Continue => {}
                Next::Stop => {
                    walker.ended = true;
                    break 'walk;
                }
                Next::Suspect { region, modal, snippet } => {
                    eval(instance, page, budget, "window.__sitescanFocus.record(false)").await?;
                    // Held by a modal, or Shift+Tab gets out: not a trap. Either way Tab cannot
                    // take the walk further.
                    if !modal && !escapes_backward(instance, page, budget, &region).await? {
                        walker.walk.trapped_at = Some(region[0].clone());
                        walker.walk.trapped_snippet = Some(snippet);
                    }
                    break 'walk;
                }
            }
        }
    }
    eval(instance, page, budget, "window.__sitescanFocus.record(false)").await?;
    Ok(walker)
}

/// Sends `presses` Tab presses without waiting for one to be handled before sending the next:
/// the renderer takes key events in the order sent, and the page's log records each.
async fn press_tabs(instance: &Instance, page: &Page, budget: &Deadline, presses: usize) -> Result<(), BrowserError> {
    let keys = (0..presses).flat_map(|_| [DispatchKeyEventType::RawKeyDown, DispatchKeyEventType::KeyUp]);
    let sent = futures::future::join_all(
        keys.map(|ty| run(instance, page, "Input.dispatchKeyEvent", budget.cap(STEP_TIMEOUT), tab_key(ty, false))),
    )
    .await;
    sent.into_iter().try_for_each(|r| r.map(drop))
}

/// Screenshots the element's surroundings focused and blurred; true when they differ.
async fn pixels_change(instance: &Instance, page: &Page, budget: &Deadline, rect: &Rect) -> Result<bool, BrowserError> {
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

    fn probe(selector: &str, changed: bool, index: usize) -> Probe {
        Probe {
            selector: selector.into(),
            changed,
            index: Some(index),
            rect: Rect { width: 10.0, height: 10.0, in_view: true, ..Rect::default() },
            ..Probe::default()
        }
    }

    #[test]
    fn the_walker_reads_probes_in_press_order() {
        let mut walker = Walker::default();
        assert_eq!(walker.take(Probe { none: true, ..Probe::default() }), Next::Continue, "focus not in the page yet");
        assert_eq!(walker.take(probe("#a", true, 0)), Next::Continue);
        assert_eq!(walker.take(probe("#b", false, 1)), Next::Continue);
        assert_eq!(walker.take(probe("#c", true, 2)), Next::Continue);
        // Back at the first stop: every reachable element was visited.
        assert_eq!(walker.take(probe("#a", false, 3)), Next::Stop);
        let selectors: Vec<&str> = walker.walk.steps.iter().map(|s| s.selector.as_str()).collect();
        assert_eq!(selectors, ["#a", "#b", "#c"]);
        assert_eq!(walker.pixel_checks, [(1, 1)], "only the step whose styles showed nothing is compared in pixels");
        // Focus stuck on one ordinary element is a suspected trap after TRAP_PRESSES presses.
        let mut stuck = Walker::default();
        stuck.take(probe("#a", true, 0));
        stuck.take(probe("#code", true, 1));
        assert_eq!(stuck.take(probe("#code", true, 1)), Next::Continue);
        assert!(matches!(stuck.take(probe("#code", true, 1)), Next::Suspect { region, .. } if region == ["#code"]));
    }

    #[test]
    fn coming_back_to_an_earlier_stop_is_a_suspected_cycle() {
        let walked = steps(&["#before", "#first", "#second"]);
        assert_eq!(suspect(&walked, "#first", "", 0), Suspicion::Region(vec!["#first".into(), "#second".into()]));
        // Back at the very first stop: the walk wrapped around the page.
        assert_eq!(suspect(&walked, "#before", "", 0), Suspicion::None);
    }
}
