//! The report formats against their schemas and in a real browser:
//!
//! - SARIF: the SARIF 2.1.0 JSON schema (`sarif-2.1.0-rtm.5.json`, shipped by the npm package
//!   `@microsoft/jest-sarif`) and Microsoft's SARIF Multitool (`@microsoft/sarif-multitool`
//!   `validate`, with its GitHub ingestion rules `GH1001`-`GH1007` on).
//! - JUnit: the Jenkins JUnit schema (`jenkins-junit.xsd`) and the Apache Ant one (`JUnit.xsd`),
//!   both shipped by the npm package `junit-processor`, through `xmllint --schema`.
//! - HTML: self-containment and structure read from the markup; then Chromium renders it: axe-core
//!   finds no serious, critical or moderate violation, nothing is fetched, nothing is logged, a
//!   hostile snippet does not run even with the page's CSP bypassed, the severity filter works,
//!   and without JavaScript every finding shows. Screenshots go to `target/report-screenshot.png`
//!   (and `-mobile.png`). A report full of long code samples, URLs and tokens scrolls sideways
//!   at neither 320 nor 1280 CSS px, and served on 127.0.0.1, sitescan's own scan of it (the real
//!   binary) finds nothing at medium or above.
//!
//! The schemas and validators come from `tools/report-validators` (installed by
//! `scripts/setup.sh`); `xmllint` from Debian's `libxml2-utils`, Chromium from `chromium`.

use crate::report_sample;
use sitescan_test_support::fixture_site;

use serde_json::{Value, json};
use sitescan::model::Severity;
use crate::renderers::{html, junit, sarif};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A file the test suite needs; missing means setup did not run, which is a failure.
fn required(relative: &str) -> PathBuf {
    let path = root().join(relative);
    assert!(path.exists(), "{} is missing: run `bash scripts/setup.sh` (it installs tools/report-validators, xmllint and Chromium)", path.display());
    path
}

const VALIDATORS: &str = "tools/report-validators/node_modules";

fn queued() -> Value {
    json!({"scan": {"id": "0194b3c2-7d1e-7c40-9a51-2f0e8d6b1a03", "target_url": "https://later.example.com/", "target_hostname": "later.example.com",
                    "mode": "passive", "status": "queued", "started_at": null, "completed_at": null,
                    "findings_count": {"critical": 0, "high": 0, "medium": 0, "low": 0, "info": 0}, "triggered_by": "api",
                    "created_at": "2026-01-31T12:00:00Z"},
           "report": null})
}

// ---------------------------------------------------------------------------------------- SARIF

/// The completed sample judged by a budget with a failed error, a failed warning and a pass.
fn over_budget() -> Value {
    let mut body = report_sample::completed();
    body["report"]["summary"]["budget"] = serde_json::json!({"passed": false, "assertions": [
        {"assertion": "findings", "level": "error", "max": 0.0, "min_severity": "high", "actual": 2.0, "passed": false, "message": "findings: 2 findings at or above high, over the limit of 0"},
        {"assertion": "metrics.lcp-p75", "level": "warn", "max": 2500.0, "actual": 4100.0, "passed": false, "message": "metrics.lcp-p75: 4100 lcp_ms, over the limit of 2500 <&>"},
        {"assertion": "categories:security", "level": "error", "max": 5.0, "actual": 1.0, "passed": true, "message": "categories:security: 1 security findings, within 5"}
    ]});
    body
}

fn sarif_validator() -> jsonschema::Validator {
    let path = required(&format!("{VALIDATORS}/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json"));
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::draft4::options().should_validate_formats(true).build(&schema).expect("the SARIF schema compiles")
}

fn schema_errors(validator: &jsonschema::Validator, log: &Value) -> Vec<String> {
    validator.iter_errors(log).map(|e| format!("{} at {}", e, e.instance_path)).collect()
}

#[test]
fn sarif_validates_against_the_sarif_2_1_0_schema() {
    let validator = sarif_validator();
    for body in [report_sample::completed(), report_sample::failed(), queued(), over_budget()] {
        let text = sarif::render(&body).unwrap();
        let log: Value = serde_json::from_str(&text).unwrap();
        let errors = schema_errors(&validator, &log);
        assert!(errors.is_empty(), "SARIF schema errors:\n{}\n{text}", errors.join("\n"));
        assert_eq!(log["version"], "2.1.0");
        assert_eq!(log["runs"].as_array().unwrap().len(), 1);
    }
}

#[test]
fn the_sarif_schema_check_can_fail() {
    let validator = sarif_validator();
    let mut log: Value = serde_json::from_str(&sarif::render(&report_sample::completed()).unwrap()).unwrap();
    log["runs"][0]["results"][0]["level"] = json!("fatal");
    log["runs"][0]["tool"]["driver"].as_object_mut().unwrap().remove("name");
    log["runs"][0]["invocations"][0]["startTimeUtc"] = json!("yesterday");
    let errors = schema_errors(&validator, &log);
    assert!(errors.len() >= 3, "the schema must reject a bad level, a nameless driver and a bad date: {errors:?}");
}

