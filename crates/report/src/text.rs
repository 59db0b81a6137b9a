//! `--format text`: a compact summary by category and severity, then the findings grouped by
//! check (count, pages, the worst examples with their page and selector). Colour only when asked (a terminal without NO_COLOR).

use crate::model::{ACTIVE_ONLY_CATEGORIES, PASSIVE_CATEGORIES, ScanReport, StoredFinding, Severity, SeverityCounts};
use serde_json::Value;
use std::fmt::Write;

/// Checks listed before the rest are counted.
const TOP_CHECKS: usize = 25;
/// Example findings (page and selector) shown under each check.
const EXAMPLES_PER_CHECK: usize = 3;
/// Reasons, and check ids a reason, shown under an incomplete scan's headline.
const SHOWN_REASONS: usize = 5;
const SHOWN_IDS: usize = 8;

fn paint(color: bool, code: &str, text: &str) -> String {
    if color { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_string() }
}

fn severity_color(s: Severity) -> &'static str {
    match s {
        Severity::Critical => "1;31",
        Severity::High => "31",
        Severity::Medium => "33",
        Severity::Low => "36",
        Severity::Info => "2",
    }
}

pub fn render(report: &ScanReport, color: bool) -> String {
    let mut out = String::new();
    let scan = &report.scan;
    let summary = report.summary();
    let _ = writeln!(out, "{} {}", paint(color, "1", "sitescan"), scan.target_url);
    let incomplete = summary.is_some_and(|s| s.incomplete());
    let _ = writeln!(
        out,
        "status {}{}  pages {}  duration {:.1} s{}",
        scan.status,
        if incomplete { paint(color, "1;33", " (incomplete)") } else { String::new() },
        summary.map_or("null".to_string(), |s| s.pages_scanned.to_string()),
        summary.map_or(0, |s| s.duration_ms) as f64 / 1000.0,
        summary.and_then(|s| s.level).map(|l| format!("  level WCAG 2.2 {l}")).unwrap_or_default()
    );
    if let Some(err) = summary.and_then(|s| s.error.as_ref()) {
        let _ = writeln!(out, "{} {}: {}", paint(color, "1;31", "scan failed"), err.code, err.message);
    }
    if let Some(not_run) = summary.map(|s| &s.site_checks_not_run).filter(|n| !n.is_empty()) {
        let reasons: std::collections::BTreeSet<&str> = not_run.iter().map(|n| n.reason.as_str()).collect();
        let ids: Vec<&str> = not_run.iter().map(|n| n.check_id.as_str()).collect();
        let head = format!("{} site check{} not run", ids.len(), if ids.len() == 1 { "" } else { "s" });
        let _ = writeln!(out, "{} ({}): {}", paint(color, "33", &head), reasons.into_iter().collect::<Vec<_>>().join("; "), ids.join(", "));
    }
    if let Some(gaps) = summary.and_then(|s| s.checks_not_run.as_ref()) {
        let _ = writeln!(out, "{} {}", paint(color, "1;33", "incomplete:"), gaps.headline());
        for reason in gaps.reasons.iter().take(SHOWN_REASONS) {
            let ids = &reason.check_ids;
            let more = ids.len().saturating_sub(SHOWN_IDS);
            let listed = ids.iter().take(SHOWN_IDS).map(String::as_str).collect::<Vec<_>>().join(", ");
            let tail = if more > 0 { format!(" and {more} more") } else { String::new() };
            let pages = if reason.pages == 1 { "1 page".to_string() } else { format!("{} pages", reason.pages) };
            let _ = writeln!(out, "  - {} ({pages}, e.g. {}): {listed}{tail}", reason.reason, reason.example_url);
        }
        let _ = writeln!(out, "  Those pages were not judged by those checks: their absence of findings is no pass.");
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "{:<16} {:>8} {:>6} {:>7} {:>5} {:>5}", "category", "critical", "high", "medium", "low", "info");
    // An active scan's summary also has the active-only categories.
    let categories = summary.map(|s| &s.categories);
    let active = ACTIVE_ONLY_CATEGORIES.iter().filter(|c| categories.is_some_and(|all| all.contains_key(**c)));
    for category in PASSIVE_CATEGORIES.iter().chain(active) {
        let c = categories.and_then(|all| all.get(*category)).copied().unwrap_or(SeverityCounts::default());
        let cell = |s: Severity, w: usize| {
            let n = c.get(s);
            let text = format!("{n:>w$}");
            if n > 0 { paint(color, severity_color(s), &text) } else { text }
        };
        let _ = writeln!(
            out,
            "{:<16} {} {} {} {} {}",
            category,
            cell(Severity::Critical, 8),
            cell(Severity::High, 6),
            cell(Severity::Medium, 7),
            cell(Severity::Low, 5),
            cell(Severity::Info, 5)
        );
    }
    if let Some(budget) = summary.and_then(|s| s.budget.as_ref()) {
        let _ = writeln!(out);
        let verdict = if budget.passed { paint(color, "1;32", "budget passed") } else { paint(color, "1;31", "budget failed") };
        let _ = writeln!(out, "{verdict} ({} assertions)", budget.assertions.len());
        for a in &budget.assertions {
            let mark = match (a.passed, a.level) {
                (true, _) => paint(color, "32", "pass "),
                (false, crate::model::budget::AssertionLevel::Error) => paint(color, "31", "FAIL "),
                (false, crate::model::budget::AssertionLevel::Warn) => paint(color, "33", "warn "),
            };
            let _ = writeln!(out, "  {mark} {}", a.message);
        }
    }
    let findings: Vec<&StoredFinding> = report.findings().iter().collect();
    let _ = writeln!(out);
    if findings.is_empty() {
        let _ = writeln!(out, "no findings");
        return out;
    }
    let groups = group_by_check(&findings);
    let _ = writeln!(
        out,
        "{} findings from {} checks, the most serious first:",
        findings.len(),
        groups.len()
    );
    for group in groups.iter().take(TOP_CHECKS) {
        let pages = group.pages();
        let _ = writeln!(
            out,
            "  {} {}  {}  ({} on {} page{})",
            paint(color, severity_color(group.severity), &format!("{:<8}", group.severity.as_str())),
            group.check_id,
            group.title,
            group.findings.len(),
            pages,
            if pages == 1 { "" } else { "s" }
        );
        for f in group.findings.iter().take(EXAMPLES_PER_CHECK) {
            let place = place(f);
            // A finding whose title names its thing (a header, a cookie) says which.
            let own = group.own_title(f);
            let line = match (place.is_empty(), own) {
                (_, None) => place,
                (true, Some(own)) => own.to_string(),
                (false, Some(own)) => format!("{place} — {own}"),
            };
            if !line.is_empty() {
                let _ = writeln!(out, "           {}", paint(color, "2", &line));
            }
        }
        if group.findings.len() > EXAMPLES_PER_CHECK {
            let _ = writeln!(out, "           {}", paint(color, "2", &format!("... {} more", group.findings.len() - EXAMPLES_PER_CHECK)));
        }
        if let Some(help) = group.help_url() {
            let _ = writeln!(out, "           {}", paint(color, "2", &format!("how to fix: {help}")));
        }
    }
    if groups.len() > TOP_CHECKS {
        let rest: usize = groups[TOP_CHECKS..].iter().map(|g| g.findings.len()).sum();
        let _ = writeln!(
            out,
            "  ... and {} more checks with {rest} findings (use --format json or html for all)",
            groups.len() - TOP_CHECKS
        );
    }
    out
}

