//! CDP calls under a time limit: every step races its deadline and the browser's death, so a
//! hung or crashed browser never hangs a capture.

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::page::{CreateIsolatedWorldParams, FrameId};
use chromiumoxide::cdp::js_protocol::runtime::{EvaluateParams, ExecutionContextId};
use chromiumoxide::types::Command;
use std::future::Future;
use std::time::{Duration, Instant};

use super::error::BrowserError;
use super::instance::Instance;
use super::scripts::{HOOKS_EXPORT, HOOKS_LISTEN, HOOKS_MARK};

/// Default limit of one CDP command.
pub const STEP_TIMEOUT: Duration = Duration::from_secs(10);

/// The page-wide deadline: each step gets `min(limit, time left)`. (A time limit, not one of
/// the owner's budgets of `sitescan-model`.)
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadline {
    at: Instant,
}

impl Deadline {
    pub(crate) fn new(total: Duration) -> Deadline {
        Deadline { at: Instant::now() + total }
    }

    pub(crate) fn left(&self) -> Duration {
        self.at.saturating_duration_since(Instant::now())
    }

    /// `limit`, shortened to what is left before the deadline.
    pub(crate) fn cap(&self, limit: Duration) -> Duration {
        limit.min(self.left())
    }
}

/// Runs `fut` for at most `limit`, giving up early when the browser dies.
pub(crate) async fn step<T, F>(instance: &Instance, what: &'static str, limit: Duration, fut: F) -> Result<T, BrowserError>
where
    F: Future<Output = Result<T, BrowserError>>,
{
    tokio::select! {
        r = tokio::time::timeout(limit, fut) => match r {
            Ok(r) => r,
            Err(_) => Err(BrowserError::Timeout { what, after: limit }),
        },
        _ = instance.dead() => Err(BrowserError::BrowserGone),
    }
}

/// Sends one CDP command under `step`; at once `RendererStalled` when the page's renderer
/// stopped answering (`run_in_document`).
pub(crate) async fn run<C>(instance: &Instance, page: &Page, what: &'static str, limit: Duration, cmd: C) -> Result<C::Response, BrowserError>
where
    C: Command,
{
    if let Some(after) = instance.stalled(page.session_id().as_ref()) {
        return Err(BrowserError::RendererStalled(after));
    }
    step(instance, what, limit, async {
        page.execute(cmd).await.map(|r| r.result).map_err(|e| BrowserError::Cdp { what, message: e.to_string() })
    })
    .await
}

/// `run` for a command the loaded document's renderer must answer (a script, an isolated world,
/// the frame tree). When one times out, a trivial script asks whether the renderer still
/// answers: a command that was only slow (a gatherer on a big page) leaves it answering; a page
/// whose own script never yields (a busy loop, millions of elements being laid out) does not,
/// and every later command of the page then fails at once (`BrowserError::RendererStalled`)
/// instead of waiting out a limit of its own. Not for navigation: a document still loading
/// answers no script either.
pub(crate) async fn run_in_document<C>(instance: &Instance, page: &Page, what: &'static str, limit: Duration, cmd: C) -> Result<C::Response, BrowserError>
where
    C: Command,
{
    let result = run(instance, page, what, limit, cmd).await;
    if matches!(result, Err(BrowserError::Timeout { .. })) && !renderer_answers(instance, page, STALL_PROBE).await {
        tracing::warn!(step = what, "the page's renderer stopped answering: its later commands are not sent");
        instance.mark_stalled(page.session_id().as_ref(), what);
    }
    result
}

/// How long a renderer that let a command time out gets to answer a trivial script.
pub const STALL_PROBE: Duration = Duration::from_secs(2);

/// True when the page's renderer evaluates `1` within `limit` (no stall is recorded either way).
pub(crate) async fn renderer_answers(instance: &Instance, page: &Page, limit: Duration) -> bool {
    let Ok(params) = EvaluateParams::builder().expression("1").return_by_value(true).build() else { return true };
    step(instance, "probe", limit, async { page.execute(params).await.map_err(|e| BrowserError::Cdp { what: "probe", message: e.to_string() }) })
        .await
        .is_ok()
}

/// Evaluates `expression` in an execution context of the page (an isolated world: its own
/// globals and prototypes, which no page script can reach or redefine), like `eval_string`.
pub(crate) async fn eval_string_in(
    instance: &Instance,
    page: &Page,
    context: ExecutionContextId,
    name: &'static str,
    expression: &str,
    limit: Duration,
) -> Result<String, BrowserError> {
    evaluate(instance, page, Some(context), name, expression, limit).await
}

/// The name of the gatherers' isolated world (one a document, kept by the instance).
pub(crate) const GATHER_WORLD: &str = "sitescan";

/// Evaluates `expression` in the gatherers' isolated world of the page's current document,
/// awaiting a promise; the expression must produce a string (our scripts return JSON text),
/// which is returned.
///
/// The world shares the page's DOM but not its JavaScript: a page that redefines
/// `Array.prototype.map`, `JSON.stringify` or `Element.prototype.getAttribute`, or sets globals
/// our scripts read, changes nothing there. What our scripts keep between calls (`window.__sitescan*`)
/// lives in that world too. An expression led by `HOOKS_MARK` (it reads the listeners the page's
/// own script added, which only the main world's `hooks.js` sees) is given them first
/// (`hooks_bridge`).
pub(crate) async fn eval_string(instance: &Instance, page: &Page, name: &'static str, expression: &str, limit: Duration) -> Result<String, BrowserError> {
    let deadline = Instant::now() + limit;
    let left = || deadline.saturating_duration_since(Instant::now());
    let session = page.session_id().as_ref().to_string();
    let mut fresh = false;
    let mut world = match instance.world(&session) {
        Some(w) => w,
        None => {
            fresh = true;
            create_world(instance, page, &session, left()).await?
        }
    };
    if expression.starts_with(HOOKS_MARK) {
        match hooks_bridge(instance, page, world, left()).await {
            Err(e) if !fresh && stale_world(&e) => {
                fresh = true;
                world = create_world(instance, page, &session, left()).await?;
                hooks_bridge(instance, page, world, left()).await?;
            }
            other => other?,
        }
    }
    match evaluate(instance, page, Some(world), name, expression, left()).await {
        // The document was replaced since the world was made: a new one, once.
        Err(e) if !fresh && stale_world(&e) => {
            let world = create_world(instance, page, &session, left()).await?;
            if expression.starts_with(HOOKS_MARK) {
                hooks_bridge(instance, page, world, left()).await?;
            }
            evaluate(instance, page, Some(world), name, expression, left()).await
        }
        other => other,
    }
}

/// Evaluates `expression` in the page's main world (where the page's own script runs), as
/// `eval_string` does. Only for what must meet the page's own JavaScript: the init scripts'
/// state (`__sitescanPerf`), a journey's steps, quieting a page.
pub(crate) async fn eval_main(instance: &Instance, page: &Page, name: &'static str, expression: &str, limit: Duration) -> Result<String, BrowserError> {
    evaluate(instance, page, None, name, expression, limit).await
}

/// Forgets the page's isolated world: its document is about to be replaced.
pub(crate) fn forget_world(instance: &Instance, page: &Page) {
    instance.forget_world(page.session_id().as_ref());
}

async fn create_world(instance: &Instance, page: &Page, session: &str, limit: Duration) -> Result<ExecutionContextId, BrowserError> {
    // A page target's main frame has the target's id.
    let frame = FrameId::new(page.target_id().as_ref().to_string());
    let params = CreateIsolatedWorldParams { frame_id: frame, world_name: Some(GATHER_WORLD.into()), grant_univeral_access: Some(false) };
    let world = run_in_document(instance, page, "Page.createIsolatedWorld", limit, params).await?.execution_context_id;
    instance.keep_world(session, world);
    Ok(world)
}

/// True when `e` says the execution context is gone (the document it belonged to was replaced).
fn stale_world(e: &BrowserError) -> bool {
    matches!(e, BrowserError::Cdp { message, .. } if message.contains("context"))
}

/// Hands the isolated world what the main world's `hooks.js` knows: the elements the page's
/// script gave click or key listeners (each sent one event of a name only sitescan knows,
/// which the world's listener records) and the page-wide flags. The world's
/// `window.__sitescanHooks` then answers as the main world's does.
async fn hooks_bridge(instance: &Instance, page: &Page, world: ExecutionContextId, limit: Duration) -> Result<(), BrowserError> {
    let deadline = Instant::now() + limit;
    let left = || deadline.saturating_duration_since(Instant::now());
    evaluate(instance, page, Some(world), "hooks", &HOOKS_LISTEN, left()).await?;
    let flags = evaluate(instance, page, None, "hooks", &HOOKS_EXPORT, left()).await.unwrap_or_default();
    // Only the flags' own JSON is passed on (an object of booleans); anything else reads as
    // "no hooks".
    let flags = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&flags)
        .map(|m| m.into_iter().filter(|(_, v)| v.is_boolean()).collect::<serde_json::Map<_, _>>())
        .ok();
    let flags = flags.map(|m| serde_json::Value::Object(m).to_string()).unwrap_or_else(|| "null".into());
    evaluate(instance, page, Some(world), "hooks", &format!("window.__sitescanHooks.flags({flags})"), left()).await?;
    Ok(())
}

/// `Runtime.evaluate` in `context` (the main world when `None`), as `eval_string` describes.
async fn evaluate(
    instance: &Instance,
    page: &Page,
    context: Option<ExecutionContextId>,
    name: &'static str,
    expression: &str,
    limit: Duration,
) -> Result<String, BrowserError> {
    let mut params = EvaluateParams::builder()
        .expression(expression)
        .return_by_value(true)
        .await_promise(true)
        .allow_unsafe_eval_blocked_by_csp(true)
        .build()
        .map_err(|e| BrowserError::Script { name, message: e })?;
    params.context_id = context;
    let ret = run_in_document(instance, page, name, limit, params).await?;
    if let Some(ex) = ret.exception_details {
        let detail = ex.exception.and_then(|e| e.description).unwrap_or(ex.text);
        return Err(BrowserError::Script { name, message: detail });
    }
    match ret.result.value {
        Some(serde_json::Value::String(s)) => Ok(s),
        other => Err(BrowserError::Script { name, message: format!("expected a string, got {other:?}") }),
    }
}
