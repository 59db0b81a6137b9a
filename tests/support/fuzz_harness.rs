//! Fuzz harnesses shared by the `cargo fuzz` targets in `fuzz/fuzz_targets/` and the plain test
//! `tests/security/fuzz.rs` (which runs them over the seed corpus and generated mutations on the
//! stable toolchain). Each takes arbitrary bytes, must never panic, and checks the properties
//! that make the parser safe to feed with a stranger's input.

#![allow(dead_code)]

use sitescan::model::{AddressPolicy, MAX_TARGET_LEN, Target};
use sitescan::crawl::site_gather::RobotsRules;
use sitescan::crawl::sitemap_parse::{MAX_URLS_KEPT, parse_sitemap};
use sitescan_store::{CursorCodec, CursorKind, Position};

/// `Target::parse`: anything accepted is http(s), without credentials, at most 2048 characters,
/// never a local name or a blocked address, and normalising it again changes nothing.
pub fn target_parse(data: &[u8]) {
    let Ok(input) = std::str::from_utf8(data) else { return };
    let policy = AddressPolicy::default();
    let allow_loopback = AddressPolicy::new(vec!["127.0.0.1/32".parse().unwrap()]);
    for p in [&policy, &allow_loopback] {
        let Ok(t) = Target::parse(input, p) else { continue };
        let u = t.url();
        assert!(matches!(u.scheme(), "http" | "https"), "{input:?} -> {t}");
        assert!(u.username().is_empty() && u.password().is_none(), "{input:?} -> {t}");
        assert!(t.as_str().chars().count() <= MAX_TARGET_LEN, "{input:?}");
        assert!(u.fragment().is_none(), "{input:?} -> {t}");
        match u.host() {
            Some(url::Host::Ipv4(ip)) => assert!(p.is_allowed(ip.into()), "{input:?} -> {t}"),
            Some(url::Host::Ipv6(ip)) => assert!(p.is_allowed(ip.into()), "{input:?} -> {t}"),
            Some(url::Host::Domain(d)) => {
                let d = d.trim_end_matches('.').to_ascii_lowercase();
                assert!(d.contains('.') && d != "localhost" && !d.ends_with(".localhost"), "{input:?} -> {t}");
            }
            None => panic!("{input:?} -> {t} has no host"),
        }
        let again = Target::parse(t.as_str(), p).unwrap_or_else(|e| panic!("{input:?} -> {t} does not parse again: {e}"));
        assert_eq!(again.as_str(), t.as_str(), "normalisation is idempotent for {input:?}");
        assert!(!t.hostname().is_empty());
    }
}

/// Cursor decoding: arbitrary strings never panic and are refused unless they are a cursor this
/// key issued; a decoded cursor re-encodes to itself.
pub fn cursor_decode(data: &[u8]) {
    let codec = CursorCodec::new(b"fuzz-key");
    let s = String::from_utf8_lossy(data);
    for kind in [CursorKind::Scans, CursorKind::Findings] {
        if let Ok(pos) = codec.decode(kind, &s) {
            assert_eq!(codec.encode(kind, pos), s, "only issued cursors decode");
        }
    }
    // Round trip of a position made from the bytes.
    if data.len() >= 24 {
        let created_at = i64::from_le_bytes(data[..8].try_into().unwrap());
        let id = uuid::Uuid::from_slice(&data[8..24]).unwrap();
        let pos = Position { created_at, id };
        let c = codec.encode(CursorKind::Findings, pos);
        assert_eq!(codec.decode(CursorKind::Findings, &c), Ok(pos));
        assert!(codec.decode(CursorKind::Scans, &c).is_err(), "a findings cursor is refused by the scans list");
        assert!(CursorCodec::new(b"other").decode(CursorKind::Findings, &c).is_err());
    }
}

/// robots.txt as the crawler obeys it and as the checks read it (one parser, `model::robots`).
pub fn robots_txt(data: &[u8]) {
    let rules = RobotsRules::parse(data);
    for path in ["/", "/a/b?c=d", "/%F0%9F%98%80", "/private/x", "/*$"] {
        let url = url::Url::parse(&format!("https://example.com{path}")).unwrap();
        let _ = rules.allowed(&url);
    }
    let _ = rules.crawl_delay();
    let text_len = String::from_utf8_lossy(data).len();
    assert!(rules.sitemaps().iter().map(String::len).sum::<usize>() <= text_len, "sitemap lines come from the input");
    robots_lines(data);
}

/// The check's robots.txt line parser: rules and problems point at real lines.
pub fn robots_lines(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let parsed = sitescan::model::robots::parse(&text);
    let lines = text.lines().count().max(1);
    for g in &parsed.groups {
        for r in &g.rules {
            assert!(r.line >= 1 && r.line <= lines, "rule line {} of {lines}", r.line);
        }
        let _ = sitescan::model::robots::blocks_all(&g.rules.iter().collect::<Vec<_>>());
    }
    for p in &parsed.problems {
        assert!(p.line >= 1 && p.line <= lines, "problem line {} of {lines}", p.line);
    }
    for agent in ["sitescan", "*", "googlebot"] {
        let _ = parsed.rules_for(agent);
    }
}

/// Sitemaps: bounded output, no entity expansion (the URLs hold no more text than the input).
pub fn sitemap(data: &[u8]) {
    let parsed = parse_sitemap(data);
    assert!(parsed.locs.len() <= MAX_URLS_KEPT);
    assert!(parsed.count >= parsed.locs.len());
    let text: usize = parsed.locs.iter().map(String::len).sum();
    assert!(text <= data.len() * 3 + 16, "{text} bytes of URLs out of {} bytes of input: entities expanded", data.len());
    if parsed.error.is_none() {
        assert!(parsed.root.is_some());
    }
}

/// Every harness by name (the fuzz target names).
pub const HARNESSES: &[(&str, fn(&[u8]))] = &[
    ("target_parse", target_parse),
    ("cursor_decode", cursor_decode),
    ("robots_txt", robots_txt),
    ("robots_lines", robots_lines),
    ("sitemap", sitemap),
];
