//! The platform-neutral chat message of one queued event: what happened (the headline), a
//! sentence or two, labelled facts (counts by severity, changes), the top new findings, and a
//! link to the dashboard (the compare page when the scan has a baseline, else the scan page).
//! A site's first scan has nothing to compare with: its findings are not "new", they are
//! simply there, and the message counts and lists them as findings.
//!
//! Built from the event exactly as it was queued (the Standard Webhooks envelope: `type`,
//! `timestamp`, `data`), plus what `scan_finished` adds for chat endpoints (`new_findings`,
//! `new_by_severity`, `error`). An event type this file does not know becomes a generic
//! message naming it, with its data's plain fields as facts: never an error.

use crate::model::{Severity, StoredFinding};
use serde_json::{Map, Value};

/// The most new findings a message lists (the rest are counted).
pub const TOP_FINDINGS: usize = 10;
/// The most facts a generic message takes from an unknown event's data.
const GENERIC_FACTS: usize = 8;

/// A labelled value (Teams' fact, Discord's field, Slack's section field).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    pub label: String,
    pub value: String,
}

/// A link to the dashboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub label: String,
    pub url: String,
}

/// How the message should look: the most serious new finding, or how the event went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Severity(Severity),
    Good,
    Bad,
    Neutral,
}

impl Tone {
    /// An RGB colour (Discord's embed colour).
    pub fn rgb(self) -> u32 {
        match self {
            Tone::Severity(Severity::Critical) | Tone::Bad => 0xB9_1C_1C,
            Tone::Severity(Severity::High) => 0xDC_26_26,
            Tone::Severity(Severity::Medium) => 0xD9_77_06,
            Tone::Severity(Severity::Low) => 0x25_63_EB,
            Tone::Severity(Severity::Info) | Tone::Neutral => 0x6B_72_80,
            Tone::Good => 0x16_A3_4A,
        }
    }

    /// The Adaptive Card colour name (Teams).
    pub fn card_color(self) -> &'static str {
        match self {
            Tone::Severity(Severity::Critical | Severity::High) | Tone::Bad => "Attention",
            Tone::Severity(Severity::Medium) => "Warning",
            Tone::Good => "Good",
            _ => "Default",
        }
    }
}

/// One event, ready for any platform.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatMessage {
    /// The event type (`scan.completed`, ...).
    pub event: String,
    /// What happened, in one line.
    pub headline: String,
    /// More about it (may be empty).
    pub summary: String,
    pub facts: Vec<Fact>,
    /// The top new findings, the most serious first.
    pub findings: Vec<StoredFinding>,
    /// New findings beyond those listed.
    pub more_findings: u64,
    /// The scan is the site's first (no previous scan to compare with): nothing is "new".
    pub first_scan: bool,
    pub link: Option<Link>,
    /// When the event happened (RFC 3339), if the event says.
    pub timestamp: Option<String>,
    pub tone: Tone,
}

fn text(data: &Value, key: &str) -> String {
    match data.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::Bool(b)) => b.to_string(),
        _ => String::new(),
    }
}

fn count(data: &Value, key: &str) -> u64 {
    data.get(key).and_then(Value::as_u64).unwrap_or(0)
}

fn plural(n: u64, one: &str) -> String {
    if n == 1 { format!("1 {one}") } else { format!("{n} {one}s") }
}

/// `1 high, 2 low` from `{critical, high, ...}` counts (most serious first; zeros left out).
fn by_severity(counts: Option<&Value>) -> Option<String> {
    let counts = counts?.as_object()?;
    let parts: Vec<String> = Severity::ALL
        .iter()
        .filter_map(|s| counts.get(s.as_str()).and_then(Value::as_u64).filter(|n| *n > 0).map(|n| format!("{n} {s}")))
        .collect();
    Some(if parts.is_empty() { "none".to_string() } else { parts.join(", ") })
}

/// The most serious severity with a count above zero.
fn worst(counts: Option<&Value>) -> Option<Severity> {
    let counts = counts?.as_object()?;
    Severity::ALL.into_iter().find(|s| counts.get(s.as_str()).and_then(Value::as_u64).is_some_and(|n| n > 0))
}

