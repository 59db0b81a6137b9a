//! `/scans/{id}`: one scan inside the dashboard. While it is queued or running, its progress
//! (phase, pages done of pages found, a progress bar, the findings so far), refreshed by a meta
//! refresh without JavaScript and streamed by `/scans/{id}/events` (server-sent events) with it.
//! Live views are capped per user, per organisation and per process and end when idle or old
//! (`crate::scans::streams`); a page rendered while its viewer is at a cap says so and falls back
//! to its refresh;
//! once it ended, its report (the same content as the API's HTML report) with the journeys'
//! screenshots. `/scans/{id}/report.html` is the standalone report to keep, and
//! `/scans/{id}/screenshots/{shot}` one journey screenshot.

use super::when;
use crate::model::{ScanStatus, Severity};
use crate::scans::StreamRefusal;
use crate::scans::{LiveScan, ScanServiceError, StoredFinding, WatchEnd};
use crate::web::error::DashboardError;
use crate::web::session::Session;
use crate::web::state::WebState;
use crate::web::templates::{Chrome, ScanPage, render};
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use std::convert::Infallible;

/// Seconds between the refreshes of a running scan's page without JavaScript (and with it, while
/// live updates are paused).
pub const REFRESH_SECONDS: u32 = 5;

const SEVERITIES: [Severity; 5] = [Severity::Critical, Severity::High, Severity::Medium, Severity::Low, Severity::Info];

/// Who is at the cap, as the page and the refused stream say it.
fn who_is_at_cap(refusal: StreamRefusal) -> &'static str {
    match refusal {
        StreamRefusal::Holder(_) => "you have too many live views open",
        StreamRefusal::Organisation(_) => "your organisation has too many live views open",
        StreamRefusal::Process(_) => "the server has too many live views open",
    }
}

/// The line a running scan's page shows instead of following its events.
pub fn paused_line(refusal: StreamRefusal) -> String {
    format!("Live updates are paused: {}; this page refreshes every {REFRESH_SECONDS} s.", who_is_at_cap(refusal))
}

/// What the live view shows, as the page draws it and the stream sends it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LiveJson {
    pub status: String,
    /// The phase in words (`Waiting for a worker` while queued).
    pub phase: String,
    pub pages_done: u64,
    pub pages_found: u64,
    pub percent: u64,
    /// (severity, count), critical first.
    pub counts: Vec<(String, u64)>,
    pub total: u64,
    pub latest: Vec<StoredFinding>,
}

fn live_json(live: &LiveScan) -> LiveJson {
    let status = live.scan.status;
    let phase = match status {
        ScanStatus::Queued => "Waiting for a worker".to_string(),
        ScanStatus::Running => live.progress.phase.label().to_string(),
        ScanStatus::Completed => "Completed".to_string(),
        ScanStatus::Failed => "Failed".to_string(),
    };
    // What the list shows of each: its check, severity, title and page (the rest can be large).
    let finding = |f: &StoredFinding| {
        let mut f = f.clone();
        f.finding.evidence.retain(|k, _| k == "url");
        (f.finding.description, f.finding.remediation) = (String::new(), String::new());
        f
    };
    LiveJson {
        status: status.as_str().to_string(),
        phase,
        pages_done: live.progress.pages_done,
        pages_found: live.progress.pages_found,
        percent: live.progress.percent(),
        counts: SEVERITIES.iter().map(|s| (s.as_str().to_string(), live.counts.get(*s))).collect(),
        total: live.counts.total(),
        latest: live.latest.iter().map(finding).collect(),
    }
}

fn not_found_or_internal(e: ScanServiceError) -> DashboardError {
    match e {
        ScanServiceError::NotFound => DashboardError::NotFound,
        other => DashboardError::internal(other),
    }
}

fn parse_id(id: &str) -> Result<uuid::Uuid, DashboardError> {
    uuid::Uuid::parse_str(id).map_err(|_| DashboardError::NotFound)
}

