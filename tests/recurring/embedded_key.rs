//! The embedded default has every feature on: `sitescan serve` started as `scripts/run.sh`
//! starts it (no flag, the default SQLite file in its working directory, no key in the
//! environment) makes an owner-only key file beside the database and says where; an endpoint
//! added with no key flag then gets a scan's `scan.completed`, signed (checked by Python's hmac).
//! A second start reads the same file, never rewrites it, and opens the secret sealed under it:
//! the next delivery is signed with the same secret.

use crate::fixture_site::{FixtureSite, Route};
use crate::process::{Proc, bin, free_port, wait_ready};
use axum::http::HeaderMap;
use serde_json::{Value, json};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What a start must not inherit: a key, a key file, another database.
const UNSET: &[&str] = &["SITESCAN_SECRET_KEY", "SITESCAN_SECRET_KEY_FILE", "SITESCAN_DATABASE_URL"];

type Hits = Arc<Mutex<Vec<(HeaderMap, String)>>>;

/// A receiver on 127.0.0.1 that answers 204 and keeps what it got.
async fn receiver() -> (String, Hits) {
    let hits: Hits = Arc::default();
    let state = hits.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |headers: HeaderMap, body: String| {
            let state = state.clone();
            async move {
                state.lock().unwrap().push((headers, body));
                axum::http::StatusCode::NO_CONTENT
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/hook"), hits)
}

/// `sitescan ARGS` run to its end in `dir`, as an operator types it there: (code, stdout, stderr).
async fn cli_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let mut cmd = tokio::process::Command::new(bin());
    cmd.current_dir(dir).args(args).env("NO_COLOR", "1");
    for k in UNSET {
        cmd.env_remove(k);
    }
    let out = cmd.output().await.expect("run sitescan");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// `serve` with no argument in `dir`; only where it listens and what it may reach come from the
/// environment (as a user of `scripts/run.sh` would set them).
async fn serve_in(dir: &Path, listen: &str) -> Proc {
    let server = Proc::spawn_in(
        dir,
        &["serve"],
        &[("RUST_LOG", "warn,sitescan=info"), ("SITESCAN_LISTEN", listen), ("SITESCAN_ALLOW_TARGET", "127.0.0.1/32")],
        UNSET,
    );
    wait_ready(&format!("http://{listen}/readyz"), Duration::from_secs(60)).await;
    server
}

/// Starts a scan of `target` through the REST API and waits for the receiver's `n`th hit.
async fn scan_and_wait_for_hit(listen: &str, token: &str, target: &str, hits: &Hits, n: usize, server: &Proc) -> (HeaderMap, String) {
    let client = reqwest::Client::new();
    let r = client
        .post(format!("http://{listen}/api/v1/scans"))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .body(json!({"target": target}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap_or_default());
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Some(hit) = hits.lock().unwrap().get(n - 1) {
            return hit.clone();
        }
        assert!(Instant::now() < deadline, "no delivery {n} within 120 s; server log:\n{}", server.tail());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_as_run_sh_starts_it_makes_a_key_file_and_delivers_signed_webhooks_with_no_flag() {
    let dir = tempfile::tempdir().unwrap();
    let site = FixtureSite::start().await;
    site.route(
        "/",
        Route::html("<!doctype html><html lang=en><head><meta charset=utf-8><title>Hooks</title></head><body><main><h1>Hooks</h1></main></body></html>"),
    );
    let (hook, hits) = receiver().await;
    let listen = format!("127.0.0.1:{}", free_port());
    let key_path = dir.path().join("sitescan.db.key");

    let mut first = serve_in(dir.path(), &listen).await;
    let said = first.wait_line("created the secret key file", Duration::from_secs(10)).await;
    assert!(said.contains("sitescan.db.key"), "it says where: {said}");
    assert!(dir.path().join("sitescan.db").exists(), "the default database file, in the working directory");
    let mode = std::fs::metadata(&key_path).expect("the key file beside the database").permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "owner-only: {mode:o}");
    assert!(!first.output().contains("webhook delivery is off"), "{}", first.output());
    let key = std::fs::read_to_string(&key_path).unwrap();

    // No key flag anywhere: the commands find the file beside the database too.
    let (code, token, err) = cli_in(dir.path(), &["token", "create", "--org", "acme"]).await;
    assert_eq!(code, 0, "{err}");
    let token = token.trim().to_string();
    let (code, secret, err) = cli_in(dir.path(), &["webhook", "add", "--org", "acme", &hook, "--events", "scan.completed"]).await;
    assert_eq!(code, 0, "{err}");
    let secret = secret.trim().to_string();
    assert!(secret.starts_with("whsec_"), "{secret}");

    let (headers, body) = scan_and_wait_for_hit(&listen, &token, &site.url("/"), &hits, 1, &first).await;
    let event: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(event["type"], "scan.completed", "{event}");
    assert!(crate::webhooks::python_verifies(&secret, &headers, &body), "signed with the endpoint's secret: {headers:?}");
    first.stop(Duration::from_secs(60)).await;

    // A second start: the same file, read, not made again; the secret sealed under it opens.
    let second = serve_in(dir.path(), &listen).await;
    second.wait_line("secret key from the file beside the database", Duration::from_secs(10)).await;
    assert!(!second.output().contains("created the secret key file"), "{}", second.output());
    assert_eq!(std::fs::read_to_string(&key_path).unwrap(), key, "never rewritten");
    let (headers, body) = scan_and_wait_for_hit(&listen, &token, &site.url("/"), &hits, 2, &second).await;
    assert!(crate::webhooks::python_verifies(&secret, &headers, &body), "the second run signs with the first run's secret: {headers:?}");
    drop(second);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_passed_in_the_environment_wins_and_no_file_is_made() {
    let dir = tempfile::tempdir().unwrap();
    let listen = format!("127.0.0.1:{}", free_port());
    let server = Proc::spawn_in(
        dir.path(),
        &["serve", "--no-workers"],
        &[
            ("RUST_LOG", "warn,sitescan=info"),
            ("SITESCAN_LISTEN", &listen),
            ("SITESCAN_SECRET_KEY", "KioqKioqKioqKioqKioqKioqKioqKioqKioqKioqKio="),
        ],
        &["SITESCAN_SECRET_KEY_FILE", "SITESCAN_DATABASE_URL"],
    );
    wait_ready(&format!("http://{listen}/readyz"), Duration::from_secs(60)).await;
    assert!(!dir.path().join("sitescan.db.key").exists(), "{}", server.output());
    assert!(!server.output().contains("secret key file"), "{}", server.output());
    drop(server);
}
