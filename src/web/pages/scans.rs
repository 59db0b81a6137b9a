//! `/` (recent scans, start a passive scan) and `/findings` (the findings explorer, with its
//! CSV and JSON export). One scan's page is `scan.rs`.

use super::{notice, see_other, when};
use crate::model::{Severity, SeverityCounts, TriggeredBy};
use crate::scans::{FindingsQuery, Issue, ListQuery, ScanServiceError};
use crate::web::error::DashboardError;
use crate::web::forms::{FormData, bounded};
use crate::web::session::Session;
use crate::web::state::WebState;
use crate::web::templates::{Chrome, DashboardPage, FindingsPage, ScanLine, render, render_status};
use axum::extract::{RawQuery, State};
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

async fn dashboard_page(state: &WebState, s: &Session, target: String, error: Option<String>, notice: Option<String>) -> Result<DashboardPage, DashboardError> {
    let page = state.scans().recent(s.org(), RECENT_SCANS).await.map_err(DashboardError::internal)?;
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
                status: r.status.to_string(),
                created: when(r.created_at),
                triggered_by: r.triggered_by.to_string(),
                mode: r.mode.to_string(),
                counts,
                changes,
            }
        })
        .collect();
    Ok(DashboardPage { chrome: Chrome::new("Scans", Some(s), "scans"), scans, target, level: String::new(), error, notice })
}

/// `GET /`
pub async fn dashboard(State(state): State<WebState>, s: Session, RawQuery(q): RawQuery) -> Result<Response, DashboardError> {
    let notice = notice(q.as_deref(), &[("started", "The scan was queued.")]);
    Ok(render(&dashboard_page(&state, &s, String::new(), None, notice).await?))
}

/// `POST /scans`: the scan service's `create`, as `POST /api/v1/scans` (the address policy, the
/// quota), `triggered_by: manual`.
pub async fn create(State(state): State<WebState>, s: Session, form: FormData) -> Result<Response, DashboardError> {
    form.check_session(&s)?;
    let raw = form.text("target");
    let shown: String = raw.chars().take(MAX_TARGET_LEN).collect();
    let level = form.text("level").chars().take(8).collect::<String>();
    let target = match bounded(raw, MAX_TARGET_LEN, "The address") {
        Ok(t) => t,
        Err(e) => return refused(&state, &s, (shown, level), e, StatusCode::BAD_REQUEST).await,
    };
    match state.scans().create(s.org(), target, Some(&level), TriggeredBy::Manual).await {
        Ok(row) => Ok(see_other(&format!("/scans/{}", row.id), &[])),
        Err(ScanServiceError::Invalid(issues)) => {
            let why = issues.iter().map(|i| i.message.as_str()).collect::<Vec<_>>().join("; ");
            let what = if issues.iter().any(|i| i.path == "level") { "This conformance target cannot be used" } else { "This address cannot be scanned" };
            refused(&state, &s, (shown, level), format!("{what}: {why}."), StatusCode::BAD_REQUEST).await
        }
        Err(ScanServiceError::QuotaExceeded(q)) => {
            let msg = format!(
                "Your organisation has used its {} scans this month; more can start after {}.",
                q.limit,
                q.resets_at.format("%Y-%m-%d %H:%M UTC")
            );
            refused(&state, &s, (shown, level), msg, StatusCode::TOO_MANY_REQUESTS).await
        }
        Err(e) => Err(DashboardError::internal(e)),
    }
}

/// The dashboard again, with the address as typed and why it was refused.
/// The dashboard again, the form as it was sent (address and level) and why it was refused.
async fn refused(state: &WebState, s: &Session, (shown, level): (String, String), message: String, status: StatusCode) -> Result<Response, DashboardError> {
    let mut page = dashboard_page(state, s, shown, Some(message), None).await?;
    page.level = level;
    Ok(render_status(status, &page))
}

/// Findings an export holds at most.
pub const EXPORT_LIMIT: usize = 10_000;

/// A date field's value as the scan service reads dates (RFC 3339): a day (`2026-01-31`) is its
/// midnight UTC, or the next midnight when it ends the range (`until` is the whole day);
/// anything else is passed on as typed, for the service to judge.
fn day_as_instant(text: &str, end_of_range: bool) -> String {
    match chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        Ok(day) => {
            let day = if end_of_range { day.succ_opt().unwrap_or(day) } else { day };
            format!("{}T00:00:00Z", day.format("%Y-%m-%d"))
        }
        Err(_) => text.to_string(),
    }
}

/// What the findings form says when the scan service refuses a field.
fn form_message(issue: &Issue) -> &'static str {
    match issue.path.as_str() {
        "severity" => "Choose severities from the list.",
        "category" => "Choose categories from the list.",
        "check_id" => "The check id must be at most 200 characters.",
        "url" => "The page address must be at most 500 characters.",
        "scan" => "The scan must be a scan id (from a report's address).",
        "since" => "The dates must look like 2026-01-31.",
        "until" if issue.message.contains("after") => "The first date must come before the last.",
        "until" => "The dates must look like 2026-01-31.",
        "cursor" => "That page link is not valid; start from the first page.",
        _ => "Check the filters.",
    }
}