/// Runs `sarif-multitool validate` with the SARIF rules and the GitHub Advanced Security ones
/// (rule kind `Ghas`: GH1011-GH2012, what code scanning requires); returns its results. The
/// platform binary is called directly: the package's `bin.js` passes arguments through a shell,
/// which splits `Sarif;Ghas`.
fn multitool(log_text: &str) -> Vec<Value> {
    let bin = required(&format!("{VALIDATORS}/@microsoft/sarif-multitool-linux/Sarif.Multitool"));
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("sitescan.sarif");
    let output = dir.path().join("validation.sarif");
    std::fs::write(&input, log_text).unwrap();
    let run = Command::new(&bin)
        .args(["validate", input.to_str().unwrap(), "--output", output.to_str().unwrap(), "--log", "ForceOverwrite"])
        .args(["--rule-kind", "Sarif;Ghas", "--level", "Error;Warning;Note"])
        .env("DOTNET_CLI_TELEMETRY_OPTOUT", "1")
        .output()
        .expect("run Sarif.Multitool (scripts/setup.sh makes it executable)");
    let report = std::fs::read_to_string(&output).unwrap_or_else(|_| {
        panic!(
            "sarif-multitool wrote no report (exit {:?}):\n{}\n{}",
            run.status.code(),
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        )
    });
    let report: Value = serde_json::from_str(report.trim_start_matches('\u{feff}')).unwrap();
    let notifications = &report["runs"][0]["invocations"][0]["toolExecutionNotifications"];
    if let Some(n) = notifications.as_array() {
        let errors: Vec<&Value> = n.iter().filter(|n| n["level"] == "error").collect();
        assert!(errors.is_empty(), "sarif-multitool failed to analyse: {errors:#?}");
    }
    report["runs"][0]["results"].as_array().cloned().unwrap_or_default()
}

fn describe(results: &[Value]) -> String {
    results
        .iter()
        .map(|r| format!("{} {} {}", r["level"].as_str().unwrap_or("warning"), r["ruleId"], r["message"]))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn sarif_multitool_accepts_it_with_the_github_rules() {
    for body in [report_sample::completed(), report_sample::failed()] {
        let text = sarif::render(&body).unwrap();
        let results = multitool(&text);
        // The Multitool's default level is warning when a result names none.
        let errors: Vec<Value> = results.iter().filter(|r| r["level"] == "error").cloned().collect();
        assert!(errors.is_empty(), "sarif-multitool errors:\n{}", describe(&errors));
        let github: Vec<Value> = results.iter().filter(|r| r["ruleId"].as_str().is_some_and(|id| id.starts_with("GH"))).cloned().collect();
        assert!(github.is_empty(), "GitHub ingestion rules object:\n{}", describe(&github));
        eprintln!("sarif-multitool, remaining advice:\n{}", describe(&results));
    }
}

#[test]
fn the_multitool_check_can_fail() {
    // What code scanning refuses: a result without a location, a rule without descriptions, a
    // region without a start.
    let mut log: Value = serde_json::from_str(&sarif::render(&report_sample::completed()).unwrap()).unwrap();
    log["runs"][0]["results"][0].as_object_mut().unwrap().remove("locations");
    log["runs"][0]["tool"]["driver"]["rules"][0].as_object_mut().unwrap().remove("shortDescription");
    log["runs"][0]["results"][1]["locations"][0]["physicalLocation"]["region"].as_object_mut().unwrap().remove("startLine");
    let results = multitool(&serde_json::to_string(&log).unwrap());
    let errors: Vec<&str> = results.iter().filter(|r| r["level"] == "error").filter_map(|r| r["ruleId"].as_str()).collect();
    assert!(errors.iter().any(|id| id.starts_with("GH")), "expected GitHub rule errors, got:\n{}", describe(&results));
    assert!(errors.contains(&"SARIF1007"), "expected the region error, got:\n{}", describe(&results));
}

fn fingerprints(log: &Value) -> Vec<(String, String, String)> {
    log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["ruleId"].as_str().unwrap().to_string(),
                r["properties"]["url"].as_str().unwrap().to_string(),
                r["partialFingerprints"][sarif::FINGERPRINT_KEY].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn sarif_fingerprints_are_stable_across_runs_and_distinct_within_one() {
    let first: Value = serde_json::from_str(&sarif::render(&report_sample::completed()).unwrap()).unwrap();
    // The same defects found by a later scan: new ids, times, measured values and order.
    let mut later = report_sample::completed();
    later["scan"]["id"] = json!("0194b3c2-7d1e-7c40-9a51-2f0e8d6b1aff");
    later["scan"]["started_at"] = json!("2026-02-07T10:00:00Z");
    let findings = later["report"]["findings"].as_array_mut().unwrap();
    findings.reverse();
    for (i, f) in findings.iter_mut().enumerate() {
        f["id"] = json!(format!("0194b3c2-0000-7c40-9a51-{i:012}"));
        f["created_at"] = json!("2026-02-07T10:00:09Z");
        if f["evidence"].get("value").is_some_and(Value::is_f64) {
            f["evidence"]["value"] = json!(5210.0);
        }
    }
    let second: Value = serde_json::from_str(&sarif::render(&later).unwrap()).unwrap();
    let mut a = fingerprints(&first);
    let mut b = fingerprints(&second);
    a.sort();
    b.sort();
    assert_eq!(a, b, "fingerprints changed between runs");
    let mut unique: Vec<&String> = a.iter().map(|(_, _, f)| f).collect();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), a.len(), "two results share a fingerprint");
}

