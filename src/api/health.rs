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
    let ready = tokio::time::timeout(std::time::Duration::from_secs(3), api.state().store.ready()).await.unwrap_or(false);
    if ready {
        Json(json!({"status": "ready"})).into_response()
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, Json(json!({"error": "unavailable", "message": "the database is not ready"})))
            .into_response()
    }
}
