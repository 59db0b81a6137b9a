//! `--format gitlab`: GitLab's Code Quality report, the file a job names under
//! `artifacts:reports:codequality` (merge request widget, pipeline Code Quality tab).
//!
//! A JSON array with one issue per finding, most serious first:
//!
//! - `description`: the finding's title, then the element (selector) or resource it is about
//!   and its value against the limit, when it has them.
//! - `check_name`: the check id (`accessibility.color-contrast`).
//! - `fingerprint`: the SHA-256 (hex) of the finding's identity across scans, the one the
//!   scan-to-scan comparison uses (`compare::Fingerprint`): check id, page URL (without its
//!   fragment; the target URL for a site-level finding), locator (`evidence.resource`, else
//!   `evidence.selector`) and journey. Never measured values, so GitLab sees the same issue from
//!   run to run. Two findings with the same identity (two identical links on a page) are told
//!   apart by their rank among them in the report's canonical order: the second hashes its key
//!   with `#2`, and so on, so every fingerprint in a report is unique.
//! - `severity`: info → `info`, low → `minor`, medium → `major`, high → `critical`,
//!   critical → `blocker`.
//! - `location.path`: the page URL (`evidence.url`; the target URL for a site-level finding).
//!   A page has no file in the repository, so GitLab shows the path without linking it.
//! - `location.lines.begin`: `evidence.line` when the finding carries one about that URL (an HTML
//!   parse error's line in the served markup, a robots.txt line), else 1. A line inside another
//!   resource (a script's line for a console error) is no line of the page: 1 there too.
//! - `categories`: the check's category as a title (`Accessibility`), plus `Security` for checks
//!   that name a CWE.
//! - `content.body` (Markdown): why it matters, how to fix, and a link to the check's
//!   documentation when the check has one.
//!
//! A scan that failed adds one `blocker` issue, `check_name` `sitescan.scan-failed`, with the
//! error code and message, so a failed scan never reads as a clean report.

use super::view::{FindingView, ReportView, RuleView};
use crate::model::fingerprint::Fingerprint;
use crate::model::{ScanReport, ScanStatus, Severity};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// The `check_name` of the issue a failed scan adds.
pub const SCAN_FAILED_CHECK: &str = "sitescan.scan-failed";

/// GitLab's severity for a sitescan severity.
pub fn severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Info => "info",
        Severity::Low => "minor",
        Severity::Medium => "major",
        Severity::High => "critical",
        Severity::Critical => "blocker",
    }
}

/// Renders the report as a GitLab Code Quality report (pretty JSON, newline-terminated).
pub fn render(report: &ScanReport) -> anyhow::Result<String> {
    let view = ReportView::new(report);
    Ok(serde_json::to_string_pretty(&issues(&view))? + "\n")
}

fn issues(view: &ReportView<'_>) -> Value {
    let rules: HashMap<String, RuleView> = view.rules().into_iter().map(|r| (r.id.clone(), r)).collect();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out: Vec<Value> = view
        .findings
        .iter()
        .map(|f| {
            let key = identity(view, f);
            let n = seen.entry(key.clone()).or_insert(0);
            *n += 1;
            let key = if *n == 1 { key } else { format!("{key}\n#{n}") };
            issue(view, f, rules.get(f.check_id), hex_sha256(&key))
        })
        .collect();
    if let Some(failed) = scan_failed(view) {
        out.push(failed);
    }
    Value::Array(out)
}

/// The finding's identity across scans (`compare::Fingerprint`), as text to hash.
fn identity(view: &ReportView<'_>, f: &FindingView<'_>) -> String {
    let fp = Fingerprint::new(f.check_id, Some(f.evidence));
    let url = fp.url.unwrap_or_else(|| without_fragment(view.scan.target_url).to_string());
    let mut key = [fp.check_id.as_str(), url.as_str(), fp.locator.as_deref().unwrap_or("")].join("\n");
    if let Some(journey) = &fp.journey {
        key.push_str("\njourney:");
        key.push_str(journey);
    }
    key
}

