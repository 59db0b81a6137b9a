//! One browser the pool drives: a launched Chromium process or a remote DevTools endpoint, the
//! chromiumoxide connection, the task that polls its handler, and the router that hands CDP
//! messages chromiumoxide cannot parse to the page they belong to.

use chromiumoxide::Browser;
use chromiumoxide::cdp::browser_protocol::browser::{CloseParams, GetVersionParams};
use chromiumoxide::cdp::browser_protocol::target::{CloseTargetParams, GetTargetsParams};
use chromiumoxide::error::CdpError;
use chromiumoxide::handler::HandlerConfig;
use chromiumoxide::handler::viewport::Viewport;
use futures::StreamExt;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use super::devtools_relay::Relay;
use super::error::BrowserError;
use super::events::RawEvent;
use super::launch::ChromiumProcess;
use super::options::{VIEWPORT_HEIGHT, VIEWPORT_WIDTH};

/// How long a health probe (`Browser.getVersion`) may take.
pub const PING_TIMEOUT: Duration = Duration::from_secs(5);

/// Session id -> where that page's unparsed events go.
type RawRoutes = Arc<Mutex<HashMap<String, mpsc::UnboundedSender<RawEvent>>>>;

#[derive(Debug)]
pub(crate) struct Instance {
    pub(crate) id: u64,
    pub(crate) browser: Browser,
    process: Option<ChromiumProcess>,
    endpoint: String,
    dead_tx: watch::Sender<bool>,
    dead_rx: watch::Receiver<bool>,
    retiring: AtomicBool,
    crash_counted: AtomicBool,
    /// Whether minimizing a page's window hides its document (`window::MINIMIZE_*`), learnt on
    /// the first minimize.
    pub(crate) minimize_hides: AtomicU8,
    /// Pages open right now.
    pub(crate) active: AtomicUsize,
    /// Pages started over the instance's life.
    pub(crate) started: AtomicUsize,
    raw_routes: RawRoutes,
    /// The relay that holds Chromium's messages to their budgets (`devtools_relay`); `None`
    /// for a `wss://` endpoint. Kept for its life (dropping it ends the relay).
    _relay: Option<Relay>,
    /// Session id -> the isolated world the gatherers' scripts run in for the page's current
    /// document (`cdp::eval_string`); forgotten when the page navigates or closes.
    worlds: Mutex<HashMap<String, chromiumoxide::cdp::js_protocol::runtime::ExecutionContextId>>,
    /// Pages whose renderer stopped answering, by session: the step that found it (`cdp.rs`).
    stalled: Mutex<HashMap<String, &'static str>>,
    handler: JoinHandle<()>,
    watcher: Option<JoinHandle<()>>,
}

/// The browser's WebSocket address: `endpoint` itself, or for `http://host:port` the one its
/// `/json/version` names.
async fn devtools_ws_url(endpoint: &str) -> Result<String, String> {
    if endpoint.starts_with("ws://") || endpoint.starts_with("wss://") {
        return Ok(endpoint.to_string());
    }
    let url = format!("{}/json/version", endpoint.trim_end_matches('/'));
    let client = reqwest::Client::builder().no_proxy().timeout(Duration::from_secs(10)).build().map_err(|e| e.to_string())?;
    let body = client
        .get(&url)
        .send()
        .await
        .and_then(reqwest::Response::error_for_status)
        .map_err(|e| format!("{url}: {e}"))?
        .bytes()
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    let version: serde_json::Value = serde_json::from_slice(&body).map_err(|e| format!("{url}: {e}"))?;
    version["webSocketDebuggerUrl"].as_str().map(str::to_string).ok_or_else(|| format!("{url} names no webSocketDebuggerUrl"))
}

impl Instance {
    /// Launches a local Chromium routed through `proxy_server` and connects to it.
    pub(crate) async fn launch(id: u64, exe: &Path, proxy_server: &str, request_timeout: Duration, no_sandbox: bool) -> Result<Arc<Instance>, BrowserError> {
        let process = ChromiumProcess::spawn(exe, proxy_server, no_sandbox).await?;
        let ws = process.ws_url().to_string();
        Instance::attach(id, ws, Some(process), request_timeout).await
    }

    /// Connects to a remote DevTools endpoint (`ws://...`, or `http://host:port` to look it up).
    pub(crate) async fn connect(id: u64, endpoint: &str, request_timeout: Duration) -> Result<Arc<Instance>, BrowserError> {
        Instance::attach(id, endpoint.to_string(), None, request_timeout).await
    }

