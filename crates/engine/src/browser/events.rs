//! The event log of one page: every CDP event a gatherer needs, as `(method, params JSON)`, in
//! arrival order. Typed chromiumoxide events are turned back into JSON and merged with the
//! messages chromiumoxide could not parse (routed here by the instance), so gatherers read one
//! lenient format whatever the CDP types of the day. Also tracks load, crash and network
//! activity for the capture's waits.

use chromiumoxide::Page;
use chromiumoxide::cdp::{CustomEvent, IntoEventKind};
use chromiumoxide::cdp::browser_protocol::{audits, inspector, log, network, page as cdp_page};
use chromiumoxide::cdp::js_protocol::runtime;
use chromiumoxide::types::{MethodId, MethodType};
use futures::StreamExt;
use futures::stream::BoxStream;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use super::devtools_relay::DROPPED_METHOD;
use super::error::BrowserError;

/// Events kept per page; a page that floods the console or the binding cannot exhaust memory.
pub const MAX_EVENTS: usize = 200_000;
/// Bytes of events kept per page (as [`approx_bytes`] counts them): a page whose script sends
/// thirty thousand requests with long headers fills this long before [`MAX_EVENTS`].
pub const MAX_EVENT_BYTES: usize = 32 << 20;

/// About how many bytes `v` holds in memory (strings, keys and a word or so per node); cheap,
/// and never less than its JSON text's length for strings and keys.
pub(crate) fn approx_bytes(v: &Value) -> usize {
    match v {
        Value::String(s) => 24 + s.len(),
        Value::Array(a) => 24 + a.iter().map(approx_bytes).sum::<usize>(),
        Value::Object(m) => 48 + m.iter().map(|(k, x)| 32 + k.len() + approx_bytes(x)).sum::<usize>(),
        _ => 16,
    }
}

/// The method of the event that ends a log which filled up (`MAX_EVENTS`).
pub const EVENT_LOG_FULL: &str = "sitescan.eventLogFull";

/// One CDP event: its method and its params as sent by Chromium.
#[derive(Debug, Clone, PartialEq)]
pub struct RawEvent {
    pub method: String,
    pub params: Value,
}

impl RawEvent {
    /// `params[key]` as a string.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.params.get(key).and_then(Value::as_str)
    }
}

/// What the capture waits on.
#[derive(Debug, Clone)]
pub(crate) struct PageSignals {
    pub(crate) load_events: usize,
    pub(crate) dom_content_events: usize,
    pub(crate) crashed: bool,
    pub(crate) inflight: usize,
    pub(crate) last_network: Instant,
}

pub(crate) struct EventLog {
    state: Arc<Mutex<LogState>>,
    signals: watch::Receiver<PageSignals>,
    tx: Arc<watch::Sender<PageSignals>>,
    pump: JoinHandle<()>,
}

/// The log and the network bookkeeping behind `inflight`, under one lock so that `reset` and
/// the pump never see each other half done.
#[derive(Default)]
struct LogState {
    events: Vec<RawEvent>,
    /// [`approx_bytes`] of `events`.
    bytes: usize,
    /// The log stopped taking events (count or bytes).
    full: bool,
    /// Events that arrived after the log was full (not kept).
    dropped: usize,
    inflight: HashSet<String>,
    /// Requests seen finishing (the streams are merged, so a finish may be seen before its request).
    done: HashSet<String>,
    /// Every loader and request seen so far, and those of documents before the last `reset`:
    /// a previous document's late events (its requests cancelled or finishing, a beacon sent
    /// as it unloads) are dropped, not counted as the next document's.
    loaders: HashSet<String>,
    requests: HashSet<String>,
    stale_loaders: HashSet<String>,
    stale_requests: HashSet<String>,
    /// The same for JavaScript contexts: console messages, exceptions and binding calls of a
    /// previous document (its `pagehide` and `unload` handlers run after the reset).
    contexts: HashSet<i64>,
    stale_contexts: HashSet<i64>,
}

impl LogState {
    /// True when `ev` only feeds the bookkeeping (a new JavaScript context), not the log.
    fn bookkeeping(&mut self, ev: &RawEvent) -> bool {
        if ev.method != "Runtime.executionContextCreated" {
            return false;
        }
        // Context ids are unique within a renderer process; a document in a new process may
        // get an id an earlier one had.
        if let Some(id) = ev.params.get("context").and_then(|c| c.get("id")).and_then(Value::as_i64) {
            self.stale_contexts.remove(&id);
            self.contexts.insert(id);
        }
        true
    }

