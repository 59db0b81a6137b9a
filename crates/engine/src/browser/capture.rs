//! One page capture: open a page in the scan's browser context, install the init scripts and
//! listeners, navigate, wait for load and network quiet, scroll, run the gatherers, close the
//! page. Never fails: trouble becomes `snapshot.error` (page level) or `gather_errors`.
//!
//! Order matters: paint metrics are read before scrolling (so LCP is what the first viewport
//! showed), the page's lazy content is then loaded (`browser/scroll.js`: native lazy images
//! switched to eager, or, where a script watches scrolling, a scroll to the bottom and back; layout
//! shifts are recorded) and the screenshot taken; then, with the page's window
//! minimized (nothing is drawn while the page is only read), DOM facts, HTML, the barrier facts
//! (`browser/barriers.js`), axe, the keyboard walk (it moves focus, which would otherwise show in
//! the other artifacts), drawn again, the contrast axe left for pixels (`gather/contrast.rs`), and
//! last the reading and layout facts (`gather/layout.rs`: it narrows the viewport and grows the
//! text, undoing both before it ends).

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::audits;
use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::emulation::SetUserAgentOverrideParams;
use chromiumoxide::cdp::browser_protocol::inspector;
use chromiumoxide::cdp::browser_protocol::network::SetCacheDisabledParams;
use chromiumoxide::cdp::browser_protocol::page::{
    AddScriptToEvaluateOnNewDocumentParams, CrashParams, EventJavascriptDialogOpening, HandleJavaScriptDialogParams, NavigateParams,
    GetFrameTreeParams, StopLoadingParams,
};
use chromiumoxide::cdp::browser_protocol::target::{CloseTargetParams, CreateTargetParams};
use chromiumoxide::cdp::js_protocol::runtime::AddBindingParams;
use futures::StreamExt;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

use crate::model::{Artifact, GatherError, PageError, PageSnapshot, Sample};
use crate::net::EgressProxy;

use super::cdp::{Deadline, STEP_TIMEOUT, eval_main, eval_string, forget_world, renderer_answers, run, run_in_document, step};
use super::cores;
use super::error::BrowserError;
use super::events::{EVENT_LOG_FULL, EventLog, MAX_EVENT_BYTES, MAX_EVENTS};
use super::gather::animation::ImageAnimations;
use super::gather::{axe, barriers, console, contrast, cookies, csp, dialogs, document, dom, exceptions, image_text, issues, keyboard, layout, metrics, network, page_text, screenshot};
use super::instance::Instance;
use super::options::CaptureOptions;
use super::page_cpu::{self, PageCpu};
use super::shared_regions::SharedRegions;
use super::unchanged;
use super::scripts::{BINDING, EAGER_AT_LOAD, HOOKS_INIT, PARK_PAGE, PERF_INIT, SCROLL_PAGE};
use super::window::PageWindow;

/// Network is quiet after this long without a request in flight.
pub const NETWORK_QUIET: Duration = Duration::from_millis(500);
/// Longest wait for network quiet after `load` (long polling never goes quiet).
pub const NETWORK_QUIET_MAX: Duration = Duration::from_secs(5);
/// How long `Page.navigate`'s answer is awaited once the document was parsed.
const NAVIGATE_GRACE: Duration = Duration::from_millis(500);
/// Longest wait for network quiet after scrolling.
pub const SCROLL_QUIET_MAX: Duration = Duration::from_secs(3);
/// The network quiet awaited after lazy images were loaded without scrolling (`browser/scroll.js`
/// returns once they have loaded): only for what their load handlers may start, at once.
const EAGER_QUIET: Duration = Duration::from_millis(100);
/// CLS and TBT are read once the page has neither shifted its layout nor run a long task for
/// this long (`metrics::settle`)... A page that did neither since it started is read at once:
/// waiting on every page for what a few might do late would cost every scan that time, and most
/// pages are done by the time the network went quiet.
pub const SETTLE_QUIET: Duration = Duration::from_millis(500);
/// ...or after this long, for a page that never settles (an animation that keeps shifting).
pub const SETTLE_MAX: Duration = Duration::from_secs(2);

/// What a capture needs to know besides the URL.
#[derive(Debug, Clone)]
pub(crate) struct CaptureSettings {
    pub(crate) navigation_timeout: Duration,
    pub(crate) page_timeout: Duration,
    pub(crate) capture: CaptureOptions,
    pub(crate) user_agent: Option<String>,
    /// The scan's judged regions, when it shares them (`CaptureOptions::share`).
    pub(crate) shared: Option<Arc<SharedRegions>>,
}

/// How the capture ended, for the session's retry decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CaptureOutcome {
    Done,
    /// The renderer crashed.
    PageCrashed,
    /// The browser died (or stopped answering) under the page.
    BrowserGone,
    /// A step timed out: the browser may be hung.
    TimedOut,
}

/// State that outlives the in-page part, so the event-based artifacts are gathered even when
/// navigation fails or the budget runs out.
#[derive(Default)]
pub(crate) struct Live {
    pub(crate) page: Option<Page>,
    session_id: Option<String>,
    pub(crate) log: Option<EventLog>,
    dialogs: Option<tokio::task::JoinHandle<()>>,
    pub(crate) loader_id: Option<String>,
    nav_error: Option<String>,
    download: bool,
    pub(crate) perf_early: Option<metrics::PerfReport>,
    pub(crate) perf_late: Option<metrics::PerfReport>,
    /// The page's window while the in-page gatherers left it minimized (`redraw` restores it).
    window: Option<PageWindow>,
    /// The event log's length when the layout gatherer started (`before_layout`).
    layout_from: Option<usize>,
    /// The images whose animation the layout gatherer read (kept with an unchanged page's facts).
    layout_images: Option<Vec<layout::Candidate>>,
    phases: Phases,
    /// An owner's journey drives this page: the gatherers press no key of their own on it (the
    /// dialog probe is left out), so nothing is pressed behind a login that the journey did not.
    pub(crate) journey: bool,
}

