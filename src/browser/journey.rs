//! Running a journey's steps in a page: one page in a browser context of the journey's own
//! (cookies last across its steps, never across journeys or scans), behind the same egress proxy
//! as every capture. Every CDP call is under the step's time limit; a failed step stops its
//! journey (the rest are `skipped`), never the scan.
//!
//! Secrets: `{{secret.NAME}}` is replaced by the value only in the command that types it
//! (`Input.insertText`, or the option picked in a `select`). Every string that leaves the runner
//! (step summaries, errors, URLs, exception messages) is masked, and nothing here logs a value.
//! Screenshots are taken with secret-bearing inputs and text hidden. After each step the URL, the
//! page's text, web storage and script-readable cookies are compared with every secret typed so
//! far; a match is recorded by where it was seen, never by value.
//!
//! Where a journey may go: only `about:blank` and http(s) pages of the site's origin and the
//! origins the journey lists. `navigate` is checked before it is sent, and every document
//! request of the page (its own navigations, redirects, link clicks, form posts, frames) is held
//! by request interception until it is checked; a refused one fails with
//! `net::ERR_BLOCKED_BY_CLIENT` and fails the step. After every step the main frame's URL, read
//! from the browser (not from page script), is checked again, for the schemes interception
//! never sees. A secret is typed only when the main frame is on one of those origins and the
//! focus is on the step's field itself (not a frame), checked in an isolated world; the values
//! used for masking screenshots and for picking a `select` option are only ever handed to an
//! isolated world, never to the page's own scripts.
//!
//! An `audit` step gathers a full `PageSnapshot` of the page as it is (no navigation), with the
//! capture's own gatherers, for the scanner to run every page check on.

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::input::{
    DispatchKeyEventParams, DispatchKeyEventType, DispatchMouseEventParams, DispatchMouseEventType, InsertTextParams, MouseButton,
};
use chromiumoxide::cdp::browser_protocol::fetch::{
    ContinueRequestParams, EnableParams as FetchEnableParams, EventRequestPaused, FailRequestParams, RequestPattern, RequestStage,
};
use chromiumoxide::cdp::browser_protocol::network::{ErrorReason, ResourceType};
use chromiumoxide::cdp::browser_protocol::page::{
    CaptureScreenshotFormat, CaptureScreenshotParams, CreateIsolatedWorldParams, GetFrameTreeParams, NavigateParams,
};
use chromiumoxide::cdp::js_protocol::runtime::ExecutionContextId;
use futures::StreamExt;
use serde::Deserialize;
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::model::journey::{
    Action, Assertion, ElementState, JourneyAudit, JourneyException, JourneyResponse, JourneyRun, JourneyScreenshot, LoggedInProof,
    LoggedInResult, SecretExposure, WaitFor, may_load, secret_refs, substitute, url_matches,
};
use crate::model::{JourneyOutcome, JourneySpec, PageSnapshot, StepResult, StepStatus};
use crate::net::EgressProxy;

use super::capture::{CaptureSettings, Live, NETWORK_QUIET, artifacts, close, gather_in_page, open_page, redraw, wait_quiet};
use super::cdp::{Budget, eval_string, eval_string_in, run, step};
use super::error::BrowserError;
use super::events::RawEvent;
use super::gather::exceptions;
use super::instance::Instance;

/// How often waits look again.
const POLL: Duration = Duration::from_millis(100);
/// How long an `assert` (and the logged-in proof) may take to become true.
const ASSERT_GRACE: Duration = Duration::from_secs(3);
/// Small reads (the URL, the exposure scan, the paint probe) get at most this.
const READ_LIMIT: Duration = Duration::from_secs(3);
/// After an action, how long to look for a navigation it started.
const NAVIGATION_START_GRACE: Duration = Duration::from_millis(150);
/// The longest wait for network quiet after a step.
const STEP_QUIET_MAX: Duration = Duration::from_secs(2);

/// What a scan's journeys may still spend, shared by them in turn.
#[derive(Debug, Clone, Copy)]
pub struct JourneyAllowance {
    /// No step starts after this.
    pub deadline: Instant,
    /// Screenshots that may still be stored.
    pub screenshots_left: usize,
}

impl JourneyAllowance {
    /// A scan's whole allowance, from now.
    pub fn for_scan() -> Self {
        JourneyAllowance {
            deadline: Instant::now() + crate::model::journey::MAX_JOURNEY_TIME_PER_SCAN,
            screenshots_left: crate::model::journey::MAX_SCREENSHOTS_PER_SCAN,
        }
    }
}

