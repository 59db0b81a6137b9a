//! The REST handlers: admit the caller, read the input into the scan service's typed input
//! (`crate::scans`), and write its typed answer as the spec's JSON.

use super::input::{Query, json_object};
use crate::api::auth::{Admitted, scope_of};
use crate::api::dto::{CreateScanDto, GetScanDto, ListFindingsDto, ListScansDto};
use crate::api::error::{ApiError, Issue};
use crate::api::service::{ReportDocument, ScanApi, render_report};
use crate::model::TriggeredBy;
use crate::scans::{FindingsQuery, ListQuery, ScanServiceError};
use axum::Json;
use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;

/// Admits the caller to `rpc` (the method this route transcodes: authentication, the rate limit
/// and the scope of `auth::RPC_SCOPES`); on refusal, the error response.
async fn admit(api: &ScanApi, headers: &HeaderMap, rpc: &str) -> Result<Admitted, Response> {
    let auth = headers.get(axum::http::header::AUTHORIZATION).and_then(|v| v.to_str().ok());
    let admitted = api.state().admit(auth).await.map_err(IntoResponse::into_response)?;
    let rpc = format!("sitescan.v1.ScanService/{rpc}");
    let scope = scope_of(&rpc).ok_or_else(|| ApiError::Internal(format!("{rpc} has no scope")).into_response())?;
    // A refusal after authentication still says where the caller stands with the rate limit.
    admitted.require(scope).map_err(|e| with_rate_headers(e.into_response(), &admitted))?;
    Ok(admitted)
}

fn with_rate_headers(mut response: Response, who: &Admitted) -> Response {
    for (name, value) in who.rate.headers() {
        if let Some(name) = name
            && !response.headers().contains_key(&name)
        {
            response.headers_mut().insert(name, value);
        }
    }
    response
}

/// The answer of the scan service as the spec's JSON with `status`, or its refusal; both carry
/// where the caller stands with the rate limit.
fn reply<T, D: Serialize + From<T>>(who: &Admitted, status: StatusCode, result: Result<T, ScanServiceError>) -> Response {
    let response = match result {
        Ok(body) => (status, Json(D::from(body))).into_response(),
        Err(e) => ApiError::from(e).into_response(),
    };
    with_rate_headers(response, who)
}

/// `POST /api/v1/scans`
pub async fn create_scan(State(api): State<ScanApi>, headers: HeaderMap, body: Body) -> Response {
    let who = match admit(&api, &headers, "CreateScan").await {
        Ok(w) => w,
        Err(r) => return r,
    };
    let object = match json_object(body, &["target"]).await {
        Ok(o) => o,
        Err(e) => return with_rate_headers(e.into_response(), &who),
    };
    let target = match object.get("target") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => {
            return with_rate_headers(ApiError::invalid("target", "is required").into_response(), &who);
        }
        Some(_) => return with_rate_headers(ApiError::invalid("target", "must be a string").into_response(), &who),
    };
    let result = api.state().scans.create(who.org(), &target, TriggeredBy::Api).await;
    reply::<_, CreateScanDto>(&who, StatusCode::CREATED, result.map(|row| CreateScanDto::from(&row)))
}

/// `GET /api/v1/scans`
pub async fn list_scans(State(api): State<ScanApi>, headers: HeaderMap, RawQuery(raw): RawQuery) -> Response {
    let who = match admit(&api, &headers, "ListScans").await {
        Ok(w) => w,
        Err(r) => return r,
    };
    let query = match Query::parse(raw.as_deref()) {
        Ok(q) => q,
        Err(e) => return with_rate_headers(e.into_response(), &who),
    };
    let mut issues = Vec::new();
    let limit = query.integer("limit", &mut issues);
    if !issues.is_empty() {
        return with_rate_headers(ApiError::InvalidInput(issues).into_response(), &who);
    }
    let page = ListQuery { limit, cursor: query.string("cursor") };
    let result = api.state().scans.list(who.org(), &page).await;
    reply::<_, ListScansDto>(&who, StatusCode::OK, result)
}

/// `GET /api/v1/scans/{scanId}`
pub async fn get_scan(
    State(api): State<ScanApi>,
    headers: HeaderMap,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw): RawQuery,
) -> Response {
    let who = match admit(&api, &headers, "GetScan").await {
        Ok(w) => w,
        Err(r) => return r,
    };
    // A scan id that does not even decode (e.g. `%FF`) is a malformed id: 404, like any other.
    let Ok(Path(scan_id)) = path else {
        return with_rate_headers(ApiError::NotFound.into_response(), &who);
    };
    let query = match Query::parse(raw.as_deref()) {
        Ok(q) => q,
        Err(e) => return with_rate_headers(e.into_response(), &who),
    };
    let mut issues: Vec<Issue> = Vec::new();
    let include_findings = query.boolean("include_findings", &mut issues);
    if !issues.is_empty() {
        return with_rate_headers(ApiError::InvalidInput(issues).into_response(), &who);
    }
    let result = api.state().scans.report(who.org(), &scan_id, include_findings).await;
    reply::<_, GetScanDto>(&who, StatusCode::OK, result)
}

/// `GET /api/v1/findings`
pub async fn list_findings(State(api): State<ScanApi>, headers: HeaderMap, RawQuery(raw): RawQuery) -> Response {
    let who = match admit(&api, &headers, "ListFindings").await {
        Ok(w) => w,
        Err(r) => return r,
    };
    let query = match Query::parse(raw.as_deref()) {
        Ok(q) => q,
        Err(e) => return with_rate_headers(e.into_response(), &who),
    };
    let mut issues = Vec::new();
    let limit = query.integer("limit", &mut issues);
    if !issues.is_empty() {
        return with_rate_headers(ApiError::InvalidInput(issues).into_response(), &who);
    }
    let findings = FindingsQuery {
        severities: query.string("severity").into_iter().collect(),
        check_id: query.string("check_id"),
        since: query.string("since"),
        page: ListQuery { limit, cursor: query.string("cursor") },
        ..FindingsQuery::default()
    };
    let result = api.state().scans.findings(who.org(), &findings).await;
    reply::<_, ListFindingsDto>(&who, StatusCode::OK, result)
}

/// `GET /api/v1/scans/{scanId}/report.html`: the self-contained HTML report. It carries its own
/// Content-Security-Policy as a header too (nothing loads from anywhere, only its own script runs).
pub async fn get_scan_report_html(
    State(api): State<ScanApi>,
    headers: HeaderMap,
    Path(scan_id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    scan_report(api, headers, scan_id, raw, ReportDocument::Html).await
}

/// `GET /api/v1/scans/{scanId}/report.sarif`: the report as SARIF 2.1.0.
pub async fn get_scan_report_sarif(
    State(api): State<ScanApi>,
    headers: HeaderMap,
    Path(scan_id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    scan_report(api, headers, scan_id, raw, ReportDocument::Sarif).await
}

async fn scan_report(api: ScanApi, headers: HeaderMap, scan_id: String, raw: Option<String>, format: ReportDocument) -> Response {
    let who = match admit(&api, &headers, "GetScanReport").await {
        Ok(w) => w,
        Err(r) => return r,
    };
    if let Err(e) = Query::parse(raw.as_deref()) {
        return with_rate_headers(e.into_response(), &who);
    }
    let rendered = match api.state().scans.report(who.org(), &scan_id, true).await {
        Ok(report) => render_report(&report, format),
        Err(e) => Err(e.into()),
    };
    match rendered {
        Ok(body) => {
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
            with_rate_headers(response, &who)
        }
        Err(e) => with_rate_headers(e.into_response(), &who),
    }
}
