use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, MAX_FINDINGS_PER_CHECK_PER_PAGE, Thresholds};
use super::axe_catalogue::{axe_rule, fixed_severity, severity_from_impact};
use super::axe_overlap::covered_on_page;
use crate::declare_check;
use crate::model::{AxeRule, Finding, Level, Severity};
use serde_json::{Map, Value};

declare_check! {
    /// Maps axe-core's violations to findings `accessibility.<axe-rule-id>`.
    ///
    /// This entry is the mapper, not a public check id: `registry::catalogue()` lists the axe rules
    /// in its place (`axe_catalogue::catalogued_axe_checks`). Per violated rule, one finding per
    /// node (at most `MAX_FINDINGS_PER_CHECK_PER_PAGE`, the rest counted in the last one's
    /// `omitted`), severity from the node's impact, else the rule's, else the catalogue default:
    /// critical -> critical, serious -> high, moderate -> medium, minor -> low; the extra rules with
    /// a fixed severity (`axe_catalogue::AXE_EXTRA_RULES`: AAA contrast at low) keep it. `incomplete`
    /// results are never findings. Rules that our own checks report (`axe_overlap`) are skipped.
    pub struct AxeViolations {
        id: "accessibility.axe",
        severity: Medium,
        title: "axe-core rule violations",
        fires_when: "axe-core reports a violation of a WCAG 2.0/2.1/2.2 rule at or below the scan's conformance level (AA by default) or of a best practice; each axe rule is its own check id, accessibility.<axe-rule-id>",
        description: "axe-core tests the rendered page against WCAG success criteria and accessibility best practices; each violation is a barrier for people using screen readers, keyboards, magnifiers or other assistive technology.",
        remediation: "Fix each element listed in the finding as its failure summary says; the help_url explains the rule and the accepted techniques.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "failure_summary", "wcag", "help_url", "impact"],
        help_url: Some("https://github.com/dequelabs/axe-core/blob/develop/doc/rule-descriptions.md"),
        requires: [Dom, Axe],
    }
}

/// The mapper's own id; `registry::catalogue()` replaces it by the axe rules.
pub const AXE_MAPPER_ID: &str = AxeViolations::META.id;

/// Longest snippet kept from axe's `html` (characters).
const MAX_SNIPPET_CHARS: usize = 500;

fn non_empty(s: &str) -> Option<&str> {
    let s = s.trim();
    (!s.is_empty()).then_some(s)
}

fn trimmed(html: &str) -> String {
    match html.char_indices().nth(MAX_SNIPPET_CHARS) {
        Some((cut, _)) => format!("{}…", &html[..cut]),
        None => html.to_string(),
    }
}

/// The findings of one violated rule (capped, the last one counting the rest).
fn rule_findings(page: &PageView<'_>, rule: &AxeRule) -> Vec<Finding> {
    let known = axe_rule(&rule.id);
    let title = non_empty(&rule.help).or(known.map(|k| k.meta.title)).unwrap_or(&rule.id).to_string();
    let description = non_empty(&rule.description).or(known.map(|k| k.meta.description)).unwrap_or("").to_string();
    let remediation = known.map(|k| k.meta.remediation.to_string()).unwrap_or_else(|| {
        format!("{title}. Fix each element listed in the finding as its failure summary says; see help_url.")
    });
    let help_url = non_empty(&rule.help_url).or(known.and_then(|k| k.meta.help_url));
    let mut wcag: Vec<String> = rule.tags.iter().filter(|t| t.starts_with("wcag")).cloned().collect();
    if wcag.is_empty()
        && let Some(k) = known
    {
        wcag = k.wcag_tags().map(str::to_string).collect();
    }
    let severity_of = |impact: Option<&str>| {
        fixed_severity(&rule.id)
            .or_else(|| impact.and_then(severity_from_impact))
            .or_else(|| rule.impact.as_deref().and_then(severity_from_impact))
            .or(known.map(|k| k.meta.severity))
            .unwrap_or(Severity::Medium)
    };
    #[allow(clippy::needless_update, reason = "a field added to Finding defaults here until axe gives it")]
    let finding = |severity: Severity, evidence: Map<String, Value>| Finding {
        check_id: format!("accessibility.{}", rule.id),
        severity,
        title: title.clone(),
        description: description.clone(),
        remediation: remediation.clone(),
        cwe_id: None,
        help_url: help_url.map(str::to_string),
        evidence,
        ..Finding::default()
    };
    let base = |impact: Option<&str>| {
        let mut e = Map::new();
        e.insert("url".into(), Value::from(page.final_url));
        e.insert("wcag".into(), Value::from(wcag.clone()));
        e.insert("help_url".into(), help_url.map_or(Value::Null, Value::from));
        e.insert("impact".into(), impact.or(rule.impact.as_deref()).map_or(Value::Null, Value::from));
        e
    };
    if rule.nodes.is_empty() {
        return vec![finding(severity_of(None), base(None))];
    }
    let mut out: Vec<Finding> = rule
        .nodes
        .iter()
        .take(MAX_FINDINGS_PER_CHECK_PER_PAGE)
        .map(|node| {
            let mut e = base(node.impact.as_deref());
            e.insert("selector".into(), Value::from(node.target.as_str()));
            e.insert("snippet".into(), Value::from(trimmed(&node.html)));
            e.insert("failure_summary".into(), node.failure_summary.as_deref().map_or(Value::Null, Value::from));
            finding(severity_of(node.impact.as_deref()), e)
        })
        .collect();
    let omitted = rule.nodes.len().saturating_sub(MAX_FINDINGS_PER_CHECK_PER_PAGE);
    if omitted > 0
        && let Some(last) = out.last_mut()
    {
        last.evidence.insert("omitted".into(), Value::from(omitted as u64));
    }
    out
}