    async fn attach(id: u64, endpoint: String, process: Option<ChromiumProcess>, request_timeout: Duration) -> Result<Arc<Instance>, BrowserError> {
        let config = HandlerConfig {
            // A certificate problem is something a scan must see, not hide.
            ignore_https_errors: false,
            // Unparsable messages come to us (see `route_raw`) instead of being dropped.
            ignore_invalid_messages: false,
            viewport: Some(Viewport {
                width: VIEWPORT_WIDTH,
                height: VIEWPORT_HEIGHT,
                device_scale_factor: Some(1.0),
                emulating_mobile: false,
                is_landscape: true,
                has_touch: false,
            }),
            context_ids: Vec::new(),
            request_timeout,
            request_intercept: false,
            cache_enabled: true,
        };
        let relay = match devtools_ws_url(&endpoint).await {
            Ok(ws) if ws.starts_with("ws://") => {
                Some(Relay::start(&ws).await.map_err(|e| BrowserError::Connect { endpoint: endpoint.clone(), message: e.to_string() })?)
            }
            Ok(_) => {
                tracing::warn!(%endpoint, "a wss:// DevTools endpoint is connected without sitescan's message budget");
                None
            }
            Err(message) => return Err(BrowserError::Connect { endpoint, message }),
        };
        let target = relay.as_ref().map_or_else(|| endpoint.clone(), |r| r.url.clone());
        let connect = Browser::connect_with_config(target, config);
        let (browser, mut handler) = match tokio::time::timeout(Duration::from_secs(20), connect).await {
            Ok(Ok(pair)) => pair,
            Ok(Err(e)) => {
                return Err(BrowserError::Connect { endpoint, message: e.to_string() });
            }
            Err(_) => {
                return Err(BrowserError::Connect { endpoint, message: "timed out".into() });
            }
        };
        let (dead_tx, dead_rx) = watch::channel(false);
        let raw_routes: RawRoutes = Arc::default();
        let (routes, dead) = (raw_routes.clone(), dead_tx.clone());
        let handler = tokio::spawn(async move {
            // Poll for the browser's whole life; never stop on an error.
            while let Some(item) = handler.next().await {
                match item {
                    Ok(()) => {}
                    Err(CdpError::InvalidMessage(text, err)) => route_raw(&routes, &text, &err.to_string()),
                    Err(CdpError::Ws(e)) => {
                        tracing::debug!(browser = id, error = %e, "DevTools connection error");
                        let _ = dead.send(true);
                    }
                    Err(e) => tracing::debug!(browser = id, error = %e, "CDP handler error"),
                }
            }
            let _ = dead.send(true);
        });
        tracing::debug!(browser = id, %endpoint, "connected to DevTools");
        let watcher = process.as_ref().map(|p| {
            let mut exited = p.exited();
            let dead = dead_tx.clone();
            tokio::spawn(async move {
                let _ = exited.wait_for(|e| *e).await;
                let _ = dead.send(true);
            })
        });
        let instance = Instance {
            id,
            browser,
            process,
            endpoint,
            dead_tx,
            dead_rx,
            retiring: AtomicBool::new(false),
            crash_counted: AtomicBool::new(false),
            minimize_hides: AtomicU8::new(super::window::MINIMIZE_UNKNOWN),
            active: AtomicUsize::new(0),
            started: AtomicUsize::new(0),
            raw_routes,
            _relay: relay,
            worlds: Mutex::default(),
            stalled: Mutex::default(),
            handler,
            watcher,
        };
        if !instance.ping().await {
            return Err(BrowserError::Connect { endpoint: instance.endpoint.clone(), message: "does not answer Browser.getVersion".into() });
        }
        if instance.process.is_some() {
            instance.close_start_page().await;
        }
        Ok(Arc::new(instance))
    }

    /// Closes the `about:blank` a launched Chromium starts with: every capture opens a window of
    /// its own, and the start page would hold a renderer process for the browser's whole life.
    /// Headless Chromium keeps running without windows. Best effort.
    async fn close_start_page(&self) {
        let close = async {
            let targets = self.browser.execute(GetTargetsParams::default()).await.ok()?;
            for t in targets.result.target_infos.iter().filter(|t| t.r#type == "page") {
                let _ = self.browser.execute(CloseTargetParams::new(t.target_id.clone())).await;
            }
            Some(())
        };
        if tokio::time::timeout(Duration::from_secs(5), close).await.is_err() {
            tracing::debug!(browser = self.id, "closing the start page timed out");
        }
    }

    pub(crate) fn pid(&self) -> Option<u32> {
        self.process.as_ref().map(ChromiumProcess::pid)
    }

    pub(crate) fn is_remote(&self) -> bool {
        self.process.is_none()
    }

    pub(crate) fn is_alive(&self) -> bool {
        !*self.dead_rx.borrow()
    }

    /// Resolves when the browser is found dead (process exit, connection loss, or `mark_dead`).
    pub(crate) async fn dead(&self) {
        let mut rx = self.dead_rx.clone();
        let _ = rx.wait_for(|d| *d).await;
    }

    /// Declares the browser dead (it stopped answering) and kills a launched process.
    pub(crate) fn mark_dead(&self) {
        let _ = self.dead_tx.send(true);
        if let Some(p) = &self.process {
            p.kill();
        }
    }

