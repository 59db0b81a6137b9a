//! The catalogue as a Markdown document (`sitescan checks --format markdown` writes
//! `docs/CHECKS.md`): every check of the registry, by category, from its declared metadata. A test
//! fails when the committed document drifts from the registry.

use super::check::CheckMeta;
use super::registry::catalogue;
use crate::model::Level;
use std::fmt::Write;

/// The generated document.
pub fn render() -> String {
    let checks: Vec<&'static CheckMeta> = catalogue().collect();
    let mut categories: Vec<&str> = Vec::new();
    for m in &checks {
        if !categories.contains(&m.category()) {
            categories.push(m.category());
        }
    }
    let mut o = String::new();
    let _ = writeln!(o, "# sitescan checks\n");
    let _ = writeln!(
        o,
        "<!-- Generated from the check registry by `sitescan checks --format markdown > docs/CHECKS.md`; do not edit. -->\n"
    );
    let _ = writeln!(
        o,
        "{} checks in {} categories. Ids are public contract (`<category>.<subject>-<defect>`); the team's \
         catalogue they implement is `docs/contract/CHECKS.md`. A check that needs a gathered fact (DOM, axe, \
         keyboard walk, ...) does not run on a page where gathering it failed: the page's `checks_not_run` \
         in the report says so. Which checks run at each WCAG conformance level: [Conformance levels](#conformance-levels).\n",
        checks.len(),
        categories.len()
    );
    for category in &categories {
        let n = checks.iter().filter(|m| m.category() == *category).count();
        let _ = writeln!(o, "- [{category}](#{category}) ({n})");
    }
    let _ = writeln!(
        o,
        "\nOne barrier, one finding: where both checks of a pair below fire on a page (on the same element, \
         for element pairs), the page gets the first one's finding, at the worse of the two severities, \
         with the second id in `evidence.also_reported_as`; budgets and filters naming either id find it.\n"
    );
    let _ = writeln!(o, "| reported as | also answers to | same |\n|---|---|---|");
    for (kept, alias, scope) in super::same_barrier::SAME_BARRIER {
        let same = match scope {
            super::same_barrier::Scope::Page => "page",
            super::same_barrier::Scope::Element => "element",
        };
        let _ = writeln!(o, "| `{kept}` | `{alias}` | {same} |");
    }
    levels(&mut o, &checks);
    for category in &categories {
        let _ = writeln!(o, "\n## {category}\n");
        let _ = writeln!(o, "| id | severity | WCAG level | title |\n|---|---|---|---|");
        for m in checks.iter().filter(|m| m.category() == *category) {
            let level = m.level.map_or("", |l| l.as_str());
            let _ = writeln!(o, "| [`{}`](#{}) | {} | {level} | {} |", m.id, anchor(m.id), m.severity.as_str(), cell(m.title));
        }
        for m in checks.iter().filter(|m| m.category() == *category) {
            entry(&mut o, m);
        }
    }
    o
}

/// Which checks each conformance level adds (`--level`, a site's level, the API's `level`).
fn levels(o: &mut String, checks: &[&'static CheckMeta]) {
    let _ = writeln!(o, "\n## Conformance levels\n");
    let _ = writeln!(
        o,
        "A scan judges against a WCAG 2.2 conformance level: AA unless `--level`, the site's level or the API's \
         `level` says otherwise. A check tied to success criteria above the level does not run (by choice: it is not \
         counted as not run). Checks tied to no level (best practices, search, performance, ...) run at every level. \
         A check judging criteria of several levels belongs to the lowest.\n"
    );
    for level in Level::ALL {
        let ids: Vec<String> =
            checks.iter().filter(|m| m.level == Some(level)).map(|m| format!("[`{}`](#{})", m.id, anchor(m.id))).collect();
        let lead = match level {
            Level::A => "Level A checks (run at every level)",
            Level::AA => "AA adds (the default)",
            Level::AAA => "AAA adds",
        };
        let _ = writeln!(o, "- {lead}, {}: {}", ids.len(), ids.join(", "));
    }
}

fn entry(o: &mut String, m: &CheckMeta) {
    let _ = writeln!(o, "\n### {}\n", m.id);
    let _ = writeln!(o, "**{}** · default severity `{}`{}\n", m.title, m.severity.as_str(), m.cwe_id.map(|c| format!(" · {c}")).unwrap_or_default());
    let _ = writeln!(o, "- Fires when: {}", m.fires_when.trim());
    let _ = writeln!(o, "- Why it matters: {}", m.description.trim());
    let _ = writeln!(o, "- How to fix: {}", m.remediation.trim());
    if !m.evidence_keys.is_empty() {
        let keys: Vec<String> = m.evidence_keys.iter().map(|k| format!("`{k}`")).collect();
        let _ = writeln!(o, "- Evidence: {}", keys.join(", "));
    }
    if !m.requires.is_empty() {
        let needs: Vec<&str> = m.requires.iter().map(|a| a.gatherer()).collect();
        let _ = writeln!(o, "- Needs: {}", needs.join(", "));
    }
    if let Some(level) = m.level {
        let _ = writeln!(o, "- WCAG level: {level} (runs when the scan's level is {level} or above)");
    }
    if !m.wcag.is_empty() {
        let _ = writeln!(o, "- WCAG 2.2 success criteria: {} (findings carry them as `evidence.wcag`)", m.wcag.join(", "));
    }
    if !m.act_ids.is_empty() {
        let rules: Vec<String> =
            m.act_ids.iter().map(|id| format!("[{id}](https://www.w3.org/WAI/standards-guidelines/act/rules/{id}/)")).collect();
        let _ = writeln!(o, "- W3C ACT rules: {}", rules.join(", "));
    }
    if let Some(url) = m.help_url {
        let _ = writeln!(o, "- More: <{url}>");
    }
}

/// GitHub's heading anchor for an id heading (`search.title-missing` -> `searchtitle-missing`).
fn anchor(id: &str) -> String {
    id.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect::<String>().to_ascii_lowercase()
}

/// Text safe inside a table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn docs_checks_md_is_the_registry() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/CHECKS.md");
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        let generated = super::render();
        if committed != generated {
            if std::env::var_os("SITESCAN_UPDATE_DOCS").is_some() {
                std::fs::write(path, &generated).expect("write docs/CHECKS.md");
                return;
            }
            panic!(
                "docs/CHECKS.md drifted from the registry: run `cargo run -q -- checks --format markdown > docs/CHECKS.md` \
                 (or this test with SITESCAN_UPDATE_DOCS=1)"
            );
        }
    }

    #[test]
    fn every_check_has_an_entry_and_a_row() {
        let doc = super::render();
        for m in super::catalogue() {
            assert!(doc.contains(&format!("\n### {}\n", m.id)), "{} has no entry", m.id);
            assert!(doc.contains(&format!("| [`{}`]", m.id)), "{} has no row", m.id);
        }
    }
}
