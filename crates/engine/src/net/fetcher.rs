//! `Fetcher`: the HTTP client for robots.txt, sitemaps, link status checks and the http->https
//! probe. Every hop goes through the `EgressGuard` (names through a guarded resolver, IP literals
//! checked before the request); redirects are followed here, one checked hop at a time.

use crate::model::{Header, RedirectHop, UrlStatus};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::{Method, StatusCode};
use std::sync::Arc;
use std::time::Duration;
use url::{Host, Url};

use super::error::NetError;
use super::guard::EgressGuard;

/// The user agent the fetcher identifies itself with.
pub const DEFAULT_USER_AGENT: &str = concat!("sitescan/", env!("CARGO_PKG_VERSION"), " (+https://github.com/sitescan)");
/// Time limit of one request (one hop, body included).
pub const DEFAULT_FETCH_TIMEOUT: Duration = Duration::from_secs(15);
/// Bodies are cut at this many bytes.
pub const DEFAULT_FETCH_MAX_BYTES: usize = 5 * 1024 * 1024;
/// Redirect hops followed before giving up with `TooManyRedirects`.
pub const MAX_REDIRECTS: usize = 10;

/// How the fetcher behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetcherOptions {
    pub user_agent: String,
    pub timeout: Duration,
    pub max_bytes: usize,
}

impl Default for FetcherOptions {
    fn default() -> Self {
        FetcherOptions {
            user_agent: DEFAULT_USER_AGENT.to_string(),
            timeout: DEFAULT_FETCH_TIMEOUT,
            max_bytes: DEFAULT_FETCH_MAX_BYTES,
        }
    }
}

/// Why a fetch produced no (complete) response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FetchErrorKind {
    /// The egress guard refused a hop.
    Blocked,
    Timeout,
    /// Connection, TLS, protocol or decoding failure; also an unusable redirect target.
    Network,
    TooManyRedirects,
    /// The body exceeded `max_bytes` (the first `max_bytes` are kept, `truncated` is set).
    TooLarge,
}

impl FetchErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FetchErrorKind::Blocked => "blocked",
            FetchErrorKind::Timeout => "timeout",
            FetchErrorKind::Network => "network",
            FetchErrorKind::TooManyRedirects => "too_many_redirects",
            FetchErrorKind::TooLarge => "too_large",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchError {
    pub kind: FetchErrorKind,
    pub message: String,
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind.as_str(), self.message)
    }
}

/// The outcome of one fetch, redirects followed. Never an `Err`: trouble is in `error`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FetchResponse {
    pub url: String,
    /// The last URL requested (the one that answered `status`, or the one that failed).
    pub final_url: String,
    pub status: Option<u16>,
    /// Final response headers, names lowercased.
    pub headers: Vec<Header>,
    pub body: Vec<u8>,
    pub truncated: bool,
    pub redirects: Vec<RedirectHop>,
    pub error: Option<FetchError>,
}

impl FetchResponse {
    /// The final response header `name`.
    pub fn header(&self, name: &str) -> Option<&str> {
        crate::model::header(&self.headers, name)
    }

    /// The body as text (lossy UTF-8).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Resolves through the egress guard, so reqwest connects only to checked addresses.
struct GuardResolver(Arc<EgressGuard>);

impl Resolve for GuardResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let guard = self.0.clone();
        let host = name.as_str().to_string();
        Box::pin(async move {
            let addrs = guard.resolve(&host, 0).await?;
            let iter: Addrs = Box::new(addrs.into_iter());
            Ok(iter)
        })
    }
}

/// The guarded HTTP client.
#[derive(Debug, Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    guard: Arc<EgressGuard>,
    options: FetcherOptions,
}

enum BodyMode {
    /// Read the body, up to this many bytes.
    Read(usize),
    Skip,
}

impl Fetcher {
    pub fn new(guard: Arc<EgressGuard>, options: FetcherOptions) -> Result<Fetcher, NetError> {
        let client = reqwest::Client::builder()
            .user_agent(options.user_agent.clone())
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .timeout(options.timeout)
            .connect_timeout(options.timeout.min(super::guard::DEFAULT_CONNECT_TIMEOUT))
            .dns_resolver(Arc::new(GuardResolver(guard.clone())))
            .gzip(true)
            .brotli(true)
            .deflate(true)
            .zstd(true)
            .build()
            .map_err(|e| NetError::Client(e.to_string()))?;
        Ok(Fetcher { client, guard, options })
    }

