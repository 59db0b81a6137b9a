//! The page's window (each page has its own): minimized once nothing more needs drawing, so that
//! animations, focus rings and scrolling into view cost no frames while the in-page gatherers
//! read the page; restored when pixels are needed again. Headless Chromium keeps the document
//! visible and focused while minimized (`visibilityState` stays `visible`): only frames stop.

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::browser::{Bounds, GetWindowForTargetParams, SetWindowBoundsParams, WindowId, WindowState};
use std::sync::atomic::{AtomicBool, Ordering};

use super::cdp::{STEP_TIMEOUT, step};
use super::error::BrowserError;
use super::instance::Instance;

/// A minimized page window, to restore.
#[derive(Debug)]
pub(crate) struct PageWindow {
    id: WindowId,
    minimized: AtomicBool,
}

impl PageWindow {
    /// Minimizes the page's window; `None` when the browser has no window to minimize (a remote
    /// endpoint without window management): the page is then simply drawn as before.
    pub(crate) async fn minimize(instance: &Instance, page: &Page) -> Option<PageWindow> {
        let target = page.target_id().clone();
        let found = step(instance, "Browser.getWindowForTarget", STEP_TIMEOUT, async {
            instance
                .browser
                .execute(GetWindowForTargetParams { target_id: Some(target) })
                .await
                .map_err(|e| BrowserError::Cdp { what: "Browser.getWindowForTarget", message: e.to_string() })
        })
        .await;
        let id = match found {
            Ok(found) => found.result.window_id,
            Err(e) => {
                tracing::debug!(error = %e, "no window to minimize");
                return None;
            }
        };
        set_state(instance, id.clone(), WindowState::Minimized)
            .await
            .then(|| PageWindow { id, minimized: AtomicBool::new(true) })
    }

    /// Draws the page again (once; later calls do nothing).
    pub(crate) async fn restore(&self, instance: &Instance) {
        if self.minimized.swap(false, Ordering::SeqCst) {
            set_state(instance, self.id.clone(), WindowState::Normal).await;
        }
    }
}

async fn set_state(instance: &Instance, id: WindowId, state: WindowState) -> bool {
    let params = SetWindowBoundsParams::new(id, Bounds { window_state: Some(state.clone()), ..Bounds::default() });
    let set = step(instance, "Browser.setWindowBounds", STEP_TIMEOUT, async {
        instance.browser.execute(params).await.map_err(|e| BrowserError::Cdp { what: "Browser.setWindowBounds", message: e.to_string() })
    })
    .await;
    if let Err(e) = &set {
        tracing::debug!(error = %e, ?state, "window state not set");
    }
    set.is_ok()
}