/// The request interception that holds the journey's page to its origins: every document
/// request is paused until checked, then continued or failed. Stops with the value.
struct NavigationGuard {
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
    async fn start(instance: &Arc<Instance>, page: &Page, allowed: Vec<String>, budget: &Budget) -> Result<NavigationGuard, BrowserError> {
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
                        if let Ok(mut l) = log.lock() {
                            if l.len() < 100 {
                                l.push(format!("{url}: {why}"));
                            }
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

    fn refused_count(&self) -> usize {
        self.refused.lock().map(|l| l.len()).unwrap_or(0)
    }

    /// The first refusal after the first `from`.
    fn refused_since(&self, from: usize) -> Option<String> {
        self.refused.lock().ok().and_then(|l| l.get(from).cloned())
    }
}

/// Closes every other page that appears in the journey's browser context (a popup or a new tab
/// the page opened). The default headless shell runs with `--block-new-web-contents`, where no
/// page can open one; a full Chromium (`--chromium`) ignores that flag, and this closes them as
/// soon as the browser announces them.
struct PopupCloser {
    task: tokio::task::JoinHandle<()>,
}

impl Drop for PopupCloser {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl PopupCloser {
    async fn start(instance: &Arc<Instance>, context: &BrowserContextId, page: &Page) -> Result<PopupCloser, BrowserError> {
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

/// Why a step did not succeed.
enum StepError {
    Failed(String),
    Timeout(String),
    /// The browser or the page is gone: the journey cannot go on.
    Fatal(String),
}

impl From<BrowserError> for StepError {
    fn from(e: BrowserError) -> Self {
        match e {
            BrowserError::Timeout { .. } => StepError::Timeout(e.to_string()),
            BrowserError::BrowserGone | BrowserError::PageCrashed => StepError::Fatal(e.to_string()),
            other => StepError::Failed(other.to_string()),
        }
    }
}

type StepResultOf<T> = Result<T, StepError>;

/// The page state an action found its element in.
#[derive(Debug, Deserialize, Default)]
struct Found {
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    x: f64,
    #[serde(default)]
    y: f64,
    #[serde(default)]
    checked: Option<bool>,
}

/// The in-page lookup of `selector`, then `body` with `el` bound; returns JSON text. `error`
/// when nothing visible matches (`missing: true` so the caller may wait for it).
fn with_element(selector: &str, body: &str) -> String {
    let sel = serde_json::to_string(selector).unwrap_or_default();
    format!(
        r#"(() => {{
  let el;
  try {{ el = document.querySelector({sel}); }} catch (e) {{ return JSON.stringify({{error: 'invalid selector: ' + e.message, fatal: true}}); }}
  if (!el) return JSON.stringify({{error: 'no element matches the selector', missing: true}});
  const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
  if (!(r.width > 0 && r.height > 0) || cs.visibility === 'hidden' || cs.display === 'none' || Number(cs.opacity) === 0)
    return JSON.stringify({{error: 'the element matching the selector is not visible', missing: true}});
  {body}
}})()"#
    )
}

/// Scrolls the element into view and returns its centre, unless it is disabled or covered.
const POINT_AT: &str = r#"
  if (el.disabled) return JSON.stringify({error: 'the element is disabled'});
  el.scrollIntoView({block: 'center', inline: 'center'});
  const b = el.getBoundingClientRect();
  const x = b.left + b.width / 2, y = b.top + b.height / 2;
  const hit = document.elementFromPoint(x, y);
  if (hit && hit !== el && !el.contains(hit) && !hit.contains(el)) {
    const name = hit.tagName.toLowerCase() + (hit.id ? '#' + hit.id : '');
    return JSON.stringify({error: 'the element is covered by ' + name});
  }
  window.__sitescanInput = null;
  const mark = (e) => { if (window.__sitescanInput === null) window.__sitescanInput = e.timeStamp; };
  addEventListener('pointerdown', mark, {capture: true, once: true});
  addEventListener('keydown', mark, {capture: true, once: true});
  return JSON.stringify({x, y, checked: typeof el.checked === 'boolean' ? el.checked : null});
"#;

/// From the input event to the second animation frame after it (the next paint), milliseconds.
const PAINT_PROBE: &str = r#"new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => {
  const t0 = window.__sitescanInput;
  resolve(JSON.stringify(typeof t0 === 'number' ? performance.now() - t0 : null));
})))"#;

/// What the exposure scan reads (compared with the secrets in Rust; never logged).
const EXPOSURE_READ: &str = r#"(() => {
  const entries = (s) => { try { const out = []; for (let i = 0; i < s.length; i++) { const k = s.key(i); out.push([k, s.getItem(k)]); } return out; } catch (e) { return []; } };
  let cookie = '';
  try { cookie = document.cookie; } catch (e) {}
  return JSON.stringify({url: location.href, text: document.body ? document.body.innerText : '', local: entries(localStorage), session: entries(sessionStorage), cookie});
})()"#;

#[derive(Debug, Deserialize, Default)]
struct Exposure {
    url: String,
    text: String,
    local: Vec<(String, Option<String>)>,
    session: Vec<(String, Option<String>)>,
    cookie: String,
}

