//! `sitescan scan --format gitlab` end to end: the real binary scans a fixture site on
//! 127.0.0.1, and the file it writes is what GitLab's Code Quality report reader takes:
//!
//! - every issue passes GitLab's own issue schema (`tests/fixtures/ci/gitlab-codeclimate.schema.json`,
//!   from gitlab-org/gitlab) and the whole file the documented format
//!   (`gitlab-code-quality.schema.json`: required fields, the five severities, a line);
//! - fingerprints are the same in two runs of the same site and unique within a report;
//! - each finding of the JSON report is one issue, its severity mapped (info → info, low →
//!   minor, medium → major, high → critical, critical → blocker);
//! - `location.path` is a page URL of the site, and an HTML parse error points at its line.

use serde_json::Value;
use sitescan_test_support::fixture_site::{FixtureSite, Route};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ci")).join(name)
}

fn schema(name: &str) -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(fixture(name)).unwrap()).unwrap();
    jsonschema::draft7::new(&schema).expect("the schema compiles")
}

fn errors(validator: &jsonschema::Validator, doc: &Value) -> Vec<String> {
    validator.iter_errors(doc).map(|e| format!("{e} at {}", e.instance_path)).collect()
}

/// Line 6 of `/` holds a stray end tag (an HTML parse error).
const HOME: &str = "<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>Shop</title>\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"></head>\n<body><main><h1>Shop</h1>\n\
<p>Welcome</span></p>\n<img src=\"/hero.png\">\n<a href=\"/gone\">Old offer</a> <a href=\"/gone\">Old offer</a>\n\
<a href=\"/about\">About</a>\n</main></body></html>\n";

async fn site() -> FixtureSite {
    let site = FixtureSite::start().await;
    site.route("/", Route::html(HOME));
    site.route(
        "/about",
        Route::html(
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"></head>\
             <body><main><h1>About</h1><a href=\"/\">Home</a></main></body></html>",
        ),
    );
    site
}

async fn scan(url: &str, format: &str, out: &Path) {
    let run = tokio::process::Command::new(env!("CARGO_BIN_EXE_sitescan"))
        .args(["scan", url, "--format", format, "--output", out.to_str().unwrap()])
        .args(["--allow-target", "127.0.0.1/32", "--max-pages", "5", "--quiet"])
        .env("NO_COLOR", "1")
        .output()
        .await
        .expect("run sitescan");
    assert_eq!(run.status.code(), Some(0), "sitescan {format}: {}", String::from_utf8_lossy(&run.stderr));
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).expect("the report is JSON")
}

fn gitlab_severity(sitescan: &str) -> &'static str {
    match sitescan {
        "info" => "info",
        "low" => "minor",
        "medium" => "major",
        "high" => "critical",
        "critical" => "blocker",
        other => panic!("unknown sitescan severity {other}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gitlab_code_quality_report_from_a_real_scan() {
    let site = site().await;
    let url = site.url("/");
    let dir = tempfile::tempdir().unwrap();
    let (first, second, json) = (dir.path().join("a.json"), dir.path().join("b.json"), dir.path().join("report.json"));
    scan(&url, "gitlab", &first).await;
    scan(&url, "gitlab", &second).await;
    scan(&url, "json", &json).await;
    let (report, again, body) = (read(&first), read(&second), read(&json));

    // GitLab's schemas.
    let documented = schema("gitlab-code-quality.schema.json");
    let gitlabs_own = schema("gitlab-codeclimate.schema.json");
    let found = errors(&documented, &report);
    assert!(found.is_empty(), "not the documented Code Quality format:\n{}\n{report:#}", found.join("\n"));
    let issues = report.as_array().unwrap();
    assert!(issues.len() >= 4, "the fixture site has several defects: {report:#}");
    for issue in issues {
        let found = errors(&gitlabs_own, issue);
        assert!(found.is_empty(), "GitLab's issue schema rejects {issue:#}:\n{}", found.join("\n"));
    }

    // Fingerprints: unique in a report, the same in the next run of the same site.
    let prints = |r: &Value| -> Vec<String> {
        r.as_array().unwrap().iter().map(|i| i["fingerprint"].as_str().unwrap().to_string()).collect()
    };
    let (one, two) = (prints(&report), prints(&again));
    assert_eq!(one.iter().collect::<BTreeSet<_>>().len(), one.len(), "duplicate fingerprints: {one:?}");
    assert_eq!(one.iter().collect::<BTreeSet<_>>(), two.iter().collect::<BTreeSet<_>>(), "fingerprints changed between runs");
    let twins: Vec<&Value> = issues.iter().filter(|i| i["check_name"] == "crawlability.broken-link").collect();
    assert_eq!(twins.len(), 2, "two links to /gone on one page: two issues {report:#}");
    assert_ne!(twins[0]["fingerprint"], twins[1]["fingerprint"]);

    // One issue per finding, severities mapped.
    let count = |pairs: Vec<(String, String)>| {
        let mut m: BTreeMap<(String, String), usize> = BTreeMap::new();
        for p in pairs {
            *m.entry(p).or_default() += 1;
        }
        m
    };
    let expected = count(
        body["report"]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["check_id"].as_str().unwrap().to_string(), gitlab_severity(f["severity"].as_str().unwrap()).to_string()))
            .collect(),
    );
    let got = count(
        issues.iter().map(|i| (i["check_name"].as_str().unwrap().to_string(), i["severity"].as_str().unwrap().to_string())).collect(),
    );
    assert_eq!(got, expected, "issues against the JSON report's findings");
    let by = |id: &str| issues.iter().find(|i| i["check_name"] == id).unwrap_or_else(|| panic!("no {id} issue: {report:#}"));
    assert_eq!(by("accessibility.image-alt")["severity"], "blocker");
    assert_eq!(by("crawlability.broken-link")["severity"], "critical");
    assert_eq!(by("accessibility.image-alt")["categories"][0], "Accessibility");

    // Locations: page URLs of the site; a parse error on its line of the served HTML.
    for issue in issues {
        let path = issue["location"]["path"].as_str().unwrap();
        assert!(path.starts_with(&site.origin()), "location.path is no page of the site: {path}");
        assert!(url::Url::parse(path).is_ok(), "{path}");
    }
    let parse = by("semantics.parse-error");
    assert_eq!(parse["location"]["path"], url.as_str());
    assert_eq!(parse["location"]["lines"]["begin"], 6, "{parse:#}");
    let alt = by("accessibility.image-alt");
    assert!(alt["description"].as_str().unwrap().contains("img"), "the description names the element: {alt:#}");
    assert!(alt["content"]["body"].as_str().unwrap().contains("](https://"), "a link to the check's docs: {alt:#}");
}

#[test]
fn the_gitlab_schemas_can_fail() {
    let bad: Value = serde_json::json!([{
        "description": "x", "check_name": "c", "fingerprint": "f", "severity": "high",
        "location": {"path": "https://a.test/"}
    }, {
        "check_name": "c", "fingerprint": 7, "severity": "info", "location": {"path": "https://a.test/", "lines": {"begin": 1}}
    }]);
    assert!(errors(&schema("gitlab-code-quality.schema.json"), &bad).len() >= 3, "a bad severity, no line, no description");
    assert!(!errors(&schema("gitlab-codeclimate.schema.json"), &bad[1]).is_empty(), "GitLab's schema wants a string fingerprint and a description");
}