#[test]
fn sarif_rules_cover_the_registry_and_the_findings() {
    let log: Value = serde_json::from_str(&sarif::render(&report_sample::completed()).unwrap()).unwrap();
    let run = &log["runs"][0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "sitescan");
    assert_eq!(driver["version"], sitescan::VERSION);
    let rules = driver["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    for meta in sitescan::checks::registry::catalogue() {
        let rule = rules.iter().find(|r| r["id"] == meta.id).unwrap_or_else(|| panic!("{} missing from rules", meta.id));
        assert_eq!(rule["defaultConfiguration"]["level"], sarif::level(meta.severity));
        assert_eq!(rule["help"]["text"].as_str().map(|t| t.contains(meta.remediation.trim_end_matches('.'))), Some(true));
    }
    for r in run["results"].as_array().unwrap() {
        let i = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[i]["id"], r["ruleId"], "ruleIndex points at the rule");
        assert!(ids.contains(&r["ruleId"].as_str().unwrap()));
        let loc = &r["locations"][0]["physicalLocation"];
        assert!(!loc["artifactLocation"]["uri"].as_str().unwrap().contains("://"), "GitHub needs relative URIs");
        assert!(loc["region"]["startLine"].as_u64().unwrap() >= 1);
    }
    // An axe rule that the registry may not know takes its text from the finding.
    let alt = rules.iter().find(|r| r["id"] == "accessibility.image-alt").unwrap();
    if alt["properties"]["registered"] == false {
        assert_eq!(alt["shortDescription"]["text"], "Images must have alternative text.");
        assert_eq!(alt["helpUri"], "https://dequeuniversity.com/rules/axe/4.14/image-alt?application=axeAPI");
        assert_eq!(alt["defaultConfiguration"]["level"], "error");
        assert!(alt["properties"]["tags"].as_array().unwrap().contains(&json!("wcag111")));
    }
    let pw = run["results"].as_array().unwrap().iter().find(|r| r["ruleId"] == "forms.password-over-http").unwrap();
    assert_eq!(pw["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "shop.example.com/login");
    assert_eq!(pw["locations"][0]["physicalLocation"]["artifactLocation"]["properties"]["url"], "http://shop.example.com/login");
    assert_eq!(pw["locations"][0]["logicalLocations"][0]["name"], "form#login input[type=password]");
    assert_eq!(pw["locations"][0]["physicalLocation"]["region"]["snippet"]["text"], "<input type=\"password\" name=\"pw\">");
    assert_eq!(run["invocations"][0]["executionSuccessful"], true);
}

// ---------------------------------------------------------------------------------------- JUnit

fn xmllint(xml: &str, xsd: &Path) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.xml");
    std::fs::write(&file, xml).unwrap();
    let out = Command::new("xmllint")
        .args(["--noout", "--schema"])
        .arg(xsd)
        .arg(&file)
        .output()
        .expect("xmllint is installed (Debian libxml2-utils; scripts/setup.sh installs it)");
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn jenkins_xsd() -> PathBuf {
    required(&format!("{VALIDATORS}/junit-processor/schemas/jenkins-junit.xsd"))
}

fn ant_xsd() -> PathBuf {
    required(&format!("{VALIDATORS}/junit-processor/schemas/JUnit.xsd"))
}

fn all_junit() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (name, body) in [("completed", report_sample::completed()), ("failed", report_sample::failed()), ("queued", queued()), ("over budget", over_budget())] {
        for fail_on in [None, Some(Severity::Medium), Some(Severity::Critical)] {
            out.push((format!("{name} fail_on={fail_on:?}"), junit::render(&body, fail_on).unwrap()));
        }
    }
    out
}

#[test]
fn junit_validates_against_the_jenkins_schema() {
    let xsd = jenkins_xsd();
    for (name, xml) in all_junit() {
        let (ok, log) = xmllint(&xml, &xsd);
        assert!(ok, "{name}: not valid against jenkins-junit.xsd:\n{log}\n{xml}");
    }
}

#[test]
fn junit_suites_satisfy_the_ant_schema() {
    // Ant's aggregate `testsuites` takes no attributes (the Jenkins one does, and CI tools read
    // them): checked without them, everything inside must be valid Ant.
    let xsd = ant_xsd();
    for (name, xml) in all_junit() {
        let start = xml.find("<testsuites").unwrap();
        let end = start + xml[start..].find('>').unwrap();
        let bare = format!("{}<testsuites{}", &xml[..start], &xml[end..]);
        let (ok, log) = xmllint(&bare, &xsd);
        assert!(ok, "{name}: not valid against Ant's JUnit.xsd:\n{log}\n{bare}");
    }
}

#[test]
fn the_junit_schema_check_can_fail() {
    let xml = junit::render(&report_sample::completed(), None).unwrap();
    let broken = xml.replacen("<testcase ", "<testcase bogus=\"1\" ", 1);
    assert!(!xmllint(&broken, &jenkins_xsd()).0, "an unknown attribute must be rejected");
    let two_failures = xml.replacen("</failure>", "</failure><failure message=\"x\" type=\"y\">z</failure>", 1);
    assert!(!xmllint(&two_failures, &ant_xsd()).0, "Ant allows one failure per testcase");
}

fn attr<'x>(xml: &'x str, tag: &str, name: &str) -> &'x str {
    let start = xml.find(&format!("<{tag} ")).unwrap();
    let rest = &xml[start..];
    let at = rest.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
    &rest[at..at + rest[at..].find('"').unwrap()]
}