/// Runs one journey in a fresh page of `context` (which the caller creates and disposes).
pub(crate) async fn run_journey(
    instance: &Arc<Instance>,
    context: &BrowserContextId,
    start: &str,
    spec: &JourneySpec,
    settings: &CaptureSettings,
    proxy: &EgressProxy,
    allowance: &mut JourneyAllowance,
) -> JourneyRun {
    let journey = &spec.journey;
    let mask = |s: &str| spec.secrets.mask(s);
    let mut outcome = JourneyOutcome { name: mask(&journey.name), start_url: mask(start), ..JourneyOutcome::default() };
    let mut audits = Vec::new();
    let mut live = Live::default();
    let open_budget = Budget::new(settings.navigation_timeout);
    let page = match open_page(instance, context, settings, &open_budget, &mut live).await {
        Ok(p) => p,
        Err(e) => {
            outcome.error = Some(mask(&format!("the journey's page could not be opened: {e}")));
            outcome.steps = journey.steps.iter().enumerate().map(|(i, s)| skipped(i, s, spec)).collect();
            close(instance, &mut live, false).await;
            return JourneyRun { outcome, audits };
        }
    };
    let allowed = journey.allowed_origins(start);
    let guarded = match NavigationGuard::start(instance, &page, allowed.clone(), &open_budget).await {
        Ok(g) => PopupCloser::start(instance, context, &page).await.map(|p| (g, p)),
        Err(e) => Err(e),
    };
    let (guard, popups) = match guarded {
        Ok(g) => g,
        Err(e) => {
            // Never run a journey that nothing holds to its origins.
            outcome.error = Some(mask(&format!("the journey's navigation guard could not be set up: {e}")));
            outcome.steps = journey.steps.iter().enumerate().map(|(i, s)| skipped(i, s, spec)).collect();
            close(instance, &mut live, true).await;
            return JourneyRun { outcome, audits };
        }
    };
    let mut runner =
        Runner { instance, page: &page, spec, settings, proxy, start, allowed, typed: Vec::new(), secret_fields: Vec::new() };
    let login_end = login_end(journey);
    let mut stopped = false;
    if !matches!(journey.steps.first().map(|s| &s.action), Some(Action::Navigate(_))) {
        // A journey that does not begin by navigating begins on the start page.
        let budget = Budget::new(settings.navigation_timeout);
        if let Err(e) = runner.navigate(&live, start, &budget).await {
            outcome.error = Some(mask(&format!("the start page did not load: {}", e.message())));
            stopped = true;
        }
    }
    for (i, s) in journey.steps.iter().enumerate() {
        if !stopped && Instant::now() >= allowance.deadline {
            outcome.error = Some(format!(
                "the scan's journey time ({} s for all journeys) ran out before step {i}",
                crate::model::journey::MAX_JOURNEY_TIME_PER_SCAN.as_secs()
            ));
            stopped = true;
        }
        if stopped {
            outcome.steps.push(skipped(i, s, spec));
            continue;
        }
        let from = live.log.as_ref().map_or(0, |l| l.len());
        let refused_from = guard.refused_count();
        let began = Instant::now();
        let limit = Duration::from_millis(s.timeout_ms);
        let budget = Budget::new(limit);
        let mut result = StepResult {
            index: i,
            action: s.action.key().to_string(),
            summary: mask(&s.action.summary()),
            selector: s.action.selector().map(mask),
            ..StepResult::default()
        };
        let done = match &s.action {
            Action::Audit(label) => {
                let audit_budget = Budget::new(settings.page_timeout.max(limit));
                match runner.audit(&mut live, &audit_budget).await {
                    Ok(snapshot) => {
                        audits.push(JourneyAudit { step: i, label: mask(label), snapshot });
                        Ok(())
                    }
                    Err(e) => Err(e),
                }
            }
            Action::Screenshot(_) if allowance.screenshots_left == 0 => Err(StepError::Failed(format!(
                "the scan's journeys may store at most {} screenshots",
                crate::model::journey::MAX_SCREENSHOTS_PER_SCAN
            ))),
            Action::Screenshot(name) => match runner.screenshot(&budget).await {
                Ok(png) => {
                    allowance.screenshots_left -= 1;
                    let name = mask(name);
                    outcome.screenshots.push(JourneyScreenshot { name: name.clone(), step: i, png_base64: png });
                    result.screenshot = Some(name);
                    Ok(())
                }
                Err(e) => Err(e),
            },
            action => {
                let hard = limit + Duration::from_secs(2);
                match tokio::time::timeout(hard, runner.act(&live, action, &budget, s.timeout_ms, &mut result)).await {
                    Ok(r) => r,
                    Err(_) => Err(StepError::Timeout(format!("the step did not finish within {} ms", s.timeout_ms))),
                }
            }
        };
        // A document request the guard refused during the step fails it, whatever the action
        // saw; so does a main frame on anything but the journey's origins (a scheme that request
        // interception never sees); the page is then taken to about:blank.
        let done = match (done, guard.refused_since(refused_from)) {
            (Ok(()), Some(refused)) | (Err(StepError::Failed(_) | StepError::Timeout(_)), Some(refused)) => {
                Err(StepError::Failed(format!("a navigation was refused: {refused}")))
            }
            (done, _) => done,
        };
        let done = match (done, runner.main_frame_url().await) {
            (Ok(()), Some(url)) if may_load(&url, &runner.allowed).is_err() && !url.starts_with("chrome-error:") => {
                runner.leave().await;
                Err(StepError::Failed(format!("the page left the journey's origins ({})", may_load(&url, &runner.allowed).err().unwrap_or_default())))
            }
            (done, _) => done,
        };
        result.elapsed_ms = u64::try_from(began.elapsed().as_millis()).unwrap_or(u64::MAX);
        match done {
            Ok(()) => result.status = StepStatus::Ok,
            Err(StepError::Failed(m)) => {
                result.status = StepStatus::Failed;
                result.error = Some(mask(&m));
            }
            Err(StepError::Timeout(m)) => {
                result.status = StepStatus::Timeout;
                result.error = Some(mask(&m));
            }
            Err(StepError::Fatal(m)) => {
                result.status = StepStatus::Failed;
                result.error = Some(mask(&m));
            }
        }
        let alive = instance.is_alive() && !live.log.as_ref().is_some_and(|l| l.signals().crashed);
        result.url_after = if alive { runner.current_url().await.map(|u| mask(&u)) } else { None };
        if result.status != StepStatus::Ok {
            stopped = true;
            if alive && allowance.screenshots_left > 0 && runner.main_frame_url().await.is_some_and(|u| may_load(&u, &runner.allowed).is_ok()) {
                let budget = Budget::new(READ_LIMIT * 2);
                if let Ok(png) = runner.screenshot(&budget).await {
                    allowance.screenshots_left -= 1;
                    let name = format!("step-{i}-{}", if result.status == StepStatus::Timeout { "timeout" } else { "failed" });
                    outcome.screenshots.push(JourneyScreenshot { name: name.clone(), step: i, png_base64: png });
                    result.screenshot = Some(name);
                }
            }
        }
        if let Some(log) = live.log.as_ref() {
            let events = log.since(from);
            collect_responses(&events, i, spec, &mut outcome.responses);
            for e in exceptions::gather(&events) {
                outcome.exceptions.push(JourneyException { step: i, message: mask(&e.message), url: e.url.map(|u| mask(&u)) });
            }
        }
        if alive && !runner.typed.is_empty() {
            runner.exposures(i, &mut outcome.secret_exposures).await;
        }
        if alive
            && login_end == Some(i)
            && let Some(proof) = &journey.logged_in
        {
            let present = runner.proof_present(proof).await;
            let described = match proof {
                LoggedInProof::Text(t) => format!("text {}", serde_json::to_string(t).unwrap_or_default()),
                LoggedInProof::Selector(s) => format!("selector {}", serde_json::to_string(s).unwrap_or_default()),
            };
            let url = runner.current_url().await.map(|u| mask(&u)).or_else(|| result.url_after.clone()).unwrap_or_default();
            outcome.logged_in = Some(LoggedInResult { proof: mask(&described), present, after_step: i, url });
        }
        tracing::debug!(journey = %outcome.name, step = i, action = %result.action, status = ?result.status, elapsed_ms = result.elapsed_ms, "journey step");
        outcome.steps.push(result);
    }
    drop(guard);
    drop(popups);
    close(instance, &mut live, stopped).await;
    JourneyRun { outcome, audits }
}

fn skipped(i: usize, s: &crate::model::journey::Step, spec: &JourneySpec) -> StepResult {
    StepResult {
        index: i,
        action: s.action.key().to_string(),
        summary: spec.secrets.mask(&s.action.summary()),
        selector: s.action.selector().map(|x| spec.secrets.mask(x)),
        status: StepStatus::Skipped,
        ..StepResult::default()
    }
}

/// The step after which the `logged_in` proof is checked: the first click or key press after the
/// last step typing a secret (that step itself when none follows); the last step when no step
/// types a secret. `None` without a proof.
pub(crate) fn login_end(journey: &crate::model::Journey) -> Option<usize> {
    journey.logged_in.as_ref()?;
    let last_secret = journey
        .steps
        .iter()
        .rposition(|s| s.action.typed_value().is_some_and(|v| secret_refs(v).is_ok_and(|r| !r.is_empty())));
    match last_secret {
        Some(k) => Some(
            journey.steps.iter().enumerate().skip(k + 1).find(|(_, s)| matches!(s.action, Action::Click(_) | Action::Press(_))).map_or(k, |(i, _)| i),
        ),
        None => journey.steps.len().checked_sub(1),
    }
}

