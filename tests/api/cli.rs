//! Tokens and organisations through the built `sitescan` binary, against a live API on the same
//! database: `token create` prints only the token (shape `sitescan_` + 43 base64url), the database
//! never holds the plaintext, `token revoke <id>` and `token revoke <plaintext>` take effect on the
//! next call, `token list` never shows plaintext, scopes, and `org set --monthly-scan-quota`.

use crate::app;

use app::{AppOptions, spawn_app, spawn_app_at};
use std::process::{Command, Output};

/// The built binary: nextest names it at run time (also when running from an archive), cargo at
/// compile time.
fn binary() -> String {
    std::env::var("CARGO_BIN_EXE_sitescan").unwrap_or_else(|_| env!("CARGO_BIN_EXE_sitescan").to_string())
}

/// Runs the built binary with a clean `SITESCAN_*` environment.
fn sitescan(args: &[&str]) -> Output {
    let mut cmd = Command::new(binary());
    cmd.args(args);
    for (k, _) in std::env::vars() {
        if k.starts_with("SITESCAN_") || k == "RUST_LOG" {
            cmd.env_remove(k);
        }
    }
    cmd.output().expect("run sitescan")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

#[track_caller]
fn ok(o: Output) -> Output {
    assert!(o.status.success(), "exit {:?}\nstdout: {}\nstderr: {}", o.status, stdout(&o), stderr(&o));
    o
}

/// `token create`: the token as the only line on stdout; its id from stderr.
fn create_token(db: &str, org: &str, scopes: &[&str]) -> (String, String) {
    let mut args = vec!["token", "create", "--org", org, "--database", db, "--name", "ci"];
    for s in scopes {
        args.extend(["--scope", s]);
    }
    let o = ok(sitescan(&args));
    let out = stdout(&o);
    assert!(out.ends_with('\n'), "stdout ends with a newline: {out:?}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1, "the token is the only line on stdout: {out:?}");
    let token = lines[0].to_string();
    let shape = regex::Regex::new(r"^sitescan_[A-Za-z0-9_-]{43}$").unwrap();
    assert!(shape.is_match(&token), "token shape: {token:?}");
    let err = stderr(&o);
    let id = regex::Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
        .unwrap()
        .find(&err)
        .unwrap_or_else(|| panic!("stderr names the token id: {err}"))
        .as_str()
        .to_string();
    assert!(!err.contains(&token), "the plaintext goes to stdout only");
    (token, id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_database_never_holds_the_plaintext() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}?mode=rwc", dir.path().join("cli.db").display());
    let (token, _) = create_token(&db, "acme", &[]);
    let (token2, _) = create_token(&db, "acme", &[]);
    assert_ne!(token, token2);
    // The 32 random bytes decode from the 43 characters.
    use base64::Engine;
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(&token["sitescan_".len()..]).unwrap();
    assert_eq!(raw.len(), 32);
    // Use it once through the API (so last_used_at is written too), then read every file.
    let app = spawn_app_at(&db, AppOptions::default()).await;
    app.get("/api/v1/scans", &token).await.expect(200);
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    drop(app);
    let mut bytes = Vec::new();
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        bytes.extend(std::fs::read(entry.unwrap().path()).unwrap());
    }
    let contains = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    for t in [&token, &token2] {
        let hash = sitescan_store::hash_token(t);
        assert!(contains(hash.as_bytes()), "sanity: the SHA-256 of the token is stored (and this search reads the data)");
        assert!(!contains(t.as_bytes()), "the plaintext token is in the database files");
        assert!(!contains(&t.as_bytes()["sitescan_".len()..]), "the token's secret part is in the database files");
        assert!(!contains(&raw), "the token's raw bytes are in the database files");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn revoke_by_id_and_by_plaintext() {
    let app = spawn_app().await;
    let db = app.db_url.clone();
    let (by_id, id) = create_token(&db, "acme", &[]);
    let (by_plain, plain_id) = create_token(&db, "acme", &[]);
    for t in [&by_id, &by_plain] {
        app.get("/api/v1/scans", t).await.expect(200);
        app.create_scan(t, "example.com").await;
    }
    let list = stdout(&ok(sitescan(&["token", "list", "--org", "acme", "--database", &db])));
    assert!(list.contains(&id) && list.contains(&plain_id), "token list shows ids: {list}");
    assert!(!list.contains(&by_id) && !list.contains(&by_plain), "token list never shows plaintext");

    ok(sitescan(&["token", "revoke", &id, "--database", &db]));
    app.get("/api/v1/scans", &by_id).await.expect_error(401, "invalid_token");
    app.get("/api/v1/scans", &by_plain).await.expect(200);

    ok(sitescan(&["token", "revoke", &by_plain, "--database", &db]));
    app.get("/api/v1/scans", &by_plain).await.expect_error(401, "invalid_token");
    app.post("/api/v1/scans", &by_plain, r#"{"target":"example.com"}"#).await.expect_error(401, "invalid_token");

    // The list marks both revoked; an unknown token cannot be revoked.
    let list = stdout(&ok(sitescan(&["token", "list", "--org", "acme", "--database", &db])));
    for line in list.lines().filter(|l| l.contains(&id) || l.contains(&plain_id)) {
        assert!(!line.trim_end().ends_with('-'), "revoked tokens show their revocation time: {line}");
    }
    let unknown = sitescan(&["token", "revoke", &uuid::Uuid::new_v4().to_string(), "--database", &db]);
    assert!(!unknown.status.success(), "revoking an unknown token fails");
    let unknown = sitescan(&["token", "revoke", &format!("sitescan_{}", "C".repeat(43)), "--database", &db]);
    assert!(!unknown.status.success(), "revoking an unknown token fails");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scopes_from_the_command_line() {
    let app = spawn_app().await;
    let db = app.db_url.clone();
    let (reader, _) = create_token(&db, "acme", &["scans:read"]);
    let (writer, _) = create_token(&db, "acme", &["scans:write"]);
    let (both, _) = create_token(&db, "acme", &["scans:read", "scans:write"]);
    app.post("/api/v1/scans", &reader, r#"{"target":"example.com"}"#).await.expect_error(403, "forbidden");
    app.get("/api/v1/scans", &reader).await.expect(200);
    app.create_scan(&writer, "example.com").await;
    app.get("/api/v1/scans", &writer).await.expect_error(403, "forbidden");
    app.create_scan(&both, "example.com").await;
    app.get("/api/v1/findings", &both).await.expect(200);
    let bad = sitescan(&["token", "create", "--org", "acme", "--scope", "scans:admin", "--database", &db]);
    assert!(!bad.status.success(), "an unknown scope is refused");
    assert!(stdout(&bad).is_empty(), "no token printed on failure");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn org_set_monthly_scan_quota() {
    let app = spawn_app().await;
    let db = app.db_url.clone();
    ok(sitescan(&["org", "set", "tiny", "--monthly-scan-quota", "5", "--database", &db]));
    assert_eq!(app.store.org("tiny").await.unwrap().unwrap().monthly_scan_quota, 5);
    let (token, _) = create_token(&db, "tiny", &[]);
    // Creating a token does not reset the quota of an existing organisation.
    assert_eq!(app.store.org("tiny").await.unwrap().unwrap().monthly_scan_quota, 5);
    for i in 0..5 {
        app.create_scan(&token, &format!("s{i}.example.com")).await;
    }
    let r = app.post("/api/v1/scans", &token, r#"{"target":"six.example.com"}"#).await;
    r.expect_error(429, "quota_exceeded");
    assert_eq!(r.json["quota"]["limit"], 5);
    assert_eq!(r.json["quota"]["used"], 5);
    // Raising it through the command line lets the next one through.
    ok(sitescan(&["org", "set", "tiny", "--monthly-scan-quota", "6", "--database", &db]));
    app.create_scan(&token, "six.example.com").await;
    // A negative quota is refused.
    assert!(!sitescan(&["org", "set", "tiny", "--monthly-scan-quota", "-1", "--database", &db]).status.success());
    assert_eq!(app.store.org("tiny").await.unwrap().unwrap().monthly_scan_quota, 6);
}

/// `serve` at its default level says what it does at info and nothing of its transports: no
/// DEBUG or TRACE line from tungstenite, reqwest or hyper, at startup or on a request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_is_quiet_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}/s.db?mode=rwc", dir.path().display());
    let mut server = sitescan_test_support::process::Proc::spawn(&["serve", "--listen", "127.0.0.1:0", "--database", &db], &[]);
    let base = server.base_url().await;
    let health = reqwest::get(format!("{base}/healthz")).await.unwrap();
    assert!(health.status().is_success());
    let stopped = server.stop(std::time::Duration::from_secs(10)).await;
    let said = server.output();
    assert!(stopped.is_some_and(|s| s.success()), "`serve` exits 0 on SIGTERM, by itself ({stopped:?}):\n{said}");
    assert!(said.contains("listening on http://"), "{said}");
    let loud: Vec<&str> = said.lines().filter(|l| l.contains(" DEBUG ") || l.contains(" TRACE ")).collect();
    assert!(loud.is_empty(), "debug lines at the default level: {loud:#?}");
    // The first command the startup line tells a newcomer to type names a program that exists
    // from here (the binary's path unless `sitescan` on the PATH is this binary).
    let hint = said.lines().find(|l| l.starts_with("no user yet")).expect("the first-run hint");
    let command = hint.split('`').nth(1).expect("a command in backticks");
    let program = command.split_whitespace().next().unwrap();
    assert!(command.contains(" user create --org ORG"), "{hint}");
    assert!(std::path::Path::new(program).is_file(), "`{program}` from {hint:?} does not exist here");
}

/// With `--log-format json` every line `serve` writes is one JSON object: the first-run hints are
/// log events then (the address, the key file, the command that creates the first owner).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_with_the_json_log_writes_only_json_lines() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}/s.db?mode=rwc", dir.path().display());
    let mut server = sitescan_test_support::process::Proc::spawn(&["serve", "--no-workers", "--log-format", "json", "--listen", "127.0.0.1:0", "--database", &db], &[]);
    let base = server.base_url().await;
    assert!(reqwest::get(format!("{base}/healthz")).await.unwrap().status().is_success());
    let stopped = server.stop(std::time::Duration::from_secs(10)).await;
    let said = server.output();
    assert!(stopped.is_some_and(|s| s.success()), "{said}");
    let events: Vec<serde_json::Value> =
        said.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l:?}\n{said}"))).collect();
    let message = |m: &str| events.iter().find(|e| e["message"].as_str().is_some_and(|s| s.starts_with(m))).unwrap_or_else(|| panic!("no {m:?} event:\n{said}"));
    assert!(message("created the secret key file")["path"].as_str().is_some_and(|p| p.ends_with("s.db.key")), "{said}");
    let hint = message("no user yet");
    assert!(hint["create"].as_str().is_some_and(|c| c.contains(" user create --org ORG")), "{hint}");
    assert_eq!(hint["sign_in"].as_str(), Some(format!("{base}/login").as_str()), "{hint}");
}
