//! The one router: REST routes, gRPC (+ gRPC-Web) on its service path, gRPC health and
//! reflection, OpenAPI, health probes, and JSON errors for everything else.

use super::error::ApiError;
use super::service::ScanApi;
use super::{health, metric_labels, openapi, rest};
use crate::proto::FILE_DESCRIPTOR_SET;
use crate::proto::v1::owner_service_server::OwnerServiceServer;
use crate::proto::v1::scan_service_server::ScanServiceServer;
use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http_body_util::BodyExt;
use std::collections::BTreeMap;
use tower::Layer;
use tracing::Instrument;

/// The header carrying the request id (taken from the caller when sane, else generated).
pub const REQUEST_ID: &str = "x-request-id";

/// The largest gRPC message the services decode (bytes): larger ones are refused with
/// RESOURCE_EXHAUSTED before they are buffered whole.
pub const MAX_GRPC_MESSAGE: usize = 4 * 1024 * 1024;

/// Builds the whole router over a service (the dashboard with default settings).
pub fn build(api: ScanApi) -> Router {
    build_with(api, crate::web::WebSettings::default())
}

/// Builds the whole router: the API, gRPC, and the dashboard pages with `web` settings.
pub fn build_with(api: ScanApi, web: crate::web::WebSettings) -> Router {
    let trusted = web.trusted_proxies.clone();
    let pages = crate::web::routes(crate::web::WebState::new(api.state().app().clone(), web));
    let mut rest_router: Router<ScanApi> = Router::new();
    let mut by_path: BTreeMap<&str, axum::routing::MethodRouter<ScanApi>> = BTreeMap::new();
    for (_, path, rpc, route) in rest::routes() {
        let gate = rest::admission::Gate { api: api.clone(), rpc };
        let route = route.route_layer(middleware::from_fn_with_state(gate, rest::admission::admit));
        let merged = match by_path.remove(path) {
            Some(existing) => existing.merge(route),
            None => route,
        };
        by_path.insert(path, merged);
    }
    for (path, route) in by_path {
        rest_router = rest_router.route(path, route);
    }

    let grpc = tonic_web::GrpcWebLayer::new().layer(ScanServiceServer::new(api.clone()).max_decoding_message_size(MAX_GRPC_MESSAGE));
    let owner = super::owner::OwnerApi::new(api.state().clone());
    let owner_grpc = tonic_web::GrpcWebLayer::new().layer(OwnerServiceServer::new(owner).max_decoding_message_size(MAX_GRPC_MESSAGE));
    let (health_reporter, health_service) = tonic_health::server::health_reporter();
    // The service is serving as soon as the router exists (readiness of the database is /readyz).
    tokio::spawn(async move {
        health_reporter.set_serving::<ScanServiceServer<ScanApi>>().await;
        health_reporter.set_serving::<OwnerServiceServer<super::owner::OwnerApi>>().await;
    });
    // Each builder includes only its own reflection service by default, so a client listing
    // through v1alpha saw no v1 (and `describe grpc.reflection.v1.ServerReflection` failed there),
    // and the other way round: both versions now know both.
    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .include_reflection_service(false)
            .register_encoded_file_descriptor_set(FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_reflection::pb::v1alpha::FILE_DESCRIPTOR_SET)
    };
    let reflection_v1 = reflection().build_v1();
    let reflection_v1alpha = reflection().build_v1alpha();
    let cors = tower_http::cors::CorsLayer::new()
        .allow_origin(tower_http::cors::Any)
        .allow_methods([Method::POST, Method::OPTIONS])
        .allow_headers(tower_http::cors::Any)
        .expose_headers(tower_http::cors::Any);

    let mut router = rest_router
        .route("/docs/api/openapi", get(openapi::serve))
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/metrics", get(health::metrics))
        .fallback(not_found)
        .with_state(api)
        .merge(pages);
    router = router
        .route_service("/sitescan.v1.ScanService/{*rest}", cors.clone().layer(grpc))
        .route_service("/sitescan.v1.OwnerService/{*rest}", cors.layer(owner_grpc))
        .route_service("/grpc.health.v1.Health/{*rest}", health_service);
    match reflection_v1 {
        Ok(svc) => router = router.route_service("/grpc.reflection.v1.ServerReflection/{*rest}", svc),
        Err(e) => tracing::error!(error = %e, "gRPC reflection v1 is off: the descriptor sets did not load"),
    }
    match reflection_v1alpha {
        Ok(svc) => router = router.route_service("/grpc.reflection.v1alpha.ServerReflection/{*rest}", svc),
        Err(e) => tracing::error!(error = %e, "gRPC reflection v1alpha is off: the descriptor sets did not load"),
    }
    router
        .layer(middleware::from_fn(json_errors))
        .layer(middleware::from_fn(oversized_grpc_status))
        .layer(middleware::from_fn(track))
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(panic_response))
        .layer(middleware::from_fn(request_id))
        .layer(middleware::from_fn_with_state(trusted, crate::client_addr::resolve))
}