#[test]
fn junit_counts_cases_per_check_and_page() {
    let body = report_sample::completed();
    let xml = junit::render(&body, None).unwrap();
    let testcases = xml.matches("<testcase ").count();
    let failures = xml.matches("<failure ").count();
    assert_eq!(attr(&xml, "testsuites", "tests"), testcases.to_string());
    assert_eq!(attr(&xml, "testsuites", "failures"), failures.to_string());
    // Without --fail-on every finding fails: each (check, page) pair with findings is one failure.
    let mut pairs: Vec<(String, String)> = body["report"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let url = f["evidence"]["url"].as_str().unwrap();
            // A finding on a page's final URL is reported against that page.
            let page = body["report"]["pages"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["final_url"] == url || p["url"] == url)
                .map_or(url, |p| p["url"].as_str().unwrap());
            (f["check_id"].as_str().unwrap().to_string(), page.to_string())
        })
        .collect();
    pairs.sort();
    pairs.dedup();
    assert_eq!(failures, pairs.len(), "{xml}");
    // Every check seen runs on every page: at least checks x pages testcases.
    let checks: std::collections::BTreeSet<&str> =
        body["report"]["findings"].as_array().unwrap().iter().map(|f| f["check_id"].as_str().unwrap()).collect();
    assert!(testcases >= checks.len() * 3, "{testcases} testcases for {} checks on 3 pages", checks.len());
    assert!(xml.contains("<testcase name=\"https://shop.example.com/\" classname=\"accessibility.image-alt\" time=\"0\">"));
    assert!(xml.contains("<testcase name=\"https://shop.example.com/pricing\" classname=\"accessibility.image-alt\" time=\"0\"/>"));
    // --fail-on high: medium and lower findings pass and are listed in system-out.
    let high = junit::render(&body, Some(Severity::High)).unwrap();
    assert_eq!(high.matches("<failure ").count(), 6, "{high}");
    assert!(high.contains("below the --fail-on threshold (high and above)"));
    let failed = junit::render(&report_sample::failed(), None).unwrap();
    assert!(failed.contains("type=\"target_unreachable\""), "{failed}");
}

// ----------------------------------------------------------------------------------- HTML, static

#[test]
fn html_is_self_contained() {
    let doc = html::render(&report_sample::completed()).unwrap();
    let parsed = scraper::Html::parse_document(&doc);
    let any = scraper::Selector::parse("[src], [srcset], [href], [action], [formaction], [data], [poster], [background]").unwrap();
    for el in parsed.select(&any) {
        let name = el.value().name();
        let href = el.value().attr("href");
        match (name, href) {
            ("a", Some(_)) => {}
            ("link", Some("data:,")) => {}
            _ => panic!("an element that may fetch something: {}", el.html()),
        }
    }
    assert!(!doc.contains("@import") && !doc.contains("url("), "no CSS fetches");
    assert!(!doc.contains("<iframe") && !doc.contains("<object") && !doc.contains("<embed"));
    let csp = html::content_security_policy();
    assert!(doc.contains(&format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">")));
}

#[test]
fn html_structure_is_accessible_as_markup() {
    for body in [report_sample::completed(), report_sample::failed(), queued()] {
        let doc = html::render(&body).unwrap();
        let parsed = scraper::Html::parse_document(&doc);
        let sel = |s: &str| scraper::Selector::parse(s).unwrap();
        assert_eq!(parsed.select(&sel("html[lang=en]")).count(), 1);
        assert!(parsed.select(&sel("title")).next().is_some_and(|t| !t.text().collect::<String>().trim().is_empty()));
        assert_eq!(parsed.select(&sel("h1")).count(), 1);
        assert_eq!(parsed.select(&sel("main")).count(), 1);
        assert_eq!(parsed.select(&sel("meta[name=viewport]")).count(), 1);
        assert_eq!(parsed.select(&sel("meta[name=description]")).count(), 1);
        assert!(doc.starts_with("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">"));
        // Headings never skip a level.
        let mut last = 1;
        for h in parsed.select(&sel("h1, h2, h3, h4, h5, h6")) {
            let level: usize = h.value().name()[1..].parse().unwrap();
            assert!(level <= last + 1, "heading skips from h{last} to h{level}: {}", h.html());
            last = level;
        }
        // Ids are unique; every control is labelled; every table has a caption and header cells.
        let mut ids: Vec<&str> = parsed.select(&sel("[id]")).filter_map(|e| e.value().attr("id")).collect();
        let n = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), n, "duplicate ids");
        for input in parsed.select(&sel("input")) {
            let id = input.value().attr("id").expect("inputs have ids");
            assert_eq!(parsed.select(&sel(&format!("label[for=\"{id}\"]"))).count(), 1, "input {id} has a label");
        }
        for table in parsed.select(&sel("table")) {
            assert!(table.select(&sel("caption")).next().is_some());
            assert!(table.select(&sel("thead th[scope=col]")).next().is_some());
        }
    }
}

#[test]
fn html_shows_what_the_report_says() {
    let doc = html::render(&report_sample::completed()).unwrap();
    // Metrics rated by Core Web Vitals: the home page's LCP of 4.82 s is poor, TBT 310 ms needs improvement.
    assert!(doc.contains("<td class=\"m poor\"><span class=\"v\">4.82 s</span><span class=\"r\">poor</span></td>"), "LCP");
    assert!(doc.contains("<td class=\"m ni\"><span class=\"v\">310 ms</span><span class=\"r\">needs improvement</span></td>"), "TBT");
    assert!(doc.contains("<td class=\"m poor\"><span class=\"v\">0.310</span><span class=\"r\">poor</span></td>"), "CLS");
    assert!(doc.contains("<td class=\"m good\"><span class=\"v\">420 ms</span><span class=\"r\">good</span></td>"), "TTFB");
    // Findings grouped by category then check, with evidence, snippet (escaped) and remediation.
    let a11y = doc.find("id=\"cat-accessibility-h\"").unwrap();
    let forms = doc.find("id=\"cat-forms-h\"").unwrap();
    assert!(a11y < forms, "categories in report order");
    assert!(doc.contains("<dt>Element</dt><dd><code>main &gt; .hero img</code></dd>"));
    assert!(doc.contains("<dt>Value</dt><dd>4820.5</dd><dt>Limit</dt><dd>4000</dd>"));
    assert!(doc.contains("<pre class=\"snippet\"><code>&lt;div id=&quot;plan&quot;&gt;&lt;script&gt;alert(&#39;xss&#39;)&lt;/script&gt;&lt;/div&gt;</code></pre>"));
    assert!(doc.contains("<strong>How to fix:</strong> Serve the page, and the form&#39;s action, over HTTPS only"));
    let failed = html::render(&report_sample::failed()).unwrap();
    assert!(failed.contains("<h2 id=\"failed-h\">The scan failed</h2>"));
    assert!(failed.contains("<code>target_unreachable</code>: connection refused by 203.0.113.10:443 &lt;after 3 attempts&gt;"));
}

