//! Ownership proof of a site (an origin) by any of three methods, tried in order:
//!
//! 1. `/.well-known/sitescan-verification.txt` answers 200 with a body holding the token, and a
//!    random path on the same host does not answer 200 with the same body (a soft-404 site that
//!    answers everything alike proves nothing);
//! 2. `<meta name="sitescan-verification" content="TOKEN">` in the `<head>` of the start page;
//! 3. a DNS TXT record `sitescan-verification=TOKEN` on the host (resolver configurable).
//!
//! HTTP requests go through the guarded fetcher, pinned to the addresses the site's host resolved
//! to when the proof began (they are the proof's result: an active scan connects only there); a
//! redirect may only stay on the site's host (or go from http to https on it), for at most
//! `MAX_VERIFY_REDIRECTS` hops, so a sibling subdomain cannot prove another origin.

use crate::net::Fetcher;
use hickory_resolver::config::{NameServerConfig, ResolverConfig};
use hickory_resolver::name_server::TokioConnectionProvider;
use hickory_resolver::proto::xfer::Protocol;
use hickory_resolver::Resolver;
use rand::Rng;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use url::{Host, Url};

/// The well-known file's path.
pub const VERIFICATION_PATH: &str = "/.well-known/sitescan-verification.txt";
/// The meta tag's name.
pub const META_NAME: &str = "sitescan-verification";
/// What a TXT record starts with, the token following.
pub const TXT_PREFIX: &str = "sitescan-verification=";
/// Redirect hops a verification request may follow (each on the site's host).
pub const MAX_VERIFY_REDIRECTS: usize = 5;
/// Bytes of a verification answer read.
const VERIFY_MAX_BYTES: usize = 256 * 1024;
/// How long the DNS lookup may take.
const DNS_TIMEOUT: Duration = Duration::from_secs(5);

/// Where TXT records are looked up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DnsServer {
    /// The system's resolver configuration (`/etc/resolv.conf`).
    #[default]
    System,
    /// One name server (UDP, then TCP), e.g. `127.0.0.1:5353` in tests.
    At(SocketAddr),
}

/// How ownership was proved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnershipMethod {
    File,
    Meta,
    Dns,
}

impl OwnershipMethod {
    pub const ALL: [OwnershipMethod; 3] = [OwnershipMethod::File, OwnershipMethod::Meta, OwnershipMethod::Dns];

    pub fn as_str(self) -> &'static str {
        match self {
            OwnershipMethod::File => "file",
            OwnershipMethod::Meta => "meta",
            OwnershipMethod::Dns => "dns",
        }
    }

    /// How a person names the method.
    pub fn describe(self) -> &'static str {
        match self {
            OwnershipMethod::File => "well-known file /.well-known/sitescan-verification.txt",
            OwnershipMethod::Meta => "<meta name=\"sitescan-verification\"> on the start page",
            OwnershipMethod::Dns => "DNS TXT record sitescan-verification=TOKEN",
        }
    }
}

/// Ownership proved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    pub method: OwnershipMethod,
    /// Where the token was found (a URL, or the host name for DNS).
    pub proof: String,
    /// The site's host (as in its URL) and the addresses it resolved to for the proof.
    pub host: String,
    pub addresses: Vec<IpAddr>,
}

/// Why one method did not prove ownership.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MethodFailure {
    #[error("{url} could not be fetched: {message}")]
    Fetch { url: String, message: String },
    #[error("{url} answered HTTP {status}")]
    Status { url: String, status: u16 },
    #[error("{url} redirects to {location}, off the site's host {host} (only http to https on the same host is followed)")]
    OffHostRedirect { url: String, location: String, host: String },
    #[error("{url} redirects more than {MAX_VERIFY_REDIRECTS} times")]
    TooManyRedirects { url: String },
    #[error("{url} does not hold the token")]
    TokenAbsent { url: String },
    #[error("{url} holds the token, but so does a random path ({random_url}): the site answers every path alike (soft 404)")]
    SoftNotFound { url: String, random_url: String },
    #[error("the <head> of {url} has no <meta name=\"sitescan-verification\"> with the token")]
    MetaAbsent { url: String },
    #[error("{host} is an IP address: DNS records cannot be looked up for it")]
    NoHostName { host: String },
    #[error("TXT lookup of {host} failed: {message}")]
    DnsLookup { host: String, message: String },
    #[error("{host} has no TXT record sitescan-verification=TOKEN with the token")]
    DnsTokenAbsent { host: String },
}

