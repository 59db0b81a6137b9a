//! The public contract: every check id CHECKS.md lists for crawlability, search, semantics,
//! structured-data and i18n is registered once, under its category, with its default severity.

use crate::checks::catalogue;
use crate::model::Severity;

const CATEGORIES: [&str; 5] = ["crawlability", "search", "semantics", "structured-data", "i18n"];

/// (id, default severity) of every catalogue row of these categories in CHECKS.md.
fn rows(checks_md: &str) -> Vec<(String, Severity)> {
    checks_md
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let id = cells.get(1)?;
            let category = id.split_once('.')?.0;
            if !CATEGORIES.contains(&category) {
                return None;
            }
            let severity = cells.get(2)?.split('/').next()?.trim().parse().ok()?;
            Some((id.to_string(), severity))
        })
        .collect()
}

#[test]
fn every_listed_id_is_registered_with_its_severity() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/CHECKS.md");
    let checks_md = std::fs::read_to_string(path).expect("CHECKS.md beside the repository (../shared/CHECKS.md)");
    let listed = rows(&checks_md);
    assert_eq!(listed.len(), 52, "CHECKS.md rows for {CATEGORIES:?}: {listed:?}");
    for (id, severity) in &listed {
        let registered: Vec<_> = catalogue().filter(|m| m.id == id).collect();
        assert_eq!(registered.len(), 1, "{id} registered {} times", registered.len());
        assert_eq!(registered[0].severity, *severity, "{id}");
        assert!(registered[0].help_url.is_some(), "{id} has no help_url");
        assert!(!registered[0].evidence_keys.is_empty() && registered[0].evidence_keys[0] == "url", "{id} evidence starts with url");
    }
    // Nothing registered under these categories that CHECKS.md does not list.
    for meta in catalogue().filter(|m| CATEGORIES.contains(&m.category())) {
        assert!(listed.iter().any(|(id, _)| id == meta.id), "{} is not in CHECKS.md", meta.id);
    }
}