    /// Logs `ev` within the log's budgets; the first event past them ends the log with
    /// [`EVENT_LOG_FULL`], and later ones are dropped.
    fn append(&mut self, ev: RawEvent) {
        if self.full {
            self.dropped += 1;
            return;
        }
        let bytes = self.bytes + approx_bytes(&ev.params) + ev.method.len();
        if self.events.len() < MAX_EVENTS && bytes <= MAX_EVENT_BYTES {
            self.bytes = bytes;
            self.events.push(ev);
        } else {
            tracing::warn!(max_events = MAX_EVENTS, max_bytes = MAX_EVENT_BYTES, "page event log full; dropping further events");
            self.full = true;
            self.dropped = 1;
            self.events.push(RawEvent { method: EVENT_LOG_FULL.into(), params: Value::Null });
        }
    }

    /// Forgets the events so far; what later comes from their loaders, requests and contexts
    /// is stale.
    fn reset(&mut self) {
        self.events.clear();
        self.bytes = 0;
        self.full = false;
        self.dropped = 0;
        self.inflight.clear();
        self.done.clear();
        self.stale_loaders.extend(self.loaders.drain());
        self.stale_requests.extend(self.requests.drain());
        self.stale_contexts.extend(self.contexts.drain());
    }

    /// True when `ev` belongs to a document from before the last reset.
    fn is_stale(&mut self, ev: &RawEvent) -> bool {
        if let Some(context) = event_context(ev) {
            return self.stale_contexts.contains(&context);
        }
        if let Some(id) = ev.params.get("entry").and_then(|e| e.get("networkRequestId")).and_then(Value::as_str) {
            return self.stale_requests.contains(id);
        }
        if let Some(loader) = ev.str("loaderId").filter(|l| !l.is_empty()) {
            if self.stale_loaders.contains(loader) {
                if let Some(id) = ev.str("requestId") {
                    self.stale_requests.insert(id.to_string());
                }
                return true;
            }
            self.loaders.insert(loader.to_string());
        }
        match ev.str("requestId") {
            Some(id) if self.stale_requests.contains(id) => true,
            Some(id) => {
                self.requests.insert(id.to_string());
                false
            }
            None => false,
        }
    }
}

/// The JavaScript context a console message, exception or binding call came from.
fn event_context(ev: &RawEvent) -> Option<i64> {
    let params = match ev.method.as_str() {
        "Runtime.consoleAPICalled" | "Runtime.bindingCalled" => &ev.params,
        "Runtime.exceptionThrown" => ev.params.get("exceptionDetails")?,
        _ => return None,
    };
    params.get("executionContextId").and_then(Value::as_i64)
}

/// An event Chromium sent over its budget, as the DevTools relay names it in its place.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct MessageDropped {
    method: String,
    bytes: u64,
    budget: u64,
    #[serde(default)]
    head: String,
}

impl MethodType for MessageDropped {
    fn method_id() -> MethodId {
        DROPPED_METHOD.into()
    }
}

impl CustomEvent for MessageDropped {}

async fn typed<T>(page: &Page) -> Result<BoxStream<'static, RawEvent>, BrowserError>
where
    T: IntoEventKind + MethodType + Serialize + Unpin + Send + Sync + 'static,
{
    let stream = page
        .event_listener::<T>()
        .await
        .map_err(|e| BrowserError::Cdp { what: "event subscription", message: e.to_string() })?;
    let method = T::method_id().to_string();
    Ok(stream
        .map(move |ev| RawEvent { method: method.clone(), params: serde_json::to_value(&*ev).unwrap_or(Value::Null) })
        .boxed())
}