/// `GET /scans/{id}`: the scan live, or its report. Another organisation's scan (or no scan) is
/// the 404 page.
pub async fn show(State(state): State<WebState>, s: Session, Path(id): Path<String>) -> Result<Response, DashboardError> {
    let id = parse_id(&id)?;
    let live = state.scans().live(s.org(), id).await.map_err(not_found_or_internal)?;
    let scan = &live.scan;
    let host = if scan.target_hostname.is_empty() { scan.target_url.clone() } else { scan.target_hostname.clone() };
    let shots = state.scans().screenshots(s.org(), id).await.map_err(not_found_or_internal)?;
    let shots = screenshots_section(id, &shots);
    let finished = live.finished();
    let (live_part, report, baseline, budget) = if finished {
        let report = state.scans().report(s.org(), &id.to_string(), true).await.map_err(not_found_or_internal)?;
        let content = crate::report::html::render_content(&report).map_err(|e| DashboardError::Internal(format!("rendering the report: {e}")))?;
        // Compared with its baseline at completion: a link to that comparison.
        let baseline = report
            .report
            .as_ref()
            .and_then(|r| r.summary.changes.as_ref())
            .and_then(|c| c.baseline_scan_id.as_deref())
            .and_then(|b| uuid::Uuid::parse_str(b).ok())
            .map(|b| b.to_string());
        let budget = report.report.as_ref().and_then(|r| r.summary.budget.as_ref()).map(crate::web::budget::BudgetView::of);
        (None, content, baseline, budget)
    } else {
        (Some(live_json(&live)), String::new(), None, None)
    };
    let page = ScanPage {
        chrome: Chrome::new(&format!("Scan of {host}"), Some(&s), "scans"),
        id: id.to_string(),
        target: scan.target_url.clone(),
        status: scan.status.to_string(),
        mode: scan.mode.to_string(),
        triggered_by: scan.triggered_by.to_string(),
        created: when(scan.created_at),
        completed: scan.completed_at.map(when),
        live: live_part,
        paused: if finished { None } else { state.scans().live_view_refusal(s.org(), &s.user.id).map(paused_line) },
        refresh: REFRESH_SECONDS,
        report,
        baseline,
        shots,
        budget,
    };
    Ok(render(&page))
}

/// `GET /scans/{id}/events`: the live view as server-sent events: `progress` (the view's data,
/// JSON) whenever it changes, then `end` (the final status) once the scan ended. When nothing
/// changed for the idle limit it sends `idle` and ends; after the total limit it ends (the
/// browser's `EventSource` reconnects by itself). Over a cap: 429, a short page saying which cap.
pub async fn events(State(state): State<WebState>, s: Session, Path(id): Path<String>) -> Result<Response, DashboardError> {
    let id = parse_id(&id)?;
    let org = s.user.org_id.clone();
    // A scan of another organisation (or none) is the 404 page, before any place is taken.
    state.scans().live(s.org(), id).await.map_err(not_found_or_internal)?;
    let permit = match state.scans().open_live_view(s.org(), &s.user.id) {
        Ok(permit) => permit,
        Err(refusal) => {
            tracing::info!(org = %org, user = %s.user.id, cap = refusal.limit(), "a live view was refused: {refusal}");
            let text = format!("Live updates are paused: {}. The scan's page refreshes by itself.", who_is_at_cap(refusal));
            let mut r = crate::web::error::error_page(StatusCode::TOO_MANY_REQUESTS, "Live updates are paused", &text, Some(&s));
            r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(crate::scans::streams::STREAM_RETRY_AFTER.as_secs()));
            r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            return Ok(r);
        }
    };
    let mut updates = state.scans().live_updates(s.org(), id, permit).await.map_err(not_found_or_internal)?;
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<Event, Infallible>>(8);
    tokio::spawn(async move {
        let mut last: Option<LiveJson> = None;
        loop {
            let update = tokio::select! {
                update = updates.recv() => update,
                _ = tx.closed() => return,
            };
            let current = match update {
                Some(Ok(current)) => current,
                Some(Err(WatchEnd::Idle(idle))) => {
                    let _ = tx.send(Ok(Event::default().event("idle").data(format!("nothing new for {} s", idle.as_secs())))).await;
                    return;
                }
                // Open too long, the store failed, or the scan is gone: the browser reconnects.
                Some(Err(end)) => {
                    tracing::debug!(reason = %end, "a scan's live view ended");
                    return;
                }
                None => return,
            };
            let j = live_json(&current);
            if last.as_ref() != Some(&j) {
                let Ok(event) = Event::default().event("progress").json_data(&j) else { return };
                if tx.send(Ok(event)).await.is_err() {
                    return;
                }
                last = Some(j);
            }
            if current.finished() {
                let _ = tx.send(Ok(Event::default().event("end").data(current.scan.status.as_str()))).await;
                return;
            }
        }
    });
    let stream = tokio_stream::wrappers::ReceiverStream::new(rx);
    let mut r = Sse::new(stream).keep_alive(KeepAlive::default()).into_response();
    r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(r)
}

