//! Each action of a journey in its page, under the step's budget: navigate, click, type (secrets
//! only where they may be typed), select, press, wait, assert, audit, screenshot; and the checks
//! after a step (where secrets show up, the logged-in proof).

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::input::{
    DispatchKeyEventParams, DispatchKeyEventType, DispatchMouseEventParams, DispatchMouseEventType, InsertTextParams, MouseButton,
};
use chromiumoxide::cdp::browser_protocol::page::{
    CaptureScreenshotFormat, CaptureScreenshotParams, CreateIsolatedWorldParams, GetFrameTreeParams, NavigateParams,
};
use chromiumoxide::cdp::js_protocol::runtime::ExecutionContextId;
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::browser::capture::{CaptureSettings, Live, NETWORK_QUIET, artifacts, gather_in_page, redraw, wait_quiet};
use crate::browser::cdp::{Deadline, eval_main, eval_string_in, run, step};
use crate::browser::error::BrowserError;
use crate::browser::instance::Instance;
use crate::model::journey::{
    Action, Assertion, ElementState, LoggedInProof, SecretExposure, WaitFor, may_load, secret_refs, substitute, url_matches,
};
use crate::model::{JourneySpec, PageSnapshot, StepResult};
use crate::net::EgressProxy;

use super::responses::egress_refusal;
use super::scripts::{EXPOSURE_READ, Exposure, Found, PAINT_PROBE, POINT_AT, with_element};
use super::{ASSERT_GRACE, NAVIGATION_START_GRACE, POLL, READ_LIMIT, STEP_QUIET_MAX};

/// Why a step did not succeed.
pub(super) enum StepError {
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

impl StepError {
    pub(super) fn message(&self) -> &str {
        match self {
            StepError::Failed(m) | StepError::Timeout(m) | StepError::Fatal(m) => m,
        }
    }
}

pub(super) struct Runner<'a> {
    pub(super) instance: &'a Arc<Instance>,
    pub(super) page: &'a Page,
    pub(super) spec: &'a JourneySpec,
    pub(super) settings: &'a CaptureSettings,
    pub(super) proxy: &'a EgressProxy,
    pub(super) start: &'a str,
    /// The origins the journey may load (the site's first).
    pub(super) allowed: Vec<String>,
    /// Names of the secrets typed so far.
    pub(super) typed: Vec<String>,
    /// Selectors of the fields a secret was typed into.
    pub(super) secret_fields: Vec<String>,
}

impl Runner<'_> {
    async fn eval(&self, what: &'static str, expression: &str, limit: Duration) -> Result<String, BrowserError> {
        eval_main(self.instance, self.page, what, expression, limit).await
    }

    pub(super) async fn current_url(&self) -> Option<String> {
        self.eval("location", "location.href", READ_LIMIT).await.ok()
    }

    /// The main frame's URL as the browser has it (no page script can change the answer).
    pub(super) async fn main_frame_url(&self) -> Option<String> {
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
    pub(super) async fn leave(&self) {
        let _ = run(self.instance, self.page, "Page.navigate", READ_LIMIT, NavigateParams::new("about:blank".to_string())).await;
    }

    /// Before a secret is typed: the main frame is on one of the journey's origins and the focus
    /// is on the step's own field in it (not on a frame, where the text would go instead).
    async fn secret_may_be_typed(&self, selector: &str, budget: &Deadline) -> StepResultOf<()> {
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

    pub(super) async fn navigate(&self, live: &Live, url: &str, budget: &Deadline) -> StepResultOf<()> {
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
    async fn settle_load(&self, live: &Live, loads: usize, budget: &Deadline) -> StepResultOf<()> {
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
    async fn settle(&self, live: &Live, from: usize, loads: usize, budget: &Deadline) -> StepResultOf<()> {
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
    async fn find(&self, selector: &str, body: &str, budget: &Deadline) -> StepResultOf<Found> {
        self.find_in(selector, body, budget, false).await
    }

    /// `find`, in the page's main world or (`isolated`) in an isolated world of its own.
    async fn find_in(&self, selector: &str, body: &str, budget: &Deadline, isolated: bool) -> StepResultOf<Found> {
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
    async fn click(&self, selector: &str, budget: &Deadline) -> StepResultOf<Option<f64>> {
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

    pub(super) async fn act(&mut self, live: &Live, action: &Action, budget: &Deadline, timeout_ms: u64, result: &mut StepResult) -> StepResultOf<()> {
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
    pub(super) async fn audit(&self, live: &mut Live, budget: &Deadline) -> StepResultOf<PageSnapshot> {
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
    pub(super) async fn screenshot(&self, budget: &Deadline) -> StepResultOf<String> {
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
    pub(super) async fn exposures(&self, step: usize, out: &mut Vec<SecretExposure>) {
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

    pub(super) async fn proof_present(&self, proof: &LoggedInProof) -> bool {
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

    #[test]
    fn enter_types_a_carriage_return() {
        let e = key_events("Enter");
        assert_eq!(e[0].text.as_deref(), Some("\r"));
        assert_eq!(e[0].windows_virtual_key_code, Some(13));
        assert_eq!(key_events("a")[0].code.as_deref(), Some("KeyA"));
    }
}
