//! Repository probes end to end: a fixture site on loopback serving real-shaped artifacts (a real
//! `.git` made with `git init` and a commit, a real `.env`, a private key made by openssl, a zip
//! made by `git archive`, a source map with `sourcesContent`, ...), scanned in active mode by the
//! real engine (Chromium, the guarded fetcher, every check); and sites that must stay quiet (every
//! unknown path answers 200 with the home page; every unknown path answers 403). Then the CLI:
//! `sitescan scan --active` refused (exit 2, `ownership_unverified`, nothing probed) and accepted
//! (repository findings in the JSON report and in SARIF).

use crate::fixture_site::{FixtureSite, Route, init_test_log};
use crate::scan_harness::{Engine, Scan};
use serde_json::Value;
use sitescan::model::SiteArtifact;
use sitescan::crawl::ScanOptions;
use std::path::Path;
use std::process::Command;

const TOKEN: &str = "ci_token_0123456789abcdefghijkl";

const HOME: &str = r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop home page</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>Shop</h1><p><a href="/docs/guide.html">Guide</a></p></main>
<script src="/static/app.js"></script></body></html>"#;

fn run(dir: &Path, program: &str, args: &[&str]) {
    let out = Command::new(program).args(args).current_dir(dir).output().unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(out.status.success(), "{program} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// Serves every file under `dir` at `prefix` + its relative path.
fn serve_tree(site: &FixtureSite, dir: &Path, prefix: &str) -> usize {
    let mut served = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).expect("relative").to_string_lossy().replace('\\', "/");
                site.route(&format!("{prefix}/{rel}"), Route::typed("application/octet-stream", std::fs::read(&path).expect("read")));
                served += 1;
            }
        }
    }
    served
}

/// A site leaking one of each artifact, made the way real ones are made.
fn leaky_site(site: &FixtureSite, work: &Path) {
    let repo = work.join("repo");
    std::fs::create_dir_all(&repo).expect("mkdir");
    std::fs::write(repo.join("index.html"), HOME).expect("write");
    std::fs::write(repo.join("config.php"), "<?php\n$db_password = 'hunter2';\n").expect("write");
    run(&repo, "git", &["init", "-q", "-b", "main"]);
    run(&repo, "git", &["add", "."]);
    run(&repo, "git", &["-c", "user.name=Dev", "-c", "user.email=dev@shop.test", "commit", "-q", "-m", "first"]);
    assert!(serve_tree(site, &repo.join(".git"), "/.git") > 5, "the .git folder is served");
    run(&repo, "git", &["archive", "--format=zip", "-o", "../backup.zip", "HEAD"]);
    run(work, "openssl", &["genpkey", "-algorithm", "ED25519", "-out", "server.key"]);
    std::fs::write(work.join(".env"), "APP_ENV=production\nAPP_KEY=base64:Zm9vYmFyYmF6\n# database\nDB_HOST=127.0.0.1\nDB_PASSWORD=hunter2\n")
        .expect("write");

    site.route("/", Route::html(HOME));
    site.route("/docs/guide.html", Route::html("<!doctype html><html lang=\"en\"><title>Guide to the shop</title><h1>Guide</h1></html>"));
    site.route("/static/app.js", Route::typed("text/javascript", "console.log('shop');\n//# sourceMappingURL=app.js.map\n"));
    site.route(
        "/static/app.js.map",
        Route::typed(
            "application/json",
            r#"{"version":3,"file":"app.js","sources":["../src/app.ts"],"sourcesContent":["const apiKey: string = 'internal';\nconsole.log('shop');\n"],"names":[],"mappings":"AAAA"}"#,
        ),
    );
    site.route("/static/", Route::html("<html><head><title>Index of /static</title></head><body><h1>Index of /static</h1><ul><li><a href=\"/\"> Parent Directory</a></li><li><a href=\"app.js\"> app.js</a></li><li><a href=\"app.js.map\"> app.js.map</a></li></ul></body></html>"));
    site.route("/.env", Route::typed("text/plain", std::fs::read(work.join(".env")).expect("read")));
    site.route("/server.key", Route::typed("application/octet-stream", std::fs::read(work.join("server.key")).expect("read")));
    site.route("/backup.zip", Route::typed("application/zip", std::fs::read(work.join("backup.zip")).expect("read")));
    site.route(
        "/server-status",
        Route::html("<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 3.2 Final//EN\"><html><head><title>Apache Status</title></head><body><h1>Apache Server Status for 127.0.0.1 (via 127.0.0.1)</h1><dl><dt>Server Version: Apache/2.4.62 (Debian)</dt></dl></body></html>"),
    );
    let mut ds_store = vec![0x00, 0x00, 0x00, 0x01, b'B', b'u', b'd', b'1', 0x00, 0x00, 0x10, 0x00];
    ds_store.resize(4096, 0);
    site.route("/.DS_Store", Route::typed("application/octet-stream", ds_store));
}

