//! `EgressGuard`: resolves hosts, refuses addresses the `AddressPolicy` blocks, and connects only
//! to the addresses it checked (no window for DNS rebinding between check and connect).

use crate::model::AddressPolicy;
use hickory_resolver::config::{LookupIpStrategy, NameServerConfig, ResolverConfig};
use hickory_resolver::name_server::TokioConnectionProvider;
use hickory_resolver::proto::xfer::Protocol;
use hickory_resolver::{ResolverBuilder, TokioResolver};
use hickory_resolver::proto::ProtoErrorKind;
use hickory_resolver::proto::rr::RecordType;
use std::collections::HashMap;
use std::sync::Arc;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;
use tokio::net::TcpStream;

use super::error::NetError;

/// How long name resolution may take.
pub const DEFAULT_RESOLVE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one TCP connect attempt may take.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// One try of a DNS query: a lost UDP answer costs this, not the C library's five seconds (real
/// answers, cold caches included, come within a few hundred milliseconds).
pub const DNS_TRY_TIMEOUT: Duration = Duration::from_secs(1);
/// Tries per name server before the lookup fails.
pub const DNS_TRIES: usize = 2;
/// Names (and their failures) the resolver keeps answers for, within their TTLs.
const DNS_CACHE: usize = 4096;
/// Lookups in flight at once: a page naming sixty hosts sends its queries in turns, since name
/// servers (and the NATs before them) drop bursts; an answered query takes a millisecond.
pub const DNS_IN_FLIGHT: usize = 12;

/// The one egress policy for every request a scan makes (fetcher and Chromium's proxy alike).
#[derive(Debug, Clone, Default)]
pub struct EgressGuard {
    policy: AddressPolicy,
    overrides: HashMap<String, Vec<IpAddr>>,
    connect_timeout: Option<Duration>,
    /// The system's name servers and hosts file, asked by hickory (`DNS_TRY_TIMEOUT`,
    /// `DNS_TRIES`); `None` where the system's configuration cannot be read: the C library's
    /// resolver answers then.
    resolver: Option<Arc<TokioResolver>>,
    /// `DNS_IN_FLIGHT` lookups at once, for every clone of the guard.
    lookups: Option<Arc<tokio::sync::Semaphore>>,
    /// Names DNS said do not exist, and what lies under them (`nx_cuts.rs`).
    nx: Arc<super::nx_cuts::NxCuts>,
}

/// A resolver of the system's configuration with short tries and a cache.
fn system_resolver() -> Option<Arc<TokioResolver>> {
    match TokioResolver::builder_tokio() {
        Ok(builder) => Some(tuned(builder)),
        Err(e) => {
            tracing::warn!(error = %e, "the system's DNS configuration could not be read; names are resolved by the C library");
            None
        }
    }
}

fn tuned(mut builder: ResolverBuilder<TokioConnectionProvider>) -> Arc<TokioResolver> {
    let opts = builder.options_mut();
    opts.timeout = DNS_TRY_TIMEOUT;
    opts.attempts = DNS_TRIES;
    opts.cache_size = DNS_CACHE;
    // IPv4 first, IPv6 when a name has no IPv4 address: as the C library answers on hosts without
    // IPv6 (`localhost` is 127.0.0.1, not also ::1, which an allowed 127.0.0.0/8 would refuse).
    opts.ip_strategy = LookupIpStrategy::Ipv4thenIpv6;
    Arc::new(builder.build())
}

impl EgressGuard {
    /// A guard enforcing `policy`, resolving names with the system's name servers.
    pub fn new(policy: AddressPolicy) -> Self {
        EgressGuard {
            policy,
            overrides: HashMap::new(),
            connect_timeout: None,
            resolver: system_resolver(),
            lookups: Some(Arc::new(tokio::sync::Semaphore::new(DNS_IN_FLIGHT))),
            nx: Arc::default(),
        }
    }

    /// Host names answered from this table instead of DNS (like `/etc/hosts`; names are
    /// case-insensitive). Tests use it to make `evil.test` resolve to `127.0.0.2`. The answers are
    /// still checked against the policy.
    pub fn with_host_overrides(mut self, overrides: HashMap<String, Vec<IpAddr>>) -> Self {
        self.overrides = overrides.into_iter().map(|(k, v)| (normalise_host(&k), v)).collect();
        self
    }

    /// This guard with `host` pinned to `addrs`: whatever DNS says later, the host is only ever
    /// connected at these addresses (still checked against the policy). An active scan pins its
    /// site to the addresses its ownership was proved at.
    pub fn pinned(&self, host: &str, addrs: Vec<IpAddr>) -> EgressGuard {
        let mut guard = self.clone();
        guard.overrides.insert(normalise_host(host), addrs);
        guard
    }