    pub fn options(&self) -> &FetcherOptions {
        &self.options
    }

    /// A fetcher like this one whose guard pins `host` to `addrs` (`EgressGuard::pinned`).
    pub fn pinned(&self, host: &str, addrs: Vec<std::net::IpAddr>) -> Result<Fetcher, NetError> {
        Fetcher::new(Arc::new(self.guard.pinned(host, addrs)), self.options.clone())
    }

    /// The egress guard every request goes through (for connections that are not HTTP).
    pub fn guard(&self) -> &EgressGuard {
        &self.guard
    }

    /// GETs `url`, following up to `MAX_REDIRECTS` redirects, each hop re-checked.
    pub async fn get(&self, url: &str) -> FetchResponse {
        self.fetch(Method::GET, url, BodyMode::Read(self.options.max_bytes)).await
    }

    /// Like `get`, with a body cap of its own (sitemaps may be 50 MB).
    pub async fn get_capped(&self, url: &str, max_bytes: usize) -> FetchResponse {
        self.fetch(Method::GET, url, BodyMode::Read(max_bytes)).await
    }

    /// POSTs `body` with `headers` to `url` (webhooks): redirects are not followed, the address
    /// is checked by the egress guard like every other request, and `timeout` bounds the whole
    /// exchange. The response body is read up to 64 KiB.
    pub async fn post(&self, url: &str, headers: &[(&str, String)], body: Vec<u8>, timeout: std::time::Duration) -> FetchResponse {
        let out = FetchResponse { url: url.to_string(), final_url: url.to_string(), ..Default::default() };
        let target = match Url::parse(url) {
            Ok(u) if matches!(u.scheme(), "http" | "https") => u,
            Ok(u) => return fail(out, FetchErrorKind::Network, format!("unsupported scheme {}", u.scheme())),
            Err(e) => return fail(out, FetchErrorKind::Network, format!("invalid URL {url:?}: {e}")),
        };
        if let Err(e) = self.precheck(&target).await {
            let kind = if e.is_blocked() { FetchErrorKind::Blocked } else { FetchErrorKind::Network };
            return fail(out, kind, e.to_string());
        }
        let mut request = self.client.post(target).timeout(timeout).body(body);
        for (name, value) in headers {
            request = request.header(*name, value.as_str());
        }
        let resp = match request.send().await {
            Ok(r) => r,
            Err(e) => {
                let (kind, message) = classify(&e);
                return fail(out, kind, message);
            }
        };
        let mut out = out;
        out.status = Some(resp.status().as_u16());
        // The receiver's headers: a webhook delivery reads `Retry-After`.
        out.headers = headers_of(&resp);
        self.read_body(resp, &mut out, 64 * 1024).await;
        out
    }

    /// The status of `url`: HEAD, falling back to GET (body not read) when HEAD answers 405 or
    /// 501 or fails for a reason other than the egress guard.
    pub async fn status(&self, url: &str) -> UrlStatus {
        let head = self.fetch(Method::HEAD, url, BodyMode::Skip).await;
        let retry = match (&head.status, &head.error) {
            (Some(405 | 501), _) => true,
            (None, Some(e)) => matches!(e.kind, FetchErrorKind::Network | FetchErrorKind::Timeout),
            _ => false,
        };
        let resp = if retry {
            tracing::debug!(url, "HEAD unusable, falling back to GET");
            self.fetch(Method::GET, url, BodyMode::Skip).await
        } else {
            head
        };
        UrlStatus {
            url: url.to_string(),
            status: resp.status,
            final_url: Some(resp.final_url.clone()).filter(|u| !u.is_empty()),
            content_type: resp.header("content-type").map(str::to_string),
            x_robots_tag: {
                let all: Vec<&str> = crate::model::header_all(&resp.headers, "x-robots-tag").collect();
                if all.is_empty() { None } else { Some(all.join(", ")) }
            },
            redirects: resp.redirects,
            error: resp.error.map(|e| e.to_string()),
        }
    }