fn without_fragment(url: &str) -> &str {
    url.split_once('#').map_or(url, |(u, _)| u)
}

fn hex_sha256(text: &str) -> String {
    format!("{:x}", Sha256::digest(text.as_bytes()))
}

/// `accessibility` -> `Accessibility`, `structured-data` -> `Structured data`.
fn category_title(category: &str) -> String {
    let mut chars = category.chars();
    chars.next().map(|c| c.to_uppercase().collect::<String>() + chars.as_str()).unwrap_or_default().replace('-', " ")
}

/// The line the finding points at on its page: `evidence.line`, unless it is a line of another
/// resource (a script) than the page.
fn line(view: &ReportView<'_>, f: &FindingView<'_>) -> u64 {
    let of_page = f.resource().is_none_or(|r| without_fragment(r) == without_fragment(view.finding_url(f)));
    f.evidence.get("line").and_then(Value::as_u64).filter(|l| *l >= 1 && of_page).unwrap_or(1)
}

fn description(f: &FindingView<'_>) -> String {
    let title = f.title.trim().trim_end_matches('.');
    let mut text = if title.is_empty() { f.check_id.to_string() } else { title.to_string() };
    let mut about = Vec::new();
    if let Some(sel) = f.selector() {
        about.push(format!("element {sel}"));
    }
    if let Some(res) = f.resource() {
        about.push(format!("resource {res}"));
    }
    if !about.is_empty() {
        text.push_str(": ");
        text.push_str(&about.join(", "));
    }
    match f.value_and_limit() {
        (Some(v), Some(l)) => text.push_str(&format!(" (value {v}, limit {l})")),
        (Some(v), None) => text.push_str(&format!(" (value {v})")),
        (None, Some(l)) => text.push_str(&format!(" (limit {l})")),
        (None, None) => {}
    }
    text
}

/// Markdown: why it matters, how to fix, where to read more.
fn body(f: &FindingView<'_>, rule: Option<&RuleView>) -> String {
    let why = Some(f.description.trim()).filter(|s| !s.is_empty()).or_else(|| rule.map(|r| r.description.trim())).unwrap_or("");
    let fix = Some(f.remediation.trim()).filter(|s| !s.is_empty()).or_else(|| rule.map(|r| r.remediation.trim())).unwrap_or("");
    let mut parts = Vec::new();
    if !why.is_empty() {
        parts.push(format!("**Why it matters:** {why}"));
    }
    if !fix.is_empty() {
        parts.push(format!("**How to fix:** {fix}"));
    }
    if let Some(snippet) = f.snippet() {
        parts.push(format!("```html\n{}\n```", snippet.trim().replace("```", "` ` `")));
    }
    if let Some(url) = rule.and_then(|r| r.help_url.as_deref()) {
        parts.push(format!("[More about {}]({url})", f.check_id));
    }
    parts.join("\n\n")
}

fn issue(view: &ReportView<'_>, f: &FindingView<'_>, rule: Option<&RuleView>, fingerprint: String) -> Value {
    let mut categories = vec![category_title(f.category())];
    if f.cwe_id.is_some() || rule.is_some_and(|r| r.cwe_id.is_some()) {
        categories.push("Security".to_string());
    }
    let mut issue = json!({
        "type": "issue",
        "description": description(f),
        "check_name": f.check_id,
        "fingerprint": fingerprint,
        "severity": severity(f.severity),
        "categories": categories,
        "location": {"path": view.finding_url(f), "lines": {"begin": line(view, f)}},
    });
    let body = body(f, rule);
    if !body.is_empty() {
        issue["content"] = json!({"body": body});
    }
    issue
}