    /// Asks the name server at `addr` (UDP, then TCP) instead of the system's: for a fleet with a
    /// resolver of its own, and for the tests' DNS servers.
    pub fn with_name_server(mut self, addr: SocketAddr) -> Self {
        let servers = vec![NameServerConfig::new(addr, Protocol::Udp), NameServerConfig::new(addr, Protocol::Tcp)];
        let config = ResolverConfig::from_parts(None, Vec::new(), servers);
        self.resolver = Some(tuned(TokioResolver::builder_with_config(config, TokioConnectionProvider::default())));
        self.nx = Arc::default();
        self
    }

    /// Overrides the TCP connect timeout (default `DEFAULT_CONNECT_TIMEOUT`).
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = Some(timeout);
        self
    }

    pub fn policy(&self) -> &AddressPolicy {
        &self.policy
    }

    /// `Err(Blocked)` when the policy refuses `ip` (named `host` in the error, which never
    /// shows `ip`; the operator's log does).
    pub fn check_ip(&self, host: &str, ip: IpAddr) -> Result<(), NetError> {
        self.policy.check(ip).map_err(|range| {
            tracing::warn!(host, addr = %ip, range = range.describe(), "egress refused by the address policy");
            NetError::Blocked { host: host.to_string(), addr: ip, range: range.describe() }
        })
    }

    /// Resolves `host` (an IP literal, with or without IPv6 brackets, is taken as is) and returns
    /// its addresses with `port`. Refuses the whole host when any address is blocked.
    pub async fn resolve(&self, host: &str, port: u16) -> Result<Vec<SocketAddr>, NetError> {
        let name = normalise_host(host);
        let ips: Vec<IpAddr> = if let Ok(ip) = name.parse::<IpAddr>() {
            vec![ip]
        } else if let Some(ips) = self.overrides.get(&name) {
            ips.clone()
        } else {
            self.lookup(&name, port).await?
        };
        if ips.is_empty() {
            return Err(NetError::NoAddress { host: name });
        }
        for ip in &ips {
            self.check_ip(&name, *ip)?;
        }
        let mut out: Vec<SocketAddr> = Vec::with_capacity(ips.len());
        for ip in ips {
            let addr = SocketAddr::new(ip, port);
            if !out.contains(&addr) {
                out.push(addr);
            }
        }
        Ok(out)
    }

    /// The addresses of a name: asked of the system's name servers by hickory, or of the C
    /// library where hickory has no configuration or fails for a reason of its own (not an
    /// answer of the name servers).
    async fn lookup(&self, name: &str, port: u16) -> Result<Vec<IpAddr>, NetError> {
        if let Some(resolver) = &self.resolver {
            if let Some(cut) = self.nx.covering(name) {
                return Err(NetError::Resolve { host: name.to_string(), message: format!("nothing exists under {cut} in DNS") });
            }
            let turn = match &self.lookups {
                Some(lookups) => lookups.acquire().await.ok(),
                None => None,
            };
            let answer = tokio::time::timeout(DEFAULT_RESOLVE_TIMEOUT, resolver.lookup_ip(name)).await;
            drop(turn);
            match answer {
                Err(_) => return Err(NetError::Timeout { what: "resolving", host: name.to_string(), port }),
                Ok(Ok(found)) => return Ok(found.iter().collect()),
                Ok(Err(e)) if e.is_nx_domain() => {
                    self.nx.cut(name);
                    self.probe_ancestors(resolver, name);
                    return Err(NetError::Resolve { host: name.to_string(), message: "the name does not exist in DNS".into() });
                }
                Ok(Err(e)) if e.is_no_records_found() => {
                    return Err(NetError::Resolve { host: name.to_string(), message: "DNS has no address for the name".into() });
                }
                Ok(Err(e)) if matches!(e.proto().map(|p| p.kind()), Some(ProtoErrorKind::Timeout)) => {
                    return Err(NetError::Timeout { what: "resolving", host: name.to_string(), port });
                }
                Ok(Err(e)) => tracing::debug!(host = name, error = %e, "hickory could not resolve; asking the C library"),
            }
        }
        let lookup = tokio::net::lookup_host((name.to_string(), port));
        match tokio::time::timeout(DEFAULT_RESOLVE_TIMEOUT, lookup).await {
            Err(_) => Err(NetError::Timeout { what: "resolving", host: name.to_string(), port }),
            Ok(Err(e)) => Err(NetError::Resolve { host: name.to_string(), message: e.to_string() }),
            Ok(Ok(addrs)) => Ok(addrs.map(|a| a.ip()).collect()),
        }
    }

    /// After `name`'s NXDOMAIN, asks (in the background, in turn with the other lookups) whether
    /// its top-level label or its last two labels exist: one that does not cuts every name under
    /// it (`nx_cuts.rs`).
    fn probe_ancestors(&self, resolver: &Arc<TokioResolver>, name: &str) {
        let probes = self.nx.probes(name);
        if probes.is_empty() || tokio::runtime::Handle::try_current().is_err() {
            return;
        }
        let (resolver, nx, lookups) = (resolver.clone(), self.nx.clone(), self.lookups.clone());
        tokio::spawn(async move {
            for ancestor in probes {
                let _turn = match &lookups {
                    Some(l) => l.acquire().await.ok(),
                    None => None,
                };
                let answer = tokio::time::timeout(DEFAULT_RESOLVE_TIMEOUT, resolver.lookup(ancestor.as_str(), RecordType::A)).await;
                if let Ok(Err(e)) = answer
                    && e.is_nx_domain()
                {
                    tracing::debug!(domain = %ancestor, "nothing exists under this name in DNS");
                    nx.cut(&ancestor);
                    break;
                }
            }
        });
    }

    /// Resolves and checks `host`, then connects to the first checked address that answers.
    pub async fn connect(&self, host: &str, port: u16) -> Result<TcpStream, NetError> {
        let addrs = self.resolve(host, port).await?;
        let timeout = self.connect_timeout.unwrap_or(DEFAULT_CONNECT_TIMEOUT);
        let mut last = String::from("no address tried");
        for addr in addrs {
            match tokio::time::timeout(timeout, TcpStream::connect(addr)).await {
                Ok(Ok(stream)) => {
                    tracing::trace!(host, %addr, "egress connect");
                    return Ok(stream);
                }
                // The message names no address (the user sees it); the log does.
                Ok(Err(e)) => {
                    tracing::debug!(host, %addr, error = %e, "egress connect failed");
                    last = e.to_string();
                }
                Err(_) => {
                    tracing::debug!(host, %addr, "egress connect timed out");
                    last = "timed out".to_string();
                }
            }
        }
        Err(NetError::Connect { host: normalise_host(host), port, message: last })
    }
}

