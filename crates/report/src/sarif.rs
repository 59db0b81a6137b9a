//! `--format sarif`: SARIF 2.1.0 for code-scanning dashboards (GitHub code scanning first).
//!
//! One `run`. `tool.driver.rules` lists every check of the registry, then the ids seen only in
//! findings (such as `accessibility.<axe-rule>`, whose text comes from the finding itself). Each
//! finding is one `result` with the finding's own level, a one-line message, a location and a
//! fingerprint that stays the same from run to run (a hash of check id, page URL, selector and,
//! where a finding has one, the resource it is about).
//!
//! Locations. A page is no file in a repository, and GitHub code scanning rejects a whole upload
//! whose `artifactLocation.uri` is absolute with a scheme other than the checkout's `file:`
//! (its error: `SARIF URI scheme "https" did not match the checkout URI scheme "file"`). So the
//! `uri` is the page URL without its scheme, a relative reference (`example.com/pricing?plan=a`),
//! and the full URL is kept beside it (`artifactLocation.description` and
//! `properties.url`). GitHub also requires `region.startLine`: a page has no line the finding
//! points at unless its evidence has `line`, so the region says line 1 and carries the element's
//! HTML as `snippet`; the element itself is the `logicalLocation` (kind `element`, its CSS
//! selector). GitHub keeps at most 25,000 results a run: beyond that, the most serious are kept
//! and the run says how many were left out.

use super::view::{FindingView, ReportView, RuleView, category_rank};
use crate::model::{Change, ScanReport, ScanStatus, Severity};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// The schema the output declares (SARIF 2.1.0, the one GitHub documents).
pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// Results GitHub code scanning accepts in one run.
pub const MAX_RESULTS: usize = 25_000;
/// Tags per rule GitHub code scanning reads.
pub const MAX_TAGS: usize = 10;
/// The key of our fingerprint in `partialFingerprints` (versioned: a new recipe gets a new key).
pub const FINGERPRINT_KEY: &str = "sitescanFinding/v1";

/// The SARIF level of a severity: critical and high are errors, medium a warning, the rest notes.
pub fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Critical | Severity::High => "error",
        Severity::Medium => "warning",
        Severity::Low | Severity::Info => "note",
    }
}

/// GitHub's `security-severity` (0-10) for checks that name a CWE.
fn security_severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Critical => "9.5",
        Severity::High => "8.0",
        Severity::Medium => "5.5",
        Severity::Low => "3.0",
        Severity::Info => "1.0",
    }
}

/// Renders the report as a SARIF 2.1.0 log (pretty JSON, newline-terminated).
pub fn render(report: &ScanReport) -> anyhow::Result<String> {
    let view = ReportView::new(report);
    let log = log(&view);
    Ok(serde_json::to_string_pretty(&log)? + "\n")
}

