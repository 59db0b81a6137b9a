//! `/` (recent scans, start a passive scan) and `/findings` (the findings explorer, with its
//! CSV and JSON export). One scan's page is `scan.rs`.

use super::{notice, see_other, when};
use crate::model::{ScanMode, Severity, SeverityCounts, Target, TriggeredBy};
use crate::store::{CreateOutcome, CursorKind, FindingFilter};
use crate::web::error::PageError;
use crate::web::forms::{FormData, bounded};
use crate::web::session::Session;
use crate::web::state::WebState;
use crate::web::templates::{Chrome, DashboardPage, FindingLine, FindingsPage, ScanLine, render, render_status};
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

/// Findings an export holds at most.
pub const EXPORT_LIMIT: usize = 10_000;

/// A day (`2026-01-31`, midnight UTC) or an RFC 3339 instant, in microseconds.
fn parse_day(text: &str) -> Option<i64> {
    chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc().timestamp_micros())
        .or_else(|| chrono::DateTime::parse_from_rfc3339(text).ok().map(|t| t.timestamp_micros()))
}

/// `GET /findings?severity=&category=&check_id=&url=&scan=&since=&until=&cursor=&format=`: the
/// findings explorer (several severities and categories at once, a date range, pages), and the
/// filtered set as CSV or JSON (`format=csv|json`, at most `EXPORT_LIMIT` findings).
pub async fn findings(State(state): State<WebState>, s: Session, RawQuery(q): RawQuery) -> Result<Response, PageError> {
    let params: Vec<(String, String)> = url::form_urlencoded::parse(q.as_deref().unwrap_or("").as_bytes()).into_owned().collect();
    let get = |k: &str| params.iter().find(|(n, _)| n == k).map(|(_, v)| v.trim().to_string()).unwrap_or_default();
    let all = |k: &str| params.iter().filter(|(n, v)| n == k && !v.trim().is_empty()).map(|(_, v)| v.trim().to_string()).collect::<Vec<_>>();
    let (check_id, url_text, scan, since, until, cursor, format) = (get("check_id"), get("url"), get("scan"), get("since"), get("until"), get("cursor"), get("format"));
    let categories_known: Vec<&'static str> = crate::model::PASSIVE_CATEGORIES.iter().chain(crate::model::ACTIVE_ONLY_CATEGORIES.iter()).copied().collect();
    let mut errors = Vec::new();
    let mut filter = FindingFilter::default();
    for sev in all("severity") {
        match sev.parse::<Severity>() {
            Ok(s) if !filter.severities.contains(&s) => filter.severities.push(s),
            Ok(_) => {}
            Err(_) => errors.push("Choose severities from the list."),
        }
    }
    for cat in all("category") {
        match categories_known.iter().find(|c| **c == cat) {
            Some(c) if !filter.categories.iter().any(|x| x == c) => filter.categories.push(c.to_string()),
            Some(_) => {}
            None => errors.push("Choose categories from the list."),
        }
    }
    match bounded(&check_id, 200, "The check id") {
        Ok("") => {}
        Ok(c) => filter.check_id = Some(c.to_string()),
        Err(_) => errors.push("The check id must be at most 200 characters."),
    }
    match bounded(&url_text, 500, "The page address") {
        Ok("") => {}
        Ok(u) => filter.url_contains = Some(u.to_string()),
        Err(_) => errors.push("The page address must be at most 500 characters."),
    }
    if !scan.is_empty() {
        match uuid::Uuid::parse_str(&scan) {
            Ok(id) => filter.scan_id = Some(id),
            Err(_) => errors.push("The scan must be a scan id (from a report's address)."),
        }
    }
    for (text, slot, what) in [(&since, &mut filter.since, "since"), (&until, &mut filter.until, "until")] {
        if !text.is_empty() {
            match parse_day(text) {
                // `until` is the whole day: up to the next midnight.
                Some(t) if what == "until" && text.len() == 10 => *slot = Some(t + 86_400_000_000),
                Some(t) => *slot = Some(t),
                None => errors.push("The dates must look like 2026-01-31."),
            }
        }
    }
    if let (Some(a), Some(b)) = (filter.since, filter.until)
        && a >= b
    {
        errors.push("The first date must come before the last.");
    }
    if !matches!(format.as_str(), "" | "csv" | "json") {
        errors.push("Export as csv or json.");
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
    let shown = |v: &str, n: usize| v.chars().take(n).collect::<String>();
    let (check_shown, url_shown, scan_shown, since_shown, until_shown) = (shown(&check_id, 200), shown(&url_text, 500), shown(&scan, 40), shown(&since, 40), shown(&until, 40));
    // The serializer is not `Send`: it lives only in this block, never across an await.
    let query = {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        for sev in &filter.severities {
            query.append_pair("severity", sev.as_str());
        }
        for c in &filter.categories {
            query.append_pair("category", c);
        }
        for (k, v) in [("check_id", &check_shown), ("url", &url_shown), ("scan", &scan_shown), ("since", &since_shown), ("until", &until_shown)] {
            if !v.is_empty() {
                query.append_pair(k, v);
            }
        }
        query.finish()
    };
    let mut page = FindingsPage {
        chrome: Chrome::new("Findings", Some(&s), "findings"),
        findings: Vec::new(),
        severities: SEVERITIES.iter().map(|sv| (*sv, filter.severities.iter().any(|f| f.as_str() == *sv))).collect(),
        categories: categories_known.iter().map(|c| (*c, filter.categories.iter().any(|f| f == c))).collect(),
        check_id: check_shown,
        url: url_shown,
        scan: scan_shown,
        since: since_shown,
        until: until_shown,
        error: None,
        next: None,
        query: query.clone(),
    };
    if !errors.is_empty() {
        errors.dedup();
        page.error = Some(errors.join(" "));
        return Ok(render_status(StatusCode::BAD_REQUEST, &page));
    }
    if !format.is_empty() {
        return export(&state, &s, &filter, &format).await;
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
        let sep = if query.is_empty() { "" } else { "&" };
        let cursor: String = url::form_urlencoded::Serializer::new(String::new()).append_pair("cursor", &c).finish();
        format!("/findings?{query}{sep}{cursor}")
    });
    Ok(render(&page))
}

