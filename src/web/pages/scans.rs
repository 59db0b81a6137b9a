//! `/` (recent scans, start a passive scan), `/scans/{id}` (the report, with its journeys'
//! screenshots), `/scans/{id}/screenshots/{shot}` (one of them) and `/findings`.

use super::{notice, see_other, when};
use crate::model::{ScanMode, Severity, SeverityCounts, Target, TriggeredBy};
use crate::store::{CreateOutcome, CursorKind, FindingFilter};
use crate::web::error::PageError;
use crate::web::forms::{FormData, bounded};
use crate::web::session::Session;
use crate::web::state::WebState;
use crate::web::templates::{Chrome, DashboardPage, FindingLine, FindingsPage, ScanLine, render, render_status};
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// Scans listed on the dashboard.
pub const RECENT_SCANS: u64 = 25;
/// Findings per page of `/findings`.
pub const FINDINGS_PER_PAGE: u64 = 50;
/// Longest target accepted from the form.
const MAX_TARGET_LEN: usize = 2048;
const SEVERITIES: [&str; 5] = [
    Severity::Critical.as_str(),
    Severity::High.as_str(),
    Severity::Medium.as_str(),
    Severity::Low.as_str(),
    Severity::Info.as_str(),
];

async fn dashboard_page(state: &WebState, s: &Session, target: String, error: Option<String>, notice: Option<String>) -> Result<DashboardPage, PageError> {
    let page = state.store().list_scans(&s.user.org_id, RECENT_SCANS, None).await.map_err(PageError::internal)?;
    let scans = page
        .rows
        .iter()
        .map(|r| {
            let counts = r
                .findings_count
                .as_deref()
                .and_then(|c| serde_json::from_str::<SeverityCounts>(c).ok())
                .map(|c| {
                    [Severity::Critical, Severity::High, Severity::Medium, Severity::Low, Severity::Info]
                        .into_iter()
                        .map(|sev| (sev.as_str(), c.get(sev)))
                        .collect()
                })
                .unwrap_or_default();
            // What changed since the previous scan of the same target and mode, as the
            // report stored at completion says.
            let changes = r
                .summary()
                .and_then(|s| s.changes)
                .filter(|c| c.baseline_scan_id.is_some())
                .map(|c| (c.new, c.fixed));
            ScanLine {
                id: r.id.to_string(),
                target: r.target_url.clone(),
                status: r.status().to_string(),
                created: when(r.created_at),
                triggered_by: r.triggered_by().to_string(),
                mode: r.mode().to_string(),
                counts,
                changes,
            }
        })
        .collect();
    Ok(DashboardPage { chrome: Chrome::new("Scans", Some(s), "scans"), scans, target, error, notice })
}

/// `GET /`
pub async fn dashboard(State(state): State<WebState>, s: Session, RawQuery(q): RawQuery) -> Result<Response, PageError> {
    let notice = notice(q.as_deref(), &[("started", "The scan was queued.")]);
    Ok(render(&dashboard_page(&state, &s, String::new(), None, notice).await?))
}

/// `POST /scans`: the same validation (`Target::parse` under the address policy) and quota
/// (`Store::create_scan`) as `POST /api/v1/scans`, `triggered_by: manual`.
pub async fn create(State(state): State<WebState>, s: Session, form: FormData) -> Result<Response, PageError> {
    form.check_session(&s)?;
    let raw = form.text("target");
    let shown: String = raw.chars().take(MAX_TARGET_LEN).collect();
    let target = bounded(raw, MAX_TARGET_LEN, "The address")
        .and_then(|t| Target::parse(t, &state.api.state().policy).map_err(|e| format!("This address cannot be scanned: {e}.")));
    let target = match target {
        Ok(t) => t,
        Err(e) => {
            let page = dashboard_page(&state, &s, shown, Some(e), None).await?;
            return Ok(render_status(StatusCode::BAD_REQUEST, &page));
        }
    };
    match state.store().create_scan(&s.user.org_id, &target, ScanMode::Passive, TriggeredBy::Manual, None).await {
        Ok(CreateOutcome::Created(row)) => Ok(see_other(&format!("/scans/{}", row.id), &[])),
        Ok(CreateOutcome::QuotaExceeded(q)) => {
            crate::metrics::metrics().quota_exceeded.inc();
            let msg = format!(
                "Your organisation has used its {} scans this month; more can start after {}.",
                q.limit,
                q.resets_at.format("%Y-%m-%d %H:%M UTC")
            );
            let page = dashboard_page(&state, &s, shown, Some(msg), None).await?;
            Ok(render_status(StatusCode::TOO_MANY_REQUESTS, &page))
        }
        Err(e) => Err(PageError::internal(e)),
    }
}

