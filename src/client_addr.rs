//! The client's address and scheme: the TCP peer's, unless the peer is a trusted proxy
//! (`--trusted-proxy CIDR`), in which case `Forwarded: for=` (or, without it, `X-Forwarded-For`)
//! names the client: the rightmost hop that is not itself a trusted proxy. A trusted proxy's
//! `X-Forwarded-Proto: https` (or `Forwarded: proto=https`) marks the request as reached over
//! https. From an untrusted peer these headers are ignored.
//!
//! A middleware puts a [`Client`] in every request's extensions; the login throttle,
//! attestations and the `Secure` cookie flag read it from there.

use axum::extract::{ConnectInfo, Request, State};
use axum::http::HeaderMap;
use axum::middleware::Next;
use axum::response::Response;
use ipnet::IpNet;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// Who sent a request, as far as this server can trust it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Client {
    pub ip: IpAddr,
    /// A trusted proxy says the client reached it over https.
    pub forwarded_https: bool,
}

/// The proxies whose forwarding headers are believed.
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies(Arc<Vec<IpNet>>);

impl TrustedProxies {
    pub fn new(nets: Vec<IpNet>) -> Self {
        TrustedProxies(Arc::new(nets))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        self.0.iter().any(|n| n.contains(&ip))
    }

    /// The client behind a connection from `peer` carrying `headers`.
    pub fn resolve(&self, peer: IpAddr, headers: &HeaderMap) -> Client {
        let peer = canonical(peer);
        if !self.trusts(peer) {
            return Client { ip: peer, forwarded_https: false };
        }
        let forwarded = forwarded_elements(headers);
        let (hops, proto) = if forwarded.is_empty() {
            (x_forwarded_for(headers), last_value(headers, "x-forwarded-proto"))
        } else {
            let proto = forwarded.iter().rev().find_map(|e| param(e, "proto"));
            (forwarded.iter().map(|e| param(e, "for").unwrap_or_default()).collect(), proto)
        };
        // From the right: skip trusted proxies; the first other hop is the client. An entry that
        // is not an address (`unknown`, an obfuscated name, garbage) ends the walk at the last
        // hop known to be a proxy.
        let mut ip = peer;
        for hop in hops.iter().rev() {
            let Some(addr) = parse_node(hop) else { break };
            ip = addr;
            if !self.trusts(addr) {
                break;
            }
        }
        let forwarded_https = proto.is_some_and(|p| p.trim().trim_matches('"').eq_ignore_ascii_case("https"));
        Client { ip, forwarded_https }
    }
}

/// IPv4-mapped IPv6 addresses as IPv4 (a dual-stack listener reports them so).
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// Every comma-separated value of every `name` header, in order.
fn values(headers: &HeaderMap, name: &str) -> Vec<String> {
    headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .collect()
}

fn x_forwarded_for(headers: &HeaderMap) -> Vec<String> {
    values(headers, "x-forwarded-for")
}

fn last_value(headers: &HeaderMap, name: &str) -> Option<String> {
    values(headers, name).pop()
}

/// The elements of `Forwarded` (RFC 7239), one per hop.
fn forwarded_elements(headers: &HeaderMap) -> Vec<String> {
    values(headers, "forwarded")
}

/// A parameter (`for`, `proto`) of one `Forwarded` element.
fn param(element: &str, name: &str) -> Option<String> {
    element.split(';').find_map(|pair| {
        let (k, v) = pair.split_once('=')?;
        k.trim().eq_ignore_ascii_case(name).then(|| v.trim().trim_matches('"').to_string())
    })
}

/// An address of a forwarding header: `192.0.2.1`, `192.0.2.1:4711`, `[2001:db8::1]:4711`,
/// `2001:db8::1`.
fn parse_node(node: &str) -> Option<IpAddr> {
    let node = node.trim().trim_matches('"');
    if let Ok(ip) = node.parse::<IpAddr>() {
        return Some(canonical(ip));
    }
    if let Ok(sa) = node.parse::<SocketAddr>() {
        return Some(canonical(sa.ip()));
    }
    let inner = node.strip_prefix('[')?.split(']').next()?;
    inner.parse::<IpAddr>().ok().map(canonical)
}

/// The middleware: resolves the client once and stores it in the request's extensions.
pub async fn resolve(State(trusted): State<TrustedProxies>, mut req: Request, next: Next) -> Response {
    if let Some(peer) = req.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip()) {
        let client = trusted.resolve(peer, req.headers());
        req.extensions_mut().insert(client);
    }
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(), v.parse().unwrap());
        }
        h
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_says() {
        let t = TrustedProxies::default();
        let h = headers(&[("x-forwarded-for", "203.0.113.9"), ("forwarded", "for=203.0.113.8;proto=https"), ("x-forwarded-proto", "https")]);
        assert_eq!(t.resolve(ip("127.0.0.1"), &h), Client { ip: ip("127.0.0.1"), forwarded_https: false });
        let t = TrustedProxies::new(vec!["10.0.0.0/8".parse().unwrap()]);
        assert_eq!(t.resolve(ip("192.0.2.1"), &h).ip, ip("192.0.2.1"));
    }

    #[test]
    fn a_trusted_proxy_names_the_rightmost_untrusted_hop() {
        let t = TrustedProxies::new(vec!["10.0.0.0/8".parse().unwrap(), "127.0.0.1/32".parse().unwrap()]);
        // The client forged the leftmost entry; the proxies appended the rest.
        let h = headers(&[("x-forwarded-for", "1.1.1.1, 198.51.100.7, 10.1.2.3"), ("x-forwarded-proto", "https")]);
        assert_eq!(t.resolve(ip("127.0.0.1"), &h), Client { ip: ip("198.51.100.7"), forwarded_https: true });
        // Two header lines are one list.
        let h = headers(&[("x-forwarded-for", "1.1.1.1"), ("x-forwarded-for", "198.51.100.8")]);
        assert_eq!(t.resolve(ip("10.0.0.1"), &h).ip, ip("198.51.100.8"));
        // No header: the proxy itself.
        assert_eq!(t.resolve(ip("10.0.0.1"), &HeaderMap::new()).ip, ip("10.0.0.1"));
        // Garbage stops the walk at the last proxy.
        let h = headers(&[("x-forwarded-for", "198.51.100.7, nonsense")]);
        assert_eq!(t.resolve(ip("10.0.0.1"), &h).ip, ip("10.0.0.1"));
        // The client's own claim of https is not the proxy's.
        let h = headers(&[("x-forwarded-proto", "https, http")]);
        assert!(!t.resolve(ip("10.0.0.1"), &h).forwarded_https);
    }

    #[test]
    fn forwarded_wins_over_x_forwarded_for() {
        let t = TrustedProxies::new(vec!["127.0.0.0/8".parse().unwrap()]);
        let h = headers(&[
            ("forwarded", r#"for=192.0.2.60;proto=http, for="[2001:db8:cafe::17]:4711";proto=https"#),
            ("x-forwarded-for", "198.51.100.1"),
        ]);
        assert_eq!(t.resolve(ip("127.0.0.1"), &h), Client { ip: ip("2001:db8:cafe::17"), forwarded_https: true });
        let h = headers(&[("forwarded", "for=unknown")]);
        assert_eq!(t.resolve(ip("127.0.0.1"), &h).ip, ip("127.0.0.1"));
        assert_eq!(parse_node("192.0.2.1:80"), Some(ip("192.0.2.1")));
        assert_eq!(parse_node("::ffff:192.0.2.1"), Some(ip("192.0.2.1")));
    }
}