/// `GET /scans/{id}/report.html`: the standalone report, one self-contained file to keep or
/// send (the same document as the API's `report.html`).
pub async fn standalone(State(state): State<WebState>, s: Session, Path(id): Path<String>) -> Result<Response, DashboardError> {
    let id = parse_id(&id)?;
    let report = state.scans().report(s.org(), &id.to_string(), true).await.map_err(not_found_or_internal)?;
    let html = crate::report::html::render(&report).map_err(|e| DashboardError::Internal(format!("rendering the report: {e}")))?;
    let csp = format!("{}; frame-ancestors 'none'", crate::report::html::content_security_policy());
    let mut r = html.into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    if let Ok(v) = HeaderValue::from_str(&csp) {
        h.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    Ok(r)
}

/// The report's "Journey screenshots" section: each picture small, linked to its full size, with
/// the journey, step and name the findings' evidence gives.
fn screenshots_section(scan: uuid::Uuid, shots: &[crate::scans::ScreenshotRow]) -> String {
    use crate::report::html::escape;
    if shots.is_empty() {
        return String::new();
    }
    let mut o = String::from(
        "<section class=\"block\" aria-labelledby=\"journey-shots\">\n<h2 id=\"journey-shots\">Journey screenshots</h2>\n\
         <p>Taken by this scan's journeys: each <code>screenshot</code> step, and the page when a step failed. \
         Typed secrets are hidden in them.</p>\n<ul class=\"shots\">\n",
    );
    for shot in shots {
        let (journey, name) = (escape(&shot.journey), escape(&shot.name));
        let href = format!("/scans/{scan}/screenshots/{}", shot.id);
        o.push_str(&format!(
            "<li><figure><a href=\"{href}\">\
             <img src=\"{href}\" alt=\"Screenshot &quot;{name}&quot; of the journey &quot;{journey}&quot;, step {step}\" width=\"320\" height=\"223\"></a>\
             <figcaption>{journey}, step {step}: {name}</figcaption></figure></li>\n",
            step = shot.step,
        ));
    }
    o.push_str("</ul>\n</section>\n");
    o
}

/// `GET /scans/{id}/screenshots/{shot}`: one journey screenshot of the organisation's scan.
pub async fn screenshot(State(state): State<WebState>, s: Session, Path((id, shot)): Path<(String, String)>) -> Result<Response, DashboardError> {
    let (Ok(id), Ok(shot)) = (uuid::Uuid::parse_str(&id), uuid::Uuid::parse_str(&shot)) else {
        return Err(DashboardError::NotFound);
    };
    let png = state.scans().screenshot_png(s.org(), id, shot).await.map_err(not_found_or_internal)?;
    let mut r = png.into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("image/png"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, max-age=86400"));
    Ok(r)
}