/// The conformance level of a violated rule: the catalogue's, else from the tags axe sent.
fn rule_level(rule: &AxeRule) -> Option<Level> {
    match axe_rule(&rule.id) {
        Some(known) => known.meta.level,
        None => Level::of_axe_tags(rule.tags.iter().map(String::as_str)),
    }
}

/// True for HTML and XHTML documents (or an unknown type). Text, JSON, XML or images that a link
/// opened are shown by Chromium in a viewer of its own: axe would judge that viewer (no title, no
/// lang, no landmarks), not the site.
fn is_markup(page: &PageView<'_>) -> bool {
    page.mime_type.is_none_or(|m| {
        let m = m.trim().to_ascii_lowercase();
        m.is_empty() || m.starts_with("text/html") || m.starts_with("application/xhtml+xml")
    })
}

impl Check for AxeViolations {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() || !is_markup(page) {
            return;
        }
        let Some(axe) = &page.axe() else { return };
        for rule in &axe.violations {
            if rule.id.trim().is_empty() || covered_on_page(&rule.id, page).is_some() || !thresholds.level.runs(rule_level(rule)) {
                continue;
            }
            for finding in rule_findings(page, rule) {
                out.report_dynamic(finding);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::PageSnapshot;
    use super::super::test_support::{page, run};
    use super::*;
    use crate::model::{AxeNode, AxeResults, DomFacts, MetaTag};

    fn node(target: &str, impact: Option<&str>) -> AxeNode {
        AxeNode {
            target: target.into(),
            html: format!("<img src=\"{target}.png\">"),
            failure_summary: Some("Fix any of the following:\n  Element does not have an alt attribute".into()),
            impact: impact.map(str::to_string),
        }
    }

    fn rule(id: &str, impact: &str, nodes: Vec<AxeNode>) -> AxeRule {
        AxeRule {
            id: id.into(),
            impact: Some(impact.into()),
            tags: vec!["cat.text-alternatives".into(), "wcag2a".into(), "wcag111".into()],
            help: "Images must have alternative text".into(),
            description: "Ensure <img> elements have alternative text or a role of none or presentation".into(),
            help_url: "https://dequeuniversity.com/rules/axe/4.14/image-alt?application=axeAPI".into(),
            nodes,
        }
    }

    fn with_axe(violations: Vec<AxeRule>, incomplete: Vec<AxeRule>) -> PageSnapshot {
        let mut p = page(DomFacts::default());
        p.axe = Some(AxeResults { version: "4.14.1".into(), violations, incomplete, error: None });
        p
    }

    #[test]
    fn one_finding_per_node_with_impact_severity() {
        let p = with_axe(
            vec![rule("image-alt", "critical", vec![node("#hero", Some("critical")), node("#logo", None)])],
            vec![],
        );
        let f = run(&AxeViolations, &p);
        assert_eq!(f.len(), 2);
        assert!(f.iter().all(|f| f.check_id == "accessibility.image-alt" && f.severity == Severity::Critical));
        let hero = f.iter().find(|f| f.selector() == Some("#hero")).expect("hero");
        assert_eq!(hero.title, "Images must have alternative text");
        assert_eq!(hero.evidence["snippet"], "<img src=\"#hero.png\">");
        assert_eq!(hero.evidence["wcag"], serde_json::json!(["wcag2a", "wcag111"]));
        assert_eq!(hero.evidence["impact"], "critical");
        assert!(hero.evidence["failure_summary"].as_str().is_some_and(|s| s.contains("alt attribute")));
        assert_eq!(hero.url(), Some("https://example.com/page"));
    }

    #[test]
    fn node_impact_overrides_rule_impact() {
        let p = with_axe(
            vec![rule("color-contrast", "serious", vec![node("p.a", Some("moderate")), node("p.b", None)])],
            vec![],
        );
        let f = run(&AxeViolations, &p);
        let sev = |sel: &str| f.iter().find(|f| f.selector() == Some(sel)).map(|f| f.severity);
        assert_eq!(sev("p.a"), Some(Severity::Medium));
        assert_eq!(sev("p.b"), Some(Severity::High));
    }

    #[test]
    fn enhanced_contrast_is_reported_at_low_whatever_its_impact() {
        let p = with_axe(vec![rule("color-contrast-enhanced", "serious", vec![node("p.grey", Some("serious"))])], vec![]);
        assert!(run(&AxeViolations, &p).is_empty(), "AAA: left out at the default AA");
        let aaa = Thresholds { level: crate::model::Level::AAA, ..Thresholds::default() };
        let f = crate::test_kit::run_with(&AxeViolations, &p, &aaa);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].check_id, "accessibility.color-contrast-enhanced");
        assert_eq!(f[0].severity, Severity::Low);
    }