/// The listed new findings, as stored findings. Payloads queued by an older sitescan wrote the
/// page as `page_url` (or `page`) and `resource` beside the finding: read into its evidence.
fn findings(data: &Value) -> Vec<StoredFinding> {
    let Some(list) = data.get("new_findings").and_then(Value::as_array) else { return Vec::new() };
    list.iter()
        .take(TOP_FINDINGS)
        .filter_map(|f| {
            let mut found: StoredFinding = serde::Deserialize::deserialize(f).ok()?;
            for (old, key) in [("page_url", "url"), ("page", "url"), ("resource", "resource")] {
                let value = text(f, old);
                if !value.is_empty() && !found.finding.evidence.contains_key(key) {
                    found.finding.evidence.insert(key.to_string(), Value::String(value));
                }
            }
            Some(found)
        })
        .collect()
}

/// `base` (the dashboard's public URL) joined with `path_and_query`.
fn dashboard_link(base: Option<&url::Url>, path_and_query: &str, label: &str) -> Option<Link> {
    let base = base?;
    Some(Link { label: label.to_string(), url: format!("{}{path_and_query}", base.as_str().trim_end_matches('/')) })
}

fn scan_link(base: Option<&url::Url>, data: &Value) -> Option<Link> {
    let scan = text(data, "scan_id");
    if scan.is_empty() {
        return None;
    }
    let baseline = data.get("changes").map(|c| text(c, "baseline_scan_id")).unwrap_or_default();
    if baseline.is_empty() {
        dashboard_link(base, &format!("/scans/{scan}"), "Open the scan")
    } else {
        dashboard_link(base, &format!("/compare?base={baseline}&head={scan}"), "Compare with the previous scan")
    }
}

/// True when the event's `changes` say there was no previous scan to compare with.
fn is_first_scan(data: &Value) -> bool {
    data.get("changes").filter(|c| c.is_object()).is_some_and(|c| text(c, "baseline_scan_id").is_empty())
}

fn scan_facts(data: &Value) -> Vec<Fact> {
    let mut facts = vec![Fact { label: "Target".into(), value: text(data, "target_url") }];
    if let Some(all) = by_severity(data.get("findings_count")) {
        facts.push(Fact { label: "Findings".into(), value: all });
    }
    if is_first_scan(data) {
        facts.push(Fact { label: "Changes".into(), value: "first scan: nothing to compare with".into() });
    } else {
        if let Some(c) = data.get("changes").filter(|c| c.is_object()) {
            let value = format!("{} new, {} fixed, {} persisting", count(c, "new"), count(c, "fixed"), count(c, "persisting"));
            facts.push(Fact { label: "Changes".into(), value });
        }
        if let Some(new) = by_severity(data.get("new_by_severity")) {
            facts.push(Fact { label: "New by severity".into(), value: new });
        }
    }
    let mode = text(data, "mode");
    if !mode.is_empty() {
        facts.push(Fact { label: "Mode".into(), value: mode });
    }
    facts
}

fn generic_facts(data: &Value) -> Vec<Fact> {
    let Some(map) = data.as_object() else { return Vec::new() };
    map.iter()
        .filter(|(_, v)| matches!(v, Value::String(_) | Value::Number(_) | Value::Bool(_)))
        .take(GENERIC_FACTS)
        .map(|(k, _)| Fact { label: k.replace('_', " "), value: text(data, k) })
        .collect()
}