/// The issue a failed scan adds (`None` when the scan did not fail).
fn scan_failed(view: &ReportView<'_>) -> Option<Value> {
    let error = view.summary.as_ref().and_then(|s| s.error);
    if view.scan.status != ScanStatus::Failed && error.is_none() {
        return None;
    }
    let (code, message) = error.unwrap_or(("scan_failed", ""));
    let description = if message.trim().is_empty() {
        format!("The scan failed ({code})")
    } else {
        format!("The scan failed ({code}): {}", message.trim())
    };
    let target = without_fragment(view.scan.target_url);
    Some(json!({
        "type": "issue",
        "description": description,
        "check_name": SCAN_FAILED_CHECK,
        "fingerprint": hex_sha256(&[SCAN_FAILED_CHECK, target, code].join("\n")),
        "severity": severity(Severity::Critical),
        "categories": ["Bug Risk"],
        "location": {"path": view.scan.target_url, "lines": {"begin": 1}},
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(body: &Value) -> Vec<Value> {
        let text = super::render(&ScanReport::from_body(body).unwrap()).unwrap();
        serde_json::from_str::<Value>(&text).unwrap().as_array().unwrap().clone()
    }

    fn body(findings: Value) -> Value {
        json!({
            "scan": {"id": "s", "target_url": "https://shop.test/", "status": "completed"},
            "report": {"summary": {"pages_scanned": 1, "duration_ms": 5, "categories": {}, "error": null}, "findings": findings}
        })
    }

    #[test]
    fn severities_map_to_gitlabs_five() {
        let mapped: Vec<&str> = Severity::ALL.into_iter().map(severity).collect();
        assert_eq!(mapped, ["blocker", "critical", "major", "minor", "info"]);
    }

    #[test]
    fn fingerprints_ignore_measurements_and_tell_twins_apart() {
        let link = |ms: u64| json!({"check_id": "crawlability.broken-link", "severity": "high", "title": "Broken link",
                                    "evidence": {"url": "https://shop.test/", "resource": "https://shop.test/gone", "elapsed_ms": ms}});
        let first = render(&body(json!([link(10), link(20)])));
        let again = render(&body(json!([link(999), link(5)])));
        assert_ne!(first[0]["fingerprint"], first[1]["fingerprint"]);
        assert_eq!(first[0]["fingerprint"], again[0]["fingerprint"]);
        assert_eq!(first[1]["fingerprint"], again[1]["fingerprint"]);
        assert_eq!(first[0]["fingerprint"].as_str().unwrap().len(), 64);
    }

    #[test]
    fn lines_are_the_pages_own() {
        let issues = render(&body(json!([
            {"check_id": "semantics.parse-error", "severity": "low", "title": "HTML parse error",
             "evidence": {"url": "https://shop.test/a", "line": 42, "value": "stray end tag"}},
            {"check_id": "runtime.console-error", "severity": "medium", "title": "Console error",
             "evidence": {"url": "https://shop.test/b", "resource": "https://shop.test/app.js", "line": 7}},
            {"check_id": "search.robots-txt-missing", "severity": "info", "title": "No robots.txt", "evidence": {}},
        ])));
        let by = |id: &str| issues.iter().find(|i| i["check_name"] == id).unwrap().clone();
        assert_eq!(by("semantics.parse-error")["location"], json!({"path": "https://shop.test/a", "lines": {"begin": 42}}));
        assert_eq!(by("runtime.console-error")["location"]["lines"]["begin"], 1);
        assert_eq!(by("search.robots-txt-missing")["location"]["path"], "https://shop.test/");
    }

    #[test]
    fn a_failed_scan_is_a_blocker() {
        let issues = render(&json!({
            "scan": {"id": "x", "target_url": "https://down.test/", "status": "failed"},
            "report": {"summary": {"pages_scanned": 0, "duration_ms": 3, "categories": {},
                       "error": {"code": "target_unreachable", "message": "connection refused"}}}
        }));
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0]["check_name"], SCAN_FAILED_CHECK);
        assert_eq!(issues[0]["severity"], "blocker");
        assert!(issues[0]["description"].as_str().unwrap().contains("connection refused"));
    }
}