impl EventLog {
    /// Subscribes to every event the gatherers read, plus `raw` (messages chromiumoxide could not
    /// parse for this page). Call before navigating.
    pub(crate) async fn start(page: &Page, raw: mpsc::UnboundedReceiver<RawEvent>) -> Result<EventLog, BrowserError> {
        let streams = vec![
            typed::<network::EventRequestWillBeSent>(page).await?,
            typed::<network::EventResponseReceived>(page).await?,
            typed::<network::EventResponseReceivedExtraInfo>(page).await?,
            typed::<network::EventRequestWillBeSentExtraInfo>(page).await?,
            typed::<network::EventLoadingFinished>(page).await?,
            typed::<network::EventLoadingFailed>(page).await?,
            typed::<network::EventDataReceived>(page).await?,
            typed::<network::EventRequestServedFromCache>(page).await?,
            typed::<network::EventWebSocketCreated>(page).await?,
            typed::<network::EventWebSocketHandshakeResponseReceived>(page).await?,
            typed::<network::EventWebSocketFrameError>(page).await?,
            typed::<network::EventWebSocketClosed>(page).await?,
            typed::<runtime::EventConsoleApiCalled>(page).await?,
            typed::<runtime::EventExceptionThrown>(page).await?,
            typed::<runtime::EventBindingCalled>(page).await?,
            typed::<runtime::EventExecutionContextCreated>(page).await?,
            typed::<log::EventEntryAdded>(page).await?,
            typed::<audits::EventIssueAdded>(page).await?,
            typed::<cdp_page::EventLoadEventFired>(page).await?,
            typed::<cdp_page::EventDomContentEventFired>(page).await?,
            typed::<inspector::EventTargetCrashed>(page).await?,
            typed::<MessageDropped>(page).await?,
            futures::stream::unfold(raw, |mut rx| async move { rx.recv().await.map(|ev| (ev, rx)) }).boxed(),
        ];
        let mut merged = futures::stream::select_all(streams);
        let state: Arc<Mutex<LogState>> = Arc::default();
        let (tx, signals) = watch::channel(PageSignals {
            load_events: 0,
            dom_content_events: 0,
            crashed: false,
            inflight: 0,
            last_network: Instant::now(),
        });
        let tx = Arc::new(tx);
        let (log, sender) = (state.clone(), tx.clone());
        let pump = tokio::spawn(async move {
            while let Some(ev) = merged.next().await {
                let Ok(mut st) = log.lock() else { return };
                if st.bookkeeping(&ev) || st.is_stale(&ev) {
                    continue;
                }
                let id = ev.str("requestId").map(str::to_string);
                sender.send_modify(|s| match ev.method.as_str() {
                    "Page.loadEventFired" => s.load_events += 1,
                    "Page.domContentEventFired" => s.dom_content_events += 1,
                    "Inspector.targetCrashed" => s.crashed = true,
                    "Network.requestWillBeSent" | "Network.loadingFinished" | "Network.loadingFailed" | "Network.dataReceived"
                    | "Network.responseReceived" => {
                        if let Some(id) = &id {
                            match ev.method.as_str() {
                                "Network.requestWillBeSent" if !st.done.contains(id) => {
                                    st.inflight.insert(id.clone());
                                }
                                "Network.loadingFinished" | "Network.loadingFailed" => {
                                    st.inflight.remove(id);
                                    st.done.insert(id.clone());
                                }
                                _ => {}
                            }
                        }
                        s.inflight = st.inflight.len();
                        s.last_network = Instant::now();
                    }
                    _ => {}
                });
                st.append(ev);
            }
        });
        Ok(EventLog { state, signals, tx, pump })
    }

    /// Forgets every event so far, for the next document of a reused page (the load and
    /// DOMContentLoaded counts go on; nothing is in flight). Later network events, console
    /// messages, exceptions and binding calls of documents loaded before now are dropped.
    pub(crate) fn reset(&self) {
        if let Ok(mut st) = self.state.lock() {
            st.reset();
        }
        self.tx.send_modify(|s| {
            s.inflight = 0;
            s.last_network = Instant::now();
        });
    }

    /// A copy of every event so far; a full log's last event ([`EVENT_LOG_FULL`]) says how many
    /// were dropped so far (`{"dropped": n}`).
    pub(crate) fn snapshot(&self) -> Vec<RawEvent> {
        self.state
            .lock()
            .map(|s| {
                let mut events = s.events.clone();
                if let Some(last) = events.last_mut().filter(|e| e.method == EVENT_LOG_FULL) {
                    last.params = serde_json::json!({ "dropped": s.dropped });
                }
                events
            })
            .unwrap_or_default()
    }

    /// The bytes received so far for `request_id` (`Network.dataReceived`, decoded), read in
    /// place.
    pub(crate) fn bytes_received(&self, request_id: &str) -> u64 {
        self.state
            .lock()
            .map(|s| {
                s.events
                    .iter()
                    .filter(|e| e.method == "Network.dataReceived" && e.str("requestId") == Some(request_id))
                    .filter_map(|e| e.params.get("dataLength").and_then(Value::as_u64))
                    .sum()
            })
            .unwrap_or_default()
    }

    /// How many events were logged so far.
    pub(crate) fn len(&self) -> usize {
        self.state.lock().map(|s| s.events.len()).unwrap_or_default()
    }

    /// A copy of the events logged since the first `from`.
    pub(crate) fn since(&self, from: usize) -> Vec<RawEvent> {
        self.state.lock().map(|s| s.events.get(from..).map(<[RawEvent]>::to_vec).unwrap_or_default()).unwrap_or_default()
    }