    async fn fetch(&self, method: Method, url: &str, body: BodyMode) -> FetchResponse {
        let mut out = FetchResponse { url: url.to_string(), final_url: url.to_string(), ..Default::default() };
        let mut current = match Url::parse(url) {
            Ok(u) => u,
            Err(e) => return fail(out, FetchErrorKind::Network, format!("invalid URL {url:?}: {e}")),
        };
        let mut method = method;
        loop {
            out.final_url = current.to_string();
            if let Err(e) = self.precheck(&current).await {
                let kind = if e.is_blocked() { FetchErrorKind::Blocked } else { FetchErrorKind::Network };
                return fail(out, kind, e.to_string());
            }
            let resp = match self.client.request(method.clone(), current.clone()).send().await {
                Ok(r) => r,
                Err(e) => {
                    let (kind, message) = classify(&e);
                    return fail(out, kind, message);
                }
            };
            let status = resp.status();
            let location = resp.headers().get(reqwest::header::LOCATION).and_then(|v| v.to_str().ok()).map(str::to_string);
            if status.is_redirection() && location.is_some() {
                let location = location.unwrap_or_default();
                out.redirects.push(RedirectHop { url: current.to_string(), status: status.as_u16(), location: Some(location.clone()) });
                if out.redirects.len() > MAX_REDIRECTS {
                    return fail(out, FetchErrorKind::TooManyRedirects, format!("more than {MAX_REDIRECTS} redirects"));
                }
                let next = match current.join(&location) {
                    Ok(u) if matches!(u.scheme(), "http" | "https") => u,
                    Ok(u) => return fail(out, FetchErrorKind::Network, format!("redirect to unsupported scheme {}", u.scheme())),
                    Err(e) => return fail(out, FetchErrorKind::Network, format!("bad redirect location {location:?}: {e}")),
                };
                if status == StatusCode::SEE_OTHER && method != Method::HEAD {
                    method = Method::GET;
                }
                current = next;
                continue;
            }
            out.status = Some(status.as_u16());
            out.headers = headers_of(&resp);
            if let BodyMode::Read(max) = body {
                self.read_body(resp, &mut out, max).await;
            }
            return out;
        }
    }

    /// reqwest skips the resolver for IP literals, so literals are checked here.
    async fn precheck(&self, url: &Url) -> Result<(), NetError> {
        let port = url.port_or_known_default().unwrap_or(80);
        match url.host() {
            Some(Host::Ipv4(ip)) => self.guard.resolve(&ip.to_string(), port).await.map(|_| ()),
            Some(Host::Ipv6(ip)) => self.guard.resolve(&ip.to_string(), port).await.map(|_| ()),
            Some(Host::Domain(_)) => Ok(()),
            None => Err(NetError::NoAddress { host: url.to_string() }),
        }
    }

    async fn read_body(&self, mut resp: reqwest::Response, out: &mut FetchResponse, max: usize) {
        loop {
            match resp.chunk().await {
                Ok(Some(chunk)) => {
                    let room = max.saturating_sub(out.body.len());
                    if chunk.len() > room {
                        out.body.extend_from_slice(&chunk[..room]);
                        out.truncated = true;
                        out.error = Some(FetchError { kind: FetchErrorKind::TooLarge, message: format!("body exceeds {max} bytes") });
                        return;
                    }
                    out.body.extend_from_slice(&chunk);
                }
                Ok(None) => return,
                Err(e) => {
                    let (kind, message) = classify(&e);
                    out.error = Some(FetchError { kind, message: format!("reading body: {message}") });
                    return;
                }
            }
        }
    }
}

fn fail(mut out: FetchResponse, kind: FetchErrorKind, message: String) -> FetchResponse {
    tracing::debug!(url = %out.final_url, kind = kind.as_str(), %message, "fetch failed");
    out.error = Some(FetchError { kind, message });
    out
}

/// Maps a reqwest error to a kind, finding a guard refusal in its source chain.
fn classify(e: &reqwest::Error) -> (FetchErrorKind, String) {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if let Some(net) = err.downcast_ref::<NetError>()
            && net.is_blocked() {
                return (FetchErrorKind::Blocked, net.to_string());
            }
        source = err.source();
    }
    let kind = if e.is_timeout() { FetchErrorKind::Timeout } else { FetchErrorKind::Network };
    (kind, error_chain(e))
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut source = e.source();
    while let Some(err) = source {
        let part = err.to_string();
        if !s.contains(&part) {
            s.push_str(": ");
            s.push_str(&part);
        }
        source = err.source();
    }
    s
}

/// A response's headers, names lowercased.
fn headers_of(resp: &reqwest::Response) -> Vec<Header> {
    resp.headers()
        .iter()
        .map(|(k, v)| Header { name: k.as_str().to_ascii_lowercase(), value: String::from_utf8_lossy(v.as_bytes()).into_owned() })
        .collect()
}
