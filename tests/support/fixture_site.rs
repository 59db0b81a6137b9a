//! A small fixture HTTP/1.1 server for integration tests, bound to a loopback address and port 0.
//!
//! Use it from any test file with
//!
//! ```ignore
//! use sitescan_test_support::fixture_site::{FixtureSite, Route};
//!
//! let site = FixtureSite::start().await;                 // 127.0.0.1:<free port>
//! site.route("/", Route::html("<title>Hi</title>"));       // 200 text/html
//! site.route("/old", Route::redirect(301, "/"));          // Location header
//! site.route("/slow.js", Route::new(200).content_type("text/javascript")
//!     .body("1").delay(Duration::from_millis(500)).gzip(true));
//! site.route_method("HEAD", "/x", Route::new(405));       // per-method override
//! let url = site.url("/");                                // "http://127.0.0.1:PORT/"
//! assert_eq!(site.hit_count("/"), 1);                     // requests seen per path
//! assert_eq!(site.connections(), 1);                      // TCP connections accepted
//! ```
//!
//! Routes match the path without the query string; a method-specific route wins over a plain one;
//! a route on `*` answers every other path (a soft-404 site); anything else answers 404. Routes can be added or replaced while the server runs. `HEAD` gets
//! the route's status and headers without a body. `gzip(true)` compresses the body and sets
//! `content-encoding: gzip`. Each test owns its server; it stops when the `FixtureSite` drops.

#![allow(dead_code)]

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use std::collections::HashMap;
use std::convert::Infallible;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// Logs to stderr when `SITESCAN_TEST_LOG` is set (its value is the filter, e.g. `sitescan=debug`);
/// tests stay quiet otherwise. Safe to call from every test.
pub fn init_test_log() {
    if let Ok(filter) = std::env::var("SITESCAN_TEST_LOG") {
        let _ = tracing_subscriber::fmt().with_env_filter(tracing_subscriber::EnvFilter::new(filter)).with_test_writer().try_init();
    }
}

/// What the server answers on one path.
#[derive(Debug, Clone)]
pub struct Route {
    pub status: u16,
    /// Response headers in order; repeated names are sent as separate header lines.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Wait this long before answering.
    pub delay: Option<Duration>,
    /// Compress the body with gzip (and send `content-encoding: gzip`).
    pub gzip: bool,
}

impl Route {
    /// An empty response with `status`.
    pub fn new(status: u16) -> Route {
        Route { status, headers: Vec::new(), body: Vec::new(), delay: None, gzip: false }
    }

    /// 200 `text/html; charset=utf-8`.
    pub fn html(body: impl Into<String>) -> Route {
        Route::new(200).content_type("text/html; charset=utf-8").body(body.into())
    }

    /// 200 with the given content type.
    pub fn typed(content_type: &str, body: impl Into<Vec<u8>>) -> Route {
        Route::new(200).content_type(content_type).body(body)
    }

    /// A redirect (`status` 301/302/303/307/308) to `location`.
    pub fn redirect(status: u16, location: &str) -> Route {
        Route::new(status).header("location", location)
    }

    pub fn status(mut self, status: u16) -> Route {
        self.status = status;
        self
    }

    /// Adds a header line (call again with the same name to repeat it, e.g. `set-cookie`).
    pub fn header(mut self, name: &str, value: &str) -> Route {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    pub fn content_type(self, value: &str) -> Route {
        self.header("content-type", value)
    }

    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Route {
        self.body = body.into();
        self
    }

    pub fn delay(mut self, delay: Duration) -> Route {
        self.delay = Some(delay);
        self
    }

    pub fn gzip(mut self, on: bool) -> Route {
        self.gzip = on;
        self
    }
}

/// One request the server received.
#[derive(Debug, Clone)]
pub struct Hit {
    pub method: String,
    /// Path and query as requested.
    pub target: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
}

#[derive(Default)]
struct State {
    routes: Mutex<HashMap<(Option<String>, String), Route>>,
    hits: Mutex<Vec<Hit>>,
    connections: AtomicUsize,
}

/// A running fixture server.
pub struct FixtureSite {
    addr: SocketAddr,
    state: Arc<State>,
    task: JoinHandle<()>,
}

impl FixtureSite {
    /// Starts on `127.0.0.1` and a free port.
    pub async fn start() -> FixtureSite {
        FixtureSite::start_on("127.0.0.1").await
    }

