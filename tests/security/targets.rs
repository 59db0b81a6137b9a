//! Hostile targets refused at submission: a generated matrix of every blocked IPv4 range (first,
//! middle and last address) in every spelling a URL parser accepts (dotted, decimal, hex, octal,
//! dotted hex/octal, 2- and 3-part, percent-encoded, fullwidth, trailing dot, IPv4-mapped,
//! -compatible, NAT64 and 6to4 IPv6), every blocked IPv6 range, `localhost` and the local
//! suffixes, userinfo tricks, schemes other than http(s), over-long URLs, IDN and
//! percent-encoding tricks. Each one is POSTed: 400 `invalid_input` naming `target`, and nothing
//! is created. Look-alikes that name a public host are accepted, and normalised to that host.

use crate::app;

use serde_json::json;
use sitescan::model::{AddressPolicy, Target};
use std::net::{Ipv4Addr, Ipv6Addr};

/// Every blocked IPv4 range of the address policy (base, prefix).
const V4_RANGES: &[([u8; 4], u32)] = &[
    ([0, 0, 0, 0], 8),
    ([10, 0, 0, 0], 8),
    ([100, 64, 0, 0], 10),
    ([127, 0, 0, 0], 8),
    ([169, 254, 0, 0], 16),
    ([172, 16, 0, 0], 12),
    ([192, 0, 0, 0], 24),
    ([192, 0, 2, 0], 24),
    ([192, 88, 99, 0], 24),
    ([192, 168, 0, 0], 16),
    ([198, 18, 0, 0], 15),
    ([198, 51, 100, 0], 24),
    ([203, 0, 113, 0], 24),
    ([224, 0, 0, 0], 4),
    ([240, 0, 0, 0], 4),
    ([255, 255, 255, 255], 32),
];

/// Every blocked IPv6 range (base, prefix).
const V6_RANGES: &[(&str, u32)] = &[
    ("::", 128),
    ("::1", 128),
    // ::/96 (IPv4-compatible) is judged as the IPv4 address it carries: the `[::a.b.c.d]`
    // spelling of every blocked IPv4 sample above covers it.
    ("100::", 64),
    ("2001::", 23),
    ("2001:db8::", 32),
    ("3fff::", 20),
    ("fc00::", 7),
    ("fe80::", 10),
    ("fec0::", 10),
    ("ff00::", 8),
];

fn v4_samples((base, prefix): ([u8; 4], u32)) -> Vec<Ipv4Addr> {
    let base = u64::from(u32::from(Ipv4Addr::from(base)));
    let size: u64 = (1u64 << (32 - prefix)) - 1;
    let at = |x: u64| Ipv4Addr::from(x as u32);
    let mut out = vec![at(base), at(base + size.div_ceil(2)), at(base + size)];
    out.dedup();
    out
}

fn v6_samples((base, prefix): (&str, u32)) -> Vec<Ipv6Addr> {
    let base = u128::from(base.parse::<Ipv6Addr>().unwrap());
    let size: u128 = if prefix == 128 { 0 } else { (1u128 << (128 - prefix)) - 1 };
    let mut out = vec![Ipv6Addr::from(base), Ipv6Addr::from(base + size.div_ceil(3)), Ipv6Addr::from(base + size)];
    out.dedup();
    // `::` and `::1` are their own ranges; the /96 samples must not repeat them.
    out
}

fn fullwidth(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '0'..='9' => char::from_u32(0xFF10 + (c as u32 - '0' as u32)).unwrap(),
            '.' => '\u{FF0E}',
            c => c,
        })
        .collect()
}