/// Navigations (document requests) and submissions by script (non-GET XHR/fetch) and their
/// answers, from a step's events.
fn collect_responses(events: &[RawEvent], step: usize, spec: &JourneySpec, out: &mut Vec<JourneyResponse>) {
    let mut methods = std::collections::HashMap::new();
    for e in events.iter().filter(|e| e.method == "Network.requestWillBeSent") {
        let (Some(id), Some(method)) = (e.str("requestId"), e.params.get("request").and_then(|r| r.get("method")).and_then(Value::as_str)) else {
            continue;
        };
        methods.insert(id.to_string(), method.to_string());
    }
    for e in events.iter().filter(|e| e.method == "Network.responseReceived") {
        let kind = e.str("type").unwrap_or_default();
        let method = e.str("requestId").and_then(|id| methods.get(id)).cloned().unwrap_or_else(|| "GET".into());
        let is_submission = matches!(kind, "XHR" | "Fetch") && method != "GET";
        if kind != "Document" && !is_submission {
            continue;
        }
        let response = e.params.get("response");
        if response.and_then(proxy_marker).is_some() {
            continue; // The egress proxy's own answer, not the site's: the step says so.
        }
        let status = response.and_then(|r| r.get("status")).and_then(Value::as_u64).unwrap_or(0);
        let url = response.and_then(|r| r.get("url")).and_then(Value::as_str).unwrap_or_default();
        if status == 0 || url.starts_with("data:") || url.starts_with("about:") {
            continue;
        }
        out.push(JourneyResponse {
            step,
            method,
            url: spec.secrets.mask(url),
            status: u16::try_from(status).unwrap_or(0),
            resource_type: kind.to_string(),
        });
    }
}

/// The egress proxy's own answer to a document request among `events` (the guard refused the
/// address, or nothing answered there), as the reason the step failed.
fn egress_refusal(events: &[RawEvent], proxy: &EgressProxy) -> Option<String> {
    events.iter().filter(|e| e.method == "Network.responseReceived" && e.str("type") == Some("Document")).find_map(|e| {
        let response = e.params.get("response")?;
        let marker = proxy_marker(response)?;
        let url = response.get("url").and_then(Value::as_str).unwrap_or_default();
        let parsed = url::Url::parse(url).ok();
        let reason = parsed.as_ref().and_then(|u| proxy.blocked_reason(u.host_str()?, u.port_or_known_default()?));
        Some(match marker.as_str() {
            "blocked" => format!("{url} was refused by the egress guard{}", reason.map(|r| format!(" ({r})")).unwrap_or_default()),
            _ => format!("{url} could not be reached"),
        })
    })
}

/// The `x-sitescan-egress` marker of an answer the egress proxy made itself.
fn proxy_marker(response: &Value) -> Option<String> {
    let headers = response.get("headers")?.as_object()?;
    headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(crate::net::EGRESS_HEADER)).and_then(|(_, v)| v.as_str()).map(str::to_string)
}

impl StepError {
    fn message(&self) -> &str {
        match self {
            StepError::Failed(m) | StepError::Timeout(m) | StepError::Fatal(m) => m,
        }
    }
}

struct Runner<'a> {
    instance: &'a Arc<Instance>,
    page: &'a Page,
    spec: &'a JourneySpec,
    settings: &'a CaptureSettings,
    proxy: &'a EgressProxy,
    start: &'a str,
    /// The origins the journey may load (the site's first).
    allowed: Vec<String>,
    /// Names of the secrets typed so far.
    typed: Vec<String>,
    /// Selectors of the fields a secret was typed into.
    secret_fields: Vec<String>,
}

