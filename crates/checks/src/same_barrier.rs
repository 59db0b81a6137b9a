//! One barrier, one finding: where one of sitescan's own checks and an axe-core rule (or two of
//! sitescan's own checks) judge the same thing on a page, the page gets one finding. The
//! accessibility id is kept (the WCAG mapping people filter by), at the worse of the two
//! severities, and the other id stands in its `evidence.also_reported_as`, so that a filter or a
//! budget naming either id still finds it.
//! When only one of the two fires, it is reported as it is.

use crate::model::Finding;
use serde_json::Value;

/// Whether a pair is about the page as a whole or about one element of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// At most one finding a page each: they are the same barrier when both fire on the page.
    Page,
    /// The same element: the same selector, or the same opening tag where that tag is the only
    /// one of its kind among the pair's findings on the page.
    Element,
}

/// `(kept, alias, scope)`: the pairs that judge the same barrier (listed in docs/CHECKS.md).
pub const SAME_BARRIER: &[(&str, &str, Scope)] = &[
    ("accessibility.landmark-one-main", "semantics.main-missing", Scope::Page),
    ("accessibility.html-has-lang", "i18n.lang-missing", Scope::Page),
    ("accessibility.heading-order", "semantics.heading-skip", Scope::Element),
    ("accessibility.label", "forms.label-missing", Scope::Element),
    ("accessibility.link-text-generic", "search.link-text-generic", Scope::Element),
];

pub use crate::model::finding::{ALSO, answers_to};

/// Merges each pair's findings of one page (`findings` all belong to it).
pub fn merge(findings: &mut Vec<Finding>) {
    for (kept, alias, scope) in SAME_BARRIER {
        let kept_at: Vec<usize> = findings.iter().enumerate().filter(|(_, f)| f.check_id == *kept).map(|(i, _)| i).collect();
        let alias_at: Vec<usize> = findings.iter().enumerate().filter(|(_, f)| f.check_id == *alias).map(|(i, _)| i).collect();
        if kept_at.is_empty() || alias_at.is_empty() {
            continue;
        }
        let mut gone = Vec::new();
        for &a in &alias_at {
            let partner = match scope {
                Scope::Page => kept_at.first().copied(),
                Scope::Element => same_element(findings, &kept_at, &alias_at, a),
            };
            let Some(k) = partner else { continue };
            let severity = findings[a].severity.max(findings[k].severity);
            let target = &mut findings[k];
            target.severity = severity;
            let also = target.evidence.entry(ALSO).or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(ids) = also
                && !ids.iter().any(|v| v == alias)
            {
                ids.push(Value::String(alias.to_string()));
            }
            gone.push(a);
        }
        gone.sort_unstable();
        for i in gone.into_iter().rev() {
            findings.remove(i);
        }
    }
}

fn opening_tag(f: &Finding) -> Option<&str> {
    let snippet = f.evidence.get("snippet").and_then(Value::as_str)?;
    let end = snippet.find('>')?;
    Some(&snippet[..=end])
}

/// The kept finding on the same element as `findings[alias]`, if one can be told.
fn same_element(findings: &[Finding], kept_at: &[usize], alias_at: &[usize], alias: usize) -> Option<usize> {
    let a = &findings[alias];
    if let Some(sel) = a.selector().filter(|s| !s.is_empty())
        && let Some(&k) = kept_at.iter().find(|&&k| findings[k].selector() == Some(sel))
    {
        return Some(k);
    }
    let tag = opening_tag(a)?;
    let unique = |among: &[usize]| among.iter().filter(|&&i| opening_tag(&findings[i]) == Some(tag)).count() == 1;
    if !unique(alias_at) || !unique(kept_at) {
        return None;
    }
    kept_at.iter().copied().find(|&k| opening_tag(&findings[k]) == Some(tag))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Severity;
    use serde_json::json;

    fn finding(id: &str, severity: Severity, evidence: Value) -> Finding {
        Finding {
            check_id: id.into(),
            severity,
            title: String::new(),
            description: String::new(),
            remediation: String::new(),
            cwe_id: None,
            evidence: evidence.as_object().unwrap().clone(),
            ..Default::default()
        }
    }

    #[test]
    fn a_page_pair_is_one_finding_with_both_ids() {
        let mut f = vec![
            finding("semantics.main-missing", Severity::Medium, json!({"url": "u"})),
            finding("accessibility.landmark-one-main", Severity::Low, json!({"url": "u"})),
            finding("search.title-missing", Severity::High, json!({"url": "u"})),
        ];
        merge(&mut f);
        let ids: Vec<&str> = f.iter().map(|f| f.check_id.as_str()).collect();
        assert_eq!(ids, ["accessibility.landmark-one-main", "search.title-missing"]);
        assert_eq!(f[0].severity, Severity::Medium, "the worse severity");
        assert_eq!(f[0].evidence[ALSO], json!(["semantics.main-missing"]));
        assert_eq!(answers_to(&f[0].check_id, Some(&f[0].evidence)).collect::<Vec<_>>(), ["accessibility.landmark-one-main", "semantics.main-missing"]);
    }

    #[test]
    fn element_pairs_meet_on_the_same_element_only() {
        let mut f = vec![
            finding("forms.label-missing", Severity::High, json!({"url": "u", "selector": "#email", "snippet": "<input id=\"email\">"})),
            finding("forms.label-missing", Severity::High, json!({"url": "u", "selector": "html > body > input:nth-of-type(2)", "snippet": "<input name=\"q\">"})),
            finding("forms.label-missing", Severity::High, json!({"url": "u", "selector": "html > body > input:nth-of-type(3)", "snippet": "<input>"})),
            finding("accessibility.label", Severity::Critical, json!({"url": "u", "selector": "#email", "snippet": "<input id=\"email\">"})),
            finding("accessibility.label", Severity::Critical, json!({"url": "u", "selector": "input[name=\"q\"]", "snippet": "<input name=\"q\">"})),
        ];
        merge(&mut f);
        let ids: Vec<&str> = f.iter().map(|f| f.check_id.as_str()).collect();
        assert_eq!(ids, ["forms.label-missing", "accessibility.label", "accessibility.label"], "the unmatched native finding stays");
        assert!(f[1].evidence.contains_key(ALSO) && f[2].evidence.contains_key(ALSO));
        assert_eq!(f[0].selector(), Some("html > body > input:nth-of-type(3)"));
    }

    #[test]
    fn one_side_alone_is_reported_as_it_is() {
        let mut f = vec![finding("i18n.lang-missing", Severity::Medium, json!({"url": "u"}))];
        merge(&mut f);
        assert_eq!(f[0].check_id, "i18n.lang-missing");
        assert!(!f[0].evidence.contains_key(ALSO));
    }
}
