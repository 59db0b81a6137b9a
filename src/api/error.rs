//! The API error object (spec section 7), built here and nowhere else, for REST and gRPC alike.
//!
//! A gRPC `Status` carries the same JSON object in its `details`, so the REST layer turns a
//! `Status` back into exactly the body the service meant, and gRPC callers can read it too.

use super::limits::RateLimitInfo;
use crate::scans::QuotaExceeded;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use crate::proto::v1 as pb;
use serde_json::{Value, json};

pub use crate::scans::Issue;

/// Everything the API can refuse with.
#[derive(Debug)]
pub enum ApiError {
    InvalidInput(Vec<Issue>),
    InvalidToken,
    Forbidden(String),
    NotFound,
    MethodNotAllowed,
    RateLimited(RateLimitInfo),
    QuotaExceeded(QuotaExceeded),
    /// A cap on open streams is full (429 `rate_limited`, RESOURCE_EXHAUSTED).
    TooManyStreams(crate::scans::StreamRefusal),
    Unavailable,
    Internal(String),
}

impl ApiError {
    pub fn invalid(path: impl Into<String>, message: impl Into<String>) -> Self {
        ApiError::InvalidInput(vec![Issue::new(path, message)])
    }

    pub fn http_status(&self) -> StatusCode {
        match self {
            ApiError::InvalidInput(_) => StatusCode::BAD_REQUEST,
            ApiError::InvalidToken => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::RateLimited(_) | ApiError::QuotaExceeded(_) | ApiError::TooManyStreams(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn grpc_code(&self) -> tonic::Code {
        match self {
            ApiError::InvalidInput(_) => tonic::Code::InvalidArgument,
            ApiError::InvalidToken => tonic::Code::Unauthenticated,
            ApiError::Forbidden(_) => tonic::Code::PermissionDenied,
            ApiError::NotFound => tonic::Code::NotFound,
            ApiError::MethodNotAllowed => tonic::Code::Unimplemented,
            ApiError::RateLimited(_) | ApiError::QuotaExceeded(_) | ApiError::TooManyStreams(_) => tonic::Code::ResourceExhausted,
            ApiError::Unavailable => tonic::Code::Unavailable,
            ApiError::Internal(_) => tonic::Code::Internal,
        }
    }

    /// The spec's error object: the `ErrorBody` message, written as REST writes any message.
    pub fn body(&self) -> Value {
        let (error, message) = self.code_and_message();
        let mut body = pb::ErrorBody { error: error.into(), message, ..Default::default() };
        match self {
            ApiError::InvalidInput(issues) => {
                body.issues = issues.iter().map(|i| pb::InputIssue { path: i.path.clone(), message: i.message.clone() }).collect();
            }
            ApiError::RateLimited(info) => body.retry_after_seconds = Some(info.retry_after_secs()),
            ApiError::QuotaExceeded(q) => {
                body.retry_after_seconds = Some(quota_retry_after(q));
                body.quota = Some(pb::ScanQuota {
                    limit: q.limit,
                    used: q.used,
                    resets_at: q.resets_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                });
            }
            ApiError::TooManyStreams(_) => body.retry_after_seconds = Some(crate::scans::streams::STREAM_RETRY_AFTER.as_secs()),
            _ => {}
        }
        // The message is the service's own: writing it cannot fail unless the descriptors are
        // broken, and then the error is still an error object.
        crate::proto::json::to_value(&body).unwrap_or_else(|e| json!({"error": "internal", "message": format!("writing the error: {e}")}))
    }

    /// The `error` code and the sentence that explains it.
    fn code_and_message(&self) -> (&'static str, String) {
        match self {
            ApiError::InvalidInput(issues) => (
                "invalid_input",
                issues.first().map_or("the input is invalid".to_string(), |i| {
                    if i.path.is_empty() { i.message.clone() } else { format!("{}: {}", i.path, i.message) }
                }),
            ),
            ApiError::InvalidToken => ("invalid_token", "the bearer token is missing, invalid or revoked".into()),
            ApiError::Forbidden(why) => ("forbidden", why.clone()),
            ApiError::NotFound => ("not_found", "the resource does not exist or is not visible to the caller".into()),
            ApiError::MethodNotAllowed => ("method_not_allowed", "the method is not allowed on this resource".into()),
            ApiError::RateLimited(info) => {
                ("rate_limited", format!("rate limit of {} requests exceeded; retry in {} s", info.limit, info.retry_after_secs()))
            }
            ApiError::QuotaExceeded(q) => ("quota_exceeded", format!("the monthly scan quota of {} is used up", q.limit)),
            ApiError::TooManyStreams(refusal) => {
                ("rate_limited", format!("{refusal}; close one or retry in {} s", crate::scans::streams::STREAM_RETRY_AFTER.as_secs()))
            }
            ApiError::Unavailable => ("unavailable", "the service is temporarily unavailable; retry shortly".into()),
            ApiError::Internal(_) => ("internal", "internal error".into()),
        }
    }

    /// The headers that go with the error (the 429 family).
    pub fn headers(&self) -> HeaderMap {
        match self {
            ApiError::RateLimited(info) => info.headers(),
            ApiError::QuotaExceeded(q) => {
                let info = RateLimitInfo {
                    limit: q.limit.max(0) as u64,
                    remaining: 0,
                    reset_epoch: q.resets_at.timestamp().max(0) as u64,
                    retry_after: Some(std::time::Duration::from_secs(quota_retry_after(q))),
                };
                info.headers()
            }
            ApiError::TooManyStreams(refusal) => {
                let retry = crate::scans::streams::STREAM_RETRY_AFTER;
                let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
                let info = RateLimitInfo { limit: refusal.limit() as u64, remaining: 0, reset_epoch: (now + retry).as_secs(), retry_after: Some(retry) };
                info.headers()
            }
            ApiError::Unavailable => {
                let mut h = HeaderMap::new();
                h.insert("retry-after", HeaderValue::from_static("5"));
                h
            }
            _ => HeaderMap::new(),
        }
    }

    /// As a gRPC status: the code, the message, the JSON body in `details`, the headers as
    /// metadata.
    pub fn into_status(self) -> tonic::Status {
        if let ApiError::Internal(why) = &self {
            tracing::error!(error = %why, "internal error");
        }
        let body = self.body();
        let message = body["message"].as_str().unwrap_or_default().to_string();
        let metadata = tonic::metadata::MetadataMap::from_headers(self.headers());
        tonic::Status::with_details_and_metadata(
            self.grpc_code(),
            message,
            bytes::Bytes::from(body.to_string()),
            metadata,
        )
    }
}

fn quota_retry_after(q: &QuotaExceeded) -> u64 {
    (q.resets_at - chrono::Utc::now()).num_seconds().max(1) as u64
}

impl From<crate::scans::ScanServiceError> for ApiError {
    fn from(err: crate::scans::ScanServiceError) -> Self {
        use crate::scans::ScanServiceError as E;
        match err {
            E::Invalid(issues) => ApiError::InvalidInput(issues),
            E::NotFound => ApiError::NotFound,
            E::QuotaExceeded(q) => ApiError::QuotaExceeded(q),
            E::TooManyStreams(refusal) => ApiError::TooManyStreams(refusal),
            E::Store(e) => ApiError::data(e.is_unavailable(), e),
        }
    }
}

impl ApiError {
    /// The database failed: `Unavailable` (503) when it could not be reached, else `Internal`.
    pub fn data(unavailable: bool, why: impl std::fmt::Display) -> ApiError {
        if unavailable { ApiError::Unavailable } else { ApiError::Internal(why.to_string()) }
    }
}

impl From<crate::accounts::AccountError> for ApiError {
    fn from(err: crate::accounts::AccountError) -> Self {
        match err {
            crate::accounts::AccountError::Store(e) => ApiError::data(e.is_unavailable(), e),
            other => ApiError::Internal(other.to_string()),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let ApiError::Internal(why) = &self {
            tracing::error!(error = %why, "internal error");
        }
        let mut response = (self.http_status(), axum::Json(self.body())).into_response();
        response.headers_mut().extend(self.headers());
        response
    }
}