/// Unknown paths: the JSON error object, except for a browser asking for a page outside
/// `/api/` (the dashboard's 404 page).
async fn not_found(req: Request) -> Response {
    let path = req.uri().path();
    let wants_page = !path.starts_with("/api/")
        && req.headers().get(header::ACCEPT).and_then(|v| v.to_str().ok()).is_some_and(|a| a.contains("text/html"));
    if wants_page {
        return crate::web::error::DashboardError::NotFound.into_response();
    }
    ApiError::NotFound.into_response()
}

fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    ApiError::Internal("handler panicked".into()).into_response()
}

/// Gives every request an id (echoed as `x-request-id`) and a tracing span.
async fn request_id(mut req: Request, next: Next) -> Response {
    let id = req
        .headers()
        .get(REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty() && v.len() <= 64 && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'))
        .map(str::to_string)
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    if let Ok(v) = HeaderValue::from_str(&id) {
        req.headers_mut().insert(REQUEST_ID, v);
    }
    // An invite link's path is its secret: logged without it.
    let path = match req.uri().path().strip_prefix("/invite/") {
        Some(_) => "/invite/***",
        None => req.uri().path(),
    };
    let span = tracing::info_span!("request", request_id = %id, method = %req.method(), path = %path);
    let started = std::time::Instant::now();
    let mut response = next.run(req).instrument(span.clone()).await;
    span.in_scope(|| {
        tracing::info!(status = response.status().as_u16(), elapsed_ms = started.elapsed().as_millis() as u64, "served");
    });
    if let Ok(v) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(REQUEST_ID, v);
    }
    response
}

/// Counts requests and their latency by route (HTTP) or method (gRPC). Every label comes from a
/// fixed table ([`metric_labels`]): unknown paths, methods and RPCs are `other`/`unmatched`.
async fn track(req: Request, next: Next) -> Response {
    let rpc = metric_labels::grpc_method(req.uri().path());
    let method = metric_labels::http_method(req.method());
    let route = req
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| "unmatched".to_string());
    let started = std::time::Instant::now();
    let response = next.run(req).await;
    let elapsed = started.elapsed().as_secs_f64();
    let m = crate::metrics::metrics();
    if let Some(rpc) = rpc {
        let code = response.headers().get("grpc-status").and_then(|v| v.to_str().ok()).map_or("0", metric_labels::grpc_code);
        m.grpc_requests.with_label_values(&[rpc, code]).inc();
        m.grpc_duration.with_label_values(&[rpc]).observe(elapsed);
    } else {
        let status = response.status().as_u16().to_string();
        m.http_requests.with_label_values(&[method, route.as_str(), status.as_str()]).inc();
        m.http_duration.with_label_values(&[method, route.as_str()]).observe(elapsed);
    }
    response
}

/// gRPC says a message over the limit is RESOURCE_EXHAUSTED; tonic's decoder answers
/// OUT_OF_RANGE ("decoded message length too large"). Rewritten here, where the answer is still
/// trailers-only (the status in the headers: the request is decoded before any reply).
async fn oversized_grpc_status(req: Request, next: Next) -> Response {
    let mut response = next.run(req).await;
    let h = response.headers();
    let too_large = h.get("grpc-status").is_some_and(|v| v == "11")
        && h.get("grpc-message").and_then(|v| v.to_str().ok()).is_some_and(|m| m.replace("%20", " ").contains("message length too large"));
    if too_large {
        response.headers_mut().insert("grpc-status", HeaderValue::from_static("8"));
    }
    response
}

/// Makes sure no error leaves without the JSON error object: framework rejections (405, 413,
/// 415, extractor errors) become the spec's shape, their headers (e.g. `Allow`) kept.
async fn json_errors(req: Request, next: Next) -> Response {
    let grpc = req.uri().path().starts_with("/sitescan.v1.")
        || req.uri().path().starts_with("/grpc.")
        || req.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|c| c.starts_with("application/grpc"));
    let response = next.run(req).await;
    let status = response.status();
    if grpc || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c.starts_with("application/json"));
    // Dashboard pages answer their errors as HTML pages of their own.
    let is_page = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c.starts_with("text/html"));
    if is_json || is_page {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let detail = match body.collect().await {
        Ok(b) => String::from_utf8_lossy(&b.to_bytes()).chars().take(300).collect::<String>(),
        Err(_) => String::new(),
    };
    let error = match status {
        StatusCode::METHOD_NOT_ALLOWED => ApiError::MethodNotAllowed,
        StatusCode::NOT_FOUND => ApiError::NotFound,
        s if s.is_server_error() => ApiError::Internal(detail),
        _ => ApiError::invalid("", if detail.is_empty() { status.to_string() } else { detail }),
    };
    let body = serde_json::to_vec(&error.body()).unwrap_or_default();
    if status.is_server_error() {
        parts.status = StatusCode::INTERNAL_SERVER_ERROR;
    } else if status != StatusCode::METHOD_NOT_ALLOWED && status != StatusCode::NOT_FOUND {
        parts.status = StatusCode::BAD_REQUEST;
    }
    parts.headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(body))
}
