//! `sitescan user create|list|disable`: the password from stdin only.

use crate::dashboard_client::*;
use std::process::Stdio;
use tokio::io::AsyncWriteExt;

async fn run_with_stdin(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = tokio::process::Command::new(crate::process::bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env_remove("RUST_LOG")
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).await.unwrap();
    let out = child.wait_with_output().await.unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_create_reads_the_password_from_stdin_and_refuses_it_on_argv() {
    let app = crate::app::spawn_app().await;
    let db = app.db_url.clone();
    let secret = "a password on stdin";
    let (code, out, err) = run_with_stdin(&["user", "create", "--org", "acme", "--email", "first@acme.test", "--role", "owner", "--database", &db], &format!("{secret}\n")).await;
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains(secret) && !err.contains(secret));
    let (code, _, err) = run_with_stdin(
        &["user", "create", "--org", "acme", "--email", "second@acme.test", "--role", "owner", "--password", "on-argv-password", "--database", &db],
        "",
    )
    .await;
    assert_ne!(code, 0);
    assert!(err.contains("refused") && !err.contains("on-argv-password"), "{err}");
    let (code, _, err) = run_with_stdin(&["user", "create", "--org", "acme", "--email", "third@acme.test", "--role", "owner", "--database", &db], "short\n").await;
    assert_ne!(code, 0, "{err}");
    let (code, out, _) = run_with_stdin(&["user", "list", "--org", "acme", "--database", &db], "").await;
    assert_eq!(code, 0);
    assert!(out.contains("first@acme.test") && out.contains("owner") && !out.contains("second@") && !out.contains("third@"), "{out}");

    let mut web = Web::new(&app);
    redirect_to(&web.login("first@acme.test", secret).await, "/");
    let (code, _, err) = run_with_stdin(&["user", "disable", "first@acme.test", "--database", &db], "").await;
    assert_eq!(code, 0, "{err}");
    redirect_to(&web.get("/").await, "/login");
    assert_eq!(Web::new(&app).login("first@acme.test", secret).await.status.as_u16(), 401);
}
