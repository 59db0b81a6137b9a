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

/// A fast, lean page: good vitals, compressed and long-cached static files, a small DOM.
#[test]
fn clean_page_is_quiet() {
    use super::test_support::{page, response};
    use crate::checks::{Thresholds, run_page_checks};
    use crate::model::{LongTask, PageMetrics};

    let metrics = PageMetrics {
        ttfb_ms: Some(180.0),
        fcp_ms: Some(900.0),
        lcp_ms: Some(1400.0),
        cls: Some(0.02),
        tbt_ms: Some(80.0),
        long_tasks: vec![LongTask { start_ms: 1000.0, duration_ms: 120.0 }],
        transfer_bytes: 600_000,
        requests: 3,
        dom_elements: 700,
        dom_max_depth: 12,
        ..Default::default()
    };
    let long = &[("cache-control", "public, max-age=31536000, immutable"), ("content-encoding", "br")];
    let mut doc =
        response("https://example.com/page", "document", "text/html", 30_000, &[("content-encoding", "gzip")]);
    doc.is_navigation = true;
    doc.ttfb_ms = Some(180.0);
    let mut css = response("https://example.com/app.3f9a.css", "stylesheet", "text/css", 40_000, long);
    css.render_blocking = Some(true);
    css.start_ms = Some(200.0);
    css.end_ms = Some(400.0);
    let js = response("https://example.com/app.9c1e.js", "script", "text/javascript", 120_000, long);
    let p = page(metrics, vec![doc, css, js]);
    let findings: Vec<_> =
        run_page_checks(&p, &Thresholds::default()).into_iter().filter(|f| f.category() == "performance").collect();
    assert!(findings.is_empty(), "{findings:#?}");
}
