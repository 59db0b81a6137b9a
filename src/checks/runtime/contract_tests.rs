//! The runtime ids of CHECKS.md are registered, spelled exactly, with their default severities
//! (and CWE ids), in CHECKS.md order, and every runtime check is documented.

use crate::checks::{catalogue, find};
use crate::model::Severity;

/// CHECKS.md, runtime table: id and default severity (the first of a two-level pair).
const CONTRACT: &[(&str, Severity)] = &[
    ("runtime.uncaught-exception", Severity::High),
    ("runtime.unhandled-rejection", Severity::Medium),
    ("runtime.console-error", Severity::Medium),
    ("runtime.failed-request", Severity::Medium),
    ("runtime.mixed-content", Severity::High),
    ("runtime.deprecated-api", Severity::Low),
    ("runtime.csp-violation", Severity::Medium),
    ("runtime.missing-security-header", Severity::Low),
    ("runtime.insecure-cookie", Severity::Medium),
];

/// CWE ids CHECKS.md gives for this category.
const CWES: &[(&str, &str)] = &[
    ("runtime.mixed-content", "CWE-319"),
    ("runtime.missing-security-header", "CWE-693"),
    ("runtime.insecure-cookie", "CWE-614"),
];

#[test]
fn contract_ids_are_registered_with_their_default_severity() {
    for (id, severity) in CONTRACT {
        let meta = find(id).unwrap_or_else(|| panic!("{id} is not registered"));
        assert_eq!(meta.severity, *severity, "{id}");
    }
    for (id, cwe) in CWES {
        assert_eq!(find(id).and_then(|m| m.cwe_id), Some(*cwe), "{id}");
    }
}

#[test]
fn contract_ids_come_in_checks_md_order() {
    let registered: Vec<&str> = catalogue().map(|m| m.id).filter(|id| CONTRACT.iter().any(|(c, _)| c == id)).collect();
    let expected: Vec<&str> = CONTRACT.iter().map(|(id, _)| *id).collect();
    assert_eq!(registered, expected);
}

#[test]
fn every_runtime_check_is_documented() {
    let metas: Vec<_> = catalogue().filter(|m| m.category() == "runtime").collect();
    assert!(metas.len() >= CONTRACT.len());
    for meta in &metas {
        assert!(!meta.title.trim().is_empty() && meta.title.len() <= 80, "{}", meta.id);
        assert!(meta.fires_when.len() > 20, "{}", meta.id);
        assert!(meta.description.len() > 60, "{}", meta.id);
        assert!(meta.remediation.len() > 60, "{}", meta.id);
        assert!(meta.evidence_keys.first() == Some(&"url"), "{}: url comes first", meta.id);
        if let Some(cwe) = meta.cwe_id {
            assert!(cwe.strip_prefix("CWE-").is_some_and(|n| n.parse::<u32>().is_ok()), "{}", meta.id);
        }
        if let Some(url) = meta.help_url {
            assert!(url.starts_with("https://"), "{}", meta.id);
        }
        let name = &meta.id["runtime.".len()..];
        assert!(name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'), "{}", meta.id);
    }
}

/// A hardened https page: security headers, Secure+HttpOnly session cookie, only https
/// subresources that loaded, warnings but no errors in the console.
#[test]
fn clean_page_is_quiet() {
    use super::test_support::{page, request};
    use crate::checks::{Thresholds, run_page_checks};
    use crate::model::{ConsoleMessage, CookieSet, Header};

    let mut p = page();
    for (name, value) in [
        ("strict-transport-security", "max-age=63072000; includeSubDomains"),
        ("content-security-policy", "default-src 'self'; frame-ancestors 'self'"),
        ("x-content-type-options", "nosniff"),
    ] {
        p.response_headers.push(Header { name: name.into(), value: value.into() });
    }
    p.requests = vec![
        request("https://example.com/app.js", "script", Some(200)),
        request("https://example.com/logo.svg", "image", Some(200)),
        request("https://example.com/favicon.ico", "other", Some(404)),
    ];
    p.cookies = vec![
        CookieSet {
            name: "__Host-session".into(),
            set_by: "https://example.com/page".into(),
            secure: true,
            http_only: true,
            set_over_https: true,
            ..Default::default()
        },
        CookieSet { name: "theme".into(), secure: true, set_over_https: true, ..Default::default() },
    ];
    p.console = vec![ConsoleMessage {
        level: "warning".into(),
        source: "console".into(),
        text: "Slow network is detected.".into(),
        url: None,
        line: None,
    }];
    let findings: Vec<_> =
        run_page_checks(&p, &Thresholds::default()).into_iter().filter(|f| f.category() == "runtime").collect();
    assert!(findings.is_empty(), "{findings:#?}");
}