/// Every spelling of one IPv4 address that a WHATWG parser reads as that address.
fn v4_spellings(ip: Ipv4Addr) -> Vec<String> {
    let [a, b, c, d] = ip.octets();
    let n = u32::from(ip);
    let dotted = ip.to_string();
    let pct: String = dotted.bytes().map(|x| format!("%{x:02X}")).collect();
    let mut hosts = vec![
        dotted.clone(),
        format!("{n}"),
        format!("0x{n:x}"),
        format!("0X{n:08X}"),
        format!("0{n:o}"),
        format!("0x{a:x}.0x{b:x}.0x{c:x}.0x{d:x}"),
        format!("0{a:o}.0{b:o}.0{c:o}.0{d:o}"),
        format!("{a}.{b}.{}", (c as u32) << 8 | d as u32),
        format!("{a}.{}", (b as u32) << 16 | (c as u32) << 8 | d as u32),
        format!("0x{a:x}.{b}.0{c:o}.{d}"),
        format!("{dotted}."),
        pct,
        fullwidth(&dotted),
        dotted.replace('.', "\u{3002}"),
        format!("[::ffff:{dotted}]"),
        format!("[::ffff:{:x}:{:x}]", n >> 16, n & 0xffff),
        format!("[0:0:0:0:0:ffff:{dotted}]"),
        format!("[0000:0000:0000:0000:0000:FFFF:{:04X}:{:04X}]", n >> 16, n & 0xffff),
        format!("[::{dotted}]"),
        format!("[64:ff9b::{dotted}]"),
        format!("[64:ff9b:1::{dotted}]"),
        format!("[2002:{:x}:{:x}::1]", n >> 16, n & 0xffff),
    ];
    hosts.dedup();
    let mut out = Vec::new();
    for (i, h) in hosts.iter().enumerate() {
        // Rotate through the URL shapes so every spelling is tried with a scheme, a port, a path.
        out.push(match i % 4 {
            0 => format!("http://{h}/"),
            1 => format!("HTTPS://{h}:8443/latest/meta-data/"),
            2 => format!("http://{h}:80/?q=1#frag"),
            _ => format!("https://{h}"),
        });
    }
    out.push(format!("{dotted}:8080/path"));
    out
}

fn v6_spellings(ip: Ipv6Addr) -> Vec<String> {
    let s = ip.segments();
    let full = s.iter().map(|x| format!("{x:04x}")).collect::<Vec<_>>().join(":");
    vec![
        format!("http://[{ip}]/"),
        format!("https://[{}]:444/x", full.to_uppercase()),
        format!("[{ip}]:8080"),
    ]
}