// --------------------------------------------------------------------------------- HTML, Chromium

mod browser {
    use chromiumoxide::browser::{Browser, BrowserConfig};
    use chromiumoxide::cdp::browser_protocol::emulation::{SetDeviceMetricsOverrideParams, SetScriptExecutionDisabledParams};
    use chromiumoxide::cdp::browser_protocol::log::{EnableParams as LogEnable, EventEntryAdded};
    use chromiumoxide::cdp::browser_protocol::network::EventRequestWillBeSent;
    use chromiumoxide::cdp::browser_protocol::page::{
        AddScriptToEvaluateOnNewDocumentParams, CaptureScreenshotFormat, EventJavascriptDialogOpening, SetBypassCspParams,
    };
    use chromiumoxide::cdp::js_protocol::runtime::{EventConsoleApiCalled, EventExceptionThrown};
    use chromiumoxide::page::ScreenshotParams;
    use chromiumoxide::Page;
    use futures::StreamExt;
    use serde_json::Value;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    pub const CHROMIUM: &str = "/usr/bin/chromium";

    /// A headless Chromium of our own (fresh profile, no network), closed on drop.
    pub struct Chromium {
        pub browser: Browser,
        handler: tokio::task::JoinHandle<()>,
        _profile: tempfile::TempDir,
    }

    impl Chromium {
        pub async fn launch() -> Chromium {
            assert!(std::path::Path::new(CHROMIUM).exists(), "{CHROMIUM} is missing: run `bash scripts/setup.sh`");
            let profile = tempfile::tempdir().unwrap();
            let config = BrowserConfig::builder()
                .chrome_executable(CHROMIUM)
                .new_headless_mode()
                .no_sandbox()
                .user_data_dir(profile.path())
                .window_size(1280, 900)
                .viewport(None)
                .args([
                    "disable-gpu",
                    "disable-quic",
                    "no-first-run",
                    "disable-background-networking",
                    "disable-component-update",
                    "disable-sync",
                    "hide-scrollbars",
                    "proxy-server=127.0.0.1:9",
                ])
                .env("TMPDIR", profile.path().to_string_lossy())
                .build()
                .unwrap();
            let (browser, mut handler) = tokio::time::timeout(Duration::from_secs(30), Browser::launch(config))
                .await
                .expect("Chromium starts within 30 s")
                .expect("Chromium starts");
            let handler = tokio::spawn(async move { while handler.next().await.is_some() {} });
            Chromium { browser, handler, _profile: profile }
        }

        pub async fn close(mut self) {
            let _ = self.browser.close().await;
            let _ = self.browser.wait().await;
            self.handler.abort();
        }
    }

    /// What a page did while it loaded.
    #[derive(Debug, Default, Clone)]
    pub struct Observed {
        pub requests: Vec<String>,
        pub console: Vec<String>,
        pub dialogs: Vec<String>,
    }

    /// Opens `file` in a new page, recording requests, console output, log entries, exceptions
    /// and dialogs. `bypass_csp` turns the page's own CSP off (to test escaping alone);
    /// `javascript` false disables scripts.
    pub async fn open(chromium: &Chromium, file: &std::path::Path, bypass_csp: bool, javascript: bool, width: i64) -> (Page, Arc<Mutex<Observed>>) {
        let page = chromium.browser.new_page("about:blank").await.unwrap();
        page.execute(LogEnable::default()).await.unwrap();
        page.execute(SetDeviceMetricsOverrideParams::new(width, 900, 1.0, width < 600)).await.unwrap();
        if bypass_csp {
            page.execute(SetBypassCspParams::new(true)).await.unwrap();
        }
        if !javascript {
            page.execute(SetScriptExecutionDisabledParams::new(true)).await.unwrap();
        }
        page.execute(AddScriptToEvaluateOnNewDocumentParams::new(
            "window.__alerts = 0; window.alert = function () { window.__alerts += 1; };",
        ))
        .await
        .unwrap();
        let seen = Arc::new(Mutex::new(Observed::default()));
        let mut requests = page.event_listener::<EventRequestWillBeSent>().await.unwrap();
        let mut console = page.event_listener::<EventConsoleApiCalled>().await.unwrap();
        let mut log = page.event_listener::<EventEntryAdded>().await.unwrap();
        let mut thrown = page.event_listener::<EventExceptionThrown>().await.unwrap();
        let mut dialogs = page.event_listener::<EventJavascriptDialogOpening>().await.unwrap();
        let s = seen.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    Some(e) = requests.next() => s.lock().unwrap().requests.push(e.request.url.clone()),
                    Some(e) = console.next() => s.lock().unwrap().console.push(format!("console.{:?}: {:?}", e.r#type, e.args.iter().map(|a| a.value.clone()).collect::<Vec<_>>())),
                    Some(e) = log.next() => s.lock().unwrap().console.push(format!("log {:?} {:?}: {}", e.entry.level, e.entry.source, e.entry.text)),
                    Some(e) = thrown.next() => s.lock().unwrap().console.push(format!("exception: {:?}", e.exception_details.text)),
                    Some(e) = dialogs.next() => s.lock().unwrap().dialogs.push(e.message.clone()),
                    else => break,
                }
            }
        });
        let url = url::Url::from_file_path(file).unwrap().to_string();
        tokio::time::timeout(Duration::from_secs(30), page.goto(url)).await.expect("the report loads within 30 s").unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        (page, seen)
    }

    pub async fn eval(page: &Page, expression: &str) -> Value {
        page.evaluate_expression(expression).await.unwrap_or_else(|e| panic!("{expression}: {e}")).into_value().unwrap_or(Value::Null)
    }

    pub async fn screenshot(page: &Page, path: &std::path::Path) {
        let png = page
            .screenshot(ScreenshotParams::builder().format(CaptureScreenshotFormat::Png).full_page(true).build())
            .await
            .unwrap();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, png).unwrap();
    }
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root().join("target"))
}

