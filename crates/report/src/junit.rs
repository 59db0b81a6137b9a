//! `--format junit`: JUnit XML for CI test dashboards (Jenkins, GitLab, Azure Pipelines, ...).
//!
//! - One `testsuite` per category (every category of the scan's mode, then any that only
//!   findings name), in report order.
//! - One `testcase` per check per page: `classname` is the check id, `name` the page URL. The
//!   checks are the registry's plus the ids seen only in findings; the pages are the report's
//!   pages. A finding on a URL that is no crawled page (a site-wide check's robots.txt, say) gets
//!   a testcase of its own for that URL.
//! - A testcase fails when it has findings at or above `fail_on`. **Without `fail_on` (no
//!   `--fail-on`) every finding is a failure**, info included: the file then lists every defect,
//!   while the exit status (`docs/ci.md`, JUnit: "default: none fails") stays 0. Findings below the
//!   threshold do not fail; they are listed in their suite's `system-out`.
//! - A testcase has at most one `failure` (the Ant schema allows no more): its `message` counts
//!   the findings and names the check, its `type` is the most serious severity among them, its
//!   text lists each finding (severity, page, selector, value/limit, snippet).
//! - A scan that failed (or has not finished) adds a `scan` suite whose one testcase carries an
//!   `error` with `summary.error.code` as its type and the message.
//!
//! The output validates against the Jenkins JUnit schema (`junit-4.xsd`); its `testsuite`
//! elements also satisfy the stricter Apache Ant schema (required `properties`, `system-out`,
//! `system-err`, `timestamp`, `hostname`, `time`). Characters XML 1.0 cannot carry (control
//! characters in a snippet) become U+FFFD.

use super::view::{FindingView, ReportView, RuleView};
use crate::model::{ScanReport, ScanStatus, Severity};
use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesText, Event};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io;

/// Renders the report as JUnit XML.
pub fn render(report: &ScanReport, fail_on: Option<Severity>) -> anyhow::Result<String> {
    let view = ReportView::new(report);
    let mut writer = Writer::new_with_indent(Vec::new(), b' ', 2);
    write(&mut writer, &view, fail_on)?;
    let mut xml = String::from_utf8(writer.into_inner())?;
    xml.push('\n');
    Ok(xml)
}

/// Replaces characters XML 1.0 cannot carry with U+FFFD.
fn clean(s: &str) -> Cow<'_, str> {
    let bad = |c: char| (c < '\u{20}' && !matches!(c, '\t' | '\n' | '\r')) || matches!(c, '\u{FFFE}' | '\u{FFFF}');
    if s.chars().any(bad) { Cow::Owned(s.chars().map(|c| if bad(c) { '\u{FFFD}' } else { c }).collect()) } else { Cow::Borrowed(s) }
}

/// One line: whitespace runs (newlines included) become one space.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `2026-01-31T10:00:00.123456Z` -> `2026-01-31T10:00:00` (the Ant schema's timestamp pattern).
fn timestamp(rfc3339: Option<&str>) -> String {
    rfc3339
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&chrono::Utc).format("%Y-%m-%dT%H:%M:%S").to_string())
        .unwrap_or_else(|| "1970-01-01T00:00:00".to_string())
}

/// A testcase: its check and URL, and the findings that make it fail.
struct Case<'v, 'a> {
    check: String,
    url: String,
    failing: Vec<&'v FindingView<'a>>,
}

/// A testsuite's content, computed before writing (its attributes carry the counts).
struct Suite<'v, 'a> {
    category: String,
    cases: Vec<Case<'v, 'a>>,
    passing: Vec<&'v FindingView<'a>>,
}