fn log(view: &ReportView<'_>) -> Value {
    let mut rules = view.rules();
    rules.sort_by(|a, b| category_rank(a.category()).cmp(&category_rank(b.category())));
    let index: HashMap<&str, usize> = rules.iter().enumerate().map(|(i, r)| (r.id.as_str(), i)).collect();

    let compared = view.summary.as_ref().is_some_and(|s| s.changes.is_some());
    let mut seen: HashMap<String, usize> = HashMap::new();
    let results: Vec<Value> = view
        .findings
        .iter()
        .take(MAX_RESULTS)
        .map(|f| {
            let fingerprint = fingerprint(view, f);
            let n = seen.entry(fingerprint.clone()).or_insert(0);
            *n += 1;
            let fingerprint = if *n == 1 { fingerprint } else { format!("{fingerprint}:{n}") };
            let mut r = result(view, f, index[f.check_id], fingerprint);
            if compared {
                r["baselineState"] = json!(if f.change == Some(Change::Persisting) { "unchanged" } else { "new" });
            }
            r
        })
        .collect();
    let omitted = view.findings.len().saturating_sub(MAX_RESULTS);
    // Findings of the baseline that went away: `absent` results that no longer fail.
    let room = MAX_RESULTS.saturating_sub(results.len());
    let absent: Vec<Value> = if compared {
        view.fixed
            .iter()
            .take(room)
            .map(|f| {
                let mut r = result(view, f, index[f.check_id], fingerprint(view, f));
                r["baselineState"] = json!("absent");
                r["kind"] = json!("pass");
                r["level"] = json!("none");
                r
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut results = results;
    results.extend(absent);

    let mut driver = json!({
        "name": "sitescan",
        "fullName": format!("sitescan {}", crate::VERSION),
        "version": crate::VERSION,
        "semanticVersion": crate::VERSION,
        "rules": rules.iter().map(rule).collect::<Vec<_>>(),
    });
    if let Some(uri) = information_uri() {
        driver["informationUri"] = json!(uri);
    }

    let mut run = json!({
        "tool": {"driver": driver},
        "invocations": [invocation(view, omitted)],
        "results": results,
        "properties": {
            "scan": view.scan.info,
            "summary": view.summary.as_ref().map(|s| s.raw),
        },
    });
    if omitted > 0 {
        run["properties"]["omittedResults"] = json!(omitted);
    }
    json!({"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]})
}

/// The tool's home page, when the crate declares one (`repository`, else `homepage`).
fn information_uri() -> Option<&'static str> {
    [env!("CARGO_PKG_REPOSITORY"), env!("CARGO_PKG_HOMEPAGE")].into_iter().find(|u| u.starts_with("https://"))
}

/// `search.title-missing` -> `SearchTitleMissing` (SARIF asks for a Pascal-case friendly name).
fn pascal(id: &str) -> String {
    id.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
        })
        .collect()
}

/// Ends a sentence with a full stop (SARIF asks messages to be sentences).
fn sentence(text: &str) -> String {
    let text = text.trim();
    if text.is_empty() || text.ends_with(['.', '!', '?']) { text.to_string() } else { format!("{text}.") }
}

fn rule(r: &RuleView) -> Value {
    let description = if r.description.trim().is_empty() {
        r.fires_when.clone().unwrap_or_else(|| r.title.clone())
    } else {
        r.description.clone()
    };
    let remediation = r.remediation.trim();
    let mut help_text = String::new();
    let mut help_md = String::new();
    if let Some(fires) = &r.fires_when {
        help_text.push_str(&format!("Fires when: {}\n\n", sentence(fires)));
        help_md.push_str(&format!("**Fires when:** {}\n\n", sentence(fires)));
    }
    help_text.push_str(&format!("Why it matters: {}\n\n", sentence(&description)));
    help_md.push_str(&format!("**Why it matters:** {}\n\n", sentence(&description)));
    if remediation.is_empty() {
        help_text.push_str("How to fix: see the finding's evidence.");
        help_md.push_str("**How to fix:** see the finding's evidence.");
    } else {
        help_text.push_str(&format!("How to fix: {}", sentence(remediation)));
        help_md.push_str(&format!("**How to fix:** {}", sentence(remediation)));
    }
    if let Some(url) = &r.help_url {
        help_text.push_str(&format!("\n\nMore: {url}"));
        help_md.push_str(&format!("\n\n[More about this check]({url})"));
    }

    let category = r.category().to_string();
    let mut tags: Vec<String> = vec![category.clone()];
    if let Some(cwe) = &r.cwe_id {
        tags.push("security".into());
        if let Some(n) = cwe.strip_prefix("CWE-") {
            tags.push(format!("external/cwe/cwe-{n}"));
        }
    }
    for tag in &r.wcag {
        if !tags.contains(tag) {
            tags.push(tag.clone());
        }
    }
    tags.truncate(MAX_TAGS);

    let mut properties = json!({"category": category, "tags": tags, "registered": r.registered});
    if let Some(cwe) = &r.cwe_id {
        properties["cwe"] = json!(cwe);
        properties["security-severity"] = json!(security_severity(r.severity));
    }
    let mut out = json!({
        "id": r.id,
        "name": pascal(&r.id),
        "shortDescription": {"text": sentence(&r.title)},
        "fullDescription": {"text": sentence(&description)},
        "help": {"text": help_text, "markdown": help_md},
        "defaultConfiguration": {"level": level(r.severity)},
        "properties": properties,
    });
    if let Some(url) = &r.help_url {
        out["helpUri"] = json!(url);
    }
    out
}

/// The page URL as a scheme-less relative reference: `https://Example.com:8443/a?b#c` ->
/// `example.com%3A8443/a?b` (a colon may not stand in a relative reference's first segment).
pub fn artifact_uri(page_url: &str) -> String {
    let Ok(url) = url::Url::parse(page_url) else {
        return page_url.replace(':', "%3A").replace(' ', "%20");
    };
    let mut host = url.host_str().unwrap_or("").replace('[', "%5B").replace(']', "%5D").replace(':', "%3A");
    if let Some(port) = url.port() {
        host.push_str(&format!("%3A{port}"));
    }
    let mut out = if host.is_empty() { url.path().trim_start_matches('/').to_string() } else { format!("{host}{}", url.path()) };
    if let Some(q) = url.query() {
        out.push('?');
        out.push_str(q);
    }
    if out.is_empty() { "index".to_string() } else { out }
}

/// A stable identity: check id, page URL, selector and resource (never measured values).
pub(crate) fn fingerprint(view: &ReportView<'_>, f: &FindingView<'_>) -> String {
    let mut key = [f.check_id, view.finding_url(f), f.selector().unwrap_or(""), f.resource().unwrap_or("")].join("\n");
    // A journey's findings are told apart from the crawl's on the same page (other keys unchanged).
    if let Some(journey) = f.text("journey") {
        key.push_str("\njourney:");
        key.push_str(journey);
    }
    format!("{:x}", Sha256::digest(key.as_bytes()))
}

fn message(view: &ReportView<'_>, f: &FindingView<'_>) -> String {
    let title = if f.title.trim().is_empty() { f.check_id } else { f.title.trim().trim_end_matches('.') };
    let mut text = format!("{title} on {}", view.finding_url(f));
    if let Some(sel) = f.selector() {
        text.push_str(&format!(", element {sel}"));
    }
    if let Some(res) = f.resource() {
        text.push_str(&format!(", resource {res}"));
    }
    match f.value_and_limit() {
        (Some(v), Some(l)) => text.push_str(&format!(" (value {v}, limit {l})")),
        (Some(v), None) => text.push_str(&format!(" (value {v})")),
        (None, Some(l)) => text.push_str(&format!(" (limit {l})")),
        (None, None) => {}
    }
    text.push('.');
    text
}

fn result(view: &ReportView<'_>, f: &FindingView<'_>, rule_index: usize, fingerprint: String) -> Value {
    let url = view.finding_url(f);
    let mut region = Map::new();
    let line = f.evidence.get("line").and_then(Value::as_u64).filter(|l| *l >= 1);
    region.insert("startLine".into(), json!(line.unwrap_or(1)));
    if let (Some(_), Some(col)) = (line, f.evidence.get("column").and_then(Value::as_u64).filter(|c| *c >= 1)) {
        region.insert("startColumn".into(), json!(col));
    }
    if let Some(snippet) = f.snippet() {
        region.insert("snippet".into(), json!({"text": snippet}));
    }
    let mut location = json!({
        "physicalLocation": {
            "artifactLocation": {
                "uri": artifact_uri(url),
                "description": {"text": format!("The page {url}.")},
                "properties": {"url": url},
            },
            "region": region,
        },
        "properties": {"url": url},
    });
    if let Some(sel) = f.selector() {
        location["logicalLocations"] = json!([{"name": sel, "fullyQualifiedName": sel, "kind": "element"}]);
        location["properties"]["selector"] = json!(sel);
    }
    let mut properties = json!({
        "severity": f.severity.as_str(),
        "category": f.category(),
        "url": url,
        "evidence": f.evidence,
    });
    if let Some(cwe) = f.cwe_id {
        properties["cwe"] = json!(cwe);
    }
    json!({
        "ruleId": f.check_id,
        "ruleIndex": rule_index,
        "kind": "fail",
        "level": level(f.severity),
        "message": {"text": message(view, f)},
        "locations": [location],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
        "properties": properties,
    })
}

fn invocation(view: &ReportView<'_>, omitted: usize) -> Value {
    let scan = &view.scan;
    let mut notifications = Vec::new();
    match (scan.status, view.summary.as_ref().and_then(|s| s.error)) {
        (_, Some((code, message))) => notifications.push(json!({
            "level": "error",
            "message": {"text": sentence(&format!("The scan failed ({code}): {message}"))},
            "descriptor": {"id": code},
        })),
        (ScanStatus::Failed, None) => notifications.push(json!({
            "level": "error",
            "message": {"text": "The scan failed."},
            "descriptor": {"id": "scan_failed"},
        })),
        (ScanStatus::Queued | ScanStatus::Running, None) => notifications.push(json!({
            "level": "note",
            "message": {"text": format!("The scan has not finished (status {}): no results yet.", scan.status)},
            "descriptor": {"id": "scan_unfinished"},
        })),
        _ => {}
    }
    if omitted > 0 {
        notifications.push(json!({
            "level": "warning",
            "message": {"text": format!(
                "{omitted} less serious results were left out: code scanning accepts at most {MAX_RESULTS} results a run."
            )},
            "descriptor": {"id": "results_truncated"},
        }));
    }
    // Checks that did not run: the run is incomplete, and its silence on those pages no pass.
    if let Some(gaps) = view.summary.as_ref().and_then(|s| s.raw.checks_not_run.as_ref()) {
        for reason in &gaps.reasons {
            notifications.push(json!({
                "level": "error",
                "message": {"text": format!(
                    "{} checks did not run on {} pages: {} (e.g. {}): {}",
                    reason.check_ids.len(), reason.pages, reason.reason, reason.example_url, reason.check_ids.join(", ")
                )},
                "descriptor": {"id": "checks_not_run"},
                "properties": {"reason": reason.reason, "pages": reason.pages, "checkIds": reason.check_ids, "exampleUrl": reason.example_url},
            }));
        }
    }
    for n in view.summary.as_ref().map(|s| s.raw.site_checks_not_run.as_slice()).unwrap_or_default() {
        notifications.push(json!({
            "level": "error",
            "message": {"text": format!("The site check {} did not run: {}", n.check_id, n.reason)},
            "descriptor": {"id": "site_checks_not_run"},
            "associatedRule": {"id": n.check_id},
        }));
    }
    // A budget's failed assertions, each named: where a code-scanning run says what failed it.
    for a in view.summary.as_ref().and_then(|s| s.raw.budget.as_ref()).into_iter().flat_map(|b| &b.assertions).filter(|a| !a.passed) {
        let error = a.level == crate::model::budget::AssertionLevel::Error;
        notifications.push(json!({
            "level": if error { "error" } else { "warning" },
            "message": {"text": format!("Budget {}: {}", if error { "failed" } else { "warning" }, a.message)},
            "descriptor": {"id": "budget"},
            "properties": {"assertion": a.assertion, "level": a.level, "max": a.max, "actual": a.actual},
        }));
    }
    let mut inv = json!({
        "executionSuccessful": scan.status == ScanStatus::Completed,
        "properties": {
            "scanId": scan.id,
            "status": scan.status,
            "targetUrl": scan.target_url,
            "pagesScanned": view.summary.as_ref().map(|s| s.pages_scanned),
            "durationMs": view.summary.as_ref().map(|s| s.duration_ms),
        },
    });
    if let Some(t) = &scan.started_at {
        inv["startTimeUtc"] = json!(t);
    }
    if let Some(t) = &scan.completed_at {
        inv["endTimeUtc"] = json!(t);
    }
    if !notifications.is_empty() {
        inv["toolExecutionNotifications"] = Value::Array(notifications);
    }
    inv
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(body: &Value) -> anyhow::Result<String> {
        super::render(&ScanReport::from_body(body).unwrap())
    }

    fn body() -> Value {
        json!({
            "scan": {"id": "0190a0b0-0000-7000-8000-000000000001", "target_url": "https://shop.test/", "target_hostname": "shop.test",
                     "status": "completed", "started_at": "2026-01-31T10:00:00Z", "completed_at": "2026-01-31T10:00:08Z"},
            "report": {
                "summary": {"pages_scanned": 2, "duration_ms": 8400, "categories": {"search": {"high": 1}}, "error": null},
                "pages": [],
                "findings": [
                    {"check_id": "search.title-missing", "severity": "high", "title": "Page has no title",
                     "description": "d", "remediation": "r", "evidence": {"url": "https://shop.test/cart"}},
                    {"check_id": "accessibility.image-alt", "severity": "critical", "title": "Images must have alternative text",
                     "evidence": {"url": "https://shop.test/", "selector": "img.hero", "snippet": "<img class=\"hero\">",
                                  "help_url": "https://dequeuniversity.test/rules/image-alt", "wcag": ["wcag2a", "wcag111"]}},
                    {"check_id": "forms.password-over-http", "severity": "critical", "title": "Password over http", "cwe_id": "CWE-319",
                     "evidence": {"url": "http://shop.test:8080/login", "selector": "input[type=password]"}},
                ]
            }
        })
    }

    #[test]
    fn levels_follow_severity() {
        assert_eq!(level(Severity::Critical), "error");
        assert_eq!(level(Severity::High), "error");
        assert_eq!(level(Severity::Medium), "warning");
        assert_eq!(level(Severity::Low), "note");
        assert_eq!(level(Severity::Info), "note");
    }

    #[test]
    fn uris_are_scheme_less_relative_references() {
        assert_eq!(artifact_uri("https://Example.com/a/b?x=1#frag"), "example.com/a/b?x=1");
        assert_eq!(artifact_uri("http://127.0.0.1:8080/"), "127.0.0.1%3A8080/");
        assert_eq!(artifact_uri("http://[::1]:3000/p"), "%5B%3A%3A1%5D%3A3000/p");
    }

    #[test]
    fn results_point_at_their_rules_and_keep_fingerprints() {
        let body = body();
        let log: Value = serde_json::from_str(&render(&body).unwrap()).unwrap();
        let run = &log["runs"][0];
        let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
        for r in run["results"].as_array().unwrap() {
            let rule = &rules[r["ruleIndex"].as_u64().unwrap() as usize];
            assert_eq!(rule["id"], r["ruleId"]);
        }
        let first = &run["results"][0];
        assert_eq!(first["ruleId"], "accessibility.image-alt");
        assert_eq!(first["level"], "error");
        let loc = &first["locations"][0];
        assert_eq!(loc["physicalLocation"]["artifactLocation"]["uri"], "shop.test/");
        assert_eq!(loc["physicalLocation"]["region"]["snippet"]["text"], "<img class=\"hero\">");
        assert_eq!(loc["logicalLocations"][0]["name"], "img.hero");
        let again: Value = serde_json::from_str(&render(&body).unwrap()).unwrap();
        assert_eq!(first["partialFingerprints"], again["runs"][0]["results"][0]["partialFingerprints"]);
        let pw = run["results"].as_array().unwrap().iter().find(|r| r["ruleId"] == "forms.password-over-http").unwrap();
        let rule = &rules[pw["ruleIndex"].as_u64().unwrap() as usize];
        if rule["properties"]["registered"] == false {
            assert!(rule["properties"]["tags"].as_array().unwrap().contains(&json!("external/cwe/cwe-319")));
        }
        assert_eq!(run["invocations"][0]["executionSuccessful"], true);
    }

    #[test]
    fn a_failed_scan_says_why() {
        let body = json!({
            "scan": {"id": "x", "target_url": "https://down.test/", "status": "failed"},
            "report": {"summary": {"pages_scanned": 0, "duration_ms": 3, "categories": {},
                       "error": {"code": "target_unreachable", "message": "connection refused"}}}
        });
        let log: Value = serde_json::from_str(&render(&body).unwrap()).unwrap();
        let inv = &log["runs"][0]["invocations"][0];
        assert_eq!(inv["executionSuccessful"], false);
        assert_eq!(inv["toolExecutionNotifications"][0]["descriptor"]["id"], "target_unreachable");
        assert!(inv["toolExecutionNotifications"][0]["message"]["text"].as_str().unwrap().contains("connection refused"));
    }

    #[test]
    fn pascal_names() {
        assert_eq!(pascal("search.title-missing"), "SearchTitleMissing");
        assert_eq!(pascal("accessibility.aria-valid-attr-value"), "AccessibilityAriaValidAttrValue");
    }
}
