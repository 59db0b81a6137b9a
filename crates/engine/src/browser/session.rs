//! `BrowserSession`: one scan's isolated browser context(s). A capture holds a pool-wide page
//! permit, runs on the least busy browser (the session creates its context there on first use),
//! and is retried once when the browser or the renderer died under it.

use chromiumoxide::cdp::browser_protocol::browser::{BrowserContextId, SetDownloadBehaviorBehavior, SetDownloadBehaviorParams};
use chromiumoxide::cdp::browser_protocol::target::{CreateBrowserContextParams, DisposeBrowserContextParams};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use crate::model::{PageError, PageSnapshot};

use super::capture::{CaptureSettings, CaptureOutcome, Parked, capture};
use super::cdp::STEP_TIMEOUT;
use super::error::BrowserError;
use super::instance::Instance;
use super::pool::BrowserPool;
use super::shared_regions::{RegionVerdicts, SharedRegions};

type Contexts = tokio::sync::Mutex<HashMap<u64, (Weak<Instance>, BrowserContextId)>>;

#[derive(Debug)]
pub struct BrowserSession {
    pool: Arc<BrowserPool>,
    contexts: Contexts,
    /// Pages kept open between captures (one per page in flight at most), by browser.
    parked: std::sync::Mutex<Vec<(u64, Weak<Instance>, Parked)>>,
    closed: AtomicBool,
    /// What axe found in the regions of the scan's pages, by fingerprint.
    shared: Arc<SharedRegions>,
}

impl BrowserSession {
    pub(crate) fn new(pool: Arc<BrowserPool>) -> BrowserSession {
        BrowserSession { pool, contexts: tokio::sync::Mutex::new(HashMap::new()), parked: std::sync::Mutex::default(), closed: AtomicBool::new(false), shared: Arc::default() }
    }

    /// Renders `url` and gathers its snapshot. Never fails: trouble is in `snapshot.error`
    /// (`navigation`, `blocked`, `timeout`, `crashed`, `redirect_loop`, `internal`).
    pub async fn capture(&self, url: &str) -> PageSnapshot {
        let _permit = match self.pool.acquire().await {
            Ok(p) => p,
            Err(e) => return failed(url, "internal", e.to_string()),
        };
        let settings = CaptureSettings {
            navigation_timeout: self.pool.options.navigation_timeout,
            page_timeout: self.pool.options.page_timeout,
            capture: self.pool.options.capture,
            user_agent: self.pool.user_agent.clone(),
            shared: self.pool.options.capture.share.then(|| self.shared.clone()),
        };
        let mut last: Option<PageSnapshot> = None;
        for attempt in 0..2 {
            let inst = match self.pool.instance_for_page().await {
                Ok(i) => i,
                Err(e) => return last.unwrap_or_else(|| failed(url, e.page_error_kind(), e.to_string())),
            };
            let context = match self.context_on(&inst).await {
                Ok(c) => c,
                Err(e) => {
                    if !inst.is_alive() || !inst.ping().await {
                        self.pool.browser_failed(&inst).await;
                        if attempt == 0 {
                            continue;
                        }
                    }
                    return failed(url, e.page_error_kind(), e.to_string());
                }
            };
            self.pool.note_page(&inst);
            self.pool.page_started();
            let reuse = self.unpark(inst.id);
            let (snap, outcome, parked) = capture(&inst, &context, url, &settings, &self.pool.proxy, reuse).await;
            self.pool.page_finished();
            self.pool.end_page(&inst);
            if let Some(parked) = parked {
                self.park(&inst, parked).await;
            }
            let retry = match outcome {
                CaptureOutcome::Done => false,
                CaptureOutcome::PageCrashed => true,
                CaptureOutcome::BrowserGone => {
                    self.pool.browser_failed(&inst).await;
                    true
                }
                CaptureOutcome::TimedOut => {
                    if inst.ping().await {
                        false
                    } else {
                        tracing::warn!(browser = inst.id, url, "browser stopped answering during a capture");
                        self.pool.browser_failed(&inst).await;
                        true
                    }
                }
            };
            if !retry || attempt == 1 {
                return snap;
            }
            tracing::info!(url, ?outcome, "retrying the page once");
            last = Some(snap);
        }
        last.unwrap_or_else(|| failed(url, "internal", "no attempt made".into()))
    }

    /// Starts this scan's shared regions with what earlier scans of the site found (fingerprint,
    /// findings), as `verdicts` handed them out.
    pub fn seed_regions(&self, entries: Vec<(String, String)>) {
        self.shared.seed(entries);
    }