fn suites<'v, 'a>(view: &'v ReportView<'a>, threshold: Severity) -> Vec<Suite<'v, 'a>> {
    let rules = view.rules();
    let page_of = |url: &str| view.pages.iter().position(|p| p.url == url || p.final_url == Some(url));
    view.categories()
        .into_iter()
        .map(|category| {
            let checks: Vec<&RuleView> = rules.iter().filter(|r| r.category() == category).collect();
            let mut cases = Vec::new();
            let mut passing = Vec::new();
            for rule in checks {
                let mine: Vec<&FindingView<'a>> = view.findings.iter().filter(|f| f.check_id == rule.id).collect();
                // Findings per page index, or per URL when the URL is no crawled page.
                let mut on_page: BTreeMap<usize, Vec<&FindingView<'a>>> = BTreeMap::new();
                let mut elsewhere: BTreeMap<&str, Vec<&FindingView<'a>>> = BTreeMap::new();
                for f in mine {
                    if f.severity < threshold {
                        passing.push(f);
                    }
                    let url = view.finding_url(f);
                    match page_of(url) {
                        Some(i) => on_page.entry(i).or_default().push(f),
                        None => elsewhere.entry(url).or_default().push(f),
                    }
                }
                for (i, page) in view.pages.iter().enumerate() {
                    let found = on_page.remove(&i).unwrap_or_default();
                    cases.push(Case {
                        check: rule.id.clone(),
                        url: page.url.to_string(),
                        failing: found.into_iter().filter(|f| f.severity >= threshold).collect(),
                    });
                }
                for (url, found) in elsewhere {
                    cases.push(Case {
                        check: rule.id.clone(),
                        url: url.to_string(),
                        failing: found.into_iter().filter(|f| f.severity >= threshold).collect(),
                    });
                }
            }
            Suite { category, cases, passing }
        })
        .collect()
}

fn finding_line(view: &ReportView<'_>, f: &FindingView<'_>) -> String {
    let mut line = format!("[{}] {}", f.severity, view.finding_url(f));
    if let Some(sel) = f.selector() {
        line.push_str(&format!("  selector: {sel}"));
    }
    if let Some(res) = f.resource() {
        line.push_str(&format!("  resource: {res}"));
    }
    match f.value_and_limit() {
        (Some(v), Some(l)) => line.push_str(&format!("  value: {v} (limit {l})")),
        (Some(v), None) => line.push_str(&format!("  value: {v}")),
        (None, Some(l)) => line.push_str(&format!("  limit: {l}")),
        (None, None) => {}
    }
    if let Some(snippet) = f.snippet() {
        line.push_str(&format!("\n    {}", one_line(snippet)));
    }
    line
}

fn failure_text(view: &ReportView<'_>, found: &[&FindingView<'_>]) -> String {
    let first = found[0];
    let mut text = String::new();
    if !first.description.trim().is_empty() {
        text.push_str(first.description.trim());
        text.push_str("\n\n");
    }
    for f in found {
        text.push_str(&finding_line(view, f));
        text.push('\n');
    }
    if !first.remediation.trim().is_empty() {
        text.push_str("\nHow to fix: ");
        text.push_str(first.remediation.trim());
        text.push('\n');
    }
    text
}