    /// URLs of requests without a finish or failure event (for diagnostics).
    pub(crate) fn inflight_urls(&self) -> Vec<String> {
        let events = self.snapshot();
        let done: HashSet<&str> = events
            .iter()
            .filter(|e| e.method == "Network.loadingFinished" || e.method == "Network.loadingFailed")
            .filter_map(|e| e.str("requestId"))
            .collect();
        events
            .iter()
            .filter(|e| e.method == "Network.requestWillBeSent")
            .filter(|e| e.str("requestId").is_some_and(|id| !done.contains(id)))
            .filter_map(|e| e.params.get("request").and_then(|r| r.get("url")).and_then(Value::as_str).map(str::to_string))
            .collect()
    }

    pub(crate) fn signals(&self) -> PageSignals {
        self.signals.borrow().clone()
    }

    pub(crate) fn watch(&self) -> watch::Receiver<PageSignals> {
        self.signals.clone()
    }
}

impl Drop for EventLog {
    fn drop(&mut self) {
        self.pump.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(method: &str, params: Value) -> RawEvent {
        RawEvent { method: method.into(), params }
    }

    /// Feeds `events` through the pump's filter; what the log would keep.
    fn kept(st: &mut LogState, events: Vec<RawEvent>) -> Vec<String> {
        events.into_iter().filter(|e| !st.bookkeeping(e) && !st.is_stale(e)).map(|e| e.method).collect()
    }

    #[test]
    fn the_log_ends_at_its_byte_budget_and_says_so() {
        let mut st = LogState::default();
        let big = json!({"request": {"url": "x".repeat(1 << 20)}});
        for _ in 0..100 {
            st.append(ev("Network.requestWillBeSent", big.clone()));
        }
        assert_eq!(st.events.len(), (MAX_EVENT_BYTES >> 20) - 1 + 1, "all the whole events that fit, and the end marker");
        assert_eq!(st.events.last().unwrap().method, EVENT_LOG_FULL);
        assert!(st.bytes <= MAX_EVENT_BYTES);
        assert_eq!(st.dropped, 100 - ((MAX_EVENT_BYTES >> 20) - 1), "every event past the budget is counted, not kept");
        st.reset();
        assert_eq!(st.dropped, 0);
        st.append(ev("Network.requestWillBeSent", big));
        assert_eq!(st.events.len(), 1, "the next document starts a new budget");
    }

    #[test]
    fn after_a_reset_the_previous_documents_events_are_dropped_and_the_next_ones_kept() {
        let mut st = LogState::default();
        let first = vec![
            ev("Runtime.executionContextCreated", json!({"context": {"id": 3}})),
            ev("Network.requestWillBeSent", json!({"requestId": "L1", "loaderId": "L1"})),
            ev("Runtime.consoleAPICalled", json!({"executionContextId": 3, "type": "log"})),
        ];
        assert_eq!(kept(&mut st, first), ["Network.requestWillBeSent", "Runtime.consoleAPICalled"]);
        st.reset();
        let next = vec![
            // The previous document's pagehide handler, its beacon and the abort of its poll.
            ev("Runtime.consoleAPICalled", json!({"executionContextId": 3, "type": "log"})),
            ev("Runtime.exceptionThrown", json!({"exceptionDetails": {"executionContextId": 3}})),
            ev("Runtime.bindingCalled", json!({"executionContextId": 3, "name": "b"})),
            ev("Network.loadingFailed", json!({"requestId": "L1"})),
            ev("Log.entryAdded", json!({"entry": {"networkRequestId": "L1", "text": "aborted"}})),
            // The next document.
            ev("Runtime.executionContextCreated", json!({"context": {"id": 4}})),
            ev("Network.requestWillBeSent", json!({"requestId": "L2", "loaderId": "L2"})),
            ev("Runtime.consoleAPICalled", json!({"executionContextId": 4, "type": "log"})),
            ev("Runtime.exceptionThrown", json!({"exceptionDetails": {"executionContextId": 4}})),
            ev("Log.entryAdded", json!({"entry": {"networkRequestId": "L2", "text": "404"}})),
            ev("Log.entryAdded", json!({"entry": {"text": "no request"}})),
        ];
        assert_eq!(
            kept(&mut st, next),
            ["Network.requestWillBeSent", "Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded", "Log.entryAdded"]
        );
    }

    #[test]
    fn a_context_id_given_again_in_a_new_renderer_process_belongs_to_the_new_document() {
        let mut st = LogState::default();
        kept(&mut st, vec![ev("Runtime.executionContextCreated", json!({"context": {"id": 1}}))]);
        st.reset();
        let next = vec![
            ev("Runtime.executionContextCreated", json!({"context": {"id": 1}})),
            ev("Runtime.consoleAPICalled", json!({"executionContextId": 1, "type": "log"})),
        ];
        assert_eq!(kept(&mut st, next), ["Runtime.consoleAPICalled"]);
    }
}