    /// What this scan leaves for the next scan of its site (see `seed_regions`).
    pub fn region_verdicts(&self) -> RegionVerdicts {
        self.shared.verdicts()
    }

    /// A page left open on browser `instance` by an earlier capture of this scan.
    fn unpark(&self, instance: u64) -> Option<Parked> {
        let mut parked = self.parked.lock().ok()?;
        let at = parked.iter().position(|(id, _, _)| *id == instance)?;
        Some(parked.swap_remove(at).2)
    }

    /// Keeps `page` for the scan's next capture on `inst`, unless the session is closing or the
    /// browser is being replaced.
    async fn park(&self, inst: &Arc<Instance>, page: Parked) {
        if self.closed.load(Ordering::SeqCst) || !inst.is_available() {
            page.close(inst).await;
            return;
        }
        match self.parked.lock() {
            Ok(mut parked) => parked.push((inst.id, Arc::downgrade(inst), page)),
            Err(_) => tracing::debug!("parked pages unavailable"),
        }
    }

    /// The session's context on `inst`, created on first use with the egress proxy.
    async fn context_on(&self, inst: &Arc<Instance>) -> Result<BrowserContextId, BrowserError> {
        let mut contexts = self.contexts.lock().await;
        if let Some((_, id)) = contexts.get(&inst.id) {
            return Ok(id.clone());
        }
        let id = new_context(&self.pool, inst).await?;
        contexts.insert(inst.id, (Arc::downgrade(inst), id.clone()));
        Ok(id)
    }

    /// Runs one journey from `start` in a browser context of its own (created for it behind the
    /// egress proxy, disposed after it: its cookies and storage never reach another journey or
    /// scan). Never fails: trouble is in the outcome.
    pub async fn run_journey(
        &self,
        start: &str,
        spec: &crate::model::JourneySpec,
        allowance: &mut super::journey::JourneyAllowance,
        proxy: Option<&crate::net::EgressProxy>,
    ) -> crate::model::journey::JourneyRun {
        let failed = |message: String| {
            let mut outcome = crate::model::JourneyOutcome {
                name: spec.secrets.mask(&spec.journey.name),
                start_url: spec.secrets.mask(start),
                error: Some(spec.secrets.mask(&message)),
                ..Default::default()
            };
            outcome.steps = spec
                .journey
                .steps
                .iter()
                .enumerate()
                .map(|(i, s)| crate::model::StepResult {
                    index: i,
                    action: s.action.key().to_string(),
                    summary: spec.secrets.mask(&s.action.summary()),
                    selector: s.action.selector().map(|x| spec.secrets.mask(x)),
                    status: crate::model::StepStatus::Skipped,
                    ..Default::default()
                })
                .collect();
            crate::model::journey::JourneyRun { outcome, audits: Vec::new() }
        };
        let _permit = match self.pool.acquire().await {
            Ok(p) => p,
            Err(e) => return failed(e.to_string()),
        };
        let inst = match self.pool.instance_for_page().await {
            Ok(i) => i,
            Err(e) => return failed(e.to_string()),
        };
        // Behind the scan's own proxy when it pins the site (an active scan), else the pool's.
        let proxy = proxy.unwrap_or(&self.pool.proxy);
        let context = match new_context_via(&self.pool, &inst, proxy.proxy_server()).await {
            Ok(c) => c,
            Err(e) => return failed(format!("no browser context for the journey: {e}")),
        };
        let settings = CaptureSettings {
            navigation_timeout: self.pool.options.navigation_timeout,
            page_timeout: self.pool.options.page_timeout,
            capture: self.pool.options.capture,
            user_agent: self.pool.user_agent.clone(),
            // A journey's pages are behind its login: judged in full.
            shared: None,
        };
        self.pool.note_page(&inst);
        self.pool.page_started();
        let ran = super::journey::run_journey(&inst, &context, start, spec, &settings, proxy, allowance).await;
        self.pool.page_finished();
        self.pool.end_page(&inst);
        dispose(vec![(Arc::downgrade(&inst), context)]).await;
        ran
    }

