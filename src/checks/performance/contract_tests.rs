//! The performance ids of CHECKS.md are registered, spelled exactly, with their default severities
//! (and CWE ids), in CHECKS.md order, and every performance check is documented.

use crate::checks::{catalogue, find};
use crate::model::Severity;

/// CHECKS.md, performance table: id and default severity (the first of a two-level pair).
const CONTRACT: &[(&str, Severity)] = &[
    ("performance.lcp", Severity::High),
    ("performance.cls", Severity::High),
    ("performance.tbt", Severity::High),
    ("performance.fcp", Severity::Medium),
    ("performance.ttfb", Severity::Medium),
    ("performance.page-weight", Severity::Medium),
    ("performance.request-count", Severity::Low),
    ("performance.render-blocking", Severity::Medium),
    ("performance.uncompressed-text", Severity::Medium),
    ("performance.cache-policy", Severity::Low),
    ("performance.dom-size", Severity::Low),
    ("performance.long-task", Severity::Low),
];

/// CWE ids CHECKS.md gives for this category.
const CWES: &[(&str, &str)] = &[];

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
fn every_performance_check_is_documented() {
    let metas: Vec<_> = catalogue().filter(|m| m.category() == "performance").collect();
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
        let name = &meta.id["performance.".len()..];
        assert!(name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'), "{}", meta.id);
    }
}
