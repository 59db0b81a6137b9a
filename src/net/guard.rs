//! `EgressGuard`: resolves hosts, refuses addresses the `AddressPolicy` blocks, and connects only
//! to the addresses it checked (no window for DNS rebinding between check and connect).

use crate::model::AddressPolicy;
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;
use tokio::net::TcpStream;

use super::error::NetError;

/// How long name resolution may take.
pub const DEFAULT_RESOLVE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one TCP connect attempt may take.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The one egress policy for every request a scan makes (fetcher and Chromium's proxy alike).
#[derive(Debug, Clone, Default)]
pub struct EgressGuard {
    policy: AddressPolicy,
    overrides: HashMap<String, Vec<IpAddr>>,
    connect_timeout: Option<Duration>,
}

impl EgressGuard {
    /// A guard enforcing `policy`, resolving names with the system resolver.
    pub fn new(policy: AddressPolicy) -> Self {
        EgressGuard { policy, overrides: HashMap::new(), connect_timeout: None }
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
            let lookup = tokio::net::lookup_host((name.clone(), port));
            match tokio::time::timeout(DEFAULT_RESOLVE_TIMEOUT, lookup).await {
                Err(_) => return Err(NetError::Timeout { what: "resolving", host: name, port }),
                Ok(Err(e)) => return Err(NetError::Resolve { host: name, message: e.to_string() }),
                Ok(Ok(addrs)) => addrs.map(|a| a.ip()).collect(),
            }
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