/// Where a capture's time went, phase by phase (the debug log line `capture phases`; the
/// benchmark's profile reads it).
pub(crate) struct Phases {
    last: Instant,
    spent: Vec<(&'static str, u128)>,
    /// What each in-page phase cost the page's main thread (`page_cpu`), when that is logged.
    cpu: Option<PageCpu>,
}

impl Default for Phases {
    fn default() -> Self {
        Phases { last: Instant::now(), spent: Vec::new(), cpu: None }
    }
}

impl Phases {
    /// Ends the phase `name` now.
    fn end(&mut self, name: &'static str) {
        let now = Instant::now();
        self.spent.push((name, now.duration_since(self.last).as_millis()));
        self.last = now;
    }

    /// Ends the phase `name` of the in-page part, with what it cost the page's main thread when
    /// that is logged.
    async fn end_in(&mut self, instance: &Instance, page: &Page, name: &'static str) {
        self.end(name);
        if let Some(cpu) = self.cpu.as_mut() {
            cpu.end(instance, page, name).await;
        }
    }

    fn render(&self) -> String {
        self.spent.iter().map(|(n, ms)| format!("{n}={ms}")).collect::<Vec<_>>().join(" ")
    }
}


/// A scan's page kept open after a capture, for the scan's next page on the same browser: its
/// renderer process, window and subscriptions are reused, and only the navigation is new. Each
/// page in a window of its own costs a new window and a new renderer process (the browser's
/// window machinery, process start, a cold JavaScript engine for axe-core).
pub(crate) struct Parked {
    page: Page,
    session_id: String,
    log: EventLog,
    dialogs: Option<tokio::task::JoinHandle<()>>,
    /// Pages captured in it so far.
    uses: usize,
}

impl std::fmt::Debug for Parked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parked").field("session_id", &self.session_id).field("uses", &self.uses).finish_non_exhaustive()
    }
}

impl Parked {
    /// Stops routing the page's unparsable events (the page itself goes with its context).
    pub(crate) fn unroute(&self, instance: &Instance) {
        instance.unroute(&self.session_id);
    }

    /// Closes the page (its subscriptions end with it).
    pub(crate) async fn close(self, instance: &Instance) {
        let mut live = Live { page: Some(self.page), session_id: Some(self.session_id), log: Some(self.log), ..Live::default() };
        close(instance, &mut live, false).await;
    }
}

/// Pages captured in one window before it is closed and a new one opened: a renderer's memory
/// grows with what it has run.
pub(crate) const PAGES_PER_WINDOW: usize = 8;

pub(crate) async fn capture(
    instance: &Arc<Instance>,
    context: &BrowserContextId,
    url: &str,
    settings: &CaptureSettings,
    proxy: &EgressProxy,
    reuse: Option<Parked>,
) -> (PageSnapshot, CaptureOutcome, Option<Parked>) {
    let started = Instant::now();
    let mut snap = PageSnapshot { requested_url: url.to_string(), final_url: url.to_string(), ..PageSnapshot::default() };
    let mut live = Live::default();
    let budget = Deadline::new(settings.page_timeout);
    // A hard stop a little after the budget, in case a step overruns its own limit.
    let hard = settings.page_timeout + Duration::from_secs(5);
    let uses = reuse.as_ref().map_or(0, |p| p.uses) + 1;
    let inner = tokio::time::timeout(hard, drive(instance, context, url, settings, &budget, &mut snap, &mut live, reuse)).await;
    let mut outcome = CaptureOutcome::Done;
    let failure = match inner {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(e),
        Err(_) => Some(BrowserError::Timeout { what: "page capture", after: hard }),
    };
    if let Some(e) = &failure {
        outcome = match e {
            BrowserError::BrowserGone => CaptureOutcome::BrowserGone,
            BrowserError::PageCrashed => CaptureOutcome::PageCrashed,
            BrowserError::Timeout { .. } => CaptureOutcome::TimedOut,
            _ => CaptureOutcome::Done,
        };
    }
    if !instance.is_alive() {
        outcome = CaptureOutcome::BrowserGone;
    }
    if live.log.as_ref().is_some_and(|l| l.signals().crashed) && outcome != CaptureOutcome::BrowserGone {
        outcome = CaptureOutcome::PageCrashed;
    }
    live.phases.end("in-page");
    finish(&mut snap, &live, failure, outcome, proxy);
    live.phases.end("artifacts");
    let mut reusable = outcome == CaptureOutcome::Done && snap.error.is_none() && !live.download && uses < PAGES_PER_WINDOW && instance.is_alive();
    if reusable && let Some(page) = &live.page {
        let parked = eval_main(instance, page, "park", &PARK_PAGE, Duration::from_secs(2)).await;
        reusable = matches!(parked.as_deref(), Ok("parked"));
    }
    if reusable {
        redraw(instance, &mut live).await; // The next URL is drawn as it loads.
    }
    let parked = match (reusable, live.page.take(), live.session_id.take(), live.log.take()) {
        (true, Some(page), Some(session_id), Some(log)) => Some(Parked { page, session_id, log, dialogs: live.dialogs.take(), uses }),
        (_, page, session_id, log) => {
            (live.page, live.session_id, live.log) = (page, session_id, log);
            close(instance, &mut live, outcome == CaptureOutcome::TimedOut).await;
            None
        }
    };
    live.phases.end("close");
    snap.capture_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    tracing::debug!(url, phases = %live.phases.render(), "capture phases");
    if let Some(cpu) = live.phases.cpu.as_ref().filter(|c| !c.is_empty()) {
        tracing::debug!(target: "sitescan_engine::page_cpu", url, phases = %cpu.render(), "page main thread by phase");
    }
    tracing::debug!(url, final_url = %snap.final_url, status = ?snap.status, error = ?snap.error.as_ref().map(|e| &e.kind), capture_ms = snap.capture_ms, "page captured");
    (snap, outcome, parked)
}

fn gather_error(snap: &mut PageSnapshot, gatherer: &str, e: &BrowserError) {
    tracing::debug!(gatherer, error = %e, "gatherer failed");
    snap.gather_errors.push(GatherError { gatherer: gatherer.to_string(), message: e.to_string() });
}