/// `GET /findings?severity=&category=&check_id=&url=&scan=&since=&until=&cursor=&format=`: the
/// findings explorer (several severities and categories at once, a date range, pages), and the
/// filtered set as CSV or JSON (`format=csv|json`, at most `EXPORT_LIMIT` findings). The filters
/// are the scan service's, with the API's rules.
pub async fn findings(State(state): State<WebState>, s: Session, RawQuery(q): RawQuery) -> Result<Response, DashboardError> {
    let params: Vec<(String, String)> = url::form_urlencoded::parse(q.as_deref().unwrap_or("").as_bytes()).into_owned().collect();
    let get = |k: &str| params.iter().find(|(n, _)| n == k).map(|(_, v)| v.trim().to_string()).unwrap_or_default();
    let all = |k: &str| params.iter().filter(|(n, v)| n == k && !v.trim().is_empty()).map(|(_, v)| v.trim().to_string()).collect::<Vec<_>>();
    let (check_id, url_text, scan, since, until, cursor, format) = (get("check_id"), get("url"), get("scan"), get("since"), get("until"), get("cursor"), get("format"));
    let some = |v: &str| Some(v.to_string()).filter(|v| !v.is_empty());
    let (severities, categories) = (all("severity"), all("category"));
    let query = FindingsQuery {
        severities: severities.clone(),
        categories: categories.clone(),
        check_id: some(&check_id),
        url_contains: some(&url_text),
        scan: some(&scan),
        since: some(&since).map(|d| day_as_instant(&d, false)),
        until: some(&until).map(|d| day_as_instant(&d, true)),
        page: ListQuery { limit: Some(FINDINGS_PER_PAGE as i64), cursor: some(&cursor) },
    };
    let shown = |v: &str, n: usize| v.chars().take(n).collect::<String>();
    let (check_shown, url_shown, scan_shown, since_shown, until_shown) = (shown(&check_id, 200), shown(&url_text, 500), shown(&scan, 40), shown(&since, 40), shown(&until, 40));
    let chosen_severities: Vec<&'static str> = SEVERITIES.iter().copied().filter(|sv| severities.iter().any(|x| x == sv)).collect();
    let chosen_categories: Vec<&'static str> = crate::scans::query::categories().filter(|c| categories.iter().any(|x| x == c)).collect();
    // The serializer is not `Send`: it lives only in this block, never across an await.
    let link_query = {
        let mut link = url::form_urlencoded::Serializer::new(String::new());
        for sev in &chosen_severities {
            link.append_pair("severity", sev);
        }
        for c in &chosen_categories {
            link.append_pair("category", c);
        }
        for (k, v) in [("check_id", &check_shown), ("url", &url_shown), ("scan", &scan_shown), ("since", &since_shown), ("until", &until_shown)] {
            if !v.is_empty() {
                link.append_pair(k, v);
            }
        }
        link.finish()
    };
    let mut page = FindingsPage {
        chrome: Chrome::new("Findings", Some(&s), "findings"),
        findings: Vec::new(),
        severities: SEVERITIES.iter().map(|sv| (*sv, chosen_severities.contains(sv))).collect(),
        categories: crate::scans::query::categories().map(|c| (c, chosen_categories.contains(&c))).collect(),
        check_id: check_shown,
        url: url_shown,
        scan: scan_shown,
        since: since_shown,
        until: until_shown,
        error: None,
        next: None,
        query: link_query.clone(),
    };
    let export_as = match format.as_str() {
        "" => None,
        "csv" | "json" => Some(format.as_str()),
        _ => {
            page.error = Some("Export as csv or json.".into());
            return Ok(render_status(StatusCode::BAD_REQUEST, &page));
        }
    };
    let result = match export_as {
        Some(format) => match state.scans().all_findings(s.org(), &query, EXPORT_LIMIT).await {
            Ok(rows) => return Ok(export(rows, format)),
            Err(e) => Err(e),
        },
        None => state.scans().findings(s.org(), &query).await,
    };
    let rows = match result {
        Ok(rows) => rows,
        Err(ScanServiceError::Invalid(issues)) => {
            let mut errors: Vec<&str> = issues.iter().map(form_message).collect();
            errors.dedup();
            page.error = Some(errors.join(" "));
            return Ok(render_status(StatusCode::BAD_REQUEST, &page));
        }
        Err(e) => return Err(DashboardError::internal(e)),
    };
    page.findings = rows.rows;
    page.next = rows.next_cursor.map(|c| {
        let sep = if link_query.is_empty() { "" } else { "&" };
        let cursor: String = url::form_urlencoded::Serializer::new(String::new()).append_pair("cursor", &c).finish();
        format!("/findings?{link_query}{sep}{cursor}")
    });
    Ok(render(&page))
}

fn export(rows: Vec<crate::scans::StoredFinding>, format: &str) -> Response {
    let (body, content_type, name) = if format == "json" {
        // Each finding as the API lists it (`GET /api/v1/findings`): the `Finding` message.
        let findings: Vec<serde_json::Value> =
            rows.iter().filter_map(|f| crate::proto::json::to_value(&crate::proto::from_report::finding_to_proto(f)).ok()).collect();
        (serde_json::to_string_pretty(&serde_json::json!({ "findings": findings })).unwrap_or_default(), "application/json", "findings.json")
    } else {
        let cell = |v: &str| {
            // A spreadsheet would run a cell that starts like a formula: quote it as text.
            let v = if v.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{v}") } else { v.to_string() };
            format!("\"{}\"", v.replace('"', "\"\""))
        };
        let mut out = String::from("created_at,severity,check_id,title,page_url,scan_id,finding_id\r\n");
        for f in &rows {
            let s = &f.finding;
            let created = crate::model::scan_report::rfc3339(&f.created_at);
            let line = [created, s.severity.as_str().to_string(), s.check_id.clone(), s.title.clone(), s.url().unwrap_or_default().to_string(), f.scan_id.to_string(), f.id.to_string()];
            out.push_str(&line.iter().map(|v| cell(v)).collect::<Vec<_>>().join(","));
            out.push_str("\r\n");
        }
        (out, "text/csv; charset=utf-8", "findings.csv")
    };
    let mut r = body.into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    r
}
