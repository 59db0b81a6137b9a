//! `/healthz` (the process answers) and `/readyz` (the database answers, migrations applied).

use super::service::ScanApi;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

pub async fn healthz() -> Response {
    Json(json!({"status": "ok"})).into_response()
}

pub async fn readyz(State(api): State<ScanApi>) -> Response {
    let ready = tokio::time::timeout(std::time::Duration::from_secs(3), api.state().app().ready()).await.unwrap_or(false);
    if ready {
        Json(json!({"status": "ready"})).into_response()
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, Json(json!({"error": "unavailable", "message": "the database is not ready"})))
            .into_response()
    }
}

/// `/metrics`: Prometheus text; queue and scan gauges are read from the database at scrape time.
pub async fn metrics(State(api): State<ScanApi>) -> Response {
    let m = crate::metrics::metrics();
    let gauges = api.state().app().queue_gauges().await;
    if let Some((depth, oldest)) = gauges.depth {
        m.queue_depth.set(depth as i64);
        m.queue_oldest_age.set(oldest);
    }
    if let Some(by_status) = gauges.by_status {
        use crate::model::ScanStatus;
        for status in [ScanStatus::Queued, ScanStatus::Running, ScanStatus::Completed, ScanStatus::Failed].map(ScanStatus::as_str) {
            m.scans.with_label_values(&[status]).set(by_status.get(status).copied().unwrap_or(0) as i64);
        }
    }
    let mut response = crate::metrics::render().into_response();
    response.headers_mut().insert(
        axum::http::header::CONTENT_TYPE,
        axum::http::HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    response
}
