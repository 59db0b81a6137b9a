//! The page's window (each page has its own): minimized once nothing more needs drawing, so that
//! animations, focus rings and scrolling into view cost no frames while the in-page gatherers
//! read the page; restored when pixels are needed again. The full browser's headless mode keeps
//! the document visible and focused while minimized (`visibilityState` stays `visible`): only
//! frames stop. The headless shell hides the document instead (`visibilitychange` fires, so a
//! page's own handlers would run, pause media or send beacons no visitor causes), so there a
//! window is never minimized: each browser learns which it is on its first page, still blank.
//! On the benchmark site the shell was no faster minimized (25.9 and 26.0 s against 25.6 and
//! 27.9 s; the walk's frames cost about 5 ms a page).

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::browser::{Bounds, GetWindowForTargetParams, SetWindowBoundsParams, WindowId, WindowState};
use std::sync::atomic::{AtomicBool, Ordering};

use super::cdp::{STEP_TIMEOUT, eval_main, step};
use super::error::BrowserError;
use super::instance::Instance;

/// `Instance::minimize_hides`: not known yet, the document stays visible, it is hidden.
pub(crate) const MINIMIZE_UNKNOWN: u8 = 0;
pub(crate) const MINIMIZE_KEEPS_VISIBLE: u8 = 1;
pub(crate) const MINIMIZE_HIDES: u8 = 2;

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
        let known = instance.minimize_hides.load(Ordering::SeqCst);
        if known == MINIMIZE_HIDES {
            return None;
        }
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
        if !set_state(instance, id, WindowState::Minimized).await {
            return None;
        }
        if known == MINIMIZE_UNKNOWN {
            let state = eval_main(instance, page, "visibility", "document.visibilityState", STEP_TIMEOUT).await;
            let hides = matches!(state.as_deref(), Ok("hidden"));
            instance.minimize_hides.store(if hides { MINIMIZE_HIDES } else { MINIMIZE_KEEPS_VISIBLE }, Ordering::SeqCst);
            if hides {
                tracing::debug!(browser = instance.id, "minimizing hides the document here; windows stay as they are");
                set_state(instance, id, WindowState::Normal).await;
                return None;
            }
        }
        Some(PageWindow { id, minimized: AtomicBool::new(true) })
    }

    /// Learns, on a page that shows nothing yet (`about:blank`), whether minimizing hides the
    /// document in this browser, so that no scanned page is minimized only to find out.
    pub(crate) async fn learn(instance: &Instance, page: &Page) {
        if instance.minimize_hides.load(Ordering::SeqCst) == MINIMIZE_UNKNOWN
            && let Some(window) = PageWindow::minimize(instance, page).await
        {
            window.restore(instance).await;
        }
    }

    /// Draws the page again (once; later calls do nothing).
    pub(crate) async fn restore(&self, instance: &Instance) {
        if self.minimized.swap(false, Ordering::SeqCst) {
            set_state(instance, self.id, WindowState::Normal).await;
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
