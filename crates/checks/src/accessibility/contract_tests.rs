//! The accessibility ids of CHECKS.md are in the catalogue, spelled exactly, with their default
//! severities, and every accessibility entry is documented.

use crate::{catalogue, find};
use crate::model::Severity;

/// Our own checks (CHECKS.md, accessibility table).
const OWN: &[(&str, Severity)] = &[
    ("accessibility.focus-not-visible", Severity::High),
    ("accessibility.keyboard-trap", Severity::Critical),
    ("accessibility.zoom-disabled", Severity::High),
];

/// The axe ids CHECKS.md names as examples (severity from axe's impact).
const AXE_EXAMPLES: &[&str] = &[
    "accessibility.image-alt",
    "accessibility.color-contrast",
    "accessibility.label",
    "accessibility.button-name",
    "accessibility.link-name",
    "accessibility.html-has-lang",
    "accessibility.document-title",
    "accessibility.aria-valid-attr-value",
];

#[test]
fn own_ids_are_registered_with_their_default_severity() {
    for (id, severity) in OWN {
        let meta = find(id).unwrap_or_else(|| panic!("{id} is not registered"));
        assert_eq!(meta.severity, *severity, "{id}");
    }
}

#[test]
fn axe_example_ids_are_in_the_catalogue() {
    for id in AXE_EXAMPLES {
        let meta = find(id).unwrap_or_else(|| panic!("{id} is not in the catalogue"));
        assert!(meta.help_url.is_some(), "{id}");
    }
    // The mapper itself is not a public id.
    assert!(find(super::AXE_MAPPER_ID).is_none());
    assert!(catalogue().all(|m| m.id != super::AXE_MAPPER_ID));
}

#[test]
fn catalogue_keeps_accessibility_entries_together() {
    let categories: Vec<&str> = catalogue().map(|m| m.category()).collect();
    let first = categories.iter().position(|c| *c == "accessibility").expect("accessibility entries");
    let last = categories.iter().rposition(|c| *c == "accessibility").expect("accessibility entries");
    assert!(categories[first..=last].iter().all(|c| *c == "accessibility"));
    assert!(last - first > 50, "axe rules are listed");
}

#[test]
fn every_accessibility_entry_is_documented() {
    let mut ids = Vec::new();
    for meta in catalogue().filter(|m| m.category() == "accessibility") {
        assert!(!meta.title.trim().is_empty(), "{}", meta.id);
        assert!(!meta.fires_when.trim().is_empty(), "{}", meta.id);
        assert!(!meta.description.trim().is_empty(), "{}", meta.id);
        assert!(!meta.remediation.trim().is_empty(), "{}", meta.id);
        assert!(meta.evidence_keys.contains(&"url"), "{}", meta.id);
        let name = &meta.id["accessibility.".len()..];
        assert!(name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'), "{}", meta.id);
        ids.push(meta.id);
    }
    let total = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), total, "duplicate accessibility ids");
}

/// A page whose axe run found only "incomplete" results, whose every Tab stop shows focus, and
/// whose viewport allows zoom.
#[test]
fn clean_page_is_quiet() {
    use super::test_support::page;
    use crate::{Thresholds, run_page_checks};
    use crate::model::{AxeResults, AxeRule, DomFacts, FocusStep, KeyboardWalk, MetaTag};

    let mut p = page(DomFacts {
        metas: vec![MetaTag {
            name: Some("viewport".into()),
            content: Some("width=device-width, initial-scale=1".into()),
            selector: "meta[name=viewport]".into(),
            ..Default::default()
        }],
        ..Default::default()
    });
    p.axe = Some(AxeResults {
        version: "4.14.1".into(),
        violations: vec![],
        incomplete: vec![AxeRule { id: "color-contrast".into(), impact: Some("serious".into()), ..Default::default() }],
        error: None,
    });
    let step = |s: &str| FocusStep {
        selector: s.into(),
        snippet: format!("<a id=\"{s}\">"),
        tag: "a".into(),
        visible_change: true,
        method: "pixels".into(),
    };
    p.keyboard = Some(KeyboardWalk {
        steps: vec![step("#a"), step("#b")],
        trapped_at: None,
        focusable_count: 2,
        ..Default::default()
    });
    let findings: Vec<_> =
        run_page_checks(&p, &Thresholds::default()).findings.into_iter().filter(|f| f.category() == "accessibility").collect();
    assert!(findings.is_empty(), "{findings:#?}");
}
