//! CDP calls under a time limit: every step races its deadline and the browser's death, so a
//! hung or crashed browser never hangs a capture.

use chromiumoxide::Page;
use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;
use chromiumoxide::types::Command;
use std::future::Future;
use std::time::{Duration, Instant};

use super::error::BrowserError;
use super::instance::Instance;

/// Default limit of one CDP command.
pub const STEP_TIMEOUT: Duration = Duration::from_secs(10);

/// The page-wide deadline: each step gets `min(limit, time left)`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    deadline: Instant,
}

impl Budget {
    pub(crate) fn new(total: Duration) -> Budget {
        Budget { deadline: Instant::now() + total }
    }

    pub(crate) fn left(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    /// `limit`, shortened to what is left of the budget.
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

/// Sends one CDP command under `step`.
pub(crate) async fn run<C>(instance: &Instance, page: &Page, what: &'static str, limit: Duration, cmd: C) -> Result<C::Response, BrowserError>
where
    C: Command,
{
    step(instance, what, limit, async {
        page.execute(cmd).await.map(|r| r.result).map_err(|e| BrowserError::Cdp { what, message: e.to_string() })
    })
    .await
}

/// Evaluates `expression` in an execution context of the page (an isolated world: its own
/// globals and prototypes, which no page script can reach or redefine), like `eval_string`.
pub(crate) async fn eval_string_in(
    instance: &Instance,
    page: &Page,
    context: chromiumoxide::cdp::js_protocol::runtime::ExecutionContextId,
    name: &'static str,
    expression: &str,
    limit: Duration,
) -> Result<String, BrowserError> {
    evaluate(instance, page, Some(context), name, expression, limit).await
}

/// Evaluates `expression` in the page's main world, awaiting a promise; the expression must
/// produce a string (our scripts return JSON text), which is returned.
pub(crate) async fn eval_string(instance: &Instance, page: &Page, name: &'static str, expression: &str, limit: Duration) -> Result<String, BrowserError> {
    evaluate(instance, page, None, name, expression, limit).await
}

/// `Runtime.evaluate` in `context` (the main world when `None`), as `eval_string` describes.
async fn evaluate(
    instance: &Instance,
    page: &Page,
    context: Option<chromiumoxide::cdp::js_protocol::runtime::ExecutionContextId>,
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
    let ret = run(instance, page, name, limit, params).await?;
    if let Some(ex) = ret.exception_details {
        let detail = ex.exception.and_then(|e| e.description).unwrap_or(ex.text);
        return Err(BrowserError::Script { name, message: detail });
    }
    match ret.result.value {
        Some(serde_json::Value::String(s)) => Ok(s),
        other => Err(BrowserError::Script { name, message: format!("expected a string, got {other:?}") }),
    }
}
