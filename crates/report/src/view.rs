//! A borrowed view of the typed report that the SARIF, JUnit and HTML renderers share: the scan,
//! its summary, pages and findings (sorted canonically), and the rules (the check registry, plus
//! ids seen only in findings, such as `accessibility.<axe-rule>`).

use crate::checks::registry;
use crate::model::{Change, PASSIVE_CATEGORIES, ReportSummary, StoredFinding, ScanInfo, ScanReport, ScanStatus, Severity};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The report, viewed.
#[derive(Debug)]
pub(crate) struct ReportView<'a> {
    pub scan: ScanView<'a>,
    /// `report.summary`; `None` while the scan has not run.
    pub summary: Option<SummaryView<'a>>,
    pub pages: Vec<ReportPageView<'a>>,
    /// Most serious first, then check, page, selector (the canonical order).
    pub findings: Vec<FindingView<'a>>,
    /// `report.fixed`: findings of the baseline scan that went away, in the canonical order.
    pub fixed: Vec<FindingView<'a>>,
}

#[derive(Debug)]
pub(crate) struct ScanView<'a> {
    pub info: &'a ScanInfo,
    pub id: &'a str,
    pub target_url: &'a str,
    pub target_hostname: &'a str,
    pub status: ScanStatus,
    /// RFC 3339 (microseconds, `Z`), as the body writes them.
    pub started_at: Option<String>,
    pub completed_at: Option<String>,
    pub created_at: Option<String>,
}

#[derive(Debug)]
pub(crate) struct SummaryView<'a> {
    pub raw: &'a ReportSummary,
    pub pages_scanned: u64,
    pub duration_ms: u64,
    /// Category -> counts per severity, in report order (passive categories first).
    pub categories: Vec<(String, BTreeMap<Severity, u64>)>,
    /// `(code, message)` of a failed scan.
    pub error: Option<(&'a str, &'a str)>,
    /// `summary.changes`, when the scan was compared with a baseline.
    pub changes: Option<ChangesView<'a>>,
}

/// `summary.changes`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ChangesView<'a> {
    pub new: u64,
    pub fixed: u64,
    pub persisting: u64,
    pub baseline_scan_id: Option<&'a str>,
}

#[derive(Debug)]
pub(crate) struct ReportPageView<'a> {
    pub url: &'a str,
    pub final_url: Option<&'a str>,
    pub status: Option<u64>,
    pub title: Option<&'a str>,
    pub metrics: &'a Value,
    /// `(kind, message)` when the page could not be rendered.
    pub error: Option<(&'a str, &'a str)>,
    /// `(check_id, reason)` of the checks that did not judge the page.
    pub checks_not_run: Vec<(&'a str, &'a str)>,
}

#[derive(Debug)]
pub(crate) struct FindingView<'a> {
    pub check_id: &'a str,
    pub severity: Severity,
    pub title: &'a str,
    pub description: &'a str,
    pub remediation: &'a str,
    pub cwe_id: Option<&'a str>,
    pub evidence: &'a Map<String, Value>,
    /// Where to read more (the check's reference), when it has one.
    pub help_url: Option<&'a str>,
    /// `new` or `persisting` when the scan was compared with a baseline.
    pub change: Option<Change>,
}

impl<'a> FindingView<'a> {
    pub fn category(&self) -> &'a str {
        category_of(self.check_id)
    }

    pub(crate) fn text(&self, key: &str) -> Option<&'a str> {
        self.evidence.get(key).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty())
    }

    /// `evidence.url`: the page the finding belongs to.
    pub fn url(&self) -> Option<&'a str> {
        self.text("url")
    }

    pub fn selector(&self) -> Option<&'a str> {
        self.text("selector")
    }

    pub fn snippet(&self) -> Option<&'a str> {
        self.evidence.get("snippet").and_then(Value::as_str).filter(|s| !s.trim().is_empty())
    }

    /// `evidence.resource`: the subresource or link target a finding is about, when it has one.
    pub fn resource(&self) -> Option<&'a str> {
        self.text("resource")
    }

    /// `value` and its bound (`limit`, else `expected`), rendered as text.
    pub fn value_and_limit(&self) -> (Option<String>, Option<String>) {
        let show = |key: &str| self.evidence.get(key).filter(|v| !v.is_null()).map(value_text);
        (show("value"), show("limit").or_else(|| show("expected")))
    }
}

/// A rule: the registry's metadata, or what a finding whose id is not in the registry says.
#[derive(Debug, Clone)]
pub(crate) struct RuleView {
    pub id: String,
    pub title: String,
    pub description: String,
    pub remediation: String,
    pub fires_when: Option<String>,
    pub cwe_id: Option<String>,
    pub help_url: Option<String>,
    pub severity: Severity,
    /// WCAG tags (`wcag2a`, `wcag111`, ...) from the findings' evidence.
    pub wcag: Vec<String>,
    /// True when the check registry declares it.
    pub registered: bool,
}