/// `GET /scans/{id}`: the report, built from the store and rendered by the same renderer as the
/// API's HTML report, with a way back. Another organisation's scan (or no scan) is the 404 page.
pub async fn report(State(state): State<WebState>, s: Session, Path(id): Path<String>) -> Result<Response, PageError> {
    let id = uuid::Uuid::parse_str(&id).map_err(|_| PageError::NotFound)?;
    let report = state.store().scan_report(&s.user.org_id, id, true).await.map_err(PageError::internal)?.ok_or(PageError::NotFound)?;
    let shots = state.store().list_journey_screenshots(&s.user.org_id, id).await.map_err(PageError::internal)?;
    let html = crate::report::html::render(&report).map_err(|e| PageError::Internal(format!("rendering the report: {e}")))?;
    let mut html = html.replacen(
        "<header class=\"top\">",
        "<header class=\"top\">\n<p><a href=\"/\" style=\"color:#fff\">Back to the dashboard</a></p>",
        1,
    );
    let mut policy = crate::report::html::content_security_policy();
    if !shots.is_empty() {
        // The pictures come from this server: the header's policy and the report's own
        // (a meta element in its head) both let them in.
        let allowing = policy.replacen("img-src data:", "img-src 'self' data:", 1);
        let meta = |p: &str| format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{p}\">");
        html = html.replacen(&meta(&policy), &meta(&allowing), 1);
        html = html.replacen("</main>", &format!("{}</main>", screenshots_section(id, &shots)), 1);
        policy = allowing;
    }
    let csp = format!("{policy}; frame-ancestors 'none'");
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
fn screenshots_section(scan: uuid::Uuid, shots: &[crate::store::ScreenshotRow]) -> String {
    use crate::report::html::escape;
    let mut o = String::from(
        "<section aria-labelledby=\"journey-shots\">\n<h2 id=\"journey-shots\">Journey screenshots</h2>\n\
         <p>Taken by this scan's journeys: each <code>screenshot</code> step, and the page when a step failed. \
         Typed secrets are hidden in them.</p>\n<ul style=\"list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:16px\">\n",
    );
    for shot in shots {
        let (journey, name) = (escape(&shot.journey), escape(&shot.name));
        let href = format!("/scans/{scan}/screenshots/{}", shot.id);
        o.push_str(&format!(
            "<li style=\"max-width:100%\"><figure style=\"margin:0\"><a href=\"{href}\">\
             <img src=\"{href}\" alt=\"Screenshot &quot;{name}&quot; of the journey &quot;{journey}&quot;, step {step}\" width=\"320\" height=\"223\" \
             style=\"max-width:100%;height:auto;border:1px solid #767676\"></a>\
             <figcaption>{journey}, step {step}: {name}</figcaption></figure></li>\n",
            step = shot.step,
        ));
    }
    o.push_str("</ul>\n</section>\n");
    o
}