impl ChatMessage {
    /// The message of a queued event (`envelope` as queued); links start at `dashboard`, the
    /// service's public URL (no link without one).
    pub fn from_envelope(envelope: &Value, dashboard: Option<&url::Url>) -> ChatMessage {
        let empty = Value::Object(Map::new());
        let event = text(envelope, "type");
        let data = envelope.get("data").filter(|d| d.is_object()).unwrap_or(&empty);
        let timestamp = Some(text(envelope, "timestamp")).filter(|t| !t.is_empty());
        let target = text(data, "target_url");
        let new_worst = worst(data.get("new_by_severity"));
        let new_split = by_severity(data.get("new_by_severity")).filter(|s| s != "none");
        let first_scan = is_first_scan(data);
        // What the counted findings are called: on a first scan, nothing is new.
        let found = if first_scan { "finding" } else { "new finding" };
        let mut m = ChatMessage {
            event: event.clone(),
            headline: String::new(),
            summary: String::new(),
            facts: Vec::new(),
            findings: Vec::new(),
            more_findings: 0,
            first_scan,
            link: None,
            timestamp,
            tone: Tone::Neutral,
        };
        let listed = |m: &mut ChatMessage, new: u64| {
            m.findings = findings(data);
            m.more_findings = new.saturating_sub(m.findings.len() as u64);
        };
        match event.as_str() {
            "scan.completed" => {
                let changes = data.get("changes").filter(|c| c.is_object());
                let new = changes.map(|c| count(c, "new")).unwrap_or(0);
                m.headline = match (changes, new) {
                    (None, _) => format!("Scan of {target} completed"),
                    (Some(_), 0) => format!("Scan of {target} completed: no {found}s"),
                    (Some(_), n) => match &new_split {
                        Some(split) => format!("{} on {target} — {split}", plural(n, found)),
                        None => format!("{} on {target}", plural(n, found)),
                    },
                };
                m.summary = match by_severity(data.get("findings_count")) {
                    Some(all) => format!("The scan completed. Findings by severity: {all}."),
                    None => "The scan completed.".into(),
                };
                // An incomplete scan says so first: its silence on those pages is no pass.
                let gaps = data.get("checks_not_run").filter(|g| g.is_object());
                if let Some(g) = gaps {
                    let (checks, pages) = (count(g, "checks"), count(g, "pages"));
                    m.summary = format!("Incomplete: {} did not run on {}. {}", plural(checks, "check"), plural(pages, "page"), m.summary);
                }
                m.facts = scan_facts(data);
                listed(&mut m, new);
                m.tone = match (changes, new_worst) {
                    (Some(_), Some(s)) if new > 0 => Tone::Severity(s),
                    (Some(_), None) if new > 0 => Tone::Neutral,
                    _ if gaps.is_some() => Tone::Neutral,
                    _ => Tone::Good,
                };
                m.link = scan_link(dashboard, data);
            }
            "scan.regressed" => {
                let n = count(data, "new_at_or_above");
                let min = text(data, "min_severity");
                m.headline = match &new_split {
                    Some(split) => format!("{} at {min} or above on {target} — {split}", plural(n, found)),
                    None => format!("{} at {min} or above on {target}", plural(n, found)),
                };
                m.summary = if first_scan {
                    format!("The first scan of {target} found problems at or above {min}.")
                } else {
                    format!("The latest scan of {target} found new problems at or above {min} since the previous scan.")
                };
                m.facts = scan_facts(data);
                let new = data.get("changes").map(|c| count(c, "new")).unwrap_or(n);
                listed(&mut m, new);
                m.tone = Tone::Severity(new_worst.or_else(|| min.parse().ok()).unwrap_or(Severity::High));
                m.link = scan_link(dashboard, data);
            }
            "scan.budget_failed" => {
                let failed: Vec<String> = data
                    .get("failed_assertions")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(|x| x.get("message").and_then(Value::as_str).map(str::to_string)).collect())
                    .unwrap_or_default();
                m.headline = format!("Budget failed on {target}: {}", plural(failed.len() as u64, "assertion"));
                m.summary = if failed.is_empty() { "The latest scan is over its site's budget.".into() } else { format!("Over the site's budget: {}", failed.join("; ")) };
                m.facts = vec![Fact { label: "Target".into(), value: target.clone() }];
                m.facts.extend(failed.iter().take(10).map(|f| Fact { label: "Failed".into(), value: f.clone() }));
                m.tone = Tone::Bad;
                m.link = scan_link(dashboard, data);
            }
            "scan.failed" => {
                m.headline = format!("Scan of {target} failed");
                let error = text(data, "error");
                m.summary = if error.is_empty() { "The scan could not run to the end.".into() } else { format!("The scan could not run: {error}") };
                m.facts = vec![Fact { label: "Target".into(), value: target.clone() }];
                m.tone = Tone::Bad;
                m.link = scan_link(dashboard, data);
            }
            "monitor.triggered" => {
                let fields: Vec<String> =
                    data.get("changed_fields").and_then(Value::as_array).map(|a| a.iter().filter_map(|f| f.as_str().map(str::to_string)).collect()).unwrap_or_default();
                m.headline = format!("Change seen on {target}: a scan started");
                m.summary = if fields.is_empty() { "The monitor saw a change.".into() } else { format!("The monitor saw a change in: {}.", fields.join(", ")) };
                m.facts = vec![Fact { label: "Target".into(), value: target.clone() }];
                if !fields.is_empty() {
                    m.facts.push(Fact { label: "Changed".into(), value: fields.join(", ") });
                }
                let scan = text(data, "scan_id");
                m.link = (!scan.is_empty()).then(|| dashboard_link(dashboard, &format!("/scans/{scan}"), "Open the scan")).flatten();
            }
            "site.ownership_lost" => {
                let origin = text(data, "origin");
                m.headline = format!("Ownership of {origin} is no longer verified");
                let reason = text(data, "reason");
                m.summary = if reason.is_empty() { "Active scans of the site stop until it is verified again.".into() } else { format!("{reason}. Active scans of the site stop until it is verified again.") };
                m.facts = vec![Fact { label: "Site".into(), value: origin }];
                m.tone = Tone::Bad;
                let site = text(data, "site_id");
                m.link = (!site.is_empty()).then(|| dashboard_link(dashboard, &format!("/sites/{site}"), "Open the site")).flatten();
            }
            "webhook.test" => {
                m.headline = "Test message from sitescan".into();
                m.summary = "This endpoint is set up: sitescan's events will arrive here.".into();
                m.link = dashboard_link(dashboard, "/settings/webhooks", "Open the webhook settings");
            }
            other => {
                m.headline = if other.is_empty() { "sitescan event".to_string() } else { format!("sitescan event: {other}") };
                m.facts = generic_facts(data);
                m.link = scan_link(dashboard, data);
            }
        }
        m
    }

    /// One line for a finding: `high · check.id — page` (then the resource it is about, and the
    /// title, which names a header or a cookie, when there are).
    pub fn finding_text(stored: &StoredFinding) -> String {
        let f = &stored.finding;
        let mut s = format!("{} · {}", f.severity, f.check_id);
        let page = f.url().unwrap_or_default();
        if !page.is_empty() {
            s.push_str(" — ");
            s.push_str(page);
        }
        let resource = f.evidence.get("resource").and_then(Value::as_str).unwrap_or_default();
        if !resource.is_empty() && resource != page {
            s.push_str(": ");
            s.push_str(resource);
        }
        if !f.title.is_empty() {
            s.push_str(" (");
            s.push_str(&f.title);
            s.push(')');
        }
        s
    }

    /// `…and 9990 more new findings`, when there are more than listed.
    pub fn more_text(&self) -> Option<String> {
        more_text(self.more_findings, self.first_scan)
    }

    /// The heading of the listed findings: `Top new findings`, or on a first scan `Top findings`.
    pub fn findings_heading(&self) -> &'static str {
        if self.first_scan { "Top findings" } else { "Top new findings" }
    }
}