    /// True the first time it is called on a dead instance (so a crash is counted once).
    pub(crate) fn take_crash(&self) -> bool {
        !self.is_alive() && !self.crash_counted.swap(true, Ordering::SeqCst)
    }

    pub(crate) fn retire(&self) {
        self.retiring.store(true, Ordering::SeqCst);
    }

    pub(crate) fn is_retiring(&self) -> bool {
        self.retiring.load(Ordering::SeqCst)
    }

    /// Usable for a new page.
    pub(crate) fn is_available(&self) -> bool {
        self.is_alive() && !self.is_retiring()
    }

    /// `Browser.getVersion` answers within `PING_TIMEOUT`.
    pub(crate) async fn ping(&self) -> bool {
        if !self.is_alive() {
            return false;
        }
        matches!(tokio::time::timeout(PING_TIMEOUT, self.browser.execute(GetVersionParams::default())).await, Ok(Ok(_)))
    }

    /// Sends unparsable CDP messages of `session_id` to `tx` until `unroute`.
    pub(crate) fn route(&self, session_id: &str, tx: mpsc::UnboundedSender<RawEvent>) {
        if let Ok(mut routes) = self.raw_routes.lock() {
            routes.insert(session_id.to_string(), tx);
        }
    }

    pub(crate) fn unroute(&self, session_id: &str) {
        if let Ok(mut routes) = self.raw_routes.lock() {
            routes.remove(session_id);
        }
        self.forget_world(session_id);
        if let Ok(mut stalled) = self.stalled.lock() {
            stalled.remove(session_id);
        }
    }

    /// The isolated world kept for `session_id`'s current document, if any.
    pub(crate) fn world(&self, session_id: &str) -> Option<chromiumoxide::cdp::js_protocol::runtime::ExecutionContextId> {
        self.worlds.lock().ok().and_then(|w| w.get(session_id).cloned())
    }

    pub(crate) fn keep_world(&self, session_id: &str, context: chromiumoxide::cdp::js_protocol::runtime::ExecutionContextId) {
        if let Ok(mut worlds) = self.worlds.lock() {
            worlds.insert(session_id.to_string(), context);
        }
    }

    /// Forgets `session_id`'s isolated world (its document is replaced or gone).
    pub(crate) fn forget_world(&self, session_id: &str) {
        if let Ok(mut worlds) = self.worlds.lock() {
            worlds.remove(session_id);
        }
    }

    /// The step after which `session_id`'s renderer stopped answering, if it did.
    pub(crate) fn stalled(&self, session_id: &str) -> Option<&'static str> {
        self.stalled.lock().ok().and_then(|s| s.get(session_id).copied())
    }

    pub(crate) fn mark_stalled(&self, session_id: &str, step: &'static str) {
        if let Ok(mut stalled) = self.stalled.lock() {
            stalled.entry(session_id.to_string()).or_insert(step);
        }
    }

    /// Closes the browser: `Browser.close`, then the process group is killed. For a remote
    /// endpoint only the connection is dropped.
    pub(crate) async fn close(&self) {
        if let Some(p) = &self.process {
            if self.is_alive() {
                let _ = tokio::time::timeout(Duration::from_secs(3), self.browser.execute(CloseParams::default())).await;
            }
            p.kill_and_wait().await;
        }
        let _ = self.dead_tx.send(true);
        self.handler.abort();
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        if let Some(p) = &self.process {
            p.kill();
        }
        self.handler.abort();
        if let Some(w) = &self.watcher {
            w.abort();
        }
    }
}

/// Hands a message chromiumoxide could not parse (its CDP types lag behind Chromium, e.g.
/// `Network.requestWillBeSentExtraInfo`) to the page session it belongs to.
fn route_raw(routes: &RawRoutes, text: &str, err: &str) {
    // A page's script can send text with half a surrogate pair (a string cut inside an emoji),
    // which JSON parsers refuse: such a half reads as U+FFFD.
    let parsed = serde_json::from_str::<serde_json::Value>(text).or_else(|_| serde_json::from_str(&super::lenient::repair_surrogates(text)));
    let Ok(value) = parsed else {
        tracing::debug!(error = err, "unparsable CDP message is not JSON");
        return;
    };
    let Some(method) = value.get("method").and_then(|m| m.as_str()) else {
        tracing::debug!(error = err, "unparsable CDP response");
        return;
    };
    let Some(session) = value.get("sessionId").and_then(|s| s.as_str()) else {
        tracing::trace!(method, "unparsable browser-level event");
        return;
    };
    let tx = routes.lock().ok().and_then(|r| r.get(session).cloned());
    if let Some(tx) = tx {
        let params = value.get("params").cloned().unwrap_or(serde_json::Value::Null);
        let _ = tx.send(RawEvent { method: method.to_string(), params });
    }
}
