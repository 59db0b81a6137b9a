//! `EgressProxy`: an in-process HTTP forward proxy that Chromium must use for everything. It
//! forwards absolute-form HTTP requests and opens `CONNECT` tunnels (https, wss), and runs every
//! one of them through the `EgressGuard` first. A refused request answers 403 with
//! `x-sitescan-egress: blocked` (also for CONNECT) and is recorded, so page capture can mark the
//! request as blocked.

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, Uri};
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::error::NetError;
use super::guard::EgressGuard;

/// Header the proxy sets on the answers it makes itself: `blocked` (403, the egress policy
/// refused the address) or `unreachable` (502, the connection failed).
pub const EGRESS_HEADER: &str = "x-sitescan-egress";
/// Header carrying the Chromium net error (`net::ERR_CONNECTION_REFUSED`, ...) on an
/// `unreachable` answer.
pub const NET_ERROR_HEADER: &str = "x-sitescan-net-error";

/// How many refusals the proxy remembers.
const BLOCKED_LOG_CAP: usize = 10_000;

/// Hop-by-hop headers a proxy must not forward.
const HOP_BY_HOP: [&str; 9] = [
    "connection",
    "proxy-connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

type ProxyBody = BoxBody<Bytes, hyper::Error>;

/// One request the proxy refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockedRequest {
    /// The absolute URL (plain HTTP) or `host:port` (CONNECT).
    pub target: String,
    pub host: String,
    pub port: u16,
    /// The guard's reason (names the address and its range).
    pub reason: String,
    pub at: Instant,
}

#[derive(Debug, Default)]
struct BlockedLog {
    entries: Mutex<VecDeque<BlockedRequest>>,
    /// Connections that failed for network reasons: (host, port, Chromium net error).
    failures: Mutex<VecDeque<(String, u16, &'static str)>>,
    /// Hosts that failed lately, answered at once (`dead_hosts.rs`).
    dead: super::dead_hosts::DeadHosts,
}

impl BlockedLog {
    fn push(&self, entry: BlockedRequest) {
        tracing::info!(target = %entry.target, reason = %entry.reason, "egress blocked");
        if let Ok(mut entries) = self.entries.lock() {
            if entries.len() >= BLOCKED_LOG_CAP {
                entries.pop_front();
            }
            entries.push_back(entry);
        }
    }

    fn push_failure(&self, host: &str, port: u16, error: &'static str) {
        if let Ok(mut failures) = self.failures.lock() {
            if failures.len() >= BLOCKED_LOG_CAP {
                failures.pop_front();
            }
            failures.push_back((host.to_string(), port, error));
        }
    }
}

fn same_host(a: &str, b: &str) -> bool {
    a.trim_start_matches('[').trim_end_matches(']').eq_ignore_ascii_case(b.trim_start_matches('[').trim_end_matches(']'))
}

/// The running proxy. Dropping it stops accepting connections (like `shutdown`, without waiting).
#[derive(Debug)]
pub struct EgressProxy {
    addr: SocketAddr,
    log: Arc<BlockedLog>,
    cancel: CancellationToken,
    task: Option<JoinHandle<()>>,
}

impl EgressProxy {
    /// Binds `listen` (use port 0 for any free port) and serves until shutdown.
    pub async fn start(guard: Arc<EgressGuard>, listen: SocketAddr) -> Result<EgressProxy, NetError> {
        EgressProxy::serve(Some(guard), listen).await
    }

    /// A proxy that connects nowhere: every request and tunnel gets the 403. For traffic that
    /// must not leave at all (the browser's own background requests).
    pub async fn start_deny_all(listen: SocketAddr) -> Result<EgressProxy, NetError> {
        EgressProxy::serve(None, listen).await
    }

    async fn serve(guard: Option<Arc<EgressGuard>>, listen: SocketAddr) -> Result<EgressProxy, NetError> {
        let listener = TcpListener::bind(listen).await.map_err(|source| NetError::Bind { addr: listen, source })?;
        let addr = listener.local_addr().map_err(|source| NetError::Bind { addr: listen, source })?;
        let log = Arc::new(BlockedLog::default());
        let cancel = CancellationToken::new();
        let task = tokio::spawn(accept_loop(listener, guard, log.clone(), cancel.clone()));
        tracing::debug!(%addr, "egress proxy listening");
        Ok(EgressProxy { addr, log, cancel, task: Some(task) })
    }

