//! End to end through the command line: `sitescan scan` of the `clean` fixture site (a site that
//! follows every rule) finds nothing at medium or above, and the findings it prints for a
//! defective fixture site carry their titles, descriptions and remediations.

use crate::fixture_dir;
use crate::fixture_site;

use fixture_site::FixtureSite;
use serde_json::Value;
use std::collections::BTreeMap;

/// The low and info findings a clean site still gets, and why each is right.
const RESIDUAL: &[(&str, &str)] = &[];

async fn sitescan(args: Vec<String>) -> (Option<i32>, String, String) {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_sitescan"))
        .args(&args)
        .env("NO_COLOR", "1")
        .output()
        .await
        .expect("run sitescan");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

/// Checks whose verdict depends on how loaded the machine is (main-thread time, paint times).
const LOAD_SENSITIVE: &[&str] = &[
    "performance.tbt",
    "performance.long-task",
    "performance.fcp",
    "performance.lcp",
    "performance.ttfb",
    "performance.render-blocking",
];

fn brief(f: &Value) -> String {
    format!(
        "{} [{}] {} {}",
        f["check_id"].as_str().unwrap_or_default(),
        f["severity"].as_str().unwrap_or_default(),
        f["evidence"]["url"].as_str().unwrap_or_default(),
        f["evidence"]["selector"].as_str().unwrap_or_default()
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clean_site_has_no_finding_at_medium_or_above() {
    let site = FixtureSite::start().await;
    fixture_dir::serve(&site, "clean", "http://127.0.0.2:9", &[]);
    let start = site.url("/");
    let (code, stdout, stderr) =
        sitescan(args(&["scan", &start, "--format", "json", "--allow-target", "127.0.0.1/32", "--fail-on", "medium"]))
            .await;
    let body: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("JSON report ({e}); stderr: {stderr}"));
    let findings = body["report"]["findings"].as_array().cloned().unwrap_or_default();
    // Timing checks measure the machine as much as the page: on a loaded 2-core box a clean page's
    // main thread can be slow. They are proven on purpose-built pages in checks_e2e_perf; here
    // they only decide the expected exit status.
    let timing = |f: &&Value| LOAD_SENSITIVE.contains(&f["check_id"].as_str().unwrap_or_default());
    let at_medium = |f: &&Value| !matches!(f["severity"].as_str(), Some("low" | "info"));
    let serious: Vec<String> = findings.iter().filter(at_medium).filter(|f| !timing(f)).map(brief).collect();
    assert!(serious.is_empty(), "the clean site has findings at medium or above:\n{}", serious.join("\n"));
    let slow: Vec<String> = findings.iter().filter(at_medium).filter(timing).map(brief).collect();
    if !slow.is_empty() {
        eprintln!("timing findings on this (loaded) machine:\n{}", slow.join("\n"));
    }
    let expected = if slow.is_empty() { 0 } else { 1 };
    assert_eq!(code, Some(expected), "--fail-on medium exit status for the clean site; stderr: {stderr}");

    // Every page was rendered and measured, so the quiet report is not an empty one.
    let pages = body["report"]["pages"].as_array().cloned().unwrap_or_default();
    let urls: Vec<&str> = pages.iter().filter_map(|p| p["url"].as_str()).collect();
    for path in ["/", "/about.html", "/products.html", "/contact.html", "/de/"] {
        let page = pages.iter().find(|p| p["url"] == site.url(path));
        assert!(page.is_some_and(|p| p["status"] == 200 && p["error"].is_null()), "{path} rendered: {urls:?}");
        let metrics = &page.unwrap()["metrics"];
        assert!(
            metrics["fcp_ms"].is_number() && metrics["lcp_ms"].is_number() && metrics["cls"].is_number(),
            "{path} measured: {metrics}"
        );
    }
    assert_eq!(pages.len(), 5, "{urls:?}");
    assert_eq!(site.hit_count("/basket/"), 0);

    // What remains (low and info) is listed with the reason it is right.
    let mut residual: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for f in &findings {
        residual.entry(f["check_id"].as_str().unwrap_or_default().to_string()).or_default().push(brief(f));
    }
    for (check, found) in &residual {
        eprintln!("residual {check}: {}", found.join("; "));
    }
    let unexplained: Vec<&String> = residual
        .keys()
        .filter(|c| !RESIDUAL.iter().any(|(id, _)| id == c) && !LOAD_SENSITIVE.contains(&c.as_str()))
        .collect();
    assert!(unexplained.is_empty(), "low/info findings on the clean site without a reason in RESIDUAL: {residual:#?}");
}

/// The control for the quiet report above: the same command on defective fixture sites lists
/// their findings, each with the title, description and remediation of its check.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sitescan_scan_lists_findings_with_titles_and_remediation() {
    let interact = FixtureSite::start().await;
    fixture_dir::serve(&interact, "interact", "http://127.0.0.2:9", &[]);
    let down = FixtureSite::start().await;
    fixture_dir::serve(&down, "down", "http://127.0.0.2:9", &[]);
    let (json_start, text_start) = (interact.url("/"), down.url("/"));
    let ((code, stdout, stderr), (text_code, text, text_err)) = tokio::join!(
        sitescan(args(&[
            "scan",
            &json_start,
            "--format",
            "json",
            "--allow-target",
            "127.0.0.1/32",
            "--max-pages",
            "4",
            "--fail-on",
            "high"
        ])),
        sitescan(args(&[
            "scan",
            &text_start,
            "--format",
            "text",
            "--allow-target",
            "127.0.0.1/32",
            "--max-pages",
            "3"
        ])),
    );

    assert_eq!(code, Some(1), "--fail-on high exits 1 when a high finding exists; stderr: {stderr}");
    let body: Value = serde_json::from_str(&stdout).expect("JSON report");
    let findings = body["report"]["findings"].as_array().cloned().unwrap_or_default();
    let catalogue: Value = {
        let (_, out, _) = sitescan(args(&["checks", "--format", "json"])).await;
        serde_json::from_str(&out).expect("checks JSON")
    };
    let listed = |id: &str| {
        catalogue.as_array().or(catalogue["checks"].as_array()).is_some_and(|a| a.iter().any(|c| c["id"] == id))
    };
    // Each entry lists the W3C ACT rules it implements, for ACT harnesses (issue 18).
    let act_ids = |id: &str| {
        catalogue.as_array().and_then(|a| a.iter().find(|c| c["id"] == id)).map(|c| c["act_ids"].clone())
    };
    assert_eq!(act_ids("accessibility.summary-name"), Some(serde_json::json!(["2t702h"])));
    assert_eq!(act_ids("accessibility.focus-not-visible"), Some(serde_json::json!(["oj04fd"])));
    assert_eq!(act_ids("accessibility.zoom-disabled"), Some(serde_json::json!(["b4f0c3"])));
    assert_eq!(act_ids("search.title-missing"), Some(serde_json::json!([])));
    for f in &findings {
        for key in ["title", "description", "remediation"] {
            assert!(f[key].as_str().is_some_and(|t| t.len() >= 10), "{key} of {}", brief(f));
        }
        let id = f["check_id"].as_str().unwrap_or_default();
        assert!(listed(id), "{id} is in `sitescan checks`");
    }
    let axe_bad = interact.url("/a11y/axe-bad.html");
    let image_alt = findings
        .iter()
        .find(|f| f["check_id"] == "accessibility.image-alt" && f["evidence"]["url"] == axe_bad.as_str())
        .unwrap_or_else(|| {
            panic!("accessibility.image-alt on {axe_bad}: {:#?}", findings.iter().map(brief).collect::<Vec<_>>())
        });
    assert_eq!(image_alt["severity"], "critical");
    assert_eq!(image_alt["evidence"]["selector"], "#no-alt");
    // One barrier, one finding: the field's missing label is axe-core's `label`, answering to
    // `forms.label-missing` too.
    let label = findings
        .iter()
        .find(|f| f["check_id"] == "accessibility.label" && f["evidence"]["also_reported_as"].as_array().is_some_and(|a| a.iter().any(|i| i == "forms.label-missing")))
        .expect("accessibility.label answering to forms.label-missing");
    assert_eq!(label["title"], sitescan::checks::find("accessibility.label").unwrap().title);

    assert_eq!(text_code, Some(0), "no --fail-on: exit 0; stderr: {text_err}");
    for expected in [
        "crawlability.http-error",
        sitescan::checks::find("crawlability.http-error").unwrap().title,
        "crawlability.robots-txt-unreachable",
        sitescan::checks::find("crawlability.robots-txt-unreachable").unwrap().title,
        &down.url("/robots.txt"),
    ] {
        assert!(text.contains(expected), "text report lists {expected:?}:\n{text}");
    }
}