fn active() -> ScanOptions {
    ScanOptions { max_pages: 3, max_depth: 1, page_concurrency: 2, active: true, ..ScanOptions::default() }
}

fn repository_findings(scan: &Scan) -> Vec<&sitescan::model::Finding> {
    scan.findings.iter().filter(|f| f.check_id.starts_with("repository.")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_repository_check_fires_on_real_artifacts() {
    init_test_log();
    let work = tempfile::tempdir().expect("tempdir");
    let site = FixtureSite::start().await;
    leaky_site(&site, work.path());
    let engine = Engine::start(2).await;
    let scan = engine.scan_with(&site.url("/"), active()).await;
    // The same scan with the probes' gatherer broken: its checks are reported as not run, with
    // its error, and none of them reports a finding (no probes would otherwise read as "nothing
    // exposed", a pass the scan did not earn).
    let broken = engine.scan_with(&site.url("/"), ScanOptions { fail_site_gatherers: vec![SiteArtifact::RepositoryProbes], ..active() }).await;
    engine.shutdown().await;
    assert!(repository_findings(&broken).is_empty(), "probes failed, yet: {:?}", repository_findings(&broken));
    let not_run: Vec<&str> = broken.site_checks_not_run.iter().filter(|n| n.reason.contains("failed on purpose")).map(|n| n.check_id.as_str()).collect();
    let declaring: Vec<&str> =
        sitescan::checks::catalogue().filter(|m| m.site_requires.contains(&SiteArtifact::RepositoryProbes)).map(|m| m.id).collect();
    assert!(declaring.len() >= 8, "every repository check declares the probes: {declaring:?}");
    assert!(declaring.iter().all(|id| not_run.contains(id)), "reported as not run: {not_run:?}, expected {declaring:?}");
    assert!(scan.site_checks_not_run.is_empty(), "on the whole scan every site check ran: {:?}", scan.site_checks_not_run);
    let found = repository_findings(&scan);
    let expect = [
        ("repository.vcs-exposed", "/.git/HEAD"),
        ("repository.vcs-exposed", "/.git/config"),
        ("repository.env-file-exposed", "/.env"),
        ("repository.private-key-exposed", "/server.key"),
        ("repository.backup-file-exposed", "/backup.zip"),
        ("repository.source-map-exposed", "/static/app.js.map"),
        ("repository.server-status-exposed", "/server-status"),
        ("repository.directory-listing", "/static/"),
        ("repository.editor-leftover", "/.DS_Store"),
    ];
    let listed: Vec<(String, String)> = found.iter().map(|f| (f.check_id.clone(), f.evidence["url"].as_str().unwrap_or_default().to_string())).collect();
    for (id, path) in expect {
        assert!(listed.contains(&(id.to_string(), site.url(path))), "{id} at {path} missing; found {listed:?}");
    }
    assert_eq!(found.len(), expect.len(), "nothing else fires: {listed:?}");
    let env = found.iter().find(|f| f.check_id == "repository.env-file-exposed").expect("env finding");
    assert_eq!(env.evidence["keys"], serde_json::json!(["APP_ENV", "APP_KEY", "DB_HOST", "DB_PASSWORD"]));
    let all = serde_json::to_string(&scan.findings).expect("json");
    assert!(!all.contains("hunter2") && !all.contains("PRIVATE KEY-----\n"), "no secret content in evidence");
    let vcs = found.iter().find(|f| f.evidence["url"] == site.url("/.git/HEAD")).expect("HEAD");
    assert_eq!(vcs.cwe_id.as_deref(), Some("CWE-527"));
    let map = found.iter().find(|f| f.check_id == "repository.source-map-exposed").expect("map");
    assert_eq!(map.evidence["source"], site.url("/static/app.js"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soft_404_and_forbidden_sites_stay_quiet_within_the_budget() {
    init_test_log();
    let soft = FixtureSite::start().await;
    soft.route("/", Route::html(HOME));
    soft.route("/static/app.js", Route::typed("text/javascript", "console.log('shop');"));
    soft.route("*", Route::html(HOME));
    let forbidden = FixtureSite::start().await;
    forbidden.route("/", Route::html(HOME));
    forbidden.route("/static/app.js", Route::typed("text/javascript", "console.log('shop');"));
    forbidden.route("*", Route::html("<h1>Forbidden</h1>").status(403));
    let engine = Engine::start(2).await;
    let (soft_url, forbidden_url) = (soft.url("/"), forbidden.url("/"));
    let (a, b) = tokio::join!(engine.scan_with(&soft_url, active()), engine.scan_with(&forbidden_url, active()));
    let small = FixtureSite::start().await;
    small.route("/", Route::html(HOME));
    let c = engine.scan_with(&small.url("/"), ScanOptions { probe_budget: 5, ..active() }).await;
    let passive = engine.scan_with(&forbidden.url("/"), ScanOptions { active: false, ..active() }).await;
    engine.shutdown().await;
    assert!(repository_findings(&a).is_empty(), "soft 404 site: {:?}", repository_findings(&a));
    assert!(repository_findings(&b).is_empty(), "403 site: {:?}", repository_findings(&b));
    assert!(repository_findings(&passive).is_empty());

    let crawl_paths = ["/", "/robots.txt", "/sitemap.xml", "/favicon.ico", "/static/app.js", "/docs/guide.html"];
    let probes = |site: &FixtureSite| site.hits().iter().filter(|h| h.method == "GET" && !crawl_paths.contains(&h.path.as_str())).count();
    let soft_probes = probes(&soft);
    assert!(soft_probes > 20 && soft_probes <= sitescan::crawl::probes::DEFAULT_PROBE_BUDGET, "probe requests: {soft_probes}");
    assert!(probes(&small) <= 5, "budget of 5: {:?}", small.hits().iter().map(|h| h.path.clone()).collect::<Vec<_>>());
    assert!(forbidden.hits().iter().filter(|h| h.path == "/.git/HEAD").count() == 1, "probed once in active mode, never in passive");
    drop(c);
}

/// Runs the built binary with a clean `SITESCAN_*` environment.
fn sitescan(args: &[&str]) -> std::process::Output {
    let bin = std::env::var("CARGO_BIN_EXE_sitescan").unwrap_or_else(|_| env!("CARGO_BIN_EXE_sitescan").to_string());
    let mut cmd = Command::new(bin);
    cmd.args(args);
    for (k, _) in std::env::vars() {
        if k.starts_with("SITESCAN_") || k == "RUST_LOG" {
            cmd.env_remove(k);
        }
    }
    cmd.output().expect("run sitescan")
}

async fn cli_scan(url: String, token: &'static str, format: &'static str) -> std::process::Output {
    tokio::task::spawn_blocking(move || {
        sitescan(&[
            "scan", &url, "--active", "--verification-token", token, "--allow-target", "127.0.0.1/32", "--format", format,
            "--max-pages", "2", "--quiet",
        ])
    })
    .await
    .expect("join")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_active_scan_is_refused_without_ownership_and_reports_findings_with_it() {
    init_test_log();
    let work = tempfile::tempdir().expect("tempdir");
    let site = FixtureSite::start().await;
    leaky_site(&site, work.path());

    // No token published: refused, nothing probed, every format says so.
    let out = cli_scan(site.url("/"), TOKEN, "json").await;
    assert_eq!(out.status.code(), Some(2), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let body: Value = serde_json::from_slice(&out.stdout).expect("json report");
    assert_eq!(body["scan"]["status"], "failed");
    assert_eq!(body["scan"]["mode"], "active");
    let error = &body["report"]["summary"]["error"];
    assert_eq!(error["code"], "ownership_unverified", "{body}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains("well-known file") && message.contains("meta") && message.contains("DNS"), "{message}");
    assert!(body["report"]["summary"]["categories"].get("repository").is_some(), "{body}");
    assert_eq!(site.hit_count("/.git/HEAD") + site.hit_count("/.env"), 0, "nothing probed");
    let sarif = cli_scan(site.url("/"), TOKEN, "sarif").await;
    assert_eq!(sarif.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&sarif.stdout).contains("ownership_unverified"));
    let text = cli_scan(site.url("/"), TOKEN, "text").await;
    assert_eq!(text.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&text.stdout).contains("ownership_unverified"));

    // The token published as a file: the active scan runs and reports the leaks.
    site.route("/.well-known/sitescan-verification.txt", Route::typed("text/plain", format!("{TOKEN}\n")));
    let out = cli_scan(site.url("/"), TOKEN, "json").await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let body: Value = serde_json::from_slice(&out.stdout).expect("json report");
    assert_eq!(body["scan"]["mode"], "active");
    assert_eq!(body["scan"]["status"], "completed");
    let ids: Vec<&str> = body["report"]["findings"].as_array().expect("findings").iter().filter_map(|f| f["check_id"].as_str()).collect();
    for id in ["repository.vcs-exposed", "repository.env-file-exposed", "repository.private-key-exposed", "repository.backup-file-exposed"] {
        assert!(ids.contains(&id), "{id} in {ids:?}");
    }
    let repo = &body["report"]["summary"]["categories"]["repository"];
    assert!(repo["critical"].as_u64().unwrap_or(0) >= 3, "{repo}");
    assert!(body["report"]["summary"]["categories"].get("journeys").is_some());

    let out = cli_scan(site.url("/"), TOKEN, "sarif").await;
    assert_eq!(out.status.code(), Some(0));
    let sarif: Value = serde_json::from_slice(&out.stdout).expect("sarif");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert!(results.iter().any(|r| r["ruleId"] == "repository.vcs-exposed"), "SARIF has the repository findings");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("hunter2"), "no secret in SARIF");
}
