//! The axe-core rule catalogue, generated at build time from the installed axe-core
//! (`build/axe_rules.rs`), and which of its rules a scan runs and lists.
//!
//! Each rule becomes the catalogue entry `accessibility.<rule-id>` with axe's help as title, its
//! description, its help URL and a default severity from the rule's static impact (critical ->
//! critical, serious -> high, moderate -> medium, minor -> low; `medium` when axe declares none).
//! `registry::catalogue()` lists the rules that `is_catalogued()` in place of the axe mapper.

use super::super::check::CheckMeta;
use super::axe_overlap::always_covered_by;
use crate::model::Severity;

/// One axe-core rule: axe's own metadata plus the catalogue entry built from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AxeRuleMeta {
    /// axe's rule id (`image-alt`).
    pub rule_id: &'static str,
    /// axe's static impact for the rule (`critical`, `serious`, `moderate`, `minor`).
    pub impact: Option<&'static str>,
    /// Whether axe enables the rule when no tags are given.
    pub enabled_by_default: bool,
    /// axe's tags (`wcag2a`, `wcag143`, `best-practice`, `experimental`, ...).
    pub tags: &'static [&'static str],
    /// The catalogue entry: id `accessibility.<rule_id>`, severity from impact, axe's texts.
    pub meta: CheckMeta,
}

/// The evidence keys of every axe finding.
pub const AXE_EVIDENCE_KEYS: &[&str] = &["url", "selector", "snippet", "failure_summary", "wcag", "help_url", "impact"];

/// The tags the scan runs axe with (issue 5: WCAG 2.0/2.1/2.2 A and AA plus best practices).
/// The browser engine passes these as `runOnly: {type: "tag"}`; axe then leaves out rules tagged
/// `AXE_DEFAULT_EXCLUDED_TAGS` (`experimental`, `deprecated`) unless those tags are asked for,
/// which `is_in_scan` mirrors (axe's `ruleShouldRun`/`matchTags`: a tag run ignores `enabled`).
pub const AXE_RUN_TAGS: &[&str] = &["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa", "best-practice"];

/// axe rules the scan runs beyond `AXE_RUN_TAGS` (issue 18; `browser/axe_run.js` enables them
/// by id), with the severity their findings get whatever axe's impact, when it is fixed:
/// - `color-contrast-enhanced` (WCAG 1.4.6, AAA 7:1 contrast; ACT 09o5cg) at `low`: not an AA
///   failure, worth knowing;
/// - `meta-refresh-no-exceptions` (WCAG 2.2.4 and 3.2.5, AAA; ACT bisz58: a timed refresh or
///   redirect of any delay, where the AA `meta-refresh` allows more than 20 hours) at `low`;
/// - `css-orientation-lock` (WCAG 1.3.4 Orientation, AA; ACT b33eff), which axe tags
///   `experimental` and so leaves out of a tag run; severity from its impact.
pub const AXE_EXTRA_RULES: &[(&str, Option<Severity>)] = &[
    ("color-contrast-enhanced", Some(Severity::Low)),
    ("meta-refresh-no-exceptions", Some(Severity::Low)),
    ("css-orientation-lock", None),
];

/// The fixed severity of an extra rule's findings (`AXE_EXTRA_RULES`).
pub fn fixed_severity(rule_id: &str) -> Option<Severity> {
    AXE_EXTRA_RULES.iter().find(|(r, _)| *r == rule_id).and_then(|(_, s)| *s)
}

include!(concat!(env!("OUT_DIR"), "/axe_rules.rs"));

impl AxeRuleMeta {
    /// True when a scan with `AXE_RUN_TAGS` runs this rule.
    pub fn is_in_scan(&self) -> bool {
        AXE_EXTRA_RULES.iter().any(|(r, _)| *r == self.rule_id)
            || (self.tags.iter().any(|t| AXE_RUN_TAGS.contains(t))
                && !self.tags.iter().any(|t| AXE_DEFAULT_EXCLUDED_TAGS.contains(t)))
    }

    /// True when the public catalogue lists this rule's id: the scan runs it and no check of our
    /// own always reports the same defect instead (see `axe_overlap`).
    pub fn is_catalogued(&self) -> bool {
        self.is_in_scan() && always_covered_by(self.rule_id).is_none()
    }

    /// The severity a finding gets from an axe impact string, this rule's default otherwise.
    pub fn severity_for(&self, impact: Option<&str>) -> Severity {
        fixed_severity(self.rule_id).or_else(|| impact.and_then(severity_from_impact)).unwrap_or(self.meta.severity)
    }

    /// WCAG tags only (`wcag2a`, `wcag143`, ...).
    pub fn wcag_tags(&self) -> impl Iterator<Item = &'static str> {
        self.tags.iter().copied().filter(|t| t.starts_with("wcag"))
    }
}

