//! `NetError`: what the network layer reports when it cannot (or must not) reach an address.

use std::net::IpAddr;

/// Errors of the network layer. Trouble on a target site is reported as data by the fetcher and
/// the proxy; these errors describe why one connection attempt was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// The egress policy refuses an address the host resolved to. The message names the host
    /// and the kind of range, never a resolved address (that would map a private network from
    /// outside); an IP literal is the host, so it is echoed as given. `addr` is for the
    /// operator's log only.
    #[error("{}", blocked_message(.host, .range))]
    Blocked { host: String, addr: IpAddr, range: &'static str },
    /// Name resolution failed.
    #[error("cannot resolve {host}: {message}")]
    Resolve { host: String, message: String },
    /// The name resolved to no address at all.
    #[error("{host} has no address")]
    NoAddress { host: String },
    /// Every checked address refused or failed the connection (`message` names no address).
    #[error("cannot connect to {host}:{port}: {message}")]
    Connect { host: String, port: u16, message: String },
    /// Resolution or connection did not finish in time.
    #[error("{what} {host}:{port} timed out")]
    Timeout { what: &'static str, host: String, port: u16 },
    /// The proxy could not bind its listener.
    #[error("cannot bind the egress proxy on {addr}: {source}")]
    Bind { addr: std::net::SocketAddr, source: std::io::Error },
    /// The HTTP client could not be built.
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
}

/// `db.corp resolves to a private address: refused by the egress policy`, or for an IP literal
/// `10.0.0.1 is a private address: ...`.
fn blocked_message(host: &str, range: &str) -> String {
    let literal = host.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>().is_ok();
    let verb = if literal { "is" } else { "resolves to" };
    format!("{host} {verb} {range}: refused by the egress policy")
}

impl NetError {
    /// True when the egress policy (not the network) refused the connection.
    pub fn is_blocked(&self) -> bool {
        matches!(self, NetError::Blocked { .. })
    }

    /// The Chromium net error a browser would have reported for this failure
    /// (`net::ERR_CONNECTION_REFUSED`, `net::ERR_NAME_NOT_RESOLVED`, ...).
    pub fn chromium_error(&self) -> &'static str {
        match self {
            NetError::Blocked { .. } => "net::ERR_BLOCKED_BY_ADMINISTRATOR",
            NetError::Resolve { .. } | NetError::NoAddress { .. } => "net::ERR_NAME_NOT_RESOLVED",
            NetError::Timeout { what: "resolving", .. } => "net::ERR_NAME_RESOLUTION_FAILED",
            NetError::Timeout { .. } => "net::ERR_CONNECTION_TIMED_OUT",
            NetError::Connect { message, .. } if message.contains("refused") => "net::ERR_CONNECTION_REFUSED",
            NetError::Connect { message, .. } if message.contains("timed out") => "net::ERR_CONNECTION_TIMED_OUT",
            NetError::Connect { message, .. } if message.contains("unreachable") => "net::ERR_ADDRESS_UNREACHABLE",
            _ => "net::ERR_CONNECTION_FAILED",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blocked_name_says_what_it_resolves_to_never_where() {
        let e = NetError::Blocked { host: "db-primary.corp".into(), addr: "10.20.30.40".parse().unwrap(), range: "a private address" };
        assert_eq!(e.to_string(), "db-primary.corp resolves to a private address: refused by the egress policy");
        let e = NetError::Blocked { host: "10.20.30.40".into(), addr: "10.20.30.40".parse().unwrap(), range: "a private address" };
        assert_eq!(e.to_string(), "10.20.30.40 is a private address: refused by the egress policy");
        let e = NetError::Blocked { host: "[fd00:ec2::254]".into(), addr: "fd00:ec2::254".parse().unwrap(), range: "a cloud metadata address" };
        assert_eq!(e.to_string(), "[fd00:ec2::254] is a cloud metadata address: refused by the egress policy");
    }
}