fn write_report(dir: &Path, name: &str, body: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, html::render(body).unwrap()).unwrap();
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn html_report_passes_axe_fetches_nothing_and_is_screenshotted() {
    let axe = std::fs::read_to_string(required("browser/node_modules/axe-core/axe.min.js")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    // The sample in every format, for people to look at beside the screenshots.
    let samples = target_dir().join("report-samples");
    std::fs::create_dir_all(&samples).unwrap();
    std::fs::write(samples.join("sitescan.html"), html::render(&report_sample::completed()).unwrap()).unwrap();
    std::fs::write(samples.join("sitescan.sarif"), sarif::render(&report_sample::completed()).unwrap()).unwrap();
    std::fs::write(samples.join("sitescan.xml"), junit::render(&report_sample::completed(), Some(Severity::High)).unwrap()).unwrap();
    std::fs::write(samples.join("failed.sarif"), sarif::render(&report_sample::failed()).unwrap()).unwrap();
    std::fs::write(samples.join("failed.xml"), junit::render(&report_sample::failed(), None).unwrap()).unwrap();
    let chromium = browser::Chromium::launch().await;
    for (name, body, width) in [
        ("completed", report_sample::completed(), 1280),
        ("completed-mobile", report_sample::completed(), 390),
        ("failed", report_sample::failed(), 1280),
        ("queued", queued(), 1280),
    ] {
        let file = write_report(dir.path(), &format!("{name}.html"), &body);
        let (page, seen) = browser::open(&chromium, &file, false, true, width).await;
        // The page's own script ran under its own CSP: the filter is visible and counting.
        if name.starts_with("completed") {
            let status = browser::eval(&page, "document.getElementById('filter-status').textContent").await;
            assert_eq!(status, "Showing 11 of 11 findings.", "{name}: the inline script did not run");
        }
        let seen_now = seen.lock().unwrap().clone();
        let file_url = url::Url::from_file_path(&file).unwrap().to_string();
        let fetched: Vec<&String> = seen_now.requests.iter().filter(|u| **u != file_url && !u.starts_with("data:")).collect();
        assert!(fetched.is_empty(), "{name}: the report fetched {fetched:?}");
        assert!(seen_now.console.is_empty(), "{name}: console output or CSP violations while loading: {:#?}", seen_now.console);
        let resources = browser::eval(&page, "performance.getEntriesByType('resource').length").await;
        assert_eq!(resources, 0, "{name}: resource timing entries");

        // axe-core, injected over CDP (not subject to the page's CSP).
        browser::eval(&page, &axe).await;
        let violations = browser::eval(
            &page,
            "axe.run(document, {resultTypes: ['violations']}).then(r => ({version: axe.version, passes: r.passes.length, violations: r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(' ') + ': ' + n.failureSummary)}))}))",
        )
        .await;
        assert!(violations["passes"].as_u64().unwrap_or(0) > 10, "{name}: axe did not run: {violations}");
        eprintln!("{name}: axe-core {} passed {} rules", violations["version"], violations["passes"]);
        let violations = violations["violations"].as_array().cloned().expect("axe returned its violations");
        let serious: Vec<&Value> =
            violations.iter().filter(|v| matches!(v["impact"].as_str(), Some("critical" | "serious" | "moderate"))).collect();
        assert!(serious.is_empty(), "{name}: axe violations: {serious:#?}");
        if !violations.is_empty() {
            eprintln!("{name}: minor axe findings: {violations:#?}");
        }
        assert!(violations.is_empty(), "{name}: axe reports minor violations too: {violations:#?}");

        let shot = match name {
            "completed" => Some(target_dir().join("report-screenshot.png")),
            "completed-mobile" => Some(target_dir().join("report-screenshot-mobile.png")),
            "failed" => Some(target_dir().join("report-screenshot-failed.png")),
            _ => None,
        };
        if let Some(path) = shot {
            browser::screenshot(&page, &path).await;
            eprintln!("{name}: screenshot at {}", path.display());
        }
        let _ = page.close().await;
    }
    chromium.close().await;
}

/// A report as people read it at its most awkward: long code samples in "How to fix"
/// paragraphs, URLs and selectors with no place to break, tokens longer than a phone is wide,
/// findings whose titles name their header, and a first scan's changes.
fn long_words() -> Value {
    let mut body = report_sample::completed();
    let long_path = format!("https://shop.example.com/{}?utm_source={}", "catalogue/garden-tools/".repeat(12), "x".repeat(120));
    let code = "`Content-Security-Policy-Report-Only:default-src'self';script-src'self''sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=';report-uri=https://csp-reports.example.com/report/0194b3c2-7d1e-7c40-9a51-2f0e8d6b1a01`";
    let findings = body["report"]["findings"].as_array_mut().unwrap();
    for (i, header) in ["Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options"].iter().enumerate() {
        findings.push(json!({
            "id": format!("0194b3c2-7d1e-7c40-9a51-{:012}", 100 + i),
            "scan_id": "0194b3c2-7d1e-7c40-9a51-2f0e8d6b1a01",
            "check_id": "runtime.missing-security-header", "severity": "low",
            "title": format!("Security header missing: {header}"),
            "description": "These headers switch on browser protections that cost nothing.",
            // A finding's own remediation (it differs from the check's): its "How to fix" shows.
            "remediation": format!("Send {code} from the web server for every HTML response, then `{}: {}`.", header, "x".repeat(90)),
            "cwe_id": "CWE-693",
            "evidence": {"url": long_path, "header": header.to_ascii_lowercase(), "value": null, "expected": format!("{header}:{}", "a".repeat(100))},
            "created_at": "2026-01-31T10:00:07.250000Z",
        }));
    }
    findings.push(json!({
        "id": "0194b3c2-7d1e-7c40-9a51-000000000200", "scan_id": "0194b3c2-7d1e-7c40-9a51-2f0e8d6b1a01",
        "check_id": "crawlability.broken-link", "severity": "high", "title": "Broken internal link",
        "description": "A link on the site leads to a page that does not exist.",
        "remediation": format!("Point the link at a page that exists: {long_path}"),
        "cwe_id": null,
        "evidence": {"url": long_path, "resource": format!("{long_path}/{}", "missing".repeat(20)), "selector": format!("main > div.{} > a", "very-long-class-name".repeat(8)),
                     "snippet": format!("<a href=\"{long_path}\">{}</a>", "y".repeat(200)), "status": 404},
        "created_at": "2026-01-31T10:00:07.250000Z",
    }));
    body["report"]["pages"][0]["url"] = json!(long_path);
    body["report"]["pages"][0]["title"] = json!("t".repeat(150));
    body["report"]["summary"]["changes"] = json!({"new": 15, "fixed": 0, "persisting": 0, "baseline_scan_id": null});
    body
}

/// Checks whose verdict depends on how loaded the machine is (main-thread time, paint times):
/// proven on purpose-built pages elsewhere, left out of a judgement of the report's markup.
const LOAD_SENSITIVE: &[&str] =
    &["performance.tbt", "performance.long-task", "performance.fcp", "performance.lcp", "performance.ttfb", "performance.render-blocking"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_html_report_passes_sitescans_own_scan_at_320_and_1280_px() {
    let html = html::render(&long_words()).unwrap();
    assert!(html.contains("Content-Security-Policy-Report-Only:default-src") && html.contains("class=\"finding-title\""), "the long samples are in it");

    // Rendered here at 320 and 1280 CSS px: nothing runs past the window's right edge.
    let dir = tempfile::tempdir().unwrap();
    let file = write_report(dir.path(), "long.html", &long_words());
    let chromium = browser::Chromium::launch().await;
    for width in [320, 1280] {
        let (page, _) = browser::open(&chromium, &file, false, true, width).await;
        let widths = browser::eval(&page, "[document.documentElement.scrollWidth, document.documentElement.clientWidth]").await;
        assert_eq!(widths[0], widths[1], "at {width} px the page scrolls sideways: {widths}");
        let _ = page.close().await;
    }
    chromium.close().await;

    // Served on 127.0.0.1 (gzip'd, as the dashboard serves it) and scanned by the real binary:
    // its reflow step lays the page out at 320 CSS px, the rest of the scan at the desktop width.
    let site = fixture_site::FixtureSite::start().await;
    site.route("/", fixture_site::Route::html(html).gzip(true));
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_sitescan"))
        .args(["scan", &site.url("/"), "--format", "json", "--allow-target", "127.0.0.1/32", "--max-pages", "1", "--quiet"])
        .env("NO_COLOR", "1")
        .output()
        .await
        .expect("run sitescan");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("a JSON report ({e}): {}", String::from_utf8_lossy(&out.stderr)));
    let pages = report["report"]["pages"].as_array().cloned().unwrap_or_default();
    assert_eq!(pages.len(), 1, "{report:#}");
    assert_eq!(pages[0]["status"], 200, "the report was rendered: {:#}", pages[0]);
    let not_run = serde_json::to_string(&pages[0]["checks_not_run"]).unwrap_or_default();
    assert!(!not_run.contains("accessibility.reflow-overflow"), "the reflow check ran: {not_run}");
    let findings = report["report"]["findings"].as_array().cloned().unwrap_or_default();
    let line = |f: &Value| format!("{} [{}] {} {}", f["check_id"].as_str().unwrap_or(""), f["severity"].as_str().unwrap_or(""), f["title"].as_str().unwrap_or(""), f["evidence"]);
    for f in &findings {
        eprintln!("{}", line(f));
    }
    let serious: Vec<String> = findings
        .iter()
        .filter(|f| !matches!(f["severity"].as_str(), Some("low" | "info")))
        .filter(|f| !LOAD_SENSITIVE.contains(&f["check_id"].as_str().unwrap_or_default()))
        .map(line)
        .collect();
    assert!(serious.is_empty(), "the HTML report has findings at medium or above in its own scan:\n{}", serious.join("\n"));
}

/// Hostile text in every field the report shows.
fn hostile() -> Value {
    let mut body = report_sample::completed();
    let x = "\"><script>alert(1)</script><img src=x onerror=alert(2)><svg onload=alert(3)>";
    body["scan"]["target_url"] = json!(format!("https://evil.example.com/{x}"));
    body["scan"]["target_hostname"] = json!(x);
    body["report"]["summary"]["error"] = json!(null);
    body["report"]["pages"][0]["title"] = json!(x);
    body["report"]["pages"][1]["url"] = json!("javascript:alert(4)");
    let f = &mut body["report"]["findings"][0];
    f["title"] = json!(x);
    f["description"] = json!(x);
    f["remediation"] = json!(x);
    f["check_id"] = json!(format!("accessibility.{x}"));
    f["evidence"] = json!({"url": "javascript:alert(5)", "selector": x, "snippet": x, "value": x, "limit": x, (x): x,
                           "help_url": "javascript:alert(6)", "list": [x, x], "nested": {"k": x}});
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn html_escaping_holds_even_without_its_csp_and_the_filter_works() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_report(dir.path(), "hostile.html", &hostile());
    let chromium = browser::Chromium::launch().await;
    let (page, seen) = browser::open(&chromium, &file, true, true, 1280).await;
    // Nothing ran: no alert, no dialog, no injected element; the text is on the page as text.
    assert_eq!(browser::eval(&page, "window.__alerts").await, 0);
    assert!(seen.lock().unwrap().dialogs.is_empty());
    assert_eq!(browser::eval(&page, "document.scripts.length").await, 1, "only the report's own script");
    assert_eq!(browser::eval(&page, "document.querySelectorAll('img, svg, iframe').length").await, 0);
    assert_eq!(browser::eval(&page, "document.querySelectorAll('[onerror], [onload]').length").await, 0);
    assert_eq!(browser::eval(&page, "document.querySelectorAll('a[href^=\"javascript:\" i]').length").await, 0);
    let snippets = browser::eval(&page, "Array.from(document.querySelectorAll('pre.snippet code')).map(e => e.textContent)").await;
    assert!(
        snippets.as_array().unwrap().contains(&json!("\"><script>alert(1)</script><img src=x onerror=alert(2)><svg onload=alert(3)>")),
        "the hostile snippet is shown verbatim: {snippets}"
    );
    assert!(
        browser::eval(&page, "document.body.innerText.includes('<script>alert(1)</script>')").await == true,
        "the hostile text is shown as text"
    );

    // The severity filter hides what is unticked, and checks and categories left empty.
    let count = "document.querySelectorAll('li.finding:not([hidden])').length";
    assert_eq!(browser::eval(&page, count).await, 11);
    for sev in ["critical", "high", "medium", "low"] {
        browser::eval(&page, &format!("document.getElementById('show-{sev}').click()")).await;
    }
    assert_eq!(browser::eval(&page, count).await, 1, "only the info finding is left");
    assert_eq!(browser::eval(&page, "document.getElementById('filter-status').textContent").await, "Showing 1 of 11 findings.");
    assert_eq!(browser::eval(&page, "document.querySelectorAll('section.cat:not([hidden])').length").await, 1);
    assert_eq!(browser::eval(&page, "document.querySelector('section.cat:not([hidden])').id").await, "cat-structured-data");
    browser::eval(&page, "document.getElementById('show-high').click()").await;
    assert_eq!(browser::eval(&page, count).await, 5);
    let _ = page.close().await;
    chromium.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn html_without_javascript_shows_every_finding_and_no_dead_control() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_report(dir.path(), "nojs.html", &report_sample::completed());
    let chromium = browser::Chromium::launch().await;
    let (page, _) = browser::open(&chromium, &file, false, false, 1280).await;
    // Scripts are off for the page; CDP evaluation still reads it.
    let visible = "Array.from(document.querySelectorAll('li.finding')).filter(e => e.offsetParent !== null).length";
    assert_eq!(browser::eval(&page, visible).await, 11);
    assert_eq!(browser::eval(&page, "document.getElementById('filters').offsetParent === null").await, true, "the filter stays hidden");
    let _ = page.close().await;
    chromium.close().await;
}

#[test]
fn html_names_the_failed_budget_assertion_first() {
    let html = html::render(&over_budget()).unwrap();
    let budget = &html[html.find("id=\"budget\"").expect("a budget section")..];
    let budget = &budget[..budget.find("</section>").unwrap()];
    assert!(budget.contains("The budget <strong>failed</strong>: 1 error assertion of 3 assertions failed."), "{budget}");
    let rows: Vec<&str> = budget.split("<tr>").skip(2).collect();
    assert_eq!(rows.len(), 3);
    assert!(rows[0].contains("<code>findings</code>") && rows[0].contains("class=\"poor\"><strong>failed") && rows[0].contains("0 (high and above)"), "{}", rows[0]);
    assert!(rows[1].contains("class=\"ni\"><strong>warning"), "{}", rows[1]);
    assert!(rows[2].contains("class=\"good\"><strong>passed"), "{}", rows[2]);
    assert!(html.find("id=\"budget\"").unwrap() < html.find("id=\"summary\"").unwrap(), "before the summary");
    assert!(!html::render(&report_sample::completed()).unwrap().contains("id=\"budget\""), "no budget, no section");
}
