//! The REST handlers: read the input into the scan service's typed input (`crate::scans`), and
//! write its answer as the RPC's response message (the same `convert` as gRPC) in the spec's
//! JSON (`proto::json`). The caller was admitted before the handler runs
//! (`admission`), which also adds the rate-limit headers to every answer.

use super::input::{Query, json_object};
use crate::api::auth::Admitted;
use crate::api::convert::{comparison_to_proto, created_to_proto, findings_page_to_proto, history_to_proto, get_scan_to_proto, scans_page_to_proto};
use crate::api::error::{ApiError, Issue};
use crate::proto::json::{ProtoJson, dynamic};
use crate::api::service::{ReportDocument, ScanApi, render_report};
use crate::model::TriggeredBy;
use crate::scans::{FindingsQuery, HistoryQuery, ScanServiceError};
use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde_json::Value;

/// The answer of the scan service, as the RPC's response message written as the spec's JSON
/// (`proto::json`) with `status`, or its refusal.
fn reply<T, M: prost::Message + prost::Name>(status: StatusCode, result: Result<T, ScanServiceError>, to_proto: impl FnOnce(&T) -> M) -> Response {
    let answer = match result {
        Ok(answer) => answer,
        Err(e) => return ApiError::from(e).into_response(),
    };
    match dynamic(&to_proto(&answer)) {
        Ok(message) => (status, Json(ProtoJson(&message))).into_response(),
        Err(e) => ApiError::Internal(format!("writing the answer: {e}")).into_response(),
    }
}

/// `POST /api/v1/scans`
pub async fn create_scan(State(api): State<ScanApi>, Extension(who): Extension<Admitted>, body: Body) -> Response {
    let object = match json_object(body, &["target", "level"]).await {
        Ok(o) => o,
        Err(e) => return e.into_response(),
    };
    let target = match object.get("target") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => return ApiError::invalid("target", "is required").into_response(),
        Some(_) => return ApiError::invalid("target", "must be a string").into_response(),
    };
    let level = match object.get("level") {
        Some(Value::String(s)) => Some(s.as_str()),
        Some(Value::Null) | None => None,
        Some(_) => return ApiError::invalid("level", "must be a string: A, AA or AAA").into_response(),
    };
    let result = api.state().scans().create(who.org(), &target, level, TriggeredBy::Api).await;
    reply(StatusCode::CREATED, result, created_to_proto)
}

/// `GET /api/v1/scans`
pub async fn list_scans(State(api): State<ScanApi>, Extension(who): Extension<Admitted>, RawQuery(raw): RawQuery) -> Response {
    let page = match Query::parse(raw.as_deref()).and_then(|q| q.page()) {
        Ok(read) => read,
        Err(e) => return e.into_response(),
    };
    reply(StatusCode::OK, api.state().scans().list(who.org(), &page).await, scans_page_to_proto)
}

/// `GET /api/v1/scans/{scanId}`
pub async fn get_scan(
    State(api): State<ScanApi>,
    Extension(who): Extension<Admitted>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw): RawQuery,
) -> Response {
    // A scan id that does not even decode (e.g. `%FF`) is a malformed id: 404, like any other.
    let Ok(Path(scan_id)) = path else {
        return ApiError::NotFound.into_response();
    };
    let query = match Query::parse(raw.as_deref()) {
        Ok(q) => q,
        Err(e) => return e.into_response(),
    };
    let mut issues: Vec<Issue> = Vec::new();
    let include_findings = query.boolean("include_findings", &mut issues);
    if !issues.is_empty() {
        return ApiError::InvalidInput(issues).into_response();
    }
    reply(StatusCode::OK, api.state().scans().report(who.org(), &scan_id, include_findings).await, get_scan_to_proto)
}

/// `GET /api/v1/findings`
pub async fn list_findings(State(api): State<ScanApi>, Extension(who): Extension<Admitted>, RawQuery(raw): RawQuery) -> Response {
    let (query, page) = match Query::parse(raw.as_deref()).and_then(|q| q.page().map(|p| (q, p))) {
        Ok(read) => read,
        Err(e) => return e.into_response(),
    };
    let findings = FindingsQuery {
        severities: query.string("severity").into_iter().collect(),
        check_id: query.string("check_id"),
        since: query.string("since"),
        page,
        ..FindingsQuery::default()
    };
    reply(StatusCode::OK, api.state().scans().findings(who.org(), &findings).await, findings_page_to_proto)
}

/// `GET /api/v1/history?target=...`
pub async fn list_scan_history(State(api): State<ScanApi>, Extension(who): Extension<Admitted>, RawQuery(raw): RawQuery) -> Response {
    let (query, page) = match Query::parse(raw.as_deref()).and_then(|q| q.page().map(|p| (q, p))) {
        Ok(read) => read,
        Err(e) => return e.into_response(),
    };
    let history = HistoryQuery { target: query.string("target"), page };
    reply(StatusCode::OK, api.state().scans().history(who.org(), &history).await, history_to_proto)
}

/// `GET /api/v1/compare?base=...&head=...`
pub async fn compare_scans(State(api): State<ScanApi>, Extension(who): Extension<Admitted>, RawQuery(raw): RawQuery) -> Response {
    let query = match Query::parse(raw.as_deref()) {
        Ok(q) => q,
        Err(e) => return e.into_response(),
    };
    let (base, head) = (query.string("base"), query.string("head"));
    reply(StatusCode::OK, api.state().scans().compare(who.org(), base.as_deref(), head.as_deref()).await, comparison_to_proto)
}

/// `GET /api/v1/scans/{scanId}/report.html`: the self-contained HTML report. It carries its own
/// Content-Security-Policy as a header too (nothing loads from anywhere, only its own script runs).
pub async fn get_scan_report_html(
    State(api): State<ScanApi>,
    Extension(who): Extension<Admitted>,
    Path(scan_id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    scan_report(api, who, scan_id, raw, ReportDocument::Html).await
}

/// `GET /api/v1/scans/{scanId}/report.sarif`: the report as SARIF 2.1.0.
pub async fn get_scan_report_sarif(
    State(api): State<ScanApi>,
    Extension(who): Extension<Admitted>,
    Path(scan_id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    scan_report(api, who, scan_id, raw, ReportDocument::Sarif).await
}

async fn scan_report(api: ScanApi, who: Admitted, scan_id: String, raw: Option<String>, format: ReportDocument) -> Response {
    if let Err(e) = Query::parse(raw.as_deref()) {
        return e.into_response();
    }
    let rendered = match api.state().scans().report(who.org(), &scan_id, true).await {
        Ok(report) => render_report(&report, format),
        Err(e) => Err(e.into()),
    };
    let body = match rendered {
        Ok(body) => body,
        Err(e) => return e.into_response(),
    };
    let mut response = (StatusCode::OK, body.data).into_response();
    let h = response.headers_mut();
    if let Ok(v) = header::HeaderValue::from_str(&body.content_type) {
        h.insert(header::CONTENT_TYPE, v);
    }
    h.insert(header::X_CONTENT_TYPE_OPTIONS, header::HeaderValue::from_static("nosniff"));
    if format == ReportDocument::Html
        && let Ok(v) = header::HeaderValue::from_str(&crate::report::html::content_security_policy())
    {
        h.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    response
}