impl RuleView {
    pub fn category(&self) -> &str {
        category_of(&self.id)
    }
}

/// The category of a check id: its prefix.
pub(crate) fn category_of(check_id: &str) -> &str {
    check_id.split_once('.').map_or(check_id, |(c, _)| c)
}

/// Orders categories as reports list them: the passive categories in their order, then the rest
/// alphabetically.
pub(crate) fn category_rank(category: &str) -> (usize, &str) {
    (PASSIVE_CATEGORIES.iter().position(|c| *c == category).unwrap_or(PASSIVE_CATEGORIES.len()), category)
}

/// A JSON value as short text: strings bare, numbers as written, the rest as JSON.
pub(crate) fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The findings of a `findings` (or `fixed`) list; entries without a check id are dropped.
fn findings_of(list: &[StoredFinding]) -> Vec<FindingView<'_>> {
    list.iter()
        .filter(|s| !s.finding.check_id.trim().is_empty())
        .map(|s| {
            let f = &s.finding;
            FindingView {
                check_id: &f.check_id,
                severity: f.severity,
                title: &f.title,
                description: &f.description,
                remediation: &f.remediation,
                cwe_id: f.cwe_id.as_deref().filter(|c| !c.is_empty()),
                evidence: &f.evidence,
                help_url: f.help_url.as_deref().filter(|u| crate::model::finding_size::is_link(u)),
                change: s.change,
            }
        })
        .collect()
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// Most serious first, then check, page, selector.
fn sort_canonically(findings: &mut [FindingView<'_>]) {
    findings.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then_with(|| a.check_id.cmp(b.check_id))
            .then_with(|| a.url().cmp(&b.url()))
            .then_with(|| a.selector().cmp(&b.selector()))
    });
}