/// Everything that talks to the page.
async fn drive(
    instance: &Arc<Instance>,
    context: &BrowserContextId,
    url: &str,
    settings: &CaptureSettings,
    budget: &Deadline,
    snap: &mut PageSnapshot,
    live: &mut Live,
    reuse: Option<Parked>,
) -> Result<(), BrowserError> {
    let page = match reuse {
        Some(parked) => {
            parked.log.reset();
            live.page = Some(parked.page.clone());
            live.session_id = Some(parked.session_id);
            live.log = Some(parked.log);
            live.dialogs = parked.dialogs;
            live.phases.end("open");
            parked.page
        }
        None => open_page(instance, context, settings, budget, live).await?,
    };
    // From here on a renderer crash ends the capture at once.
    let mut crash = live.log.as_ref().map(EventLog::watch).ok_or(BrowserError::Cdp { what: "event log", message: "missing".into() })?;
    tokio::select! {
        r = load_and_gather(instance, &page, url, settings, budget, snap, live) => r,
        _ = crash.wait_for(|s| s.crashed) => Err(BrowserError::PageCrashed),
    }
}

/// Opens a blank page in `context` (a window of its own) with the event log, the dialog
/// dismisser, the init scripts and the user agent of a capture. Journeys open theirs the same way.
pub(crate) async fn open_page(
    instance: &Arc<Instance>,
    context: &BrowserContextId,
    settings: &CaptureSettings,
    budget: &Deadline,
    live: &mut Live,
) -> Result<Page, BrowserError> {
    // Each page in a window of its own: tabs sharing a window are hidden (visibilityState
    // `hidden`) while another tab is in front, and hidden pages do not paint, so concurrent pages
    // would get no FCP, LCP or layout shifts, and lazy images, animation frames and media behave
    // as in a background tab.
    let params = CreateTargetParams::builder()
        .url("about:blank")
        .browser_context_id(context.clone())
        .new_window(true)
        .build()
        .map_err(|e| BrowserError::Cdp { what: "Target.createTarget", message: e })?;
    let page = step(instance, "Target.createTarget", budget.cap(STEP_TIMEOUT), async {
        instance.browser.new_page(params).await.map_err(|e| BrowserError::Cdp { what: "Target.createTarget", message: e.to_string() })
    })
    .await?;
    live.page = Some(page.clone());
    let session = page.session_id().as_ref().to_string();
    let (tx, rx) = mpsc::unbounded_channel();
    instance.route(&session, tx);
    live.session_id = Some(session);
    live.log = Some(step(instance, "event subscriptions", budget.cap(STEP_TIMEOUT), EventLog::start(&page, rx)).await?);
    live.dialogs = Some(dismiss_dialogs(instance, &page).await?);
    PageWindow::learn(instance, &page).await;

    let limit = budget.cap(STEP_TIMEOUT);
    run(instance, &page, "Audits.enable", limit, audits::EnableParams::default()).await?;
    run(instance, &page, "Inspector.enable", limit, inspector::EnableParams::default()).await?;
    run(instance, &page, "Network.setCacheDisabled", limit, SetCacheDisabledParams::new(true)).await?;
    run(instance, &page, "Runtime.addBinding", limit, AddBindingParams::new(BINDING)).await?;
    if let Some(ua) = &settings.user_agent {
        run(instance, &page, "Emulation.setUserAgentOverride", limit, SetUserAgentOverrideParams::new(ua.clone())).await?;
    }
    // The listener hooks must meet the page's own `addEventListener`: the main world. The
    // performance observers need nothing of the page's JavaScript: the gatherers' isolated
    // world, where no page script can break what they read with.
    run(instance, &page, "Page.addScriptToEvaluateOnNewDocument", limit, AddScriptToEvaluateOnNewDocumentParams::new(HOOKS_INIT.clone())).await?;
    let mut perf = AddScriptToEvaluateOnNewDocumentParams::new(PERF_INIT.clone());
    perf.world_name = Some(super::cdp::GATHER_WORLD.to_string());
    run(instance, &page, "Page.addScriptToEvaluateOnNewDocument", limit, perf).await?;
    live.phases.end("open");
    Ok(page)
}

/// Navigates, waits, and runs the in-page gatherers.
async fn load_and_gather(
    instance: &Arc<Instance>,
    page: &Page,
    url: &str,
    settings: &CaptureSettings,
    budget: &Deadline,
    snap: &mut PageSnapshot,
    live: &mut Live,
) -> Result<(), BrowserError> {
    let log = event_log(&live.log)?;
    let loads_before = log.signals().load_events;
    let dom_before = log.signals().dom_content_events;
    let nav_limit = budget.cap(settings.navigation_timeout);
    let nav_deadline = Instant::now() + nav_limit;
    // chromiumoxide answers `Page.navigate` only once the frame fired `load`: a page with one
    // subresource that never arrives would time out with nothing gathered. The document is
    // usable once it was parsed (DOMContentLoaded), so that ends the wait too; `load` is then
    // awaited below, up to the same deadline.
    let mut parsed = log.watch();
    forget_world(instance, page);
    let navigate = run(instance, page, "Page.navigate", nav_limit, NavigateParams::new(url));
    tokio::pin!(navigate);
    let mut nav = tokio::select! {
        r = &mut navigate => Some(r),
        _ = parsed.wait_for(|s| s.dom_content_events > dom_before || s.crashed) => None,
    };
    if nav.is_none() {
        // A failed navigation shows an error page that parses and loads at once: its answer
        // (with the net error) follows within a moment.
        nav = tokio::time::timeout(NAVIGATE_GRACE, &mut navigate).await.ok();
    }
    match nav {
        Some(Ok(nav)) => {
            live.loader_id = nav.loader_id.as_ref().map(|l| l.as_ref().to_string());
            if nav.is_download == Some(true) {
                live.download = true;
                return Ok(()); // Not a document (PDF, archive, ...): the network record says what it was.
            }
            if let Some(err) = nav.error_text.filter(|e| !e.is_empty()) {
                live.nav_error = Some(err);
                return Ok(());
            }
        }
        Some(Err(BrowserError::Timeout { .. })) => {
            if log.signals().crashed {
                return Err(BrowserError::PageCrashed);
            }
            let _ = run(instance, page, "Page.stopLoading", Duration::from_secs(2), StopLoadingParams::default()).await;
            return Err(BrowserError::Timeout { what: "navigation", after: nav_limit });
        }
        Some(Err(e)) => return Err(e),
        None => live.loader_id = main_document_request(log),
    }

    live.phases.end("navigate");
    // Load, then network quiet.
    let mut signals = log.watch();
    let loaded = tokio::select! {
        r = tokio::time::timeout_at(nav_deadline.into(), signals.wait_for(|s| s.load_events > loads_before || s.crashed)) => r.is_ok(),
        _ = instance.dead() => return Err(BrowserError::BrowserGone),
    };
    if log.signals().crashed {
        return Err(BrowserError::PageCrashed);
    }
    if !loaded {
        gather_error(snap, "load", &BrowserError::Timeout { what: "load event", after: nav_limit });
    }
    live.phases.end("load");
    if settings.capture.scroll && loaded {
        // Lazy images load during the quiet awaited anyway (`eager.js`); a failure here only
        // leaves them to the scroll step.
        if let Err(e) = eval_string(instance, page, "eager", &EAGER_AT_LOAD, budget.cap(STEP_TIMEOUT)).await {
            tracing::debug!(error = %e, "lazy images not started at load");
        }
    }
    wait_quiet(instance, log, budget, NETWORK_QUIET, NETWORK_QUIET_MAX).await?;
    live.phases.end("quiet");
    follow_self_navigation(instance, page, budget, nav_limit, snap, live).await?;
    if main_from_proxy(event_log(&live.log)?, live.loader_id.as_deref()) {
        return Ok(()); // The proxy's own answer (refused, unreachable) is not the site.
    }
    gather_in_page(instance, page, settings, budget, snap, live).await
}