    #[test]
    fn incomplete_results_are_never_findings() {
        let p = with_axe(vec![], vec![rule("color-contrast", "serious", vec![node("p", Some("serious"))])]);
        assert!(run(&AxeViolations, &p).is_empty());
    }

    #[test]
    fn documents_chromium_shows_in_a_viewer_are_not_judged() {
        let mut p = with_axe(vec![rule("document-title", "serious", vec![node("html", None)])], vec![]);
        for mime in ["text/plain", "application/xml", "application/json"] {
            p.mime_type = Some(mime.into());
            assert!(run(&AxeViolations, &p).is_empty(), "{mime}");
        }
        for mime in ["text/html", "application/xhtml+xml"] {
            p.mime_type = Some(mime.into());
            assert_eq!(run(&AxeViolations, &p).len(), 1, "{mime}");
        }
    }

    #[test]
    fn rules_our_own_checks_cover_are_skipped() {
        let mut p = with_axe(
            vec![
                rule("meta-viewport", "moderate", vec![node("meta", None)]),
                rule("label", "critical", vec![node("#email", None)]),
                rule("meta-viewport-large", "minor", vec![node("meta", None)]),
            ],
            vec![],
        );
        p.dom.metas.push(MetaTag {
            name: Some("viewport".into()),
            content: Some("width=device-width, maximum-scale=3".into()),
            selector: "meta".into(),
            ..Default::default()
        });
        // maximum-scale=3 is not our zoom-disabled (< 2), so axe's wider best practice stays.
        let f = run(&AxeViolations, &p);
        let ids: Vec<&str> = f.iter().map(|f| f.check_id.as_str()).collect();
        // axe `label` is a public id of its own (CHECKS.md) and is not covered by our checks.
        assert_eq!(ids, vec!["accessibility.label", "accessibility.meta-viewport-large"]);
        // With maximum-scale=1 zoom-disabled fires, so neither viewport rule is reported by axe.
        p.dom.metas[0].content = Some("width=device-width, maximum-scale=1".into());
        let f = run(&AxeViolations, &p);
        let ids: Vec<&str> = f.iter().map(|f| f.check_id.as_str()).collect();
        assert_eq!(ids, vec!["accessibility.label"]);
    }

    #[test]
    fn caps_nodes_per_rule_and_counts_the_rest() {
        let nodes = (0..25).map(|i| node(&format!("#i{i}"), None)).collect();
        let f = run(&AxeViolations, &with_axe(vec![rule("image-alt", "critical", nodes)], vec![]));
        assert_eq!(f.len(), MAX_FINDINGS_PER_CHECK_PER_PAGE);
        assert_eq!(f.iter().filter_map(|f| f.evidence.get("omitted")).count(), 1);
        assert!(f.iter().any(|f| f.evidence.get("omitted") == Some(&serde_json::json!(5))));
    }

    #[test]
    fn unknown_rule_without_texts_falls_back_sensibly() {
        let mut r = rule("future-rule", "bogus", vec![node("div", None)]);
        r.help = String::new();
        r.description = String::new();
        let f = run(&AxeViolations, &with_axe(vec![r], vec![]));
        assert_eq!(f[0].check_id, "accessibility.future-rule");
        assert_eq!(f[0].severity, Severity::Medium);
        assert_eq!(f[0].title, "future-rule");
        // A page that did not render yields nothing, even with stale axe data.
        let mut failed = with_axe(vec![rule("image-alt", "critical", vec![node("img", None)])], vec![]);
        failed.status = None;
        assert!(run(&AxeViolations, &failed).is_empty());
    }
}