/// One check's findings, the worst first.
struct CheckGroup<'a> {
    check_id: &'a str,
    title: &'a str,
    /// The worst severity among them.
    severity: Severity,
    findings: Vec<&'a StoredFinding>,
}

impl CheckGroup<'_> {
    /// What a finding's own title adds to the group's (the part after `Group title: `), or its
    /// whole title when it differs otherwise; `None` when it is the group's.
    fn own_title<'f>(&self, f: &'f StoredFinding) -> Option<&'f str> {
        let title = f.finding.title.as_str();
        if title.is_empty() || title == self.title {
            return None;
        }
        Some(title.strip_prefix(self.title).and_then(|rest| rest.strip_prefix(": ")).unwrap_or(title))
    }

    /// Where to read how to fix the check's findings (the first web address they give).
    fn help_url(&self) -> Option<&str> {
        self.findings
            .iter()
            .filter_map(|f| f.finding.help_url.as_deref())
            .find(|u| crate::model::finding_size::is_link(u))
    }

    fn pages(&self) -> usize {
        self.findings.iter().filter_map(|f| f.evidence_str("url")).collect::<std::collections::BTreeSet<_>>().len().max(1)
    }
}

/// Findings grouped by check id, as Lighthouse groups by audit: the worst severity first, then the
/// most findings, then the id.
fn group_by_check<'a>(findings: &[&'a StoredFinding]) -> Vec<CheckGroup<'a>> {
    let mut by_id: std::collections::BTreeMap<&str, CheckGroup<'a>> = std::collections::BTreeMap::new();
    for f in findings {
        let id = f.finding.check_id.as_str();
        let group = by_id.entry(id).or_insert_with(|| CheckGroup {
            check_id: id,
            title: f.finding.title.as_str(),
            severity: Severity::Info,
            findings: Vec::new(),
        });
        group.severity = group.severity.max(f.finding.severity);
        group.findings.push(f);
    }
    let mut groups: Vec<CheckGroup<'a>> = by_id.into_values().collect();
    for g in &mut groups {
        // Titles that name their thing differ: the group goes by the check's catalogue title.
        if g.findings.iter().any(|f| f.finding.title != g.title)
            && let Some(meta) = crate::checks::registry::find(g.check_id)
        {
            g.title = meta.title;
        }
        g.findings.sort_by(|a, b| {
            b.finding.severity.cmp(&a.finding.severity).then_with(|| place(a).cmp(&place(b)))
        });
    }
    groups.sort_by(|a, b| {
        b.severity.cmp(&a.severity).then_with(|| b.findings.len().cmp(&a.findings.len())).then_with(|| a.check_id.cmp(b.check_id))
    });
    groups
}