    /// The address the proxy listens on (give Chromium `--proxy-server=http://ADDR`).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The `--proxy-server` value for this proxy.
    pub fn proxy_server(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every refusal so far (oldest first, the last `10_000`).
    pub fn blocked(&self) -> Vec<BlockedRequest> {
        self.log.entries.lock().map(|e| e.iter().cloned().collect()).unwrap_or_default()
    }

    /// The reason the proxy refused a connection to `host:port`, if it did (host compared
    /// case-insensitively, IPv6 brackets ignored).
    pub fn blocked_reason(&self, host: &str, port: u16) -> Option<String> {
        let entries = self.log.entries.lock().ok()?;
        entries.iter().rev().find(|e| e.port == port && same_host(&e.host, host)).map(|e| e.reason.clone())
    }

    /// The Chromium net error of the last failed connection to `host:port`
    /// (a CONNECT tunnel that failed shows in the browser only as `ERR_TUNNEL_CONNECTION_FAILED`).
    pub fn connect_failure(&self, host: &str, port: u16) -> Option<&'static str> {
        let failures = self.log.failures.lock().ok()?;
        failures.iter().rev().find(|(h, p, _)| *p == port && same_host(h, host)).map(|(_, _, e)| *e)
    }

    /// Stops accepting connections and closes open tunnels without waiting (see `shutdown`).
    pub fn stop(&self) {
        self.cancel.cancel();
    }