/// Why ownership could not be checked or was not proved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    #[error("the verification token must be 16 to 128 characters of A-Z, a-z, 0-9, '-' and '_'")]
    InvalidToken,
    #[error("{0} is not an http(s) URL with a host")]
    InvalidOrigin(String),
    #[error("ownership of {origin} is not proved: {}", describe_failures(.failures))]
    Unverified { origin: String, failures: Vec<(OwnershipMethod, MethodFailure)> },
}

fn describe_failures(failures: &[(OwnershipMethod, MethodFailure)]) -> String {
    failures.iter().map(|(m, f)| format!("{}: {f}", m.describe())).collect::<Vec<_>>().join("; ")
}

/// Proves ownership of sites.
#[derive(Debug, Clone)]
pub struct Verifier {
    fetcher: Arc<Fetcher>,
    dns: DnsServer,
}

impl Verifier {
    pub fn new(fetcher: Arc<Fetcher>, dns: DnsServer) -> Self {
        Verifier { fetcher, dns }
    }

    /// Tries the file, the meta tag and DNS in turn; the first that holds proves ownership.
    /// `start` is the site's start URL (its origin is the site). The host is resolved once, and
    /// every request of the proof goes to those addresses only.
    pub async fn verify(&self, start: &Url, token: &str) -> Result<Verified, VerifyError> {
        self.verify_inner(start, token, None).await
    }

    /// `verify`, connecting only to `addrs` (an active scan proving again what it pinned).
    pub async fn verify_at(&self, start: &Url, token: &str, addrs: &[IpAddr]) -> Result<Verified, VerifyError> {
        self.verify_inner(start, token, Some(addrs.to_vec())).await
    }

    async fn verify_inner(&self, start: &Url, token: &str, at: Option<Vec<IpAddr>>) -> Result<Verified, VerifyError> {
        if !super::valid_token(token) {
            return Err(VerifyError::InvalidToken);
        }
        if !matches!(start.scheme(), "http" | "https") || start.host().is_none() {
            return Err(VerifyError::InvalidOrigin(start.to_string()));
        }
        let host = start.host_str().unwrap_or_default().to_string();
        let addresses = match at {
            Some(addrs) => addrs,
            None => match self.fetcher.guard().resolve(&host, start.port_or_known_default().unwrap_or(80)).await {
                Ok(addrs) => addrs.into_iter().map(|a| a.ip()).collect(),
                // Nothing to connect to: the HTTP methods fail on their own and say why.
                Err(e) => {
                    tracing::debug!(host = %host, error = %e, "the site's host does not resolve to an allowed address");
                    Vec::new()
                }
            },
        };
        let pinned = if addresses.is_empty() {
            self.fetcher.clone()
        } else {
            match self.fetcher.pinned(&host, addresses.clone()) {
                Ok(f) => Arc::new(f),
                Err(e) => {
                    let failure = MethodFailure::Fetch { url: start.to_string(), message: e.to_string() };
                    return Err(VerifyError::Unverified { origin: start.origin().ascii_serialization(), failures: vec![(OwnershipMethod::File, failure)] });
                }
            }
        };
        let mut failures = Vec::new();
        for method in OwnershipMethod::ALL {
            let outcome = match method {
                OwnershipMethod::File => self.by_file(&pinned, start, token).await,
                OwnershipMethod::Meta => self.by_meta(&pinned, start, token).await,
                OwnershipMethod::Dns => self.by_dns(start, token).await,
            };
            match outcome {
                Ok(proof) => {
                    tracing::info!(site = %start.origin().ascii_serialization(), method = method.as_str(), "ownership verified");
                    return Ok(Verified { method, proof, host, addresses });
                }
                Err(failure) => {
                    tracing::debug!(method = method.as_str(), %failure, "ownership method failed");
                    failures.push((method, failure));
                }
            }
        }
        Err(VerifyError::Unverified { origin: start.origin().ascii_serialization(), failures })
    }