/// Documents a page that moves itself (a script's `location` change, a meta refresh, a consent
/// redirect) is followed to, before it is judged as the one a visitor ends on.
const MAX_SELF_NAVIGATIONS: usize = 3;

/// When the main frame now shows another document than the one navigated to, waits for that
/// one to load and go quiet, and makes it the page's document (its response, status and URL),
/// up to `MAX_SELF_NAVIGATIONS` times; a page still moving after that is said once
/// (`navigation` in the page's gather errors) and judged as it then is. No interim document is
/// judged under the first one's answer.
async fn follow_self_navigation(
    instance: &Instance,
    page: &Page,
    budget: &Deadline,
    nav_limit: Duration,
    snap: &mut PageSnapshot,
    live: &mut Live,
) -> Result<(), BrowserError> {
    let log = event_log(&live.log)?;
    for hop in 0..=MAX_SELF_NAVIGATIONS {
        let Ok(tree) = run_in_document(instance, page, "Page.getFrameTree", budget.cap(STEP_TIMEOUT), GetFrameTreeParams::default()).await else { return Ok(()) };
        let frame = tree.frame_tree.frame;
        let loader = frame.loader_id.as_ref().to_string();
        if live.loader_id.as_deref().is_none_or(|l| l == loader) {
            return Ok(());
        }
        if hop == MAX_SELF_NAVIGATIONS {
            let e = BrowserError::Script { name: "navigation", message: format!("the page kept navigating itself ({hop} documents); judged as it was at {}", frame.url) };
            gather_error(snap, "navigation", &e);
            return Ok(());
        }
        tracing::debug!(from = %snap.requested_url, to = %frame.url, "the page navigated itself: following");
        live.loader_id = Some(loader);
        forget_world(instance, page);
        // Its load, then network quiet, within what is left of the navigation's time.
        let until = Instant::now() + budget.cap(nav_limit);
        loop {
            let state = eval_string(instance, page, "readyState", "document.readyState", budget.cap(STEP_TIMEOUT)).await;
            if matches!(state.as_deref(), Ok("complete")) || Instant::now() >= until {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        wait_quiet(instance, log, budget, NETWORK_QUIET, NETWORK_QUIET_MAX).await?;
    }
    Ok(())
}

/// Runs the in-page gatherers on the page as it is now (a capture after loading; a journey's
/// `audit` step wherever the journey got to).
pub(crate) async fn gather_in_page(
    instance: &Arc<Instance>,
    page: &Page,
    settings: &CaptureSettings,
    budget: &Deadline,
    snap: &mut PageSnapshot,
    live: &mut Live,
) -> Result<(), BrowserError> {
    let log = event_log(&live.log)?;
    // The gatherers' isolated world is made afresh for the document as it is now (a journey may
    // have moved it since the last one).
    forget_world(instance, page);
    if page_cpu::wanted() {
        let mut cpu = PageCpu::default();
        cpu.start(instance, page).await;
        live.phases.cpu = Some(cpu);
    }
    match metrics::read(instance, page, budget).await {
        Ok(r) => live.perf_early = Some(r),
        Err(e) => gather_error(snap, Artifact::Metrics.gatherer(), &e),
    }
    live.phases.end_in(instance, page, "metrics").await;
    if settings.capture.scroll {
        match eval_string(instance, page, "scroll", &SCROLL_PAGE, budget.cap(Duration::from_secs(10))).await {
            Ok(how) => {
                tracing::debug!(how = %how, "lazy content loaded");
                live.phases.end_in(instance, page, "scroll").await;
                let how = crate::browser::lenient::from_json::<serde_json::Value>(&how).unwrap_or_default();
                let eager = how["mode"] == "eager";
                // Every lazy image had loaded in the quiet after `load`: this step started nothing.
                let started_nothing = eager && how["waited"] == 0;
                if !started_nothing {
                    let quiet = if eager { EAGER_QUIET } else { NETWORK_QUIET };
                    wait_quiet(instance, log, budget, quiet, SCROLL_QUIET_MAX).await?;
                }
                live.phases.end_in(instance, page, "scroll-quiet").await;
            }
            Err(e) => gather_error(snap, "scroll", &e),
        }
    }
    if let Err(e) = metrics::settle(instance, page, budget, SETTLE_QUIET, SETTLE_MAX).await {
        tracing::debug!(error = %e, "could not wait for the page to settle");
    }
    live.phases.end_in(instance, page, "settle").await;
    match metrics::read(instance, page, budget).await {
        Ok(r) => live.perf_late = Some(r),
        Err(e) => gather_error(snap, Artifact::Metrics.gatherer(), &e),
    }
    run_gatherer(Artifact::Screenshot, instance, page, settings, budget, snap, live, None).await;
    check_alive(instance, event_log(&live.log)?)?;
    // Screenshots of the page's images, while it is drawn.
    run_gatherer(Artifact::ImageText, instance, page, settings, budget, snap, live, None).await;
    check_alive(instance, event_log(&live.log)?)?;
    // Nothing more is drawn until the keyboard walk's pixel comparisons: the gatherers below only
    // read the page, and a page that animates would otherwise cost a frame every 16 ms. The window
    // stays minimized after them until `redraw`: a capture's page is emptied first (a frame of the
    // page it read would be drawn for nothing), a journey's is redrawn at once.
    let window = PageWindow::minimize(instance, page).await;
    let gathered = read_page(instance, page, settings, budget, snap, live, window.as_ref()).await;
    live.window = window;
    gathered
}

/// Restores the page's window if the in-page gatherers left it minimized.
pub(crate) async fn redraw(instance: &Instance, live: &mut Live) {
    if let Some(window) = live.window.take() {
        window.restore(instance).await;
    }
}

/// The gatherers that read the page without drawing it, in the order they run: the keyboard walk
/// last, since it moves focus, which would otherwise show in the others.
const READ_PAGE: [Artifact; 7] =
    [Artifact::Dom, Artifact::PageText, Artifact::ServedHtml, Artifact::RenderedHtml, Artifact::Barriers, Artifact::Axe, Artifact::Keyboard];

/// Runs the gatherers of `READ_PAGE`, then judges from pixels the contrast axe left open.
async fn read_page(
    instance: &Arc<Instance>,
    page: &Page,
    settings: &CaptureSettings,
    budget: &Deadline,
    snap: &mut PageSnapshot,
    live: &mut Live,
    window: Option<&PageWindow>,
) -> Result<(), BrowserError> {
    let _core = cores::core().await;
    live.phases.end_in(instance, page, "core").await;
    // With the scan's shared regions: the page's regions, and whether it is unchanged since its
    // facts were kept (`unchanged.rs`), before anything reads it.
    let mut found = None;
    let mut fp = None;
    let mut events = Vec::new();
    let mut facts_key = None;
    let mut known = None;
    let mut pixel_inputs = None;
    let mut given = None;
    if let Some(shared) = settings.shared.as_deref() {
        let regions = axe::find_regions(instance, page, budget).await;
        live.phases.end_in(instance, page, "regions").await;
        if let Some(page_fp) = regions.page.clone() {
            events = event_log(&live.log)?.snapshot();
            facts_key = unchanged::key(instance, page, budget, &events, &page_fp, &settings.capture).await;
            known = axe::known(shared, &page_fp);
            if known.is_none() && axe::kept_from_pixels(shared, &page_fp) {
                pixel_inputs = unchanged::pixel_inputs(instance, page, budget, &events).await;
                known = pixel_inputs.as_deref().and_then(|inputs| axe::known_from_pixels(shared, &page_fp, inputs));
            }
            // Only with axe-core's results, so that nothing runs after a gatherer left out.
            if known.is_some() {
                given = facts_key.as_deref().and_then(|key| unchanged::given_back(shared, key));
            }
            fp = Some(page_fp);
        }
        found = Some(regions);
        live.phases.end_in(instance, page, "unchanged").await;
    }
    // Results given back are final: their contrast was settled when they were kept.
    let axe_given = known.is_some();
    let skip = |artifact: Artifact| given.is_some() && matches!(artifact, Artifact::Barriers | Artifact::Keyboard | Artifact::Layout | Artifact::Dialogs);
    for artifact in READ_PAGE {
        if artifact == Artifact::Axe {
            let found = found.take().unwrap_or_default();
            if settings.capture.axe {
                match axe::gather(instance, page, budget, settings.shared.as_deref(), found, known.take()).await {
                    Ok(a) => snap.axe = Some(a),
                    Err(e) => gather_error(snap, artifact.gatherer(), &e),
                }
                live.phases.end_in(instance, page, artifact.gatherer()).await;
            }
        } else if !skip(artifact) {
            run_gatherer(artifact, instance, page, settings, budget, snap, live, window).await;
        }
        check_alive(instance, event_log(&live.log)?)?;
    }
    if let (Some(facts), Some(shared)) = (given, settings.shared.as_deref()) {
        give_back(instance, page, budget, snap, live, facts, Some(&shared.images)).await;
        shared.note_facts_reused();
        return Ok(());
    }
    let log = event_log(&live.log)?;
    // Contrast axe could not settle from styles, from pixels: the page must be drawn again.
    if let Some(mut results) = snap.axe.take_if(|a| !axe_given && contrast::wanted(a)) {
        if let Some(window) = window {
            window.restore(instance).await;
        }
        match contrast::judge(instance, page, budget, &mut results).await {
            Ok((n, complete)) => {
                tracing::debug!(measured = n, complete, "contrast judged from pixels");
                // The settled results, for the next time the page and what its pixels read are
                // the same.
                if let (true, Some(shared), Some(fp)) = (complete, settings.shared.as_deref(), fp.as_deref()) {
                    if pixel_inputs.is_none() {
                        pixel_inputs = unchanged::pixel_inputs(instance, page, budget, &events).await;
                    }
                    if let Some(inputs) = pixel_inputs.take() {
                        axe::keep_from_pixels(shared, fp, inputs, &results);
                    }
                }
            }
            Err(e) => gather_error(snap, "contrast", &e),
        }
        snap.axe = Some(results);
        live.phases.end_in(instance, page, "contrast").await;
        check_alive(instance, log)?;
    }
    // Last: it emulates a narrow viewport and grows the text (each undone before it returns),
    // which nothing read before it may see.
    run_gatherer(Artifact::Layout, instance, page, settings, budget, snap, live, window).await;
    check_alive(instance, event_log(&live.log)?)?;
    // After everything: it opens the page's dialogs from the keyboard, and a dialog may stay open.
    run_gatherer(Artifact::Dialogs, instance, page, settings, budget, snap, live, window).await;
    check_alive(instance, event_log(&live.log)?)?;
    if let (Some(key), Some(shared)) = (facts_key, settings.shared.as_deref()) {
        keep_facts(shared, &key, snap, live, budget);
    }
    Ok(())
}

/// Fills `snap` with the facts of an unchanged page, the animations of its images read afresh.
async fn give_back(instance: &Instance, page: &Page, budget: &Deadline, snap: &mut PageSnapshot, live: &mut Live, facts: unchanged::Facts, memo: Option<&ImageAnimations>) {
    snap.barriers = facts.barriers;
    snap.keyboard = facts.keyboard;
    snap.dialogs = facts.dialogs;
    if let Some(mut layout) = facts.layout {
        layout::animations(instance, page, budget, live.log.as_ref(), memo, &facts.images, &mut layout).await;
        snap.layout = Some(layout);
    }
    live.phases.end_in(instance, page, "given-back").await;
    tracing::debug!("in-page facts of an unchanged page given back");
}

/// Keeps what the gatherers found on this page for its next scan: only when each of them ran to
/// its end (none failed, and the page's budget did not run short).
fn keep_facts(shared: &SharedRegions, key: &str, snap: &PageSnapshot, live: &mut Live, budget: &Deadline) {
    const GATHERERS: [Artifact; 4] = [Artifact::Barriers, Artifact::Keyboard, Artifact::Layout, Artifact::Dialogs];
    let failed = snap.gather_errors.iter().any(|e| GATHERERS.iter().any(|a| a.gatherer() == e.gatherer));
    if failed || budget.left() < KEEP_MARGIN {
        return;
    }
    let facts = unchanged::Facts {
        barriers: snap.barriers.clone(),
        keyboard: snap.keyboard.clone(),
        layout: snap.layout.clone(),
        images: live.layout_images.take().unwrap_or_default(),
        dialogs: snap.dialogs.clone(),
    };
    unchanged::keep(shared, key, &facts);
}

/// Facts gathered with less of the page's budget left than this are not kept: a gatherer may
/// have stopped short for time, and what it found then is not what the page gives.
const KEEP_MARGIN: Duration = Duration::from_secs(3);

/// Runs the in-page gatherer of `artifact` if this capture wants it, into `snap`; a failure is
/// recorded in `gather_errors` under the artifact's name (its checks then do not run).
#[allow(clippy::too_many_arguments)]
async fn run_gatherer(
    artifact: Artifact,
    instance: &Arc<Instance>,
    page: &Page,
    settings: &CaptureSettings,
    budget: &Deadline,
    snap: &mut PageSnapshot,
    live: &mut Live,
    window: Option<&PageWindow>,
) {
    let wanted = match artifact {
        Artifact::ServedHtml => live.loader_id.is_some(),
        Artifact::Axe => settings.capture.axe,
        Artifact::Keyboard => settings.capture.keyboard_walk,
        Artifact::Screenshot => settings.capture.screenshot,
        Artifact::Layout => settings.capture.layout,
        Artifact::Dialogs => settings.capture.keyboard_walk && !live.journey,
        Artifact::ImageText => settings.capture.ocr != super::options::OcrMode::Off,
        _ => true,
    };
    if !wanted {
        return;
    }
    if matches!(artifact, Artifact::Layout | Artifact::Dialogs) && live.layout_from.is_none() {
        live.layout_from = live.log.as_ref().map(EventLog::len);
    }
    let gathered = match artifact {
        Artifact::Dom => dom::gather(instance, page, budget).await.map(|d| snap.dom = d),
        Artifact::ServedHtml => {
            let id = live.loader_id.as_deref().unwrap_or_default();
            // A served document over the budget is not read: Chromium would send it whole.
            let size = live.log.as_ref().map_or(0, |l| l.bytes_received(id));
            if size > document::MAX_SERVED_READ_BYTES as u64 {
                Err(BrowserError::OverBudget(format!(
                    "the served document is {} MB, over sitescan's {} MB budget for reading it: not read",
                    size >> 20,
                    document::MAX_SERVED_READ_BYTES >> 20
                )))
            } else {
                document::served(instance, page, budget, id).await.map(|(html, offset)| {
                    snap.served_html = Some(html);
                    snap.meta_charset_offset = offset;
                })
            }
        }
        Artifact::RenderedHtml => document::rendered(instance, page, budget).await.map(|html| snap.rendered_html = Some(html)),
        Artifact::Barriers => barriers::gather(instance, page, budget).await.map(|b| snap.barriers = Some(b)),
        // Run by `read_page`, with the regions it found.
        Artifact::Axe => return,
        Artifact::Keyboard => keyboard::walk(instance, page, budget, window).await.map(|k| snap.keyboard = Some(k)),
        Artifact::Screenshot => screenshot::viewport_png(instance, page, budget).await.map(|png| snap.screenshot_png_base64 = Some(png)),
        Artifact::Layout => layout::gather(instance, page, budget, live.log.as_ref(), settings.shared.as_deref().map(|s| &s.images)).await.map(|(l, images)| {
            snap.layout = Some(l);
            live.layout_images = Some(images);
        }),
        Artifact::PageText => page_text::gather(instance, page, budget).await.map(|t| snap.page_text = Some(t)),
        Artifact::ImageText => image_text::gather(instance, page, budget, settings.capture.ocr, live.log.as_ref(), settings.shared.as_deref().map(|s| &s.looks)).await.map(|t| snap.image_text = Some(t)),
        Artifact::Dialogs => dialogs::gather(instance, page, budget, window).await.map(|d| snap.dialogs = Some(d)),
        // Read twice around the scroll (`gather_in_page`), or built from the event log
        // (`artifacts`): not gatherers of their own.
        Artifact::Metrics | Artifact::Network | Artifact::Console | Artifact::Exceptions | Artifact::Csp | Artifact::Issues | Artifact::Cookies => {
            return;
        }
    };
    if let Err(e) = gathered.and_then(|()| injected_failure(artifact, &snap.requested_url)) {
        gather_error(snap, artifact.gatherer(), &e);
    }
    live.phases.end_in(instance, page, artifact.gatherer()).await;
}

/// Debug builds only: the gatherers named in `SITESCAN_TEST_FAIL_GATHERERS` fail after they ran,
/// so the tests can show how every output reports a gap that no page of theirs can cause any
/// more. Comma-separated entries: `dom` (every page) or `dom@URL` (the page asked for at URL).
/// Release builds never read it.
fn injected_failure(artifact: Artifact, url: &str) -> Result<(), BrowserError> {
    #[cfg(debug_assertions)]
    if let Ok(names) = std::env::var("SITESCAN_TEST_FAIL_GATHERERS")
        && names.split(',').any(|n| match n.trim().split_once('@') {
            Some((name, at)) => name == artifact.gatherer() && at == url,
            None => n.trim() == artifact.gatherer(),
        })
    {
        return Err(BrowserError::Script { name: "injected", message: "failure injected by SITESCAN_TEST_FAIL_GATHERERS".into() });
    }
    let _ = (artifact, url);
    Ok(())
}

/// A capture's event log (present from the moment its page opened).
fn event_log(log: &Option<EventLog>) -> Result<&EventLog, BrowserError> {
    log.as_ref().ok_or(BrowserError::Cdp { what: "event log", message: "missing".into() })
}

pub(crate) fn check_alive(instance: &Instance, log: &EventLog) -> Result<(), BrowserError> {
    if !instance.is_alive() {
        return Err(BrowserError::BrowserGone);
    }
    if log.signals().crashed {
        return Err(BrowserError::PageCrashed);
    }
    Ok(())
}

/// Answers every JavaScript dialog (alert, confirm, prompt, beforeunload) with "cancel", so a
/// dialog never blocks the page.
async fn dismiss_dialogs(instance: &Instance, page: &Page) -> Result<tokio::task::JoinHandle<()>, BrowserError> {
    let mut dialogs = step(instance, "dialog listener", STEP_TIMEOUT, async {
        page.event_listener::<EventJavascriptDialogOpening>().await.map_err(|e| BrowserError::Cdp { what: "dialog listener", message: e.to_string() })
    })
    .await?;
    let page = page.clone();
    Ok(tokio::spawn(async move {
        while let Some(d) = dialogs.next().await {
            tracing::debug!(kind = ?d.r#type, message = %d.message, "dismissing dialog");
            let _ = tokio::time::timeout(STEP_TIMEOUT, page.execute(HandleJavaScriptDialogParams::new(false))).await;
        }
    }))
}

/// How often `wait_quiet` looks again while requests are in flight.
const QUIET_POLL: Duration = Duration::from_millis(10);

/// Waits until no request has been in flight for `quiet` (`NETWORK_QUIET` but where the caller
/// knows better), at most `max`. With nothing in flight it sleeps until the quiet would be
/// complete (a request meanwhile only moves that later), so a page is read when the network
/// went quiet, not up to a polling interval after.
pub(crate) async fn wait_quiet(instance: &Instance, log: &EventLog, budget: &Deadline, quiet: Duration, max: Duration) -> Result<(), BrowserError> {
    let until = Instant::now() + budget.cap(max);
    loop {
        check_alive(instance, log)?;
        let s = log.signals();
        let now = Instant::now();
        if now >= until {
            if s.inflight > 0 {
                tracing::debug!(inflight = ?log.inflight_urls(), "network never went quiet");
            }
            return Ok(());
        }
        let since = now.duration_since(s.last_network);
        if s.inflight == 0 && since >= quiet {
            return Ok(());
        }
        let wait = if s.inflight == 0 { quiet - since } else { QUIET_POLL };
        tokio::time::sleep(wait.min(until - now)).await;
    }
}

/// The request id of the main document (the first document request that starts its own loader).
fn main_document_request(log: &EventLog) -> Option<String> {
    log.snapshot()
        .iter()
        .filter(|e| e.method == "Network.requestWillBeSent" && e.str("type") == Some("Document"))
        .find(|e| e.str("requestId").is_some() && e.str("requestId") == e.str("loaderId"))
        .and_then(|e| e.str("requestId").map(str::to_string))
}

/// True when the main document is the egress proxy's own answer (refused or unreachable).
fn main_from_proxy(log: &EventLog, loader_id: Option<&str>) -> bool {
    let facts = network::gather(&log.snapshot(), loader_id, &network::NoProxy);
    facts.main.is_some_and(|m| m.blocked || (m.status.is_none() && m.failure.is_some()))
}

/// The event-based artifacts of a page from its events (network, console, exceptions, CSP,
/// issues, cookies, metrics); returns the main document's record.
pub(crate) fn artifacts(
    snap: &mut PageSnapshot,
    live: &Live,
    events: &[super::events::RawEvent],
    proxy: &dyn network::ProxyRecord,
) -> Option<network::MainDocument> {
    let facts = network::gather(events, live.loader_id.as_deref(), proxy);
    if let Some(main) = &facts.main {
        snap.final_url = main.final_url.clone();
        snap.redirects = main.redirects.clone();
        snap.status = main.status;
        snap.response_headers = main.headers.clone();
        snap.mime_type = main.mime_type.clone();
    }
    snap.requests = facts.requests;
    for (_, gather) in FROM_EVENTS {
        gather(snap, events);
    }
    snap.metrics = metrics::combine(live.perf_early.as_ref(), live.perf_late.as_ref(), &snap.requests);
    if let Some(full) = events.last().filter(|e| e.method == EVENT_LOG_FULL) {
        // A page whose script floods the channel (an image whose error handler reloads it
        // forever, a console in a loop) is judged on what the budget held, and says so.
        let kept = events.len() - 1;
        let dropped = full.params.get("dropped").and_then(serde_json::Value::as_u64).unwrap_or(1) as usize;
        tracing::info!(kept, dropped, max_events = MAX_EVENTS, max_mb = MAX_EVENT_BYTES >> 20, "the page's event log reached its budget; judging the part recorded");
        snap.events_sampled = Some(Sample::new("browser events", kept, kept + dropped));
    }
    facts.main
}

/// The gatherers that read the event log after the network record (`network::gather`, which
/// also gives the main document's facts), in order: cookies read the requests.
const FROM_EVENTS: [(Artifact, fn(&mut PageSnapshot, &[super::events::RawEvent])); 5] = [
    (Artifact::Console, |snap, events| snap.console = console::gather(events)),
    (Artifact::Exceptions, |snap, events| snap.js_errors = exceptions::gather(events)),
    (Artifact::Csp, |snap, events| snap.csp_violations = csp::gather(events)),
    (Artifact::Issues, |snap, events| snap.browser_issues = issues::gather(events)),
    (Artifact::Cookies, |snap, _| snap.cookies = cookies::gather(&snap.requests)),
];

/// The page's events without those the layout gatherer caused (from event `from` on): what the
/// page's own scripts did at 320 px or with grown text (requests of a narrow media query,
/// console messages of a resize handler) is no fact of the page as visited. Events of requests
/// that started before it are kept (a response that finished meanwhile).
fn before_layout(events: Vec<super::events::RawEvent>, from: Option<usize>) -> Vec<super::events::RawEvent> {
    let Some(from) = from.filter(|n| *n < events.len()) else { return events };
    let known: std::collections::HashSet<String> = events[..from].iter().filter_map(|e| e.str("requestId")).map(str::to_string).collect();
    events
        .into_iter()
        .enumerate()
        .filter(|(i, e)| *i < from || e.method == EVENT_LOG_FULL || e.str("requestId").is_some_and(|id| known.contains(id)))
        .map(|(_, e)| e)
        .collect()
}

/// Builds the event-based artifacts and decides the page error.
fn finish(snap: &mut PageSnapshot, live: &Live, failure: Option<BrowserError>, outcome: CaptureOutcome, proxy: &EgressProxy) {
    let events = before_layout(live.log.as_ref().map(EventLog::snapshot).unwrap_or_default(), live.layout_from);
    let main_doc = artifacts(snap, live, &events, proxy);
    let error = |kind: &str, message: String| Some(PageError { kind: kind.to_string(), message });
    snap.error = match (outcome, &failure) {
        (CaptureOutcome::BrowserGone, _) => error("crashed", "the browser died while loading the page".into()),
        (CaptureOutcome::PageCrashed, _) => error("crashed", "the page's renderer crashed".into()),
        (_, Some(e)) => error(e.page_error_kind(), e.to_string()),
        _ => None,
    };
    if snap.error.is_some() {
        return;
    }
    let main = main_doc.as_ref();
    let host_port = url::Url::parse(&snap.final_url).ok().and_then(|u| Some((u.host_str()?.to_string(), u.port_or_known_default()?)));
    let proxy_reason = host_port.and_then(|(h, p)| proxy.blocked_reason(&h, p));
    if main.is_some_and(|m| m.blocked) {
        snap.error = error("blocked", proxy_reason.unwrap_or_else(|| "refused by the egress guard".into()));
    } else if let Some(nav) = &live.nav_error {
        snap.error = match nav.as_str() {
            _ if proxy_reason.is_some() && nav.contains("TUNNEL") => error("blocked", proxy_reason.clone().unwrap_or_default()),
            _ if nav.contains("TUNNEL") && main.and_then(|m| m.failure.as_deref()).is_some_and(|f| !f.contains("TUNNEL")) => {
                error("navigation", main.and_then(|m| m.failure.clone()).unwrap_or_default())
            }
            "net::ERR_TOO_MANY_REDIRECTS" => error("redirect_loop", format!("{nav} after {} redirects", snap.redirects.len())),
            // An error status with an empty body, or 204: the status says it all.
            "net::ERR_HTTP_RESPONSE_CODE_FAILURE" | "net::ERR_ABORTED" if snap.status.is_some() => None,
            "net::ERR_TIMED_OUT" | "net::ERR_CONNECTION_TIMED_OUT" => error("timeout", nav.clone()),
            _ => error("navigation", nav.clone()),
        };
    } else if let Some(failure) = main.and_then(|m| m.failure.clone()).filter(|_| snap.status.is_none()) {
        // The proxy could not reach the site (its 502 answer was turned into the net error).
        snap.error = error("navigation", failure);
    } else if main.is_none() && !live.download {
        snap.error = error("internal", "no response for the main document was recorded".into());
    }
}

/// Closes the page. After a timeout the renderer may be stuck in a script: if it does not answer
/// within a second it is crashed (`Page.crash`), so the scan's next pages get a fresh process.
pub(crate) async fn close(instance: &Instance, live: &mut Live, timed_out: bool) {
    // A renderer that stopped answering is crashed as after a timeout: its window is not reused.
    let stalled = live.session_id.as_ref().is_some_and(|s| instance.stalled(s).is_some());
    let timed_out = timed_out || stalled;
    if let Some(session) = &live.session_id {
        instance.unroute(session);
    }
    live.log = None;
    if let Some(page) = live.page.take()
        && instance.is_alive()
    {
        if timed_out {
            let alive = !stalled && renderer_answers(instance, &page, Duration::from_secs(1)).await;
            if !alive {
                tracing::info!("renderer unresponsive after a timeout; crashing it");
                let _ = run(instance, &page, "Page.crash", Duration::from_secs(2), CrashParams::default()).await;
            }
        }
        let target = page.target_id().clone();
        let closing = instance.browser.execute(CloseTargetParams::new(target));
        if tokio::time::timeout(Duration::from_secs(5), closing).await.is_err() {
            tracing::debug!("closing the page timed out");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::events::RawEvent;
    use serde_json::json;

    fn event(method: &str, params: serde_json::Value) -> RawEvent {
        RawEvent { method: method.into(), params }
    }

    #[test]
    fn events_the_layout_gatherer_caused_are_left_out() {
        let events = vec![
            event("Network.requestWillBeSent", json!({"requestId": "1"})),
            event("Runtime.consoleAPICalled", json!({"type": "log"})),
            // From here on the layout gatherer runs.
            event("Network.loadingFinished", json!({"requestId": "1"})),
            event("Network.requestWillBeSent", json!({"requestId": "2"})),
            event("Runtime.consoleAPICalled", json!({"type": "log"})),
        ];
        let kept = before_layout(events.clone(), Some(2));
        let methods: Vec<_> = kept.iter().map(|e| (e.method.as_str(), e.str("requestId"))).collect();
        assert_eq!(
            methods,
            [("Network.requestWillBeSent", Some("1")), ("Runtime.consoleAPICalled", None), ("Network.loadingFinished", Some("1"))]
        );
        assert_eq!(before_layout(events.clone(), None).len(), 5);
    }
}
