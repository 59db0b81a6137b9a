//! What every dashboard response carries (a strict CSP without inline script, `frame-ancestors
//! 'none'`, `nosniff`, no caching), the `Origin` check on state-changing requests, and HTML
//! error pages for framework refusals (405, oversized bodies).

use super::error::{DashboardError, error_page};
use super::state::WebState;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The pages' Content-Security-Policy: only this origin's stylesheet and script.
pub const PAGE_CSP: &str = "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; connect-src 'self'; \
     form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// Adds the security headers (keeping a CSP a handler set itself).
pub async fn headers(req: Request, next: Next) -> Response {
    let mut response = next.run(req).await;
    let h = response.headers_mut();
    if !h.contains_key(header::CONTENT_SECURITY_POLICY) {
        h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(PAGE_CSP));
    }
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    if !h.contains_key(header::CACHE_CONTROL) {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

/// The origin requests must come from: `--public-url`'s, else this request's own host.
fn expected_origin(state: &WebState, headers: &HeaderMap) -> Option<String> {
    if let Some(o) = state.settings.public_origin() {
        return Some(o);
    }
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok())?;
    Some(format!("http://{host}"))
}

/// True when `seen` (an `Origin`, or a `Referer` URL) is the expected origin. Without
/// `--public-url`, the scheme is not known (TLS may end in front of us), so only the host and
/// port are compared.
fn same_origin(seen: &str, expected: &str, strict_scheme: bool) -> bool {
    let (Ok(seen), Ok(expected)) = (url::Url::parse(seen), url::Url::parse(expected)) else { return false };
    if strict_scheme {
        seen.origin() == expected.origin()
    } else {
        seen.host_str() == expected.host_str() && seen.port() == expected.port()
    }
}

/// Refuses (403 page) a state-changing request whose `Origin` (or, without one, `Referer`) is
/// another site's. Requests with neither (not from a browser) rely on the CSRF token alone.
pub async fn origin(State(state): State<WebState>, req: Request, next: Next) -> Response {
    if matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        return next.run(req).await;
    }
    let headers = req.headers();
    let seen = headers
        .get(header::ORIGIN)
        .or_else(|| headers.get(header::REFERER))
        .map(|v| v.to_str().unwrap_or("invalid").to_string());
    if let Some(seen) = seen {
        let strict = state.settings.public_origin().is_some();
        let ok = expected_origin(&state, headers).is_some_and(|e| same_origin(&seen, &e, strict));
        if !ok {
            return DashboardError::Csrf.into_response();
        }
    }
    next.run(req).await
}

/// Smallest body worth compressing (bytes).
const COMPRESS_FROM: usize = 1024;

/// Gzips text answers (pages, CSS, JS) for clients that accept it.
pub async fn compress(req: Request, next: Next) -> Response {
    let gzip_ok = req
        .headers()
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|e| e.trim().split(';').next() == Some("gzip")));
    let response = next.run(req).await;
    let textual = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        // Not a stream of events: it is sent as it happens, never gathered to be compressed.
        .is_some_and(|c| (c.starts_with("text/") && !c.starts_with("text/event-stream")) || c.starts_with("image/svg"));
    if !gzip_ok || !textual || response.headers().contains_key(header::CONTENT_ENCODING) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 8 * 1024 * 1024).await else {
        return DashboardError::Internal("reading a response body".into()).into_response();
    };
    parts.headers.append(header::VARY, HeaderValue::from_static("accept-encoding"));
    if bytes.len() < COMPRESS_FROM {
        return Response::from_parts(parts, axum::body::Body::from(bytes));
    }
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::with_capacity(bytes.len() / 3), flate2::Compression::default());
    match enc.write_all(&bytes).and_then(|_| enc.finish()) {
        Ok(gz) => {
            parts.headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            parts.headers.remove(header::CONTENT_LENGTH);
            Response::from_parts(parts, axum::body::Body::from(gz))
        }
        Err(_) => Response::from_parts(parts, axum::body::Body::from(bytes)),
    }
}

/// Turns any error response that is not already a page (405, framework rejections) into one.
pub async fn html_errors(req: Request, next: Next) -> Response {
    let response = next.run(req).await;
    let status = response.status();
    let is_html = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c.starts_with("text/html"));
    if is_html || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let allow = response.headers().get(header::ALLOW).cloned();
    let mut page = match status {
        StatusCode::METHOD_NOT_ALLOWED => error_page(status, "Method not allowed", "This page does not accept that request.", None),
        StatusCode::NOT_FOUND => DashboardError::NotFound.into_response(),
        s if s.is_server_error() => DashboardError::Internal(format!("status {s}")).into_response(),
        s => error_page(if s == StatusCode::PAYLOAD_TOO_LARGE { s } else { StatusCode::BAD_REQUEST }, "Request not understood", "The request could not be read.", None),
    };
    if let Some(allow) = allow {
        page.headers_mut().insert(header::ALLOW, allow);
    }
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compares_origins() {
        assert!(same_origin("http://127.0.0.1:8080", "http://127.0.0.1:8080", true));
        assert!(!same_origin("http://evil.example", "http://127.0.0.1:8080", false));
        assert!(!same_origin("http://127.0.0.1:9090", "http://127.0.0.1:8080", false));
        assert!(same_origin("https://127.0.0.1:8080", "http://127.0.0.1:8080", false));
        assert!(!same_origin("http://scan.example.com", "https://scan.example.com", true));
        assert!(same_origin("http://127.0.0.1:8080/login", "http://127.0.0.1:8080", false));
        assert!(!same_origin("null", "http://127.0.0.1:8080", false));
    }
}
