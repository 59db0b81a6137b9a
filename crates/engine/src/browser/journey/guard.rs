//! Holding a journey's page to its origins: request interception of every document request,
//! and popups closed as soon as they appear.

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::fetch::{
    ContinueRequestParams, EnableParams as FetchEnableParams, EventRequestPaused, FailRequestParams, RequestPattern, RequestStage,
};
use chromiumoxide::cdp::browser_protocol::network::{ErrorReason, ResourceType};
use futures::StreamExt;
use std::sync::{Arc, Mutex};

use crate::browser::cdp::{Deadline, run, step};
use crate::browser::error::BrowserError;
use crate::browser::instance::Instance;
use crate::model::journey::may_load;

use super::READ_LIMIT;

/// The request interception that holds the journey's page to its origins: every document
/// request is paused until checked, then continued or failed. Stops with the value.
pub(super) struct NavigationGuard {
    /// Why each refused request was refused, in order (`URL: reason`).
    refused: Arc<Mutex<Vec<String>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for NavigationGuard {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl NavigationGuard {
    pub(super) async fn start(instance: &Arc<Instance>, page: &Page, allowed: Vec<String>, budget: &Deadline) -> Result<NavigationGuard, BrowserError> {
        let mut paused = step(instance, "Fetch.requestPaused listener", budget.cap(READ_LIMIT), async {
            page.event_listener::<EventRequestPaused>().await.map_err(|e| BrowserError::Cdp { what: "Fetch.requestPaused", message: e.to_string() })
        })
        .await?;
        let pattern = RequestPattern { url_pattern: Some("*".into()), resource_type: Some(ResourceType::Document), request_stage: Some(RequestStage::Request) };
        let enable = FetchEnableParams { patterns: Some(vec![pattern]), handle_auth_requests: None };
        run(instance, page, "Fetch.enable", budget.cap(READ_LIMIT), enable).await?;
        let refused = Arc::new(Mutex::new(Vec::new()));
        let log = refused.clone();
        let page = page.clone();
        let task = tokio::spawn(async move {
            while let Some(event) = paused.next().await {
                let url = &event.request.url;
                let answer = match may_load(url, &allowed) {
                    Ok(()) => tokio::time::timeout(READ_LIMIT, page.execute(ContinueRequestParams::new(event.request_id.clone()))).await.map(|r| r.is_ok()),
                    Err(why) => {
                        tracing::info!(url = %url, reason = %why, "journey navigation refused");
                        if let Ok(mut l) = log.lock()
                            && l.len() < 100 {
                                l.push(format!("{url}: {why}"));
                            }
                        let fail = FailRequestParams::new(event.request_id.clone(), ErrorReason::BlockedByClient);
                        tokio::time::timeout(READ_LIMIT, page.execute(fail)).await.map(|r| r.is_ok())
                    }
                };
                if !matches!(answer, Ok(true)) {
                    tracing::debug!(url = %url, "a paused journey request could not be answered (the page is gone?)");
                }
            }
        });
        Ok(NavigationGuard { refused, task })
    }

    pub(super) fn refused_count(&self) -> usize {
        self.refused.lock().map(|l| l.len()).unwrap_or(0)
    }

    /// The first refusal after the first `from`.
    pub(super) fn refused_since(&self, from: usize) -> Option<String> {
        self.refused.lock().ok().and_then(|l| l.get(from).cloned())
    }
}

/// Closes every other page that appears in the journey's browser context (a popup or a new tab
/// the page opened). The default headless shell runs with `--block-new-web-contents`, where no
/// page can open one; a full Chromium (`--chromium`) ignores that flag, and this closes them as
/// soon as the browser announces them.
pub(super) struct PopupCloser {
    task: tokio::task::JoinHandle<()>,
}

impl Drop for PopupCloser {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl PopupCloser {
    pub(super) async fn start(instance: &Arc<Instance>, context: &BrowserContextId, page: &Page) -> Result<PopupCloser, BrowserError> {
        use chromiumoxide::cdp::browser_protocol::target::{CloseTargetParams, EventTargetCreated};
        let mut created = step(instance, "Target.targetCreated listener", READ_LIMIT, async {
            instance.browser.event_listener::<EventTargetCreated>().await.map_err(|e| BrowserError::Cdp { what: "Target.targetCreated", message: e.to_string() })
        })
        .await?;
        let (inst, context, ours) = (instance.clone(), context.clone(), page.target_id().clone());
        let task = tokio::spawn(async move {
            while let Some(event) = created.next().await {
                let info = &event.target_info;
                if info.browser_context_id.as_ref() == Some(&context) && info.target_id != ours && info.r#type == "page" {
                    tracing::info!(url = %info.url, "a journey's page opened a window: closed");
                    let _ = tokio::time::timeout(READ_LIMIT, inst.browser.execute(CloseTargetParams::new(info.target_id.clone()))).await;
                }
            }
        });
        Ok(PopupCloser { task })
    }
}