    /// Disposes the session's browser contexts (their pages, cookies and cache).
    pub async fn close(self) {
        self.closed.store(true, Ordering::SeqCst);
        let (kept, reused, from_earlier_scans) = self.shared.counts();
        let images_reused = self.shared.images.reused();
        if images_reused > 0 {
            tracing::debug!(images_reused, "image animations known from an earlier page");
            self.pool.images_reused.fetch_add(images_reused as u64, Ordering::SeqCst);
        }
        let looks_reused = self.shared.looks.reused();
        if looks_reused > 0 {
            tracing::debug!(looks_reused, "first looks of images known from an earlier page");
        }
        if kept > 0 {
            let (pages_unchanged, facts_unchanged) = (self.shared.pages_reused(), self.shared.facts_reused());
            tracing::debug!(kept, reused, from_earlier_scans, pages_unchanged, facts_unchanged, "regions judged once and given back");
            self.pool.facts_given_back.fetch_add(facts_unchanged as u64, Ordering::SeqCst);
            self.pool.regions_reused.fetch_add(reused as u64, Ordering::SeqCst);
            self.pool.regions_from_earlier_scans.fetch_add(from_earlier_scans as u64, Ordering::SeqCst);
            self.pool.pages_given_back.fetch_add(self.shared.pages_reused() as u64, Ordering::SeqCst);
        }
        let parked: Vec<_> = self.parked.lock().map(|mut p| p.drain(..).collect()).unwrap_or_default();
        for (_, inst, page) in parked {
            if let Some(inst) = inst.upgrade() {
                page.close(&inst).await;
            }
        }
        let contexts: Vec<_> = self.contexts.lock().await.drain().map(|(_, v)| v).collect();
        dispose(contexts).await;
    }
}

/// A fresh browser context on `inst` whose every request goes through the egress proxy, with
/// downloads denied.
async fn new_context(pool: &BrowserPool, inst: &Arc<Instance>) -> Result<BrowserContextId, BrowserError> {
    new_context_via(pool, inst, pool.proxy_server()).await
}

/// A browser context behind `proxy_server`.
async fn new_context_via(_pool: &BrowserPool, inst: &Arc<Instance>, proxy_server: String) -> Result<BrowserContextId, BrowserError> {
    let params = CreateBrowserContextParams {
        dispose_on_detach: Some(true),
        proxy_server: Some(proxy_server),
        proxy_bypass_list: Some("<-loopback>".into()),
        origins_with_universal_network_access: None,
    };
    let id = match tokio::time::timeout(STEP_TIMEOUT, inst.browser.create_browser_context(params)).await {
        Ok(Ok(id)) => id,
        Ok(Err(e)) => return Err(BrowserError::Cdp { what: "Target.createBrowserContext", message: e.to_string() }),
        Err(_) => return Err(BrowserError::Timeout { what: "Target.createBrowserContext", after: STEP_TIMEOUT }),
    };
    // A scan never writes downloads to disk.
    let deny = SetDownloadBehaviorParams {
        behavior: SetDownloadBehaviorBehavior::Deny,
        browser_context_id: Some(id.clone()),
        download_path: None,
        events_enabled: None,
    };
    if !matches!(tokio::time::timeout(STEP_TIMEOUT, inst.browser.execute(deny)).await, Ok(Ok(_))) {
        tracing::debug!(browser = inst.id, "Browser.setDownloadBehavior failed");
    }
    Ok(id)
}

async fn dispose(contexts: Vec<(Weak<Instance>, BrowserContextId)>) {
    for (inst, id) in contexts {
        let Some(inst) = inst.upgrade().filter(|i| i.is_alive()) else { continue };
        let done = tokio::time::timeout(Duration::from_secs(5), inst.browser.execute(DisposeBrowserContextParams::new(id))).await;
        if !matches!(done, Ok(Ok(_))) {
            tracing::debug!(browser = inst.id, "disposing a browser context failed");
        }
    }
}

impl Drop for BrowserSession {
    fn drop(&mut self) {
        if self.closed.load(Ordering::SeqCst) {
            return;
        }
        if let Ok(mut parked) = self.parked.lock() {
            for (_, inst, page) in parked.drain(..) {
                if let Some(inst) = inst.upgrade() {
                    page.unroute(&inst);
                }
            }
        }
        let contexts: Vec<_> = match self.contexts.try_lock() {
            Ok(mut c) => c.drain().map(|(_, v)| v).collect(),
            Err(_) => return,
        };
        if contexts.is_empty() {
            return;
        }
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            handle.spawn(dispose(contexts));
        }
    }
}

fn failed(url: &str, kind: &str, message: String) -> PageSnapshot {
    PageSnapshot {
        requested_url: url.to_string(),
        final_url: url.to_string(),
        error: Some(PageError { kind: kind.to_string(), message }),
        ..PageSnapshot::default()
    }
}