    async fn by_file(&self, fetcher: &Fetcher, start: &Url, token: &str) -> Result<String, MethodFailure> {
        let url = at_path(start, VERIFICATION_PATH);
        let body = fetch_on_site(fetcher, start, &url).await?;
        if !String::from_utf8_lossy(&body).contains(token) {
            return Err(MethodFailure::TokenAbsent { url: url.to_string() });
        }
        let random = at_path(start, &format!("/.well-known/sitescan-{}.txt", random_suffix()));
        let answer = fetcher.get_capped(random.as_str(), VERIFY_MAX_BYTES).await;
        let same = answer.status == Some(200) && (answer.body == body || String::from_utf8_lossy(&answer.body).contains(token));
        if same {
            return Err(MethodFailure::SoftNotFound { url: url.to_string(), random_url: random.to_string() });
        }
        Ok(url.to_string())
    }

    async fn by_meta(&self, fetcher: &Fetcher, start: &Url, token: &str) -> Result<String, MethodFailure> {
        let body = fetch_on_site(fetcher, start, start).await?;
        let html = scraper::Html::parse_document(&String::from_utf8_lossy(&body));
        let selector = scraper::Selector::parse("head meta[name][content]").map_err(|_| MethodFailure::MetaAbsent { url: start.to_string() })?;
        let found = html.select(&selector).any(|m| {
            let el = m.value();
            el.attr("name").is_some_and(|n| n.trim().eq_ignore_ascii_case(META_NAME))
                && el.attr("content").is_some_and(|c| c.trim() == token)
        });
        if found { Ok(start.to_string()) } else { Err(MethodFailure::MetaAbsent { url: start.to_string() }) }
    }

    async fn by_dns(&self, start: &Url, token: &str) -> Result<String, MethodFailure> {
        let host = match start.host() {
            Some(Host::Domain(d)) => d.trim_end_matches('.').to_string(),
            Some(other) => return Err(MethodFailure::NoHostName { host: other.to_string() }),
            None => return Err(MethodFailure::NoHostName { host: String::new() }),
        };
        let resolver = match self.dns {
            DnsServer::System => Resolver::builder_tokio()
                .map_err(|e| MethodFailure::DnsLookup { host: host.clone(), message: e.to_string() })?,
            DnsServer::At(addr) => {
                let servers = vec![NameServerConfig::new(addr, Protocol::Udp), NameServerConfig::new(addr, Protocol::Tcp)];
                Resolver::builder_with_config(ResolverConfig::from_parts(None, Vec::new(), servers), TokioConnectionProvider::default())
            }
        };
        let mut resolver = resolver;
        resolver.options_mut().timeout = DNS_TIMEOUT;
        resolver.options_mut().attempts = 2;
        let resolver = resolver.build();
        let lookup = match resolver.txt_lookup(format!("{host}.")).await {
            Ok(l) => l,
            Err(e) if e.is_no_records_found() => {
                return Err(MethodFailure::DnsTokenAbsent { host });
            }
            Err(e) => return Err(MethodFailure::DnsLookup { host, message: e.to_string() }),
        };
        let expected = format!("{TXT_PREFIX}{token}");
        let found = lookup.iter().any(|txt| {
            // A TXT record is one or more strings; long values are split, so join them.
            let joined: Vec<u8> = txt.txt_data().iter().flat_map(|part| part.iter().copied()).collect();
            String::from_utf8_lossy(&joined).trim() == expected
        });
        if found { Ok(host) } else { Err(MethodFailure::DnsTokenAbsent { host }) }
    }
}