/// The filtered findings (newest first, at most `EXPORT_LIMIT`) as a CSV or JSON download.
async fn export(state: &WebState, s: &Session, filter: &FindingFilter, format: &str) -> Result<Response, PageError> {
    let mut rows = Vec::new();
    let mut cursor = None;
    loop {
        let page = state.store().list_findings(&s.user.org_id, filter, 500, cursor).await.map_err(PageError::internal)?;
        rows.extend(page.rows);
        match page.next_cursor {
            Some(c) if rows.len() < EXPORT_LIMIT => cursor = state.store().cursors().decode(CursorKind::Findings, &c).ok(),
            _ => break,
        }
        if cursor.is_none() {
            break;
        }
    }
    rows.truncate(EXPORT_LIMIT);
    let created = |us: i64| crate::store::time::to_datetime(us).to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    let (body, content_type, name) = if format == "json" {
        let list: Vec<serde_json::Value> = rows
            .iter()
            .map(|f| {
                serde_json::json!({
                    "id": f.id.to_string(), "scan_id": f.scan_id.to_string(), "check_id": f.check_id, "severity": f.severity().as_str(),
                    "title": f.title, "page_url": f.page_url, "evidence": f.evidence_json(), "cwe_id": f.cwe_id, "created_at": created(f.created_at),
                })
            })
            .collect();
        (serde_json::to_string_pretty(&serde_json::json!({ "findings": list })).unwrap_or_default(), "application/json", "findings.json")
    } else {
        let cell = |v: &str| {
            // A spreadsheet would run a cell that starts like a formula: quote it as text.
            let v = if v.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{v}") } else { v.to_string() };
            format!("\"{}\"", v.replace('"', "\"\""))
        };
        let mut out = String::from("created_at,severity,check_id,title,page_url,scan_id,finding_id\r\n");
        for f in &rows {
            let line = [created(f.created_at), f.severity().as_str().to_string(), f.check_id.clone(), f.title.clone().unwrap_or_default(), f.page_url.clone().unwrap_or_default(), f.scan_id.to_string(), f.id.to_string()];
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
    Ok(r)
}