    /// Starts on another loopback address (e.g. `127.0.0.2`) and a free port.
    pub async fn start_on(ip: &str) -> FixtureSite {
        let listener = TcpListener::bind((ip, 0)).await.expect("bind fixture site");
        let addr = listener.local_addr().expect("fixture site address");
        let state = Arc::new(State::default());
        let task = tokio::spawn(serve(listener, state.clone()));
        FixtureSite { addr, state, task }
    }

    /// Starts on `ip:port` exactly; `None` when that port is taken there (to serve two addresses
    /// on one port, as one host name resolving to either would reach).
    pub async fn try_start_at(ip: &str, port: u16) -> Option<FixtureSite> {
        let listener = TcpListener::bind((ip, port)).await.ok()?;
        let addr = listener.local_addr().ok()?;
        let state = Arc::new(State::default());
        let task = tokio::spawn(serve(listener, state.clone()));
        Some(FixtureSite { addr, state, task })
    }

    /// Declares (or replaces) what `path` answers, for every method.
    pub fn route(&self, path: &str, route: Route) -> &FixtureSite {
        self.state.routes.lock().unwrap().insert((None, path.to_string()), route);
        self
    }

    /// Declares what `path` answers for `method` only (takes precedence over `route`).
    pub fn route_method(&self, method: &str, path: &str, route: Route) -> &FixtureSite {
        self.state.routes.lock().unwrap().insert((Some(method.to_ascii_uppercase()), path.to_string()), route);
        self
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://IP:PORT`.
    pub fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://IP:PORT` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Every request received so far.
    pub fn hits(&self) -> Vec<Hit> {
        self.state.hits.lock().unwrap().clone()
    }

    /// How many requests asked for `path` (query ignored).
    pub fn hit_count(&self, path: &str) -> usize {
        self.state.hits.lock().unwrap().iter().filter(|h| h.path == path).count()
    }

    /// How many TCP connections were accepted.
    pub fn connections(&self) -> usize {
        self.state.connections.load(Ordering::SeqCst)
    }
}

impl Drop for FixtureSite {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(listener: TcpListener, state: Arc<State>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else { continue };
        state.connections.fetch_add(1, Ordering::SeqCst);
        let state = state.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req| answer(req, state.clone()));
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
    }
}

async fn answer(req: Request<Incoming>, state: Arc<State>) -> Result<Response<Full<Bytes>>, Infallible> {
    let method = req.method().as_str().to_string();
    let path = req.uri().path().to_string();
    let target = req.uri().path_and_query().map(|p| p.as_str().to_string()).unwrap_or_else(|| path.clone());
    let headers = req
        .headers()
        .iter()
        .map(|(k, v)| (k.as_str().to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
        .collect();
    state.hits.lock().unwrap().push(Hit { method: method.clone(), target, path: path.clone(), headers });
    let route = {
        let routes = state.routes.lock().unwrap();
        routes
            .get(&(Some(method.clone()), path.clone()))
            .or_else(|| routes.get(&(None, path.clone())))
            .or_else(|| routes.get(&(None, "*".to_string())))
            .cloned()
    };
    let route = route.unwrap_or_else(|| Route::html("<!doctype html><title>Not found</title><h1>Not found</h1>").status(404));
    if let Some(delay) = route.delay {
        tokio::time::sleep(delay).await;
    }
    let mut body = route.body.clone();
    let mut builder = Response::builder().status(route.status);
    for (name, value) in &route.headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    if route.gzip {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&body).unwrap();
        body = enc.finish().unwrap();
        builder = builder.header("content-encoding", "gzip");
    }
    if method == "HEAD" {
        builder = builder.header("content-length", body.len().to_string());
        body.clear();
    }
    Ok(builder.body(Full::new(Bytes::from(body))).unwrap())
}