/// Lowercase, no IPv6 brackets, no trailing dot.
fn normalise_host(host: &str) -> String {
    let h = host.trim();
    let h = h.strip_prefix('[').and_then(|x| x.strip_suffix(']')).unwrap_or(h);
    h.trim_end_matches('.').to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loopback_only() -> EgressGuard {
        EgressGuard::new(AddressPolicy::new(vec!["127.0.0.1/32".parse().unwrap()]))
    }

    #[tokio::test]
    async fn literals_are_checked_without_dns() {
        let g = loopback_only();
        assert_eq!(g.resolve("127.0.0.1", 80).await.unwrap(), vec!["127.0.0.1:80".parse().unwrap()]);
        let err = g.resolve("127.0.0.2", 80).await.unwrap_err();
        assert!(err.is_blocked(), "{err}");
        // A literal is the caller's own text: echoed.
        assert_eq!(err.to_string(), "127.0.0.2 is a loopback address: refused by the egress policy");
        assert!(g.resolve("[::1]", 80).await.unwrap_err().is_blocked());
        assert!(g.resolve("169.254.169.254", 80).await.unwrap_err().is_blocked());
    }

    #[tokio::test]
    async fn overrides_are_checked_too() {
        let mut map = HashMap::new();
        map.insert("Evil.Test".to_string(), vec!["127.0.0.2".parse().unwrap()]);
        map.insert("ok.test".to_string(), vec!["127.0.0.1".parse().unwrap()]);
        map.insert("mixed.test".to_string(), vec!["127.0.0.1".parse().unwrap(), "10.0.0.1".parse().unwrap()]);
        let g = loopback_only().with_host_overrides(map);
        assert!(g.resolve("evil.test.", 443).await.unwrap_err().is_blocked());
        assert_eq!(g.resolve("OK.test", 8).await.unwrap(), vec!["127.0.0.1:8".parse().unwrap()]);
        let err = g.resolve("mixed.test", 8).await.unwrap_err();
        // A name: what it resolves to, never where.
        assert_eq!(err.to_string(), "mixed.test resolves to a private address: refused by the egress policy");
        assert!(!format!("{err}").contains("10.0.0.1"), "{err}");
    }

    #[tokio::test]
    async fn localhost_name_is_refused_by_default() {
        let g = EgressGuard::new(AddressPolicy::default());
        let err = g.resolve("localhost", 80).await.unwrap_err();
        assert!(err.is_blocked(), "{err}");
    }

    #[tokio::test]
    async fn connect_goes_to_checked_address() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let g = loopback_only();
        let stream = g.connect("127.0.0.1", port).await.unwrap();
        assert_eq!(stream.peer_addr().unwrap().port(), port);
        assert!(g.connect("127.0.0.2", port).await.unwrap_err().is_blocked());
    }
}