/// Where a finding is: its page and selector.
fn place(f: &StoredFinding) -> String {
    let mut place = f.evidence_str("url").unwrap_or_default().to_string();
    // What tells the findings of one page apart: the element, else the resource, else the value.
    let detail = f
        .evidence_str("selector")
        .map(str::to_string)
        .or_else(|| f.evidence_str("resource").filter(|r| *r != place).map(str::to_string))
        .or_else(|| match f.finding.evidence.get("value") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Null) | None => None,
            Some(other) => Some(other.to_string()),
        });
    if let Some(detail) = detail {
        if !place.is_empty() {
            place.push_str("  ");
        }
        place.push_str(&detail);
    }
    place
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn finding(check: &str, severity: &str, url: &str, selector: &str) -> Value {
        json!({"check_id": check, "severity": severity, "title": "A title",
               "evidence": {"url": url, "selector": selector}})
    }

    #[test]
    fn findings_whose_titles_name_their_thing_are_told_apart() {
        let findings: Vec<Value> = ["Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options"]
            .iter()
            .map(|h| json!({"check_id": "runtime.missing-security-header", "severity": "low", "title": format!("Security header missing: {h}"),
                            "evidence": {"url": "https://blog.test/", "header": h.to_ascii_lowercase(), "value": null}}))
            .collect();
        let body = json!({"scan": {"target_url": "https://blog.test/", "status": "completed"},
                          "report": {"summary": {"pages_scanned": 1, "duration_ms": 1, "categories": {}}, "findings": findings}});
        let text = render(&ScanReport::from_body(&body).unwrap(), false);
        assert!(text.contains("runtime.missing-security-header  Security header missing  (3 on 1 page)"), "the check's title heads the group:\n{text}");
        for h in ["Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options"] {
            assert!(text.contains(&format!("https://blog.test/ — {h}\n")), "each line names its header:\n{text}");
        }
    }

    #[test]
    fn groups_findings_by_check_with_the_worst_first() {
        let mut findings: Vec<Value> = (0..16)
            .map(|i| finding("accessibility.color-contrast", "medium", &format!("https://blog.test/{}", i % 5), &format!("p:nth-child({i})")))
            .collect();
        findings.push(finding("search.title-missing", "high", "https://blog.test/2", "title"));
        let body = json!({"scan": {"target_url": "https://blog.test/", "status": "completed"},
                          "report": {"summary": {"pages_scanned": 5, "duration_ms": 1200, "categories": {}}, "findings": findings}});
        let report = ScanReport::from_body(&body).unwrap();
        let text = render(&report, false);
        assert!(!text.contains('\x1b'), "no colour when not asked: {text}");
        assert!(text.contains("17 findings from 2 checks"), "{text}");
        let title = text.find("search.title-missing").expect("high check listed");
        let contrast = text.find("accessibility.color-contrast").expect("medium check listed");
        assert!(title < contrast, "worst severity first:\n{text}");
        assert_eq!(text.matches("accessibility.color-contrast").count(), 1, "one line per check, not per finding:\n{text}");
        assert!(text.contains("(16 on 5 pages)"), "{text}");
        assert!(text.contains("... 13 more"), "three examples, then a count:\n{text}");
        assert!(!text.contains("how to fix"), "no reference, no line:\n{text}");
        assert!(render(&report, true).contains("\x1b["), "colour when asked");
    }

    #[test]
    fn a_check_with_a_reference_says_where_to_read_how_to_fix() {
        let mut f = finding("forms.insecure-action", "high", "https://blog.test/", "form");
        f["help_url"] = json!("https://developer.mozilla.org/en-US/docs/Web/Security/Mixed_content");
        let mut hostile = finding("accessibility.image-alt", "high", "https://blog.test/", "img");
        hostile["help_url"] = json!("javascript:alert(1)");
        let body = json!({"scan": {"target_url": "https://blog.test/", "status": "completed"},
                          "report": {"summary": {"pages_scanned": 1, "duration_ms": 10, "categories": {}}, "findings": [f, hostile]}});
        let text = render(&ScanReport::from_body(&body).unwrap(), false);
        assert!(text.contains("\n           how to fix: https://developer.mozilla.org/en-US/docs/Web/Security/Mixed_content\n"), "{text}");
        assert!(!text.contains("javascript:"), "only web addresses are shown:\n{text}");
    }

    #[test]
    fn site_checks_not_run_are_named_under_the_status() {
        let body = json!({"scan": {"target_url": "https://blog.test/", "status": "completed"},
                          "report": {"summary": {"pages_scanned": 1, "duration_ms": 10, "categories": {},
                              "site_checks_not_run": [{"check_id": "crawlability.sitemap-invalid", "reason": "the sitemap could not be read"}]}}});
        let text = render(&ScanReport::from_body(&body).unwrap(), false);
        assert!(text.contains("1 site check not run (the sitemap could not be read): crawlability.sitemap-invalid"), "{text}");
    }

    #[test]
    fn an_incomplete_scan_says_so_in_its_header() {
        let body = json!({"scan": {"target_url": "https://blog.test/", "status": "completed"},
                          "report": {"summary": {"pages_scanned": 3, "duration_ms": 10, "categories": {},
                              "checks_not_run": {"pages": 3, "checks": 12, "reasons": [
                                  {"reason": "the dom gatherer failed: boom", "pages": 3, "example_url": "https://blog.test/a",
                                   "check_ids": ["a.one", "a.two", "a.three", "a.four", "a.five", "a.six", "a.seven", "a.eight", "a.nine"]}]}}}});
        let text = render(&ScanReport::from_body(&body).unwrap(), false);
        let header: Vec<&str> = text.lines().take(5).collect();
        assert_eq!(header[1], "status completed (incomplete)  pages 3  duration 0.0 s", "{text}");
        assert_eq!(header[2], "incomplete: 12 checks did not run on 3 pages: the dom gatherer failed: boom (3 pages)", "{text}");
        assert!(header[3].starts_with("  - the dom gatherer failed: boom (3 pages, e.g. https://blog.test/a): a.one, "), "{text}");
        assert!(header[3].ends_with(" and 1 more"), "{text}");
        let complete = json!({"scan": {"target_url": "https://blog.test/", "status": "completed"}, "report": {"summary": {"pages_scanned": 1, "categories": {}}}});
        assert!(!render(&ScanReport::from_body(&complete).unwrap(), false).contains("incomplete"));
    }
}