/// `GET /scans/{id}/screenshots/{shot}`: one journey screenshot of the organisation's scan.
pub async fn screenshot(State(state): State<WebState>, s: Session, Path((id, shot)): Path<(String, String)>) -> Result<Response, PageError> {
    let (Ok(id), Ok(shot)) = (uuid::Uuid::parse_str(&id), uuid::Uuid::parse_str(&shot)) else {
        return Err(PageError::NotFound);
    };
    let png = state.store().journey_screenshot_png(&s.user.org_id, id, shot).await.map_err(PageError::internal)?.ok_or(PageError::NotFound)?;
    let mut r = png.into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("image/png"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, max-age=86400"));
    Ok(r)
}

/// `GET /findings?severity=&check_id=&since=&cursor=`
pub async fn findings(State(state): State<WebState>, s: Session, RawQuery(q): RawQuery) -> Result<Response, PageError> {
    let params: Vec<(String, String)> = url::form_urlencoded::parse(q.as_deref().unwrap_or("").as_bytes()).into_owned().collect();
    let get = |k: &str| params.iter().find(|(n, _)| n == k).map(|(_, v)| v.trim().to_string()).unwrap_or_default();
    let (severity, check_id, since, cursor) = (get("severity"), get("check_id"), get("since"), get("cursor"));
    let mut errors = Vec::new();
    let mut filter = FindingFilter::default();
    if !severity.is_empty() {
        match severity.parse::<Severity>() {
            Ok(sev) => filter.severities = vec![sev],
            Err(_) => errors.push("Choose a severity from the list."),
        }
    }
    match bounded(&check_id, 200, "The check id") {
        Ok("") => {}
        Ok(c) => filter.check_id = Some(c.to_string()),
        Err(_) => errors.push("The check id must be at most 200 characters."),
    }
    if !since.is_empty() {
        let parsed = chrono::NaiveDate::parse_from_str(&since, "%Y-%m-%d")
            .ok()
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .map(|t| t.and_utc().timestamp_micros())
            .or_else(|| chrono::DateTime::parse_from_rfc3339(&since).ok().map(|t| t.timestamp_micros()));
        match parsed {
            Some(t) => filter.since = Some(t),
            None => errors.push("The date must look like 2026-01-31."),
        }
    }
    let position = if cursor.is_empty() {
        None
    } else {
        match state.store().cursors().decode(CursorKind::Findings, &cursor) {
            Ok(p) => Some(p),
            Err(_) => {
                errors.push("That page link is not valid; start from the first page.");
                None
            }
        }
    };
    let shown_check: String = check_id.chars().take(200).collect();
    let shown_since: String = since.chars().take(40).collect();
    let shown_severity = if SEVERITIES.contains(&severity.as_str()) { severity.clone() } else { String::new() };
    let mut page = FindingsPage {
        chrome: Chrome::new("Findings", Some(&s), "findings"),
        findings: Vec::new(),
        severity: shown_severity,
        check_id: shown_check,
        since: shown_since,
        error: None,
        next: None,
        severities: SEVERITIES.to_vec(),
    };
    if !errors.is_empty() {
        page.error = Some(errors.join(" "));
        return Ok(render_status(StatusCode::BAD_REQUEST, &page));
    }
    let rows = state
        .store()
        .list_findings(&s.user.org_id, &filter, FINDINGS_PER_PAGE, position)
        .await
        .map_err(PageError::internal)?;
    page.findings = rows
        .rows
        .iter()
        .map(|f| FindingLine {
            severity: f.severity().to_string(),
            check_id: f.check_id.clone(),
            title: f.title.clone().unwrap_or_default(),
            page_url: f.page_url.clone().unwrap_or_default(),
            scan_id: f.scan_id.to_string(),
            created: when(f.created_at),
        })
        .collect();
    page.next = rows.next_cursor.map(|c| {
        let q: String = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("severity", &page.severity)
            .append_pair("check_id", &page.check_id)
            .append_pair("since", &page.since)
            .append_pair("cursor", &c)
            .finish();
        format!("/findings?{q}")
    });
    Ok(render(&page))
}
