//! `sitescan scan --baseline report.json --fail-on-new SEVERITY`: the comparison in CI, from a
//! previous `--format json` report, and an exit status that only new findings decide; and
//! `--budget FILE`, whose failed assertion is named in the report, JUnit, SARIF and exit code.

use super::fixture_site::{FixtureSite, Route};
use serde_json::Value;

fn page(body: &str) -> Route {
    Route::html(format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Baseline site</title>\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"></head>\
         <body><main><h1>Baseline site</h1>{body}</main></body></html>"
    ))
}

async fn sitescan(args: &[&str]) -> (Option<i32>, String) {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_sitescan"))
        .args(args)
        .args(["--allow-target", "127.0.0.1/32", "--max-pages", "5", "--quiet"])
        .env("NO_COLOR", "1")
        .output()
        .await
        .expect("run sitescan");
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_baseline_file_marks_new_findings_and_only_they_fail_the_job() {
    let site = FixtureSite::start().await;
    site.route("/", page(r#"<a href="/a">About</a>"#));
    site.route("/a", page(r#"<a href="/">Home</a>"#));
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base.json");
    let next = dir.path().join("next.json");
    let sarif = dir.path().join("next.sarif");
    let url = site.url("/");

    let (code, err) = sitescan(&["scan", &url, "--format", "json", "-o", base.to_str().unwrap()]).await;
    assert!(matches!(code, Some(0 | 1)), "{code:?} {err}");

    // A new broken link (high): new since the baseline, so --fail-on-new high fails the job.
    site.route("/", page(r#"<a href="/a">About</a> <a href="/missing">Gone</a>"#));
    let b = base.to_str().unwrap();
    let (code, err) = sitescan(&["scan", &url, "--format", "json", "-o", next.to_str().unwrap(), "--baseline", b, "--fail-on-new", "high"]).await;
    assert_eq!(code, Some(1), "{err}");
    let body: Value = serde_json::from_str(&std::fs::read_to_string(&next).unwrap()).unwrap();
    let changes = &body["report"]["summary"]["changes"];
    let base_body: Value = serde_json::from_str(&std::fs::read_to_string(&base).unwrap()).unwrap();
    assert_eq!(changes["baseline_scan_id"], base_body["scan"]["id"], "{changes}");
    let broken = body["report"]["findings"].as_array().unwrap().iter()
        .find(|f| f["check_id"] == "crawlability.broken-link").expect("the broken link is found");
    assert_eq!(broken["change"], "new");

    // The same site against the report that already has the broken link: nothing new at high.
    let n = next.to_str().unwrap();
    let (code, err) = sitescan(&["scan", &url, "--format", "sarif", "-o", sarif.to_str().unwrap(), "--baseline", n, "--fail-on-new", "high"]).await;
    assert_eq!(code, Some(0), "the broken link persists, so it does not fail the job: {err}");
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    let link = results.iter().find(|r| r["ruleId"] == "crawlability.broken-link").expect("a broken-link result");
    assert_eq!(link["baselineState"], "unchanged");
    assert!(results.iter().all(|r| r.get("baselineState").is_some()), "every result has a baselineState");

    // A baseline that is not a report is refused with a clear message.
    let junk = dir.path().join("junk.json");
    std::fs::write(&junk, "{\"hello\": 1}").unwrap();
    let (code, err) = sitescan(&["scan", &url, "--format", "json", "-o", next.to_str().unwrap(), "--baseline", junk.to_str().unwrap()]).await;
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("baseline"), "{err}");
}

async fn run(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_sitescan"));
    cmd.args(args).env_remove("SITESCAN_SECRET_KEY").env("NO_COLOR", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().await.expect("run sitescan");
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_commands_add_list_test_and_remove() {
    let site = FixtureSite::start().await;
    site.route_method("POST", "/hook", Route::new(204));
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}?mode=rwc", dir.path().join("w.db").display());
    let hook = site.url("/hook");
    let add = ["webhook", "add", "--org", "acme", hook.as_str(), "--events", "scan.completed,scan.regressed", "--database", db.as_str()];

    let (code, _, err) = run(&add, &[]).await;
    assert_eq!(code, Some(2), "refused without a secret key: {err}");
    assert!(err.contains("SITESCAN_SECRET_KEY"), "{err}");

    let key = [("SITESCAN_SECRET_KEY", "KioqKioqKioqKioqKioqKioqKioqKioqKioqKioqKio=")];
    let (code, out, err) = run(&add, &key).await;
    assert_eq!(code, Some(0), "{err}");
    let secret = out.trim();
    assert!(secret.starts_with("whsec_") && out.lines().count() == 1, "{out}");

    let (code, out, _) = run(&["webhook", "list", "--org", "acme", "--database", db.as_str()], &[]).await;
    assert_eq!(code, Some(0));
    assert!(out.contains(hook.as_str()) && !out.contains(&secret[6..]), "listed, never its secret: {out}");
    let id = out.lines().nth(1).unwrap().split_whitespace().next().unwrap().to_string();

    // The receiver is on loopback: blocked unless allowed.
    let (code, out, _) = run(&["webhook", "test", id.as_str(), "--database", db.as_str()], &key).await;
    assert_eq!(code, Some(2), "{out}");
    assert_eq!(site.hit_count("/hook"), 0, "a blocked address is never contacted");
    let (code, out, err) = run(&["webhook", "test", id.as_str(), "--allow-target", "127.0.0.1/32", "--database", db.as_str()], &key).await;
    assert_eq!(code, Some(0), "{out} {err}");
    assert!(out.contains("HTTP 204"), "{out}");
    assert!(site.hit_count("/hook") >= 1);

    let (code, _, _) = run(&["webhook", "remove", id.as_str(), "--database", db.as_str()], &[]).await;
    assert_eq!(code, Some(0));
    let (_, out, _) = run(&["webhook", "list", "--org", "acme", "--database", db.as_str()], &[]).await;
    assert_eq!(out.lines().count(), 1, "only the header is left: {out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_budget_names_the_assertion_that_failed_in_the_report_junit_sarif_and_exit_code() {
    let site = FixtureSite::start().await;
    site.route("/", page(r#"<a href="/a">About</a> <a href="/missing">Gone</a>"#));
    site.route("/a", page(r#"<a href="/">Home</a>"#));
    let dir = tempfile::tempdir().unwrap();
    let url = site.url("/");
    let file = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let failing = file("budget.json", r#"{"assertions": {
        "crawlability.broken-link": ["error", {"maxCount": 0}],
        "metrics.lcp-p75": ["warn", {"maxNumericValue": 600000}],
        "categories:security": "off"}}"#);

    // A broken budget is refused before anything runs, every mistake named.
    let broken = file("broken.yaml", "crawlability.broken-lnk: error\nmetrics.lcp-p75: error\n");
    let (code, err) = sitescan(&["scan", &url, "--budget", &broken]).await;
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("crawlability.broken-lnk: is not a check id") && err.contains("metrics.lcp-p75: a metric needs maxNumericValue"), "{err}");

    let json = dir.path().join("report.json");
    let (code, err) = sitescan(&["scan", &url, "--budget", &failing, "--format", "json", "-o", json.to_str().unwrap()]).await;
    assert_eq!(code, Some(1), "a failed error assertion fails the job: {err}");
    assert!(err.contains("budget failed: crawlability.broken-link: 1 findings of crawlability.broken-link, over the limit of 0"), "{err}");
    let body: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let budget = &body["report"]["summary"]["budget"];
    assert_eq!(budget["passed"], false, "{budget}");
    let assertions = budget["assertions"].as_array().unwrap();
    assert_eq!(assertions.len(), 2, "`off` is no assertion: {budget}");
    let broken_link = assertions.iter().find(|a| a["assertion"] == "crawlability.broken-link").unwrap();
    assert_eq!((broken_link["level"].as_str(), broken_link["actual"].as_f64(), broken_link["passed"].as_bool()), (Some("error"), Some(1.0), Some(false)));
    let lcp = assertions.iter().find(|a| a["assertion"] == "metrics.lcp-p75").unwrap();
    assert_eq!(lcp["passed"], true, "{lcp}");

    let junit = dir.path().join("report.xml");
    let (code, err) = sitescan(&["scan", &url, "--budget", &failing, "--format", "junit", "-o", junit.to_str().unwrap()]).await;
    assert_eq!(code, Some(1), "{err}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    let suite = &xml[xml.find(r#"<testsuite name="budget""#).expect("a budget testsuite")..];
    assert!(suite.contains(r#"failures="1""#) && suite.contains(r#"<testcase name="crawlability.broken-link" classname="sitescan.budget""#), "{suite}");
    assert!(suite.contains(r#"type="budget""#) && suite.contains("over the limit of 0"), "{suite}");

    let sarif = dir.path().join("report.sarif");
    let (code, err) = sitescan(&["scan", &url, "--budget", &failing, "--format", "sarif", "-o", sarif.to_str().unwrap()]).await;
    assert_eq!(code, Some(1), "{err}");
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    let notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"].as_array().expect("notifications");
    let failed: Vec<&Value> = notes.iter().filter(|n| n["descriptor"]["id"] == "budget").collect();
    assert_eq!(failed.len(), 1, "{notes:?}");
    assert_eq!(failed[0]["level"], "error");
    assert_eq!(failed[0]["properties"]["assertion"], "crawlability.broken-link");

    // Within budget (YAML this time): the job passes, and the report says so.
    let roomy = file("budget.yaml", "assertions:\n  crawlability.broken-link: [error, {maxCount: 3}]\n  findings: [warn, {minSeverity: critical}]\n");
    let (code, err) = sitescan(&["scan", &url, "--budget", &roomy, "--format", "json", "-o", json.to_str().unwrap()]).await;
    assert_eq!(code, Some(0), "{err}");
    assert!(err.trim().is_empty(), "a passing scan says nothing on stderr (no DEBUG or INFO lines of the transports): {err}");
    let body: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(body["report"]["summary"]["budget"]["passed"], true);
}