impl Runner<'_> {
    async fn eval(&self, what: &'static str, expression: &str, limit: Duration) -> Result<String, BrowserError> {
        eval_string(self.instance, self.page, what, expression, limit).await
    }

    async fn current_url(&self) -> Option<String> {
        self.eval("location", "location.href", READ_LIMIT).await.ok()
    }

    /// The main frame's URL as the browser has it (no page script can change the answer).
    async fn main_frame_url(&self) -> Option<String> {
        let tree = run(self.instance, self.page, "Page.getFrameTree", READ_LIMIT, GetFrameTreeParams::default()).await.ok()?;
        Some(tree.frame_tree.frame.url.clone())
    }

    /// A fresh isolated world in the main frame: the DOM is shared, the JavaScript globals and
    /// prototypes are its own, so no page script sees what is evaluated there.
    async fn isolated_world(&self, limit: Duration) -> Result<ExecutionContextId, BrowserError> {
        let tree = run(self.instance, self.page, "Page.getFrameTree", limit, GetFrameTreeParams::default()).await?;
        let params = CreateIsolatedWorldParams { frame_id: tree.frame_tree.frame.id.clone(), world_name: Some("sitescan-journey".into()), grant_univeral_access: Some(false) };
        Ok(run(self.instance, self.page, "Page.createIsolatedWorld", limit, params).await?.execution_context_id)
    }

    async fn eval_isolated(&self, what: &'static str, expression: &str, limit: Duration) -> Result<String, BrowserError> {
        let world = self.isolated_world(limit).await?;
        eval_string_in(self.instance, self.page, world, what, expression, limit).await
    }

    /// Takes the page off a URL it must not be on.
    async fn leave(&self) {
        let _ = run(self.instance, self.page, "Page.navigate", READ_LIMIT, NavigateParams::new("about:blank".to_string())).await;
    }

    /// Before a secret is typed: the main frame is on one of the journey's origins and the focus
    /// is on the step's own field in it (not on a frame, where the text would go instead).
    async fn secret_may_be_typed(&self, selector: &str, budget: &Budget) -> StepResultOf<()> {
        let url = self.main_frame_url().await.ok_or_else(|| StepError::Failed("the page's address could not be read; the secret was not typed".into()))?;
        if let Err(why) = may_load(&url, &self.allowed) {
            return Err(StepError::Failed(format!("the secret was not typed: the page is not on the journey's origins ({why})")));
        }
        let script = format!(
            r#"(() => {{
  let el;
  try {{ el = document.querySelector({sel}); }} catch (e) {{ return 'the selector is invalid'; }}
  const a = document.activeElement;
  if (!el || a !== el) return 'the focus left the field';
  if (/^(IFRAME|FRAME|OBJECT|EMBED)$/.test(a.tagName)) return 'the field is a frame';
  return 'ok';
}})()"#,
            sel = quote(selector)
        );
        match self.eval_isolated("secret destination", &script, budget.cap(READ_LIMIT)).await?.as_str() {
            "ok" => Ok(()),
            why => Err(StepError::Failed(format!("{}: the secret was not typed ({why})", quote(selector)))),
        }
    }

    /// Resolves a step's `navigate` target against the page (or the start URL).
    async fn resolve(&self, target: &str) -> String {
        let base = self.current_url().await.filter(|u| u.starts_with("http")).unwrap_or_else(|| self.start.to_string());
        url::Url::parse(&base).and_then(|b| b.join(target)).map(|u| u.to_string()).unwrap_or_else(|_| target.to_string())
    }

    async fn navigate(&self, live: &Live, url: &str, budget: &Budget) -> StepResultOf<()> {
        if let Err(why) = may_load(url, &self.allowed) {
            return Err(StepError::Failed(format!("navigation to {url} refused: {why}")));
        }
        let log = live.log.as_ref().ok_or_else(|| StepError::Fatal("no event log".into()))?;
        let loads = log.signals().load_events;
        let from = log.len();
        let nav = run(self.instance, self.page, "Page.navigate", budget.left(), NavigateParams::new(url.to_string())).await;
        match nav {
            Ok(n) => {
                if let Some(err) = n.error_text.filter(|e| !e.is_empty())
                    && !(err == "net::ERR_HTTP_RESPONSE_CODE_FAILURE" || err == "net::ERR_ABORTED")
                {
                    return Err(StepError::Failed(format!("navigation to {url} failed: {err}")));
                }
            }
            Err(BrowserError::Timeout { .. }) => return Err(StepError::Timeout(format!("navigation to {url} never settled"))),
            Err(e) => return Err(e.into()),
        }
        if let Some(refused) = egress_refusal(&log.since(from), self.proxy) {
            return Err(StepError::Failed(refused));
        }
        self.settle_load(live, loads, budget).await?;
        match egress_refusal(&log.since(from), self.proxy) {
            Some(refused) => Err(StepError::Failed(refused)),
            None => Ok(()),
        }
    }

    /// Waits for `load` after `loads` and then for network quiet.
    async fn settle_load(&self, live: &Live, loads: usize, budget: &Budget) -> StepResultOf<()> {
        let log = live.log.as_ref().ok_or_else(|| StepError::Fatal("no event log".into()))?;
        let mut signals = log.watch();
        let loaded = step(self.instance, "load event", budget.left(), async {
            signals.wait_for(|s| s.load_events > loads || s.crashed).await.map(|_| ()).map_err(|_| BrowserError::PageCrashed)
        })
        .await;
        match loaded {
            Ok(()) => {}
            Err(BrowserError::Timeout { .. }) => return Err(StepError::Timeout("the navigation never settled (no load event)".into())),
            Err(e) => return Err(e.into()),
        }
        if log.signals().crashed {
            return Err(StepError::Fatal("the page crashed".into()));
        }
        wait_quiet(self.instance, log, budget, NETWORK_QUIET, STEP_QUIET_MAX).await.map_err(StepError::from)
    }

    /// After an action: if it started a navigation, wait for it to load; else for network quiet.
    async fn settle(&self, live: &Live, from: usize, loads: usize, budget: &Budget) -> StepResultOf<()> {
        let log = live.log.as_ref().ok_or_else(|| StepError::Fatal("no event log".into()))?;
        tokio::time::sleep(NAVIGATION_START_GRACE.min(budget.left())).await;
        let navigating = log.since(from).iter().any(|e| e.method == "Network.requestWillBeSent" && e.str("type") == Some("Document"));
        if navigating || log.signals().load_events > loads {
            self.settle_load(live, loads, budget).await?;
            match egress_refusal(&log.since(from), self.proxy) {
                Some(refused) => Err(StepError::Failed(refused)),
                None => Ok(()),
            }
        } else {
            wait_quiet(self.instance, log, budget, NETWORK_QUIET, Duration::from_millis(500)).await.map_err(StepError::from)
        }
    }

    /// Finds the visible element of `selector` and runs `body` on it, waiting for it to appear
    /// within the step's budget.
    async fn find(&self, selector: &str, body: &str, budget: &Budget) -> StepResultOf<Found> {
        self.find_in(selector, body, budget, false).await
    }

    /// `find`, in the page's main world or (`isolated`) in an isolated world of its own.
    async fn find_in(&self, selector: &str, body: &str, budget: &Budget, isolated: bool) -> StepResultOf<Found> {
        let script = with_element(selector, body);
        let sel = serde_json::to_string(selector).unwrap_or_default();
        // Why the element was not there at the last look: if the step's time runs out during
        // the next look, that is still the answer (not a timeout of the look itself).
        let mut last_missing: Option<String> = None;
        loop {
            let evaluated = if isolated {
                self.eval_isolated("journey element", &script, budget.cap(READ_LIMIT)).await
            } else {
                self.eval("journey element", &script, budget.cap(READ_LIMIT)).await
            };
            let text = match evaluated {
                Ok(t) => t,
                Err(BrowserError::Script { .. }) if budget.left() > POLL => {
                    // The document was replaced under the call; look again.
                    tokio::time::sleep(POLL).await;
                    continue;
                }
                Err(BrowserError::Timeout { .. }) if last_missing.is_some() && budget.left() < POLL => {
                    return Err(StepError::Failed(format!("{sel}: {}", last_missing.unwrap_or_default())));
                }
                Err(e) => return Err(e.into()),
            };
            let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            let missing = v.get("missing").and_then(Value::as_bool).unwrap_or(false);
            let found: Found = serde_json::from_value(v).unwrap_or_default();
            match &found.error {
                None => return Ok(found),
                Some(e) if missing && budget.left() > POLL => {
                    last_missing = Some(e.clone());
                    tokio::time::sleep(POLL).await;
                }
                Some(e) => return Err(StepError::Failed(format!("{sel}: {e}"))),
            }
        }
    }

    /// A real click (mouse pressed and released at the element's centre); returns the time from
    /// the input to the next paint.
    async fn click(&self, selector: &str, budget: &Budget) -> StepResultOf<Option<f64>> {
        let at = self.find(selector, POINT_AT, budget).await?;
        for kind in [DispatchMouseEventType::MouseMoved, DispatchMouseEventType::MousePressed, DispatchMouseEventType::MouseReleased] {
            let mut p = DispatchMouseEventParams::new(kind.clone(), at.x, at.y);
            if kind != DispatchMouseEventType::MouseMoved {
                p.button = Some(MouseButton::Left);
                p.click_count = Some(1);
            }
            run(self.instance, self.page, "Input.dispatchMouseEvent", budget.left(), p).await?;
        }
        Ok(self.paint_delay().await)
    }

    async fn paint_delay(&self) -> Option<f64> {
        let text = self.eval("paint probe", PAINT_PROBE, READ_LIMIT).await.ok()?;
        serde_json::from_str::<Option<f64>>(&text).ok().flatten()
    }

    async fn act(&mut self, live: &Live, action: &Action, budget: &Budget, timeout_ms: u64, result: &mut StepResult) -> StepResultOf<()> {
        let log = live.log.as_ref().ok_or_else(|| StepError::Fatal("no event log".into()))?;
        let from = log.len();
        let loads = log.signals().load_events;
        match action {
            Action::Navigate(target) => {
                let url = self.resolve(target).await;
                self.navigate(live, &url, budget).await
            }
            Action::Click(selector) => {
                result.interaction_to_paint_ms = self.click(selector, budget).await?;
                self.settle(live, from, loads, budget).await
            }
            Action::Check(selector) | Action::Uncheck(selector) => {
                let want = matches!(action, Action::Check(_));
                let state = self.find(selector, "return JSON.stringify({checked: typeof el.checked === 'boolean' ? el.checked : null});", budget).await?;
                match state.checked {
                    None => return Err(StepError::Failed(format!("{}: the element is not a checkbox or radio button", quote(selector)))),
                    Some(c) if c == want => return Ok(()),
                    Some(_) => {}
                }
                result.interaction_to_paint_ms = self.click(selector, budget).await?;
                self.settle(live, from, loads, budget).await?;
                let after = self.find(selector, "return JSON.stringify({checked: !!el.checked});", budget).await?;
                if after.checked != Some(want) {
                    return Err(StepError::Failed(format!("{}: clicking it did not {}", quote(selector), action.key())));
                }
                Ok(())
            }
            Action::Fill { selector, value } => {
                let clear = r#"
  if (el.disabled || el.readOnly) return JSON.stringify({error: 'the field does not accept input (disabled or read-only)'});
  if (!('value' in el) && !el.isContentEditable) return JSON.stringify({error: 'the element is not a field'});
  el.focus();
  if ('value' in el) { el.value = ''; el.dispatchEvent(new Event('input', {bubbles: true})); }
  return JSON.stringify({});"#;
                self.find(selector, clear, budget).await?;
                let names = secret_refs(value).unwrap_or_default();
                if !names.is_empty() {
                    self.secret_may_be_typed(selector, budget).await?;
                }
                let text = substitute(value, &self.spec.secrets);
                run(self.instance, self.page, "Input.insertText", budget.left(), InsertTextParams::new(text)).await?;
                if !names.is_empty() {
                    for n in names {
                        if !self.typed.contains(&n) {
                            self.typed.push(n);
                        }
                    }
                    self.secret_fields.push(selector.clone());
                }
                self.find(selector, "el.dispatchEvent(new Event('change', {bubbles: true})); return JSON.stringify({});", budget).await?;
                Ok(())
            }
            Action::Select { selector, value } => {
                let names = secret_refs(value).unwrap_or_default();
                let wanted = serde_json::to_string(&substitute(value, &self.spec.secrets)).unwrap_or_default();
                let body = format!(
                    r#"
  if (el.tagName !== 'SELECT') return JSON.stringify({{error: 'the element is not a select'}});
  if (el.disabled) return JSON.stringify({{error: 'the select is disabled'}});
  const want = {wanted};
  const opt = Array.from(el.options).find(o => o.value === want) || Array.from(el.options).find(o => o.text.trim() === want);
  if (!opt) return JSON.stringify({{error: 'no option has that value or text'}});
  el.value = opt.value;
  el.dispatchEvent(new Event('input', {{bubbles: true}}));
  el.dispatchEvent(new Event('change', {{bubbles: true}}));
  return JSON.stringify({{}});"#
                );
                if !names.is_empty() {
                    let url = self.main_frame_url().await.unwrap_or_default();
                    if let Err(why) = may_load(&url, &self.allowed) {
                        return Err(StepError::Failed(format!("the secret was not chosen: the page is not on the journey's origins ({why})")));
                    }
                }
                // The wanted value may be a secret: matched in an isolated world.
                self.find_in(selector, &body, budget, !names.is_empty()).await?;
                for n in names {
                    if !self.typed.contains(&n) {
                        self.typed.push(n);
                    }
                }
                self.settle(live, from, loads, budget).await
            }
            Action::Press(key) => {
                self.eval(
                    "input mark",
                    "(() => { window.__sitescanInput = null; addEventListener('keydown', (e) => { if (window.__sitescanInput === null) window.__sitescanInput = e.timeStamp; }, {capture: true, once: true}); return ''; })()",
                    budget.cap(READ_LIMIT),
                )
                .await?;
                for p in key_events(key) {
                    run(self.instance, self.page, "Input.dispatchKeyEvent", budget.left(), p).await?;
                }
                result.interaction_to_paint_ms = self.paint_delay().await;
                self.settle(live, from, loads, budget).await
            }
            Action::WaitFor(WaitFor::Selector { selector, state }) => {
                let script = format!(
                    r#"(() => {{ let el; try {{ el = document.querySelector({}); }} catch (e) {{ return 'invalid'; }}
  if (!el) return 'gone';
  const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
  return (r.width > 0 && r.height > 0 && cs.visibility !== 'hidden' && cs.display !== 'none') ? 'visible' : 'hidden'; }})()"#,
                    quote(selector)
                );
                loop {
                    let now = self.eval("wait_for", &script, budget.cap(READ_LIMIT)).await.unwrap_or_default();
                    if now == "invalid" {
                        return Err(StepError::Failed(format!("{}: invalid selector", quote(selector))));
                    }
                    let holds = match state {
                        ElementState::Visible => now == "visible",
                        ElementState::Hidden => now == "hidden" || now == "gone",
                        ElementState::Gone => now == "gone",
                    };
                    if holds {
                        return Ok(());
                    }
                    if budget.left() <= POLL {
                        return Err(StepError::Timeout(format!(
                            "{} was not {} within {timeout_ms} ms",
                            quote(selector),
                            state.as_str(),
                        )));
                    }
                    tokio::time::sleep(POLL).await;
                }
            }
            Action::WaitFor(WaitFor::Url(pattern)) => loop {
                if self.current_url().await.is_some_and(|u| url_matches(pattern, &u)) {
                    return Ok(());
                }
                if budget.left() <= POLL {
                    let at = self.current_url().await.unwrap_or_default();
                    return Err(StepError::Timeout(format!("the URL never matched {} within {timeout_ms} ms (it is {at})", quote(pattern))));
                }
                tokio::time::sleep(POLL).await;
            },
            Action::Assert(assertion) => {
                let until = Instant::now() + budget.cap(ASSERT_GRACE);
                loop {
                    let (holds, what) = match assertion {
                        Assertion::Text(t) => {
                            let script = format!("(() => String((document.body ? document.body.innerText : '').includes({})))()", quote(t));
                            (self.eval("assert text", &script, READ_LIMIT).await.is_ok_and(|v| v == "true"), format!("the page does not show {}", quote(t)))
                        }
                        Assertion::Url(u) => {
                            let now = self.current_url().await.unwrap_or_default();
                            (url_matches(u, &now), format!("the URL {now} does not match {}", quote(u)))
                        }
                    };
                    if holds {
                        return Ok(());
                    }
                    if Instant::now() >= until {
                        return Err(StepError::Failed(what));
                    }
                    tokio::time::sleep(POLL).await;
                }
            }
            Action::Screenshot(_) | Action::Audit(_) => Ok(()),
        }
    }

    /// Gathers a full snapshot of the page as it is now.
    async fn audit(&self, live: &mut Live, budget: &Budget) -> StepResultOf<PageSnapshot> {
        let url = self.current_url().await.unwrap_or_default();
        let log = live.log.as_ref().ok_or_else(|| StepError::Fatal("no event log".into()))?;
        let events = log.since(0);
        // The page's own events start with its main document request (the latest one).
        let main = events.iter().rposition(|e| {
            e.method == "Network.requestWillBeSent" && e.str("type") == Some("Document") && e.str("requestId").is_some() && e.str("requestId") == e.str("loaderId")
        });
        live.loader_id = main.and_then(|i| events[i].str("requestId").map(str::to_string));
        live.perf_early = None;
        live.perf_late = None;
        // From the first hop of its redirect chain (redirects keep the request id).
        let from = live
            .loader_id
            .as_deref()
            .and_then(|id| events.iter().position(|e| e.method == "Network.requestWillBeSent" && e.str("requestId") == Some(id)))
            .unwrap_or(0);
        let mut snap = PageSnapshot { requested_url: url.clone(), final_url: url.clone(), ..PageSnapshot::default() };
        let gathered = gather_in_page(self.instance, self.page, self.settings, budget, &mut snap, live).await;
        redraw(self.instance, live).await; // The journey goes on from here, drawn.
        gathered?;
        let events = live.log.as_ref().map(|l| l.since(from)).unwrap_or_default();
        artifacts(&mut snap, live, &events, self.proxy);
        // Where the page is now (a history change keeps the document's URL in the network record).
        snap.final_url = url;
        // No document record (it cannot usually happen: the log starts with the page): the page
        // is on screen, so it is judged as rendered.
        if snap.status.is_none() {
            snap.status = Some(200);
        }
        Ok(snap)
    }

    /// A viewport PNG with every secret-bearing field and text hidden while it is taken.
    async fn screenshot(&self, budget: &Budget) -> StepResultOf<String> {
        let secrets: Vec<String> = self.typed.iter().filter_map(|n| self.spec.secrets.get(n)).map(str::to_string).collect();
        let hide = format!(
            r#"(() => {{
  const sels = {sels}, secrets = {secrets}, saved = [], texts = [];
  const hide = (el) => {{ saved.push([el, el.getAttribute('type'), el.style.webkitTextSecurity]); if (el.tagName === 'INPUT') el.setAttribute('type', 'password'); el.style.webkitTextSecurity = 'disc'; }};
  for (const s of sels) {{ try {{ document.querySelectorAll(s).forEach(hide); }} catch (e) {{}} }}
  document.querySelectorAll('input, textarea').forEach((el) => {{ if (secrets.some((v) => v && String(el.value).includes(v))) hide(el); }});
  const root = document.body || document.documentElement;
  if (root) {{
    const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    while (w.nextNode()) {{
      const n = w.currentNode; let t = n.nodeValue, changed = false;
      for (const v of secrets) {{ if (v && t.includes(v)) {{ t = t.split(v).join('{mask}'); changed = true; }} }}
      if (changed) {{ texts.push([n, n.nodeValue]); n.nodeValue = t; }}
    }}
  }}
  window.__sitescanHidden = {{saved, texts}};
  return String(saved.length + texts.length);
}})()"#,
            sels = serde_json::to_string(&self.secret_fields).unwrap_or_default(),
            secrets = serde_json::to_string(&secrets).unwrap_or_default(),
            mask = crate::model::journey::SECRET_MASK,
        );
        const RESTORE: &str = r#"(() => { const h = window.__sitescanHidden; if (!h) return ''; for (const [el, type, sec] of h.saved.reverse()) { if (type === null) el.removeAttribute('type'); else el.setAttribute('type', type); el.style.webkitTextSecurity = sec; } for (const [n, v] of h.texts) n.nodeValue = v; delete window.__sitescanHidden; return 'ok'; })()"#;
        // The values are handed to an isolated world only: the page's scripts never see them.
        let world = if !secrets.is_empty() || !self.secret_fields.is_empty() {
            // Never take the picture when the secrets could not be hidden.
            let world = self.isolated_world(budget.cap(READ_LIMIT)).await?;
            eval_string_in(self.instance, self.page, world, "hide secrets", &hide, budget.cap(READ_LIMIT)).await?;
            Some(world)
        } else {
            None
        };
        let params = CaptureScreenshotParams { format: Some(CaptureScreenshotFormat::Png), from_surface: Some(true), ..CaptureScreenshotParams::default() };
        let shot = run(self.instance, self.page, "Page.captureScreenshot", budget.cap(Duration::from_secs(10)), params).await;
        if let Some(world) = world {
            let _ = eval_string_in(self.instance, self.page, world, "restore secrets", RESTORE, READ_LIMIT).await;
        }
        Ok(shot?.data.into())
    }

    /// Records where any secret typed so far shows up now.
    async fn exposures(&self, step: usize, out: &mut Vec<SecretExposure>) {
        // Read in an isolated world: page script cannot redefine what the reading calls.
        let Ok(text) = self.eval_isolated("exposure scan", EXPOSURE_READ, READ_LIMIT).await else { return };
        let Ok(seen) = serde_json::from_str::<Exposure>(&text) else { return };
        let typed = self.spec.secrets.only(&self.typed);
        let url = self.spec.secrets.mask(&seen.url);
        let mut found: Vec<(String, String)> = Vec::new();
        for name in typed.found_in(&seen.url) {
            found.push((name.to_string(), "url".into()));
        }
        for name in typed.found_in(&seen.text) {
            found.push((name.to_string(), "page text".into()));
        }
        for (store, entries) in [("localStorage", &seen.local), ("sessionStorage", &seen.session)] {
            for (k, v) in entries {
                for name in typed.found_in(&format!("{k}\n{}", v.as_deref().unwrap_or_default())) {
                    found.push((name.to_string(), format!("{store}[{}]", quote(&typed.mask(k)))));
                }
            }
        }
        for pair in seen.cookie.split(';').map(str::trim).filter(|p| !p.is_empty()) {
            let cookie = pair.split_once('=').map_or(pair, |(n, _)| n);
            for name in typed.found_in(pair) {
                found.push((name.to_string(), format!("cookie {}", quote(&typed.mask(cookie)))));
            }
        }
        for (secret, location) in found {
            if !out.iter().any(|x| x.secret == secret && x.location == location) {
                out.push(SecretExposure { step, secret, location, url: url.clone() });
            }
        }
    }

    async fn proof_present(&self, proof: &LoggedInProof) -> bool {
        let script = match proof {
            LoggedInProof::Text(t) => format!("(() => String((document.body ? document.body.innerText : '').includes({})))()", quote(t)),
            LoggedInProof::Selector(s) => format!("(() => {{ try {{ return String(!!document.querySelector({})); }} catch (e) {{ return 'false'; }} }})()", quote(s)),
        };
        let until = Instant::now() + ASSERT_GRACE;
        loop {
            if self.eval("logged-in proof", &script, READ_LIMIT).await.is_ok_and(|v| v == "true") {
                return true;
            }
            if Instant::now() >= until {
                return false;
            }
            tokio::time::sleep(POLL).await;
        }
    }
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// The key events of one press: down (with the text it types, if any) and up.
fn key_events(key: &str) -> Vec<DispatchKeyEventParams> {
    let (code, vk, text): (String, i64, Option<String>) = match key {
        "Enter" => ("Enter".into(), 13, Some("\r".into())),
        "Tab" => ("Tab".into(), 9, None),
        "Escape" => ("Escape".into(), 27, None),
        "Backspace" => ("Backspace".into(), 8, None),
        "Delete" => ("Delete".into(), 46, None),
        "Space" | " " => ("Space".into(), 32, Some(" ".into())),
        "ArrowUp" => ("ArrowUp".into(), 38, None),
        "ArrowDown" => ("ArrowDown".into(), 40, None),
        "ArrowLeft" => ("ArrowLeft".into(), 37, None),
        "ArrowRight" => ("ArrowRight".into(), 39, None),
        "Home" => ("Home".into(), 36, None),
        "End" => ("End".into(), 35, None),
        "PageUp" => ("PageUp".into(), 33, None),
        "PageDown" => ("PageDown".into(), 34, None),
        k if k.chars().count() == 1 => {
            let c = k.chars().next().unwrap_or(' ');
            let code = if c.is_ascii_alphabetic() { format!("Key{}", c.to_ascii_uppercase()) } else if c.is_ascii_digit() { format!("Digit{c}") } else { String::new() };
            (code, i64::from(u32::from(c.to_ascii_uppercase())), Some(k.to_string()))
        }
        other => (other.to_string(), 0, None),
    };
    let key_name = if key == "Space" { " ".to_string() } else { key.to_string() };
    let down = DispatchKeyEventParams {
        r#type: if text.is_some() { DispatchKeyEventType::KeyDown } else { DispatchKeyEventType::RawKeyDown },
        key: Some(key_name.clone()),
        code: Some(code.clone()),
        windows_virtual_key_code: Some(vk),
        native_virtual_key_code: Some(vk),
        text: text.clone(),
        unmodified_text: text,
        ..DispatchKeyEventParams::new(DispatchKeyEventType::KeyDown)
    };
    let up = DispatchKeyEventParams {
        r#type: DispatchKeyEventType::KeyUp,
        key: Some(key_name),
        code: Some(code),
        windows_virtual_key_code: Some(vk),
        native_virtual_key_code: Some(vk),
        ..DispatchKeyEventParams::new(DispatchKeyEventType::KeyUp)
    };
    vec![down, up]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::parse_journey;

    #[test]
    fn the_login_ends_with_the_submit_after_the_last_secret() {
        let j = parse_journey(r##"{"name": "a", "logged_in": {"text": "Sign out"}, "steps": [{"navigate": "/login"}, {"fill": "#email", "value": "a@b.c"}, {"fill": "#password", "value": "{{secret.PASSWORD}}"}, {"click": "button[type=submit]"}, {"wait_for": {"url": "/account*"}}, {"audit": "account"}]}"##).unwrap();
        assert_eq!(login_end(&j), Some(3));
        let j = parse_journey(r##"{"name": "a", "logged_in": {"text": "Sign out"}, "steps": [{"navigate": "/"}, {"click": "a"}]}"##).unwrap();
        assert_eq!(login_end(&j), Some(1));
        let j = parse_journey(r##"{"name": "a", "steps": [{"navigate": "/"}]}"##).unwrap();
        assert_eq!(login_end(&j), None);
    }

    #[test]
    fn responses_are_navigations_and_submissions_masked_without_the_proxys_own() {
        use serde_json::json;
        let ev = |method: &str, params: Value| RawEvent { method: method.into(), params };
        let events = vec![
            ev("Network.requestWillBeSent", json!({"requestId": "1", "type": "Document", "request": {"method": "POST", "url": "http://a.test/login"}})),
            ev("Network.responseReceived", json!({"requestId": "1", "type": "Document", "response": {"status": 500, "url": "http://a.test/login?pw=hunter2", "headers": {}}})),
            ev("Network.requestWillBeSent", json!({"requestId": "2", "type": "Fetch", "request": {"method": "GET", "url": "http://a.test/api"}})),
            ev("Network.responseReceived", json!({"requestId": "2", "type": "Fetch", "response": {"status": 404, "url": "http://a.test/api", "headers": {}}})),
            ev("Network.requestWillBeSent", json!({"requestId": "3", "type": "Fetch", "request": {"method": "PUT", "url": "http://a.test/cart"}})),
            ev("Network.responseReceived", json!({"requestId": "3", "type": "Fetch", "response": {"status": 409, "url": "http://a.test/cart", "headers": {}}})),
            ev("Network.responseReceived", json!({"requestId": "4", "type": "Document", "response": {"status": 403, "url": "http://10.0.0.1/", "headers": {"X-Sitescan-Egress": "blocked"}}})),
        ];
        let mut secrets = crate::model::JourneySecrets::new();
        secrets.insert("PASSWORD", "hunter2");
        let spec = JourneySpec { journey: crate::model::parse_journey(r#"{"name": "a", "steps": [{"navigate": "/"}]}"#).unwrap(), secrets };
        let mut out = Vec::new();
        collect_responses(&events, 3, &spec, &mut out);
        let seen: Vec<(&str, &str, u16)> = out.iter().map(|r| (r.method.as_str(), r.url.as_str(), r.status)).collect();
        assert_eq!(seen, [("POST", "http://a.test/login?pw=••••••", 500), ("PUT", "http://a.test/cart", 409)]);
        assert!(out.iter().all(|r| r.step == 3));
        assert!(proxy_marker(&events[6].params["response"]).is_some());
    }

    #[test]
    fn enter_types_a_carriage_return() {
        let e = key_events("Enter");
        assert_eq!(e[0].text.as_deref(), Some("\r"));
        assert_eq!(e[0].windows_virtual_key_code, Some(13));
        assert_eq!(key_events("a")[0].code.as_deref(), Some("KeyA"));
    }
}