/// The matrix: (group, target). Every one must be refused.
fn refused_matrix() -> Vec<(&'static str, String)> {
    let mut m: Vec<(&'static str, String)> = Vec::new();
    for range in V4_RANGES {
        for ip in v4_samples(*range) {
            for t in v4_spellings(ip) {
                m.push(("ipv4 ranges and spellings", t));
            }
        }
    }
    for range in V6_RANGES {
        for ip in v6_samples(*range) {
            for t in v6_spellings(ip) {
                m.push(("ipv6 ranges", t));
            }
        }
    }
    for t in [
        "localhost", "LOCALHOST", "localhost.", "http://localhost/", "http://localhost:8080/", "https://LocalHost./x", "http://a.localhost/",
        "http://x.y.localhost./", "http://local%68ost/", "http://%6c%6f%63%61%6c%68%6f%73%74/", "http://ｌｏｃａｌｈｏｓｔ/",
        "http://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/", "http://a.ｌｏｃａｌｈｏｓｔ/", "http://localhost%2e/", "http://LOCALHOST\u{3002}/", "http://printer/",
        "intranet", "http://intranet:8080/", "http://nas.local/", "http://db.internal/", "http://router.localdomain/",
        "http://hub.home.arpa/", "http://metadata.google.internal/computeMetadata/v1/",
    ] {
        m.push(("localhost and local names", t.to_string()));
    }
    for t in [
        "http://public@127.0.0.1/",
        "http://example.com@127.0.0.1/",
        "http://example.com:80@127.0.0.1/",
        "http://user:pass@example.com/",
        "https://user@example.com/",
        "http://:pw@example.com/",
        "http://a@b@127.0.0.1/",
        "http://example.com%40127.0.0.1/",
        "http://127.0.0.1#@example.com/",
        "http://127.0.0.1?@example.com/",
        "http://127.0.0.1\\@example.com/",
        "http://169.254.169.254%23@example.com/",
        "http://[::1]@example.com/",
        "http://example.com\u{FF20}127.0.0.1/",
    ] {
        m.push(("userinfo tricks", t.to_string()));
    }
    for t in [
        "javascript:alert(1)", "JAVASCRIPT:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)", "data:text/html,<script>1</script>",
        "file:///etc/passwd", "file://localhost/etc/passwd", "ftp://example.com/", "gopher://example.com:70/_GET", "dict://example.com:11211/stats",
        "ldap://example.com/", "ws://example.com/", "wss://example.com/", "chrome://crash", "about:blank", "view-source:http://example.com/",
        "blob:http://example.com/uuid", "jar:http://example.com/!/", "tel:+123", "mailto:a@example.com", "sftp://example.com/", "smb://example.com/share",
        "httpx://example.com/", "http+unix://%2Fvar%2Frun%2Fdocker.sock/", "feed:http://example.com/", "urn:isbn:123",
    ] {
        m.push(("schemes", t.to_string()));
    }
    for n in [2049usize, 4096, 60_000] {
        m.push(("over-long", format!("https://example.com/{}", "a".repeat(n - "https://example.com/".len()))));
    }
    m.push(("over-long", format!("https://{}.example.com/", "a".repeat(2100))));
    // 2048 characters as typed, longer once normalised (an IDN host grows under punycode).
    m.push(("over-long", format!("https://bücher.de/{}", "é".repeat(1020))));
    for t in [
        "http://%31%32%37%2e%30%2e%30%2e%31/",
        "http://%2531%2532%2537.0.0.1/",
        "http://127.0.0.1%00.example.com/",
        "http://127%2E0%2E0%2E1/",
        "http://①②⑦.⓪.⓪.①/",
        "http://127.0.0.1%0d%0a.example.com/",
        "http://xn--/",
        "http://exa mple.com/",
        "http://example.com\u{0}/",
        "http://\u{200B}127.0.0.1/",
        "http://[::1%25eth0]/",
        "http://[fe80::1%25lo]/",
        "http://[::ffff:127.0.0.1%5D/",
        "http://0x7f.0x0.0x0.0x1.xn--/",
        "http://",
        "http:///path",
        "http://:80/",
        "//127.0.0.1/",
        "",
        "   ",
    ] {
        m.push(("percent-encoding, IDN and malformed", t.to_string()));
    }
    m
}

/// Look-alikes of tricks that name a public host: accepted, normalised to that host.
const ACCEPTED: &[(&str, &str)] = &[
    ("http://example.com#@127.0.0.1/", "http://example.com/"),
    ("http://example.com?@127.0.0.1/", "http://example.com/?@127.0.0.1/"),
    ("http://example.com\\@127.0.0.1/", "http://example.com/@127.0.0.1/"),
    ("http://127.0.0.1.nip.io/", "http://127.0.0.1.nip.io/"),
    ("https://xn--bcher-kva.de/", "https://xn--bcher-kva.de/"),
    ("https://BÜCHER.de", "https://xn--bcher-kva.de/"),
    ("http://8.8.8.8/", "http://8.8.8.8/"),
    ("http://[::ffff:8.8.8.8]/", "http://[::ffff:808:808]/"),
    ("http://134744072/", "http://8.8.8.8/"),
    ("http://172.32.0.1/", "http://172.32.0.1/"),
    ("http://100.128.0.1/", "http://100.128.0.1/"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_hostile_target_is_refused_at_submission_and_creates_nothing() {
    let app = app::spawn_app().await;
    let token = app.token("acme").await;
    let matrix = refused_matrix();
    let policy = AddressPolicy::default();
    let mut per_group: Vec<(&str, usize)> = Vec::new();
    let mut failures = Vec::new();
    for (group, target) in &matrix {
        let r = app.post("/api/v1/scans", &token, &json!({ "target": target }).to_string()).await;
        let ok = r.status.as_u16() == 400
            && r.json["error"] == "invalid_input"
            && r.json["issues"].as_array().is_some_and(|i| i.iter().any(|i| i["path"] == "target"));
        if !ok {
            failures.push(format!("{group}: {:?} -> {} {}", short(target), r.status, r.text.chars().take(200).collect::<String>()));
        }
        // The domain type refuses it too (the gRPC path and the CLI use it).
        if Target::parse(target, &policy).is_ok() {
            failures.push(format!("{group}: Target::parse accepted {:?}", short(target)));
        }
        match per_group.iter_mut().find(|(g, _)| g == group) {
            Some((_, n)) => *n += 1,
            None => per_group.push((group, 1)),
        }
    }
    assert!(failures.is_empty(), "{} of {} hostile targets were not refused:\n{}", failures.len(), matrix.len(), failures.join("\n"));
    assert_eq!(app.count_scans().await, 0, "a refused request must create nothing");
    assert!(matrix.len() >= 800, "the matrix is as large as documented: {}", matrix.len());
    eprintln!("targets: {} hostile targets refused (400 invalid_input, nothing created): {per_group:?}", matrix.len());

    for (input, normalised) in ACCEPTED {
        let body = app.create_scan(&token, input).await;
        assert_eq!(body["target"], *normalised, "{input:?}");
    }
    assert_eq!(app.count_scans().await, ACCEPTED.len() as i64);
}

/// Anything `Target::parse` accepts is http(s), credential-free, at most 2048 characters, never
/// a local name or a blocked IP literal, and a fixed point of normalisation. The same property
/// the fuzz target `target_parse` checks on random input; here over the matrix and variants.
#[test]
fn accepted_targets_are_safe_and_normalisation_is_idempotent() {
    let policy = AddressPolicy::default();
    let mut inputs: Vec<String> = refused_matrix().into_iter().map(|(_, t)| t).collect();
    inputs.extend(ACCEPTED.iter().map(|(i, _)| i.to_string()));
    let more: Vec<String> = inputs.iter().flat_map(|t| [t.to_uppercase(), t.replace("http://", ""), format!("{t}/x/../y")]).collect();
    inputs.extend(more);
    let mut accepted = 0;
    for input in &inputs {
        if let Ok(t) = Target::parse(input, &policy) {
            accepted += 1;
            sitescan_invariants(&t, &policy);
        }
    }
    assert!(accepted >= ACCEPTED.len(), "{accepted}");
}

fn short(s: &str) -> String {
    if s.chars().count() > 120 { format!("{}... ({} chars)", s.chars().take(100).collect::<String>(), s.chars().count()) } else { s.to_string() }
}

fn sitescan_invariants(t: &Target, policy: &AddressPolicy) {
    let u = t.url();
    assert!(matches!(u.scheme(), "http" | "https"), "{t}");
    assert!(u.username().is_empty() && u.password().is_none(), "{t}");
    assert!(t.as_str().chars().count() <= sitescan::model::MAX_TARGET_LEN, "{t}");
    match u.host() {
        Some(url::Host::Ipv4(ip)) => assert!(policy.is_allowed(ip.into()), "{t}"),
        Some(url::Host::Ipv6(ip)) => assert!(policy.is_allowed(ip.into()), "{t}"),
        Some(url::Host::Domain(d)) => assert!(d.contains('.') && !d.trim_end_matches('.').ends_with("localhost"), "{t}"),
        None => panic!("{t} has no host"),
    }
    let again = Target::parse(t.as_str(), policy).expect("a normalised target parses again");
    assert_eq!(again.as_str(), t.as_str(), "normalisation is idempotent");
}
