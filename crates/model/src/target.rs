//! `Target`: a scan target parsed once, at the edge, into its normalised WHATWG form.

use super::address_policy::AddressPolicy;
use std::fmt;
use std::net::IpAddr;

/// The most pages one scan may render (an operator's `--max-pages`, a request's `max_pages`).
pub const MAX_PAGES_LIMIT: usize = 10_000;
use url::{Host, Url};

/// The longest target accepted, in characters.
pub const MAX_TARGET_LEN: usize = 2048;

/// Host suffixes that never name a public site.
const LOCAL_SUFFIXES: [&str; 5] = [".localhost", ".local", ".internal", ".localdomain", ".home.arpa"];

/// A validated, normalised scan target (http or https, no credentials, a real host).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    url: Url,
}

/// Why a target was refused. The message is shown to the API caller.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    #[error("target is required")]
    Empty,
    #[error("target is longer than {MAX_TARGET_LEN} characters")]
    TooLong,
    #[error("target is not a valid URL: {0}")]
    Malformed(String),
    #[error("scheme {0:?} is not allowed: use http or https")]
    Scheme(String),
    #[error("credentials in the URL are not allowed")]
    Credentials,
    #[error("target has no host")]
    NoHost,
    #[error("{0} is not a public hostname")]
    LocalHost(String),
    #[error("{ip} is {range} and is not allowed as a target")]
    BlockedAddress { ip: IpAddr, range: &'static str },
}

impl Target {
    /// Parses a URL or a bare hostname (`example.com` becomes `https://example.com/`) and applies
    /// the address policy to IP literals. Hostnames are resolved later, by the egress guard.
    pub fn parse(input: &str, policy: &AddressPolicy) -> Result<Target, TargetError> {
        let input = input.trim();
        if input.is_empty() {
            return Err(TargetError::Empty);
        }
        if input.chars().count() > MAX_TARGET_LEN {
            return Err(TargetError::TooLong);
        }
        if input.chars().any(|c| c.is_control() || c.is_whitespace()) {
            return Err(TargetError::Malformed("contains whitespace or control characters".into()));
        }
        let with_scheme = match explicit_scheme(input) {
            Some(scheme) if scheme != "http" && scheme != "https" => {
                return Err(TargetError::Scheme(scheme));
            }
            Some(_) => input.to_string(),
            None => format!("https://{input}"),
        };
        let mut url = Url::parse(&with_scheme).map_err(|e| TargetError::Malformed(e.to_string()))?;
        if url.scheme() != "http" && url.scheme() != "https" {
            return Err(TargetError::Scheme(url.scheme().to_string()));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(TargetError::Credentials);
        }
        url.set_fragment(None);
        match url.host() {
            None => return Err(TargetError::NoHost),
            Some(Host::Domain(domain)) => check_domain(domain)?,
            Some(Host::Ipv4(ip)) => check_ip(IpAddr::V4(ip), policy)?,
            Some(Host::Ipv6(ip)) => check_ip(IpAddr::V6(ip), policy)?,
        }
        if url.as_str().chars().count() > MAX_TARGET_LEN {
            return Err(TargetError::TooLong);
        }
        Ok(Target { url })
    }

    pub fn url(&self) -> &Url {
        &self.url
    }

    pub fn as_str(&self) -> &str {
        self.url.as_str()
    }

    /// The host without IPv6 brackets (`example.com`, `127.0.0.1`, `::1`).
    pub fn hostname(&self) -> String {
        match self.url.host() {
            Some(Host::Ipv6(ip)) => ip.to_string(),
            Some(host) => host.to_string(),
            None => String::new(),
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.url.as_str())
    }
}

/// The scheme the input names explicitly, lowercased; `None` for a bare host (`example.com`,
/// `example.com:8080/path`).
fn explicit_scheme(input: &str) -> Option<String> {
    let colon = input.find(':')?;
    let (head, rest) = (&input[..colon], &input[colon + 1..]);
    let is_scheme = head.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && head.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !is_scheme || head.contains('/') {
        return None;
    }
    if rest.starts_with("//") {
        return Some(head.to_ascii_lowercase());
    }
    // `host:8080` or `host:8080/path` is a bare host with a port.
    let port: String = rest.chars().take_while(|c| *c != '/' && *c != '?' && *c != '#').collect();
    if !port.is_empty() && port.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some(head.to_ascii_lowercase())
}

fn check_domain(domain: &str) -> Result<(), TargetError> {
    let lower = domain.trim_end_matches('.').to_ascii_lowercase();
    let local = lower == "localhost" || LOCAL_SUFFIXES.iter().any(|s| lower.ends_with(s));
    if local || !lower.contains('.') {
        return Err(TargetError::LocalHost(domain.to_string()));
    }
    Ok(())
}

fn check_ip(ip: IpAddr, policy: &AddressPolicy) -> Result<(), TargetError> {
    policy.check(ip).map_err(|range| TargetError::BlockedAddress { ip, range: range.describe() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<String, TargetError> {
        Target::parse(s, &AddressPolicy::default()).map(|t| t.to_string())
    }

    #[test]
    fn normalises_to_whatwg_form() {
        assert_eq!(parse("Example.com").unwrap(), "https://example.com/");
        assert_eq!(parse("example.com:8080/a?b#c").unwrap(), "https://example.com:8080/a?b");
        assert_eq!(parse("HTTP://EXAMPLE.com:80").unwrap(), "http://example.com/");
        assert_eq!(parse("https://example.com:443/x").unwrap(), "https://example.com/x");
        assert_eq!(parse("https://bücher.de").unwrap(), "https://xn--bcher-kva.de/");
        assert_eq!(parse("  example.org  ").unwrap(), "https://example.org/");
    }

    #[test]
    fn refuses_bad_targets() {
        for bad in [
            "", "javascript:alert(1)", "ftp://example.com/", "file:///etc/passwd", "mailto:a@b.c",
            "http://user:pw@example.com/", "http://public@127.0.0.1/", "http://localhost/",
            "http://a.localhost/", "http://127.0.0.1/", "http://2130706433/", "http://0x7f.1/",
            "http://0177.0.0.1/", "http://[::1]/", "http://[::ffff:127.0.0.1]/", "http://10.0.0.1/",
            "http://169.254.169.254/latest", "http://%31%32%37.0.0.1/", "intranet", "http://",
            "data:text/html,hi", "http://exa mple.com/",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} should be refused, got {:?}", parse(bad));
        }
        assert_eq!(parse(&format!("https://example.com/{}", "a".repeat(2100))), Err(TargetError::TooLong));
    }

    #[test]
    fn allow_list_opens_loopback() {
        let policy = AddressPolicy::new(vec!["127.0.0.1/32".parse().unwrap()]);
        let t = Target::parse("http://127.0.0.1:8081/start", &policy).unwrap();
        assert_eq!(t.as_str(), "http://127.0.0.1:8081/start");
        assert_eq!(t.hostname(), "127.0.0.1");
        assert!(Target::parse("http://localhost:8081/", &policy).is_err());
    }
}