    /// Stops accepting connections and closes open ones.
    pub async fn shutdown(mut self) {
        self.cancel.cancel();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for EgressProxy {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

async fn accept_loop(listener: TcpListener, guard: Option<Arc<EgressGuard>>, log: Arc<BlockedLog>, cancel: CancellationToken) {
    loop {
        let accepted = tokio::select! {
            _ = cancel.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(pair) => pair,
            Err(e) => {
                tracing::warn!(error = %e, "egress proxy accept failed");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let (guard, log, cancel) = (guard.clone(), log.clone(), cancel.clone());
        tokio::spawn(async move {
            let service = service_fn(move |req| handle(req, guard.clone(), log.clone(), cancel.clone()));
            let conn = hyper::server::conn::http1::Builder::new()
                .preserve_header_case(true)
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades();
            if let Err(e) = conn.await {
                tracing::trace!(%peer, error = %e, "egress proxy connection ended");
            }
        });
    }
}

async fn handle(
    req: Request<Incoming>,
    guard: Option<Arc<EgressGuard>>,
    log: Arc<BlockedLog>,
    cancel: CancellationToken,
) -> Result<Response<ProxyBody>, hyper::Error> {
    let Some(guard) = guard else {
        tracing::trace!(uri = %req.uri(), "deny-all proxy refused");
        let mut resp = text(StatusCode::FORBIDDEN, "blocked: this proxy connects nowhere");
        resp.headers_mut().insert(EGRESS_HEADER, HeaderValue::from_static("blocked"));
        return Ok(resp);
    };
    if req.method() == Method::CONNECT {
        Ok(tunnel(req, &guard, &log, cancel).await)
    } else {
        forward(req, &guard, &log).await
    }
}

/// `CONNECT host:port`: check, connect, answer 200, then splice the upgraded connection.
async fn tunnel(req: Request<Incoming>, guard: &EgressGuard, log: &BlockedLog, cancel: CancellationToken) -> Response<ProxyBody> {
    let Some((host, port)) = req.uri().authority().map(|a| (a.host().to_string(), a.port_u16().unwrap_or(443))) else {
        return text(StatusCode::BAD_REQUEST, "CONNECT needs host:port");
    };
    let upstream = match log.dead.connect(guard, &host, port).await {
        Ok(s) => s,
        Err(e) => return refusal(e, format!("{host}:{port}"), &host, port, log),
    };
    tokio::spawn(async move {
        let upgraded = match hyper::upgrade::on(req).await {
            Ok(u) => u,
            Err(e) => {
                tracing::debug!(error = %e, "CONNECT upgrade failed");
                return;
            }
        };
        let mut client = TokioIo::new(upgraded);
        let mut upstream = upstream;
        tokio::select! {
            _ = cancel.cancelled() => {}
            r = tokio::io::copy_bidirectional(&mut client, &mut upstream) => {
                if let Err(e) = r { tracing::trace!(error = %e, "tunnel closed"); }
            }
        }
    });
    Response::new(empty())
}

/// An absolute-form `GET http://host/path`: check, connect, forward in origin form.
async fn forward(mut req: Request<Incoming>, guard: &EgressGuard, log: &BlockedLog) -> Result<Response<ProxyBody>, hyper::Error> {
    let uri = req.uri().clone();
    if uri.scheme_str() != Some("http") {
        return Ok(text(StatusCode::BAD_REQUEST, "the proxy forwards absolute http:// URLs and CONNECT only"));
    }
    let Some(authority) = uri.authority().cloned() else {
        return Ok(text(StatusCode::BAD_REQUEST, "absolute-form URL without host"));
    };
    let (host, port) = (authority.host().to_string(), authority.port_u16().unwrap_or(80));
    let upstream = match log.dead.connect(guard, &host, port).await {
        Ok(s) => s,
        Err(e) => return Ok(refusal(e, uri.to_string(), &host, port, log)),
    };
    let path = uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
    *req.uri_mut() = match path.parse::<Uri>() {
        Ok(u) => u,
        Err(_) => return Ok(text(StatusCode::BAD_REQUEST, "bad request target")),
    };
    strip_hop_by_hop(req.headers_mut());
    if !req.headers().contains_key(http::header::HOST)
        && let Ok(v) = HeaderValue::from_str(authority.as_str()) {
            req.headers_mut().insert(http::header::HOST, v);
        }
    let (mut sender, conn) = match hyper::client::conn::http1::Builder::new()
        .preserve_header_case(true)
        .handshake::<_, Incoming>(TokioIo::new(upstream))
        .await
    {
        Ok(pair) => pair,
        Err(e) => return Ok(text(StatusCode::BAD_GATEWAY, &format!("upstream handshake failed: {e}"))),
    };
    tokio::spawn(async move {
        if let Err(e) = conn.await {
            tracing::trace!(error = %e, "upstream connection ended");
        }
    });
    match sender.send_request(req).await {
        Ok(resp) => {
            let (mut parts, body) = resp.into_parts();
            strip_hop_by_hop(&mut parts.headers);
            Ok(Response::from_parts(parts, body.boxed()))
        }
        Err(e) => Ok(text(StatusCode::BAD_GATEWAY, &format!("upstream request failed: {e}"))),
    }
}

/// 403 + record for a policy refusal; 502 for a plain connection failure.
fn refusal(e: NetError, target: String, host: &str, port: u16, log: &BlockedLog) -> Response<ProxyBody> {
    if e.is_blocked() {
        let reason = e.to_string();
        log.push(BlockedRequest { target, host: host.to_string(), port, reason: reason.clone(), at: Instant::now() });
        let mut resp = text(StatusCode::FORBIDDEN, &format!("blocked by the sitescan egress guard: {reason}"));
        resp.headers_mut().insert(EGRESS_HEADER, HeaderValue::from_static("blocked"));
        resp
    } else {
        tracing::debug!(%target, error = %e, "egress connect failed");
        let code = e.chromium_error();
        log.push_failure(host, port, code);
        let mut resp = text(StatusCode::BAD_GATEWAY, &e.to_string());
        resp.headers_mut().insert(EGRESS_HEADER, HeaderValue::from_static("unreachable"));
        resp.headers_mut().insert(NET_ERROR_HEADER, HeaderValue::from_static(code));
        resp
    }
}

fn strip_hop_by_hop(headers: &mut http::HeaderMap) {
    let listed: Vec<String> = headers
        .get_all(http::header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(',').map(|s| s.trim().to_ascii_lowercase()).collect::<Vec<_>>())
        .collect();
    for name in HOP_BY_HOP.iter().map(|s| s.to_string()).chain(listed) {
        headers.remove(name.as_str());
    }
}

fn empty() -> ProxyBody {
    Full::new(Bytes::new()).map_err(|never| match never {}).boxed()
}

fn text(status: StatusCode, body: &str) -> Response<ProxyBody> {
    let mut resp = Response::new(Full::new(Bytes::from(body.to_string())).map_err(|never| match never {}).boxed());
    *resp.status_mut() = status;
    resp.headers_mut().insert(http::header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    resp.headers_mut().insert(http::header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}
