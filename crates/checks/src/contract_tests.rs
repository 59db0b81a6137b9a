//! The public contract, read from `docs/contract/CHECKS.md` (the team's catalogue, copied into the repo):
//! every listed id of every category is registered exactly once, spelled exactly, with its default
//! severity and CWE, in CHECKS.md order; every registered check is documented; anything registered
//! beyond CHECKS.md is a deliberate, listed addition.

use crate::{catalogue, find};
use crate::model::{ACTIVE_ONLY_CATEGORIES, PASSIVE_CATEGORIES, Severity};

/// Checks we ship beyond the minimum catalogue (kept deliberately; never renamed).
const ADDITIONS: &[&str] = &[
    "crawlability.page-load-failed",
    // Issue 46: barriers no markup rule reports (form labels, groups and hints).
    "forms.label-placeholder-only",
    "forms.label-multiple",
    "forms.label-duplicate-text",
    "forms.hint-not-described",
    "forms.choice-group-unnamed",
    // Barriers of the GDS accessibility audit no rule reported.
    "forms.fieldset-legend-missing",
    "media.transcript-missing",
    // Language of parts and text direction, judged per passage.
    "i18n.lang-wrong",
    "i18n.lang-part-missing",
    "i18n.text-direction-wrong",
];

/// Active-only ids CHECKS.md lists that are not built yet; they must not be registered as
/// stand-ins. Remove an id from here when its check lands.
const NOT_YET_BUILT: &[&str] = &[];

fn known_category(category: &str) -> bool {
    PASSIVE_CATEGORIES.contains(&category) || ACTIVE_ONLY_CATEGORIES.contains(&category)
}

/// Axe rule ids CHECKS.md names as examples; they must be in the catalogue.
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

struct Row {
    id: String,
    severity: Severity,
    cwes: Vec<String>,
}

/// Every `| id | severity | fires when |` row of CHECKS.md.
fn rows() -> Vec<Row> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/contract/CHECKS.md"))
        .expect("docs/contract/CHECKS.md (the catalogue contract)");
    let cwe = regex::Regex::new(r"CWE-\d+").expect("regex");
    text.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let id = *cells.get(1)?;
            let (category, name) = id.split_once('.')?;
            if !known_category(category) || name.is_empty() || id.contains(' ') {
                return None;
            }
            let severity = cells.get(2)?.split('/').next()?.trim().parse().ok()?;
            let cwes = cwe.find_iter(cells.get(3).unwrap_or(&"")).map(|m| m.as_str().to_string()).collect();
            Some(Row { id: id.to_string(), severity, cwes })
        })
        .collect()
}

#[test]
fn every_listed_id_is_registered_once_with_its_severity_and_cwe() {
    let rows = rows();
    assert!(rows.len() >= 90, "CHECKS.md has {} rows; the parser is broken", rows.len());
    for row in rows.iter().filter(|r| !NOT_YET_BUILT.contains(&r.id.as_str())) {
        let registered: Vec<_> = catalogue().filter(|m| m.id == row.id).collect();
        assert_eq!(registered.len(), 1, "{} registered {} times", row.id, registered.len());
        let meta = registered[0];
        assert_eq!(meta.severity, row.severity, "{}: default severity", row.id);
        if !row.cwes.is_empty() {
            let cwe = meta.cwe_id.unwrap_or_else(|| panic!("{} has no CWE; CHECKS.md gives {:?}", row.id, row.cwes));
            assert!(row.cwes.iter().any(|c| c == cwe), "{}: {cwe} is not one of {:?}", row.id, row.cwes);
        }
    }
}

#[test]
fn listed_ids_come_in_checks_md_order_and_nothing_else_is_registered() {
    let rows = rows();
    let listed: Vec<&str> = rows.iter().map(|r| r.id.as_str()).filter(|id| !NOT_YET_BUILT.contains(id)).collect();
    let registered: Vec<&str> = catalogue().map(|m| m.id).filter(|id| listed.contains(id)).collect();
    assert_eq!(registered, listed, "the registry keeps CHECKS.md's order");
    for meta in catalogue() {
        let axe_rule = meta.category() == "accessibility" && !rows.iter().any(|r| r.id == meta.id);
        assert!(
            listed.contains(&meta.id) || ADDITIONS.contains(&meta.id) || axe_rule,
            "{} is registered but neither in CHECKS.md nor a listed addition",
            meta.id
        );
    }
    for id in AXE_EXAMPLES {
        assert!(find(id).is_some(), "{id} (axe rule named in CHECKS.md) is in the catalogue");
    }
}

#[test]
fn every_registered_check_is_documented() {
    for meta in catalogue() {
        let id = meta.id;
        assert!(known_category(meta.category()), "{id}: unknown category");
        let name = &id[meta.category().len() + 1..];
        assert!(!name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'), "{id}");
        assert!(!meta.title.trim().is_empty() && meta.title.len() <= 160, "{id}: title");
        assert!(meta.description.len() > 20, "{id}: description (why it matters)");
        assert!(meta.remediation.len() > 20, "{id}: remediation (how to fix)");
        assert_eq!(meta.evidence_keys.first(), Some(&"url"), "{id}: evidence starts with url");
        if let Some(cwe) = meta.cwe_id {
            assert!(cwe.strip_prefix("CWE-").is_some_and(|n| n.parse::<u32>().is_ok()), "{id}: {cwe}");
        }
        if let Some(url) = meta.help_url {
            assert!(url.starts_with("https://"), "{id}: {url}");
        }
    }
}

#[test]
fn not_yet_built_ids_are_listed_and_not_registered() {
    let rows = rows();
    for id in NOT_YET_BUILT {
        assert!(rows.iter().any(|r| r.id == *id), "{id} is not in CHECKS.md: drop it from NOT_YET_BUILT");
        assert!(find(id).is_none(), "{id} is registered now: drop it from NOT_YET_BUILT");
    }
    let repository: Vec<&str> = rows.iter().filter(|r| r.id.starts_with("repository.")).map(|r| r.id.as_str()).collect();
    assert_eq!(repository.len(), 8, "the active-only repository section is in docs/contract/CHECKS.md");
}