fn write(w: &mut Writer<Vec<u8>>, view: &ReportView<'_>, fail_on: Option<Severity>) -> io::Result<()> {
    let threshold = fail_on.unwrap_or(Severity::Info);
    let suites = suites(view, threshold);
    let scan_error: Option<(String, String)> = match (view.scan.status, view.summary.as_ref().and_then(|s| s.error)) {
        (_, Some((code, message))) => Some((code.to_string(), message.to_string())),
        (ScanStatus::Failed, None) => Some(("scan_failed".into(), "the scan failed".into())),
        (ScanStatus::Queued | ScanStatus::Running, None) => {
            Some(("scan_unfinished".into(), format!("the scan has not finished (status {})", view.scan.status)))
        }
        _ => None,
    };
    // The scan's errors, each a test case in the `scan` suite: the scan's own failure, and each
    // reason some checks did not run (an incomplete scan fails a CI job as an error would).
    let mut scan_errors: Vec<(String, String, String)> = Vec::new();
    if let Some((code, message)) = scan_error {
        scan_errors.push((view.scan.target_url.to_string(), code, format!("the scan failed: {message}")));
    }
    if let Some(gaps) = view.summary.as_ref().and_then(|s| s.raw.checks_not_run.as_ref()) {
        for reason in &gaps.reasons {
            let message = format!("{} checks did not run on {} pages: {} ({})", reason.check_ids.len(), reason.pages, reason.reason, reason.check_ids.join(", "));
            scan_errors.push((reason.example_url.clone(), "checks_not_run".into(), message));
        }
    }
    for n in view.summary.as_ref().map(|s| s.raw.site_checks_not_run.as_slice()).unwrap_or_default() {
        scan_errors.push((view.scan.target_url.to_string(), "site_checks_not_run".into(), format!("the site check {} did not run: {}", n.check_id, n.reason)));
    }
    let scan_error = (!scan_errors.is_empty()).then_some(());
    let budget = view.summary.as_ref().and_then(|s| s.raw.budget.as_ref());
    let budget_failures = budget.map_or(0, |b| b.failed().count());
    let tests: usize = suites.iter().map(|s| s.cases.len()).sum::<usize>() + scan_errors.len() + budget.map_or(0, |b| b.assertions.len());
    let failures: usize = suites.iter().map(|s| s.cases.iter().filter(|c| !c.failing.is_empty()).count()).sum::<usize>() + budget_failures;
    let seconds = format!("{:.3}", view.summary.as_ref().map_or(0, |s| s.duration_ms) as f64 / 1000.0);
    let stamp = timestamp(view.scan.started_at.as_deref().or(view.scan.created_at.as_deref()));
    let hostname = if view.scan.target_hostname.is_empty() { "unknown" } else { view.scan.target_hostname };
    let threshold_name = fail_on.map_or("any finding (no --fail-on)".to_string(), |s| format!("{s} and above"));
    let target = clean(view.scan.target_url).into_owned();

    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let properties = |w: &mut Writer<Vec<u8>>| -> io::Result<()> {
        w.create_element("properties").write_inner_content(|w| {
            for (name, value) in [
                ("scan_id", view.scan.id.to_string()),
                ("target_url", target.clone()),
                ("status", view.scan.status.to_string()),
                ("fails_on", threshold_name.clone()),
                ("pages_scanned", view.summary.as_ref().map_or(0, |s| s.pages_scanned).to_string()),
                ("sitescan_version", crate::VERSION.to_string()),
            ] {
                w.create_element("property").with_attribute(("name", name)).with_attribute(("value", value.as_str())).write_empty()?;
            }
            Ok(())
        })?;
        Ok(())
    };
    w.create_element("testsuites")
        .with_attribute(("name", format!("sitescan {target}").as_str()))
        .with_attribute(("tests", tests.to_string().as_str()))
        .with_attribute(("failures", failures.to_string().as_str()))
        .with_attribute(("errors", scan_errors.len().to_string().as_str()))
        .with_attribute(("time", seconds.as_str()))
        .write_inner_content(|w| {
            let mut id = 0usize;
            if scan_error.is_some() {
                w.create_element("testsuite")
                    .with_attribute(("name", "scan"))
                    .with_attribute(("package", "sitescan.scan"))
                    .with_attribute(("id", "0"))
                    .with_attribute(("timestamp", stamp.as_str()))
                    .with_attribute(("hostname", hostname))
                    .with_attribute(("tests", scan_errors.len().to_string().as_str()))
                    .with_attribute(("failures", "0"))
                    .with_attribute(("errors", scan_errors.len().to_string().as_str()))
                    .with_attribute(("time", seconds.as_str()))
                    .write_inner_content(|w| {
                        properties(w)?;
                        for (name, code, message) in &scan_errors {
                            let (name, code, message) = (clean(name), clean(code), clean(message));
                            w.create_element("testcase")
                                .with_attribute(("name", name.as_ref()))
                                .with_attribute(("classname", "sitescan.scan"))
                                .with_attribute(("time", seconds.as_str()))
                                .write_inner_content(|w| {
                                    w.create_element("error")
                                        .with_attribute(("message", one_line(&message).as_str()))
                                        .with_attribute(("type", code.as_ref()))
                                        .write_text_content(BytesText::new(&format!("{code}: {message}")))?;
                                    Ok(())
                                })?;
                        }
                        w.create_element("system-out").write_empty()?;
                        w.create_element("system-err").write_empty()?;
                        Ok(())
                    })?;
                id += 1;
            }
            for suite in &suites {
                let failed = suite.cases.iter().filter(|c| !c.failing.is_empty()).count();
                w.create_element("testsuite")
                    .with_attribute(("name", suite.category.as_str()))
                    .with_attribute(("package", format!("sitescan.{}", suite.category).as_str()))
                    .with_attribute(("id", id.to_string().as_str()))
                    .with_attribute(("timestamp", stamp.as_str()))
                    .with_attribute(("hostname", hostname))
                    .with_attribute(("tests", suite.cases.len().to_string().as_str()))
                    .with_attribute(("failures", failed.to_string().as_str()))
                    .with_attribute(("errors", "0"))
                    .with_attribute(("time", "0"))
                    .write_inner_content(|w| {
                        properties(w)?;
                        for case in &suite.cases {
                            let url = clean(&case.url);
                            let el = w
                                .create_element("testcase")
                                .with_attribute(("name", url.as_ref()))
                                .with_attribute(("classname", case.check.as_str()))
                                .with_attribute(("time", "0"));
                            if case.failing.is_empty() {
                                el.write_empty()?;
                                continue;
                            }
                            let worst = case.failing.iter().map(|f| f.severity).max().unwrap_or(Severity::Info);
                            let first = case.failing[0];
                            let title = if first.title.trim().is_empty() { case.check.as_str() } else { first.title.trim() };
                            let n = case.failing.len();
                            let message = one_line(&format!(
                                "{n} finding{} ({worst}): {title}",
                                if n == 1 { "" } else { "s" }
                            ));
                            let text = failure_text(view, &case.failing);
                            el.write_inner_content(|w| {
                                w.create_element("failure")
                                    .with_attribute(("message", clean(&message).as_ref()))
                                    .with_attribute(("type", worst.as_str()))
                                    .write_text_content(BytesText::new(&clean(&text)))?;
                                Ok(())
                            })?;
                        }
                        let out = if suite.passing.is_empty() {
                            String::new()
                        } else {
                            let mut out = format!(
                                "{} finding{} below the --fail-on threshold ({threshold_name}):\n",
                                suite.passing.len(),
                                if suite.passing.len() == 1 { "" } else { "s" }
                            );
                            for f in &suite.passing {
                                out.push_str(&format!("{}  {}\n", f.check_id, finding_line(view, f)));
                            }
                            out
                        };
                        if out.is_empty() {
                            w.create_element("system-out").write_empty()?;
                        } else {
                            w.create_element("system-out").write_text_content(BytesText::new(&clean(&out)))?;
                        }
                        w.create_element("system-err").write_empty()?;
                        Ok(())
                    })?;
                id += 1;
            }
            if let Some(budget) = budget {
                w.create_element("testsuite")
                    .with_attribute(("name", "budget"))
                    .with_attribute(("package", "sitescan.budget"))
                    .with_attribute(("id", id.to_string().as_str()))
                    .with_attribute(("timestamp", stamp.as_str()))
                    .with_attribute(("hostname", hostname))
                    .with_attribute(("tests", budget.assertions.len().to_string().as_str()))
                    .with_attribute(("failures", budget_failures.to_string().as_str()))
                    .with_attribute(("errors", "0"))
                    .with_attribute(("time", "0"))
                    .write_inner_content(|w| {
                        properties(w)?;
                        for a in &budget.assertions {
                            let el = w
                                .create_element("testcase")
                                .with_attribute(("name", clean(&a.assertion).as_ref()))
                                .with_attribute(("classname", "sitescan.budget"))
                                .with_attribute(("time", "0"));
                            if a.passed || a.level != crate::model::budget::AssertionLevel::Error {
                                el.write_empty()?;
                                continue;
                            }
                            el.write_inner_content(|w| {
                                w.create_element("failure")
                                    .with_attribute(("message", clean(&one_line(&a.message)).as_ref()))
                                    .with_attribute(("type", "budget"))
                                    .write_text_content(BytesText::new(&clean(&a.message)))?;
                                Ok(())
                            })?;
                        }
                        let warnings: Vec<&str> = budget.assertions.iter().filter(|a| !a.passed && a.level != crate::model::budget::AssertionLevel::Error).map(|a| a.message.as_str()).collect();
                        if warnings.is_empty() {
                            w.create_element("system-out").write_empty()?;
                        } else {
                            let out = format!("Warnings (they do not fail the budget):\n{}\n", warnings.join("\n"));
                            w.create_element("system-out").write_text_content(BytesText::new(&clean(&out)))?;
                        }
                        w.create_element("system-err").write_empty()?;
                        Ok(())
                    })?;
            }
            Ok(())
        })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn render(body: &Value, fail_on: Option<Severity>) -> anyhow::Result<String> {
        super::render(&ScanReport::from_body(body).unwrap(), fail_on)
    }

    fn body() -> Value {
        json!({
            "scan": {"id": "s1", "target_url": "https://a.test/", "target_hostname": "a.test", "status": "completed",
                     "started_at": "2026-01-31T10:00:00.123456Z"},
            "report": {
                "summary": {"pages_scanned": 2, "duration_ms": 1500, "categories": {"search": {}, "media": {}}, "error": null},
                "pages": [{"url": "https://a.test/"}, {"url": "https://a.test/b", "final_url": "https://a.test/b/"}],
                "findings": [
                    {"check_id": "search.title-missing", "severity": "high", "title": "No <title>", "evidence": {"url": "https://a.test/b/"}},
                    {"check_id": "media.image-broken", "severity": "low", "title": "Broken image",
                     "evidence": {"url": "https://a.test/", "selector": "img", "snippet": "<img src=x>\u{1}"}},
                    {"check_id": "media.image-broken", "severity": "high", "title": "Broken image",
                     "evidence": {"url": "https://a.test/", "selector": "img.b"}},
                    {"check_id": "crawlability.robots-txt-unreachable", "severity": "high", "title": "robots.txt 503",
                     "evidence": {"url": "https://a.test/robots.txt"}},
                ]
            }
        })
    }

    #[test]
    fn suites_cases_and_failures() {
        let xml = render(&body(), None).unwrap();
        assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
        assert!(xml.contains("<testsuite name=\"search\""), "{xml}");
        assert!(xml.contains("classname=\"search.title-missing\""));
        // The title finding was on the final URL of page 2: reported against that page.
        assert!(xml.contains("<testcase name=\"https://a.test/b\" classname=\"search.title-missing\" time=\"0\">"), "{xml}");
        assert!(xml.contains("message=\"1 finding (high): No &lt;title&gt;\""), "{xml}");
        // Two findings of one check on one page: one failure, the worst severity as its type.
        assert!(xml.contains("message=\"2 findings (high): Broken image\" type=\"high\""), "{xml}");
        assert!(xml.contains("<testcase name=\"https://a.test/robots.txt\" classname=\"crawlability.robots-txt-unreachable\""));
        assert!(!xml.contains('\u{1}'), "control characters are replaced");
        assert!(xml.contains("timestamp=\"2026-01-31T10:00:00\""));
    }

    #[test]
    fn fail_on_moves_lesser_findings_to_system_out() {
        let xml = render(&body(), Some(Severity::High)).unwrap();
        assert!(xml.contains("message=\"1 finding (high): Broken image\""), "{xml}");
        assert!(xml.contains("1 finding below the --fail-on threshold (high and above)"), "{xml}");
        let xml = render(&body(), Some(Severity::Critical)).unwrap();
        assert!(!xml.contains("<failure"), "{xml}");
        assert!(xml.contains("failures=\"0\""));
    }

    #[test]
    fn a_failed_scan_is_an_error() {
        let body = json!({"scan": {"id": "s", "target_url": "https://down.test/", "status": "failed"},
            "report": {"summary": {"pages_scanned": 0, "duration_ms": 0, "categories": {},
                       "error": {"code": "target_unreachable", "message": "refused <&>"}}}});
        let xml = render(&body, None).unwrap();
        assert!(xml.contains("<error message=\"the scan failed: refused &lt;&amp;&gt;\" type=\"target_unreachable\">"), "{xml}");
        assert!(xml.contains("errors=\"1\""));
    }
}
