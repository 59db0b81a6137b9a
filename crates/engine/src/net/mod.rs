//! The network layer: the egress guard (SSRF policy with checked connects), the forward proxy
//! Chromium must use, and the HTTP fetcher (robots.txt, sitemaps, link status), the only HTTP
//! client code of the engine.

mod dead_hosts;
mod nx_cuts;
mod error;
mod fetcher;
mod guard;
mod proxy;
mod tls;

pub use error::NetError;
pub use fetcher::{
    DEFAULT_FETCH_MAX_BYTES, DEFAULT_FETCH_TIMEOUT, DEFAULT_USER_AGENT, FetchError, FetchErrorKind,
    FetchResponse, Fetcher, FetcherOptions, MAX_REDIRECTS,
};
pub use guard::{DEFAULT_CONNECT_TIMEOUT, DEFAULT_RESOLVE_TIMEOUT, EgressGuard};
pub use tls::{CertificateValidity, certificate_validity};
pub use proxy::{BlockedRequest, EGRESS_HEADER, EgressProxy, NET_ERROR_HEADER};
