//! A journey's run: one page, its steps in order under the scan's allowance, what they produced.

use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::browser::capture::{CaptureSettings, Live, close, open_page};
use crate::browser::cdp::Deadline;
use crate::browser::gather::exceptions;
use crate::browser::instance::Instance;
use crate::model::journey::{
    Action, JourneyAudit, JourneyException, JourneyRun, JourneyScreenshot, LoggedInProof, LoggedInResult, may_load, secret_refs,
};
use crate::model::{JourneyOutcome, JourneySpec, StepResult, StepStatus};
use crate::net::EgressProxy;

use super::READ_LIMIT;
use super::guard::{NavigationGuard, PopupCloser};
use super::responses::collect_responses;
use super::runner::{Runner, StepError};

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
    // The journey presses what its steps say, and the gatherers nothing more.
    let mut live = Live::default();
    live.journey = true;
    let open_budget = Deadline::new(settings.navigation_timeout);
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
        let budget = Deadline::new(settings.navigation_timeout);
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
        let budget = Deadline::new(limit);
        let mut result = StepResult {
            index: i,
            action: s.action.key().to_string(),
            summary: mask(&s.action.summary()),
            selector: s.action.selector().map(mask),
            ..StepResult::default()
        };
        let done = match &s.action {
            Action::Audit(label) => {
                let audit_budget = Deadline::new(settings.page_timeout.max(limit));
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
                let budget = Deadline::new(READ_LIMIT * 2);
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
}