impl<'a> ReportView<'a> {
    /// The view of `report`.
    pub fn new(report: &'a ScanReport) -> ReportView<'a> {
        let info = &report.scan;
        let scan = ScanView {
            info,
            id: &info.id,
            target_url: &info.target_url,
            target_hostname: &info.target_hostname,
            status: info.status,
            started_at: info.started_at.as_ref().map(crate::model::scan_report::rfc3339),
            completed_at: info.completed_at.as_ref().map(crate::model::scan_report::rfc3339),
            created_at: Some(crate::model::scan_report::rfc3339(&info.created_at)),
        };
        let summary = report.summary().map(|s| {
            let mut categories: Vec<(String, BTreeMap<Severity, u64>)> = s
                .categories
                .iter()
                .map(|(name, counts)| (name.clone(), Severity::ALL.into_iter().map(|sev| (sev, counts.get(sev))).collect()))
                .collect();
            categories.sort_by(|a, b| category_rank(&a.0).cmp(&category_rank(&b.0)));
            SummaryView {
                raw: s,
                pages_scanned: s.pages_scanned,
                duration_ms: s.duration_ms,
                categories,
                error: s.error.as_ref().map(|e| (e.code.as_str(), e.message.as_str())),
                changes: s.changes.as_ref().map(|c| ChangesView {
                    new: c.new,
                    fixed: c.fixed,
                    persisting: c.persisting,
                    baseline_scan_id: c.baseline_scan_id.as_deref(),
                }),
            }
        });
        let pages = report
            .pages()
            .iter()
            .map(|p| ReportPageView {
                url: &p.url,
                final_url: p.final_url.as_deref(),
                status: p.status.map(u64::from),
                title: p.title.as_deref(),
                metrics: &p.metrics,
                checks_not_run: p.checks_not_run.iter().map(|n| (n.check_id.as_str(), n.reason.as_str())).collect(),
                error: p.error.as_ref().filter(|e| e.is_object()).map(|e| {
                    (str_of(e, "kind").or_else(|| str_of(e, "code")).unwrap_or("error"), str_of(e, "message").unwrap_or_default())
                }),
            })
            .collect();
        let mut findings = findings_of(report.findings());
        sort_canonically(&mut findings);
        let mut fixed = findings_of(report.fixed());
        sort_canonically(&mut fixed);
        ReportView { scan, summary, pages, findings, fixed }
    }

    /// Every rule: the registry's checks in registry order, then the ids seen only in findings
    /// (sorted), whose text comes from their first finding and whose severity is the highest
    /// any of their findings has.
    pub fn rules(&self) -> Vec<RuleView> {
        let mut rules: Vec<RuleView> = registry::catalogue()
            .map(|m| RuleView {
                id: m.id.to_string(),
                title: m.title.to_string(),
                description: m.description.to_string(),
                remediation: m.remediation.to_string(),
                fires_when: Some(m.fires_when.to_string()).filter(|s| !s.is_empty()),
                cwe_id: m.cwe_id.map(str::to_string),
                help_url: m.help_url.map(str::to_string),
                severity: m.severity,
                wcag: m.wcag_tags(),
                registered: true,
            })
            .collect();
        let mut extra: BTreeMap<&str, RuleView> = BTreeMap::new();
        for f in self.findings.iter().chain(&self.fixed) {
            let wcag: Vec<String> = f
                .evidence
                .get("wcag")
                .and_then(Value::as_array)
                .map(|tags| tags.iter().filter_map(Value::as_str).map(str::to_string).collect())
                .unwrap_or_default();
            if let Some(rule) = rules.iter_mut().find(|r| r.id == f.check_id) {
                for tag in wcag {
                    if !rule.wcag.contains(&tag) {
                        rule.wcag.push(tag);
                    }
                }
                continue;
            }
            let rule = extra.entry(f.check_id).or_insert_with(|| RuleView {
                id: f.check_id.to_string(),
                title: if f.title.is_empty() { f.check_id.to_string() } else { f.title.to_string() },
                description: f.description.to_string(),
                remediation: f.remediation.to_string(),
                fires_when: None,
                cwe_id: f.cwe_id.map(str::to_string),
                help_url: f.help_url.or_else(|| f.evidence.get("help_url").and_then(Value::as_str).filter(|u| crate::model::finding_size::is_link(u))).map(str::to_string),
                severity: f.severity,
                wcag: Vec::new(),
                registered: false,
            });
            rule.severity = rule.severity.max(f.severity);
            for tag in wcag {
                if !rule.wcag.contains(&tag) {
                    rule.wcag.push(tag);
                }
            }
        }
        rules.extend(extra.into_values());
        rules
    }

    /// The categories to report on: the summary's (every category of the scan's mode), then any
    /// only findings name, in report order.
    pub fn categories(&self) -> Vec<String> {
        let mut out: Vec<String> =
            self.summary.as_ref().map(|s| s.categories.iter().map(|(c, _)| c.clone()).collect()).unwrap_or_default();
        for f in &self.findings {
            if !out.iter().any(|c| c == f.category()) {
                out.push(f.category().to_string());
            }
        }
        out.sort_by(|a, b| category_rank(a).cmp(&category_rank(b)));
        out
    }

    /// The page a finding is reported against: its `evidence.url`, else the scan's target.
    pub fn finding_url<'b>(&'b self, f: &'b FindingView<'a>) -> &'b str {
        f.url().unwrap_or(self.scan.target_url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_a_body_and_sorts_findings() {
        let body = json!({
            "scan": {"id": "s", "target_url": "https://a.test/", "status": "completed"},
            "report": {
                "summary": {"pages_scanned": 1, "duration_ms": 5, "categories": {"search": {"high": 1}, "crawlability": {}}, "error": null},
                "pages": [{"url": "https://a.test/", "metrics": {"lcp_ms": 1.0}}],
                "findings": [
                    {"check_id": "search.x", "severity": "low", "evidence": {"url": "https://a.test/"}},
                    {"check_id": "accessibility.image-alt", "severity": "critical", "title": "Images need alt",
                     "evidence": {"url": "https://a.test/", "selector": "img", "wcag": ["wcag2a"], "help_url": "https://h.test/r"}},
                    {"severity": "high"}
                ]
            }
        });
        let report = ScanReport::from_body(&body).unwrap();
        let view = ReportView::new(&report);
        assert_eq!(view.findings.len(), 2, "a finding without check_id is dropped");
        assert_eq!(view.findings[0].check_id, "accessibility.image-alt");
        let cats: Vec<&str> = view.summary.as_ref().unwrap().categories.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(cats, ["crawlability", "search"]);
        assert_eq!(view.categories(), ["crawlability", "search", "accessibility"]);
        let rule = view.rules().into_iter().find(|r| r.id == "accessibility.image-alt").unwrap();
        assert!(!rule.registered || registry::find(&rule.id).is_some());
        if !rule.registered {
            assert_eq!(rule.title, "Images need alt");
            assert_eq!(rule.help_url.as_deref(), Some("https://h.test/r"));
        }
        assert_eq!(rule.wcag, ["wcag2a"]);
    }

    #[test]
    fn a_scan_that_has_not_run_has_no_summary() {
        let report = ScanReport::from_body(&json!({"scan": {"status": "queued"}, "report": null})).unwrap();
        let view = ReportView::new(&report);
        assert!(view.summary.is_none() && view.findings.is_empty());
    }
}
