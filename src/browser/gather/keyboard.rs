//! Keyboard gatherer: presses Tab (`Input.dispatchKeyEvent`) up to `MAX_TABS` times and records
//! where focus lands, whether focusing changed the element's rendering (computed styles of the
//! element, its pseudo-elements and parent, with transitions suspended; when styles show nothing,
//! a clipped screenshot focused vs blurred), and whether focus got stuck (a keyboard trap).

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
/// Consecutive presses that leave focus on the same element before it counts as a trap.
pub const TRAP_PRESSES: usize = 3;

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Probe {
    none: bool,
    selector: String,
    snippet: String,
    tag: String,
    changed: bool,
    rect: Rect,
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

fn tab_key(ty: DispatchKeyEventType) -> DispatchKeyEventParams {
    DispatchKeyEventParams {
        r#type: ty,
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
async fn tab_and_probe(instance: &Instance, page: &Page, budget: &Budget) -> Result<String, BrowserError> {
    run(instance, page, "Input.dispatchKeyEvent", budget.cap(STEP_TIMEOUT), tab_key(DispatchKeyEventType::RawKeyDown)).await?;
    let (up, probe) = tokio::join!(
        run(instance, page, "Input.dispatchKeyEvent", budget.cap(STEP_TIMEOUT), tab_key(DispatchKeyEventType::KeyUp)),
        eval(instance, page, budget, "window.__sitescanFocus ? window.__sitescanFocus.probe() : '{\"none\":true}'")
    );
    up?;
    probe
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
        let text = tab_and_probe(instance, page, budget).await?;
        let probe: Probe = serde_json::from_str(&text).map_err(|e| BrowserError::Script { name: "keyboard", message: e.to_string() })?;
        if probe.none {
            empty += 1;
            // Focus left the document (past the last element) or never entered it.
            if !walk.steps.is_empty() || empty >= 2 {
                break;
            }
            continue;
        }
        // Focus inside a frame shows as the frame element on every press: not a trap.
        let frame = matches!(probe.tag.as_str(), "iframe" | "frame" | "object" | "embed");
        if last_selector.as_deref() == Some(probe.selector.as_str()) {
            if frame {
                continue;
            }
            same += 1;
            if same + 1 >= TRAP_PRESSES && walk.focusable_count > 1 {
                walk.trapped_at = Some(probe.selector.clone());
                walk.trapped_snippet = Some(probe.snippet.clone());
                break;
            }
            continue;
        }
        same = 0;
        if walk.steps.first().is_some_and(|s| s.selector == probe.selector) {
            break; // Wrapped around: every reachable element was visited.
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