/// The room [`more_text`] takes at most.
pub const MORE_TEXT_MAX: usize = 48;

/// `…and N more new findings` for `n` > 0 findings not listed (`…and N more findings` on a
/// first scan).
pub fn more_text(n: u64, first_scan: bool) -> Option<String> {
    let found = if first_scan { "finding" } else { "new finding" };
    match n {
        0 => None,
        1 => Some(format!("…and 1 more {found}")),
        n => Some(format!("…and {n} more {found}s")),
    }
}

/// A scan.completed event with `n` new findings, one of them of a 5,000-character title, for
/// the platforms' limit tests.
#[cfg(test)]
pub fn huge_event(n: usize) -> Value {
    let long = "Ä".repeat(5000);
    let list: Vec<Value> = (0..n.min(TOP_FINDINGS))
        .map(|i| serde_json::json!({"check_id": format!("security.{}-missing", "x".repeat(300)), "severity": "high", "title": long, "page_url": format!("https://site.example/{}/{i}?q=<&>", "p".repeat(3000))}))
        .collect();
    serde_json::json!({
        "type": "scan.completed",
        "timestamp": "2026-11-29T06:00:00Z",
        "data": {
            "scan_id": "0194a1b2-0000-7000-8000-000000000002",
            "target_url": format!("https://site.example/{}", "t".repeat(5000)),
            "mode": "passive",
            "status": "completed",
            "findings_count": {"critical": 0, "high": n, "medium": 3, "low": 0, "info": 1},
            "changes": {"new": n, "fixed": 2, "persisting": 7, "baseline_scan_id": "0194a1b2-0000-7000-8000-000000000001"},
            "new_by_severity": {"critical": 0, "high": n, "medium": 0, "low": 0, "info": 0},
            "new_findings": list,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dashboard() -> url::Url {
        url::Url::parse("https://scan.example.com/").unwrap()
    }

    #[test]
    fn a_completed_scan_says_how_many_new_findings_and_links_the_comparison() {
        let e = json!({"type": "scan.completed", "timestamp": "2026-11-29T06:00:00Z", "data": {
            "scan_id": "H", "target_url": "https://site.example/", "mode": "passive",
            "findings_count": {"critical": 0, "high": 1, "medium": 4, "low": 0, "info": 2},
            "changes": {"new": 3, "fixed": 1, "persisting": 4, "baseline_scan_id": "B"},
            "new_by_severity": {"critical": 0, "high": 1, "medium": 2, "low": 0, "info": 0},
            "new_findings": [{"check_id": "security.csp-missing", "severity": "high", "page_url": "https://site.example/", "title": "No CSP"}]}});
        let m = ChatMessage::from_envelope(&e, Some(&dashboard()));
        assert_eq!(m.headline, "3 new findings on https://site.example/ — 1 high, 2 medium");
        assert_eq!(m.link.unwrap().url, "https://scan.example.com/compare?base=B&head=H");
        assert_eq!(m.findings[0].finding.check_id, "security.csp-missing");
        assert_eq!(m.more_findings, 2);
        assert_eq!(m.tone, Tone::Severity(Severity::High));
        assert!(m.facts.iter().any(|f| f.label == "Findings" && f.value == "1 high, 4 medium, 2 info"), "{:?}", m.facts);
        assert!(m.facts.iter().any(|f| f.label == "Changes" && f.value == "3 new, 1 fixed, 4 persisting"));
    }

    #[test]
    fn an_incomplete_scan_says_so_before_its_counts() {
        let e = json!({"type": "scan.completed", "timestamp": "2026-11-29T06:00:00Z", "data": {
            "scan_id": "H", "target_url": "https://site.example/", "mode": "passive",
            "findings_count": {"critical": 0, "high": 0, "medium": 0, "low": 0, "info": 0},
            "changes": {"new": 0, "fixed": 0, "persisting": 0, "baseline_scan_id": "B"},
            "checks_not_run": {"pages": 3, "checks": 12, "reasons": [{"reason": "the dom gatherer failed", "pages": 3}]}}});
        let m = ChatMessage::from_envelope(&e, Some(&dashboard()));
        assert!(m.summary.starts_with("Incomplete: 12 checks did not run on 3 pages. The scan completed."), "{}", m.summary);
        assert_eq!(m.tone, Tone::Neutral, "an incomplete scan is not shown as all good");
    }

    #[test]
    fn without_a_baseline_or_a_public_url_the_link_is_the_scan_page_or_none() {
        let e = json!({"type": "scan.failed", "data": {"scan_id": "S", "target_url": "https://x.example/", "error": "DNS failed"}});
        let m = ChatMessage::from_envelope(&e, Some(&url::Url::parse("https://scan.example.com/sitescan/").unwrap()));
        assert_eq!(m.link.unwrap().url, "https://scan.example.com/sitescan/scans/S");
        assert!(m.summary.contains("DNS failed"));
        assert_eq!(ChatMessage::from_envelope(&e, None).link, None);
    }

    #[test]
    fn a_failed_budget_names_its_failed_assertions() {
        let e = json!({"type": "scan.budget_failed", "data": {"scan_id": "S", "target_url": "https://x.example/", "site_id": "T",
            "failed_assertions": [{"assertion": "metrics.lcp-p75", "message": "metrics.lcp-p75: 3000 lcp_ms, over the limit of 2500"}]}});
        let m = ChatMessage::from_envelope(&e, Some(&dashboard()));
        assert_eq!(m.headline, "Budget failed on https://x.example/: 1 assertion");
        assert!(m.summary.contains("over the limit of 2500"), "{}", m.summary);
        assert!(m.facts.iter().any(|f| f.label == "Failed" && f.value.starts_with("metrics.lcp-p75")));
        assert_eq!(m.link.unwrap().url, "https://scan.example.com/scans/S");
    }

    #[test]
    fn an_unknown_event_becomes_a_generic_message() {
        let e = json!({"type": "scan.exploded", "data": {"scan_id": "S", "budget": "lcp", "over_by_ms": 300, "nested": {"x": 1}}});
        let m = ChatMessage::from_envelope(&e, Some(&dashboard()));
        assert_eq!(m.headline, "sitescan event: scan.exploded");
        assert!(m.facts.iter().any(|f| f.label == "over by ms" && f.value == "300"), "{:?}", m.facts);
        assert!(m.facts.iter().all(|f| f.label != "nested"));
        assert_eq!(m.link.unwrap().url, "https://scan.example.com/scans/S");
        let nothing = ChatMessage::from_envelope(&json!("not an object"), None);
        assert_eq!(nothing.headline, "sitescan event");
    }

    #[test]
    fn a_huge_event_lists_the_top_findings_and_counts_the_rest() {
        let m = ChatMessage::from_envelope(&huge_event(10_000), Some(&dashboard()));
        assert!(more_text(u64::MAX, false).unwrap().chars().count() <= MORE_TEXT_MAX);
        assert_eq!(m.findings.len(), TOP_FINDINGS);
        assert_eq!(m.more_findings, 10_000 - TOP_FINDINGS as u64);
        assert_eq!(m.more_text().unwrap(), "…and 9990 more new findings");
    }

    #[test]
    fn a_first_scan_counts_findings_never_new_ones() {
        let e = json!({"type": "scan.completed", "timestamp": "2026-11-29T06:00:00Z", "data": {
            "scan_id": "H", "target_url": "https://site.example/", "mode": "passive",
            "findings_count": {"critical": 0, "high": 2, "medium": 24, "low": 0, "info": 0},
            "changes": {"new": 26, "fixed": 0, "persisting": 0, "baseline_scan_id": null},
            "new_by_severity": {"critical": 0, "high": 2, "medium": 24, "low": 0, "info": 0},
            "new_findings": [{"check_id": "security.csp-missing", "severity": "high", "page_url": "https://site.example/", "title": "No CSP"}]}});
        let m = ChatMessage::from_envelope(&e, Some(&dashboard()));
        assert!(m.first_scan);
        assert_eq!(m.headline, "26 findings on https://site.example/ — 2 high, 24 medium");
        assert_eq!(m.more_text().unwrap(), "…and 25 more findings");
        assert_eq!(m.findings_heading(), "Top findings");
        assert_eq!(m.link.as_ref().unwrap().url, "https://scan.example.com/scans/H", "nothing to compare with");
        assert!(m.facts.iter().any(|f| f.label == "Changes" && f.value.contains("first scan")), "{:?}", m.facts);
        assert!(m.facts.iter().all(|f| f.label != "New by severity"), "{:?}", m.facts);
        let mut clean = e.clone();
        clean["data"]["changes"]["new"] = json!(0);
        assert_eq!(ChatMessage::from_envelope(&clean, None).headline, "Scan of https://site.example/ completed: no findings");
        let mut regressed = e.clone();
        regressed["type"] = json!("scan.regressed");
        regressed["data"]["min_severity"] = json!("high");
        regressed["data"]["new_at_or_above"] = json!(2);
        let r = ChatMessage::from_envelope(&regressed, None);
        assert_eq!(r.headline, "2 findings at high or above on https://site.example/ — 2 high, 24 medium");
        assert!(r.summary.starts_with("The first scan of"), "{}", r.summary);
        // Every platform's message says the same: no "new" anywhere.
        for kind in [super::super::WebhookKind::Slack, super::super::WebhookKind::Teams, super::super::WebhookKind::Discord, super::super::WebhookKind::GoogleChat] {
            let body = kind.payload(&m).expect("a chat kind").to_string();
            assert!(!body.to_lowercase().contains("new finding"), "{kind}: {body}");
            assert!(body.contains("26 findings") && body.contains("Top findings"), "{kind}: {body}");
        }
        // A later scan still says "new".
        let mut later = e.clone();
        later["data"]["changes"]["baseline_scan_id"] = json!("B");
        let l = ChatMessage::from_envelope(&later, None);
        assert_eq!(l.headline, "26 new findings on https://site.example/ — 2 high, 24 medium");
        assert_eq!(l.findings_heading(), "Top new findings");
    }
}