/// GETs `url`: 200 with every redirect hop on the start's host (`same_site_hop`), at most
/// `MAX_VERIFY_REDIRECTS` of them.
async fn fetch_on_site(fetcher: &Fetcher, start: &Url, url: &Url) -> Result<Vec<u8>, MethodFailure> {
        let response = fetcher.get_capped(url.as_str(), VERIFY_MAX_BYTES).await;
        for hop in &response.redirects {
            let location = hop.location.as_deref().unwrap_or_default();
            let next = Url::parse(&hop.url).ok().and_then(|u| u.join(location).ok());
            if !next.as_ref().is_some_and(|n| same_site_hop(start, n)) {
                return Err(MethodFailure::OffHostRedirect {
                    url: url.to_string(),
                    location: location.to_string(),
                    host: start.host_str().unwrap_or_default().to_string(),
                });
            }
        }
        if response.redirects.len() > MAX_VERIFY_REDIRECTS {
            return Err(MethodFailure::TooManyRedirects { url: url.to_string() });
        }
        if let Some(e) = &response.error
            && response.status.is_none()
        {
            if e.kind == crate::net::FetchErrorKind::TooManyRedirects {
                return Err(MethodFailure::TooManyRedirects { url: url.to_string() });
            }
            return Err(MethodFailure::Fetch { url: url.to_string(), message: e.to_string() });
        }
        match response.status {
            Some(200) => Ok(response.body),
            Some(status) => Err(MethodFailure::Status { url: url.to_string(), status }),
            None => Err(MethodFailure::Fetch { url: url.to_string(), message: "no answer".into() }),
        }
}

/// Whether a redirect to `next` stays on the site `start`: the same origin, or the same host
/// going from http to https (on the default port).
fn same_site_hop(start: &Url, next: &Url) -> bool {
    if next.origin() == start.origin() {
        return true;
    }
    start.scheme() == "http" && next.scheme() == "https" && next.host_str() == start.host_str() && next.port_or_known_default() == Some(443)
}

/// `start` with this path (no query, no fragment).
fn at_path(start: &Url, path: &str) -> Url {
    let mut u = start.clone();
    u.set_query(None);
    u.set_fragment(None);
    u.set_path(path);
    u
}

fn random_suffix() -> String {
    let mut rng = rand::rng();
    (0..20).map(|_| char::from(b"abcdefghijklmnopqrstuvwxyz0123456789"[rng.random_range(0..36)])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_stay_on_the_sites_host() {
        let u = |s: &str| Url::parse(s).unwrap();
        let start = u("http://shop.example.com/");
        assert!(same_site_hop(&start, &u("http://shop.example.com/.well-known/x")));
        assert!(same_site_hop(&start, &u("https://shop.example.com/.well-known/x")), "http to https on the host");
        assert!(!same_site_hop(&start, &u("https://shop.example.com:8443/")), "another port");
        assert!(!same_site_hop(&start, &u("http://attacker.example.com/")), "a sibling subdomain");
        assert!(!same_site_hop(&start, &u("http://example.com/")), "the parent domain");
        assert!(!same_site_hop(&u("https://shop.example.com/"), &u("http://shop.example.com/")), "no downgrade");
    }

    #[test]
    fn unverified_names_every_method() {
        let e = VerifyError::Unverified {
            origin: "https://a.test".into(),
            failures: vec![
                (OwnershipMethod::File, MethodFailure::Status { url: "https://a.test/.well-known/sitescan-verification.txt".into(), status: 404 }),
                (OwnershipMethod::Meta, MethodFailure::MetaAbsent { url: "https://a.test/".into() }),
                (OwnershipMethod::Dns, MethodFailure::DnsTokenAbsent { host: "a.test".into() }),
            ],
        };
        let text = e.to_string();
        for m in OwnershipMethod::ALL {
            assert!(text.contains(m.describe()), "{text}");
        }
        assert!(text.contains("404"), "{text}");
    }
}