/// Maps axe's impact to our severity: critical -> critical, serious -> high, moderate -> medium,
/// minor -> low.
pub fn severity_from_impact(impact: &str) -> Option<Severity> {
    match impact {
        "critical" => Some(Severity::Critical),
        "serious" => Some(Severity::High),
        "moderate" => Some(Severity::Medium),
        "minor" => Some(Severity::Low),
        _ => None,
    }
}

/// Every axe-core rule of the embedded axe version, sorted by rule id (whether or not a scan runs
/// it; see `AxeRuleMeta::is_in_scan` and `is_catalogued`).
pub fn axe_catalogue() -> &'static [AxeRuleMeta] {
    AXE_RULES
}

/// The rule with this axe id.
pub fn axe_rule(rule_id: &str) -> Option<&'static AxeRuleMeta> {
    AXE_RULES.iter().find(|r| r.rule_id == rule_id)
}

/// The catalogue entries of the axe rules a scan runs and lists (`accessibility.<rule>`).
pub fn catalogued_axe_checks() -> impl Iterator<Item = &'static CheckMeta> {
    AXE_RULES.iter().filter(|r| r.is_catalogued()).map(|r| &r.meta)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_carries_axe_rules_with_impact_severity() {
        assert!(AXE_RULES.len() > 50, "axe-core 4.x has about 100 rules");
        let alt = axe_rule("image-alt").expect("image-alt");
        assert_eq!(alt.meta.id, "accessibility.image-alt");
        assert_eq!(alt.impact, Some("critical"));
        assert_eq!(alt.meta.severity, Severity::Critical);
        assert!(alt.meta.help_url.is_some_and(|u| u.starts_with("https://dequeuniversity.com/")));
        assert!(alt.wcag_tags().any(|t| t == "wcag111"));
        let contrast = axe_rule("color-contrast").expect("color-contrast");
        assert_eq!(contrast.meta.severity, Severity::High);
        assert!(contrast.is_catalogued());
        let ids: Vec<_> = AXE_RULES.iter().map(|r| r.rule_id).collect();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(ids, sorted, "sorted, no duplicates");
        assert!(!AXE_CATALOGUE_VERSION.is_empty());
    }

    #[test]
    fn scan_scope_follows_axe_tag_rules() {
        // AAA-only rules are not run; experimental and deprecated rules are left out by axe;
        // the extra rules are run whatever their tags.
        assert!(!axe_rule("identical-links-same-purpose").expect("rule").is_in_scan());
        assert!(!axe_rule("duplicate-id").expect("rule").is_in_scan());
        assert!(axe_rule("color-contrast-enhanced").expect("rule").is_catalogued());
        assert!(axe_rule("css-orientation-lock").expect("rule").is_catalogued());
        assert!(axe_rule("region").expect("rule").is_in_scan(), "best-practice rules run");
        // Rules our own checks always report instead are not listed.
        let viewport = axe_rule("meta-viewport").expect("rule");
        assert!(viewport.is_in_scan() && !viewport.is_catalogued());
        assert!(catalogued_axe_checks().all(|m| m.id.starts_with("accessibility.")));
    }

    #[test]
    fn extra_rules_are_enabled_by_the_run_script_with_their_catalogue_severity() {
        let script = include_str!("../../../../browser/axe_run.js");
        for (rule, severity) in AXE_EXTRA_RULES {
            let meta = axe_rule(rule).expect("an axe-core rule");
            // The AAA contrast rule's results come from the AA rule's run (axe_contrast.js); axe
            // runs the rule itself only when that cannot be installed.
            let derived = *rule == "color-contrast-enhanced" && script.contains("'color-contrast-enhanced': { enabled: !contrast }");
            assert!(derived || script.contains(&format!("'{rule}': {{ enabled: true }}")), "{rule} not enabled in axe_run.js");
            if let Some(severity) = severity {
                assert_eq!(meta.meta.severity, *severity, "{rule}: build/axe_rules.rs SEVERITY_OVERRIDES differs");
                assert_eq!(meta.severity_for(Some("serious")), *severity);
            }
        }
    }

    #[test]
    fn act_ids_come_from_axe_and_our_additions() {
        assert_eq!(axe_rule("meta-viewport").expect("rule").meta.act_ids, &["b4f0c3"]);
        assert!(axe_rule("aria-hidden-focus").expect("rule").meta.act_ids.contains(&"6cfa84"));
        assert_eq!(axe_rule("summary-name").expect("rule").meta.act_ids, &["2t702h"]);
        assert_eq!(axe_rule("color-contrast-enhanced").expect("rule").meta.act_ids, &["09o5cg"]);
    }

    #[test]
    fn impact_mapping() {
        assert_eq!(severity_from_impact("serious"), Some(Severity::High));
        assert_eq!(severity_from_impact("minor"), Some(Severity::Low));
        assert_eq!(severity_from_impact("bogus"), None);
        let rule = axe_rule("region").expect("rule");
        assert_eq!(rule.severity_for(None), rule.meta.severity);
        assert_eq!(rule.severity_for(Some("critical")), Severity::Critical);
    }
}
