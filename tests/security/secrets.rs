//! Secrets: the plaintext token is shown once (on `token create`'s stdout) and never again: not in
//! the database (only its SHA-256 is stored and looked up), not in the logs of a real `sitescan
//! serve` at trace level in JSON (requests that succeed, fail, are refused, rate-limited, or use
//! a revoked token), not in any response body or error message, not in `token revoke`'s output.
//! Request logs carry no `authorization` value.

use crate::app;
use crate::process;

use process::{Proc, run};
use sea_orm::ConnectionTrait;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plaintext_token_never_appears_in_the_database_logs_or_responses() {
    let app = app::spawn_app().await;
    let db = app.db_url.clone();
    let (code, stdout, stderr) = run(&["token", "create", "--org", "acme", "--name", "ci", "--database", &db], &[]).await;
    assert_eq!(code, 0, "{stderr}");
    let token = stdout.trim().to_string();
    assert!(sitescan_store::looks_like_token(&token), "stdout is exactly the token: {stdout:?}");
    assert_eq!(stdout.lines().count(), 1);
    let secret = token.trim_start_matches("sitescan_").to_string();
    assert!(!stderr.contains(&secret), "token create's stderr does not repeat it");

    let mut server = Proc::spawn(
        &["serve", "--no-workers", "--listen", "127.0.0.1:0", "--database", &db, "--log-format", "json", "--rate-limit-per-second", "5"],
        &[("RUST_LOG", "trace")],
    );
    let base = server.base_url().await;
    let http = reqwest::Client::new();
    let mut bodies = Vec::new();
    let mut statuses = Vec::new();
    let auth = format!("Bearer {token}");
    let requests: Vec<(&str, String, Option<&str>, String)> = vec![
        ("GET", "/api/v1/scans".into(), None, auth.clone()),
        ("POST", "/api/v1/scans".into(), Some(r#"{"target":"http://127.0.0.1/"}"#), auth.clone()),
        ("POST", "/api/v1/scans".into(), Some("{not json"), auth.clone()),
        ("POST", "/api/v1/scans".into(), Some(r#"{"target":"example.com","extra":1}"#), auth.clone()),
        ("GET", "/api/v1/scans/not-a-uuid".into(), None, auth.clone()),
        ("GET", "/api/v1/findings?severity=urgent".into(), None, auth.clone()),
        ("GET", "/api/v1/scans?cursor=forged".into(), None, auth.clone()),
        ("GET", "/api/v1/scans".into(), None, format!("Bearer {token}x")),
        ("GET", "/api/v1/scans".into(), None, format!("Token {token}")),
        ("GET", "/api/v1/scans".into(), None, token.clone()),
        ("DELETE", "/api/v1/scans".into(), None, auth.clone()),
        ("GET", format!("/api/v1/scans?cursor={token}"), None, auth.clone()),
    ];
    for (method, path, body, authorization) in &requests {
        let mut req = http.request(method.parse().unwrap(), format!("{base}{path}")).header("authorization", authorization);
        if let Some(b) = body {
            req = req.body(b.to_string());
        }
        let resp = req.send().await.expect("request");
        statuses.push(resp.status().as_u16());
        bodies.push(resp.text().await.unwrap());
    }
    // A burst into the rate limit (5/s): the 429s are produced for this token too.
    for _ in 0..10 {
        let resp = http.get(format!("{base}/api/v1/scans")).header("authorization", &auth).send().await.unwrap();
        statuses.push(resp.status().as_u16());
        bodies.push(resp.text().await.unwrap());
    }
    assert!(statuses.contains(&429) && statuses.contains(&200) && statuses.contains(&400) && statuses.contains(&401), "{statuses:?}");
    // Revoked by its plaintext through the CLI; the next call is 401.
    let (code, out, err) = run(&["token", "revoke", &token, "--database", &db], &[]).await;
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains(&secret) && !err.contains(&secret), "token revoke does not echo the token: {out} {err}");
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let resp = http.get(format!("{base}/api/v1/scans")).header("authorization", &auth).send().await.unwrap();
    assert_eq!(resp.status(), 401);
    bodies.push(resp.text().await.unwrap());
    server.stop(Duration::from_secs(10)).await;

    for b in &bodies {
        assert!(!b.contains(&secret), "a response body carries the token: {b}");
    }
    let logs = server.output();
    let served = logs.lines().filter(|l| l.contains("\"served\"") || l.contains("served")).count();
    assert!(served >= requests.len() + 10, "the request log was captured ({served} lines): the grep below means something");
    assert!(!logs.contains(&secret), "the logs carry the token");
    assert!(!logs.to_ascii_lowercase().contains("bearer "), "the logs carry an authorization value");

    // The database holds the SHA-256 only.
    let hash = sitescan_store::hash_token(&token);
    let dump = dump_database(&app).await;
    assert!(dump.contains(&hash), "the token's hash is stored (the dump covers the tokens table)");
    assert!(!dump.contains(&secret), "the database holds the plaintext token");
    if let Some(path) = db.strip_prefix("sqlite://").map(|p| p.split('?').next().unwrap().to_string()) {
        for file in [path.clone(), format!("{path}-wal")] {
            if let Ok(bytes) = std::fs::read(&file) {
                assert!(!bytes.windows(secret.len()).any(|w| w == secret.as_bytes()), "{file} holds the plaintext token");
            }
        }
    }
    eprintln!("secrets: {} requests and {} log lines checked; token absent from logs, responses and the database", statuses.len() + 1, logs.lines().count());
}

/// Every row of every table as text.
async fn dump_database(app: &app::TestApp) -> String {
    let conn = app.store.conn();
    let tables_sql = if app::on_postgres() {
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'"
    } else {
        "SELECT name FROM sqlite_master WHERE type = 'table'"
    };
    let tables = conn.query_all_raw(app.store.stmt(tables_sql, vec![])).await.unwrap();
    let mut out = String::new();
    for t in tables {
        let name: String = t.try_get("", "name").unwrap();
        let sql = if app::on_postgres() {
            format!("SELECT row_to_json(t)::text AS r FROM \"{name}\" t")
        } else {
            let cols = conn.query_all_raw(app.store.stmt(&format!("SELECT name FROM pragma_table_info('{name}')"), vec![])).await.unwrap();
            let cols: Vec<String> = cols.iter().map(|c| {
                let c = c.try_get::<String>("", "name").unwrap();
                format!("COALESCE(CASE WHEN typeof(\"{c}\") = 'blob' THEN hex(\"{c}\") ELSE CAST(\"{c}\" AS TEXT) END, '')")
            }).collect();
            format!("SELECT {} AS r FROM \"{name}\"", cols.join(" || '|' || "))
        };
        for row in conn.query_all_raw(app.store.stmt(&sql, vec![])).await.unwrap() {
            let r: String = row.try_get("", "r").expect("a row as text");
            out.push_str(&r);
            out.push('\n');
        }
    }
    out
}

/// The first `name="csrf"` value of a page.
fn csrf_of(html: &str) -> String {
    let i = html.find("name=\"csrf\" value=\"").expect("a CSRF field");
    let rest = &html[i + "name=\"csrf\" value=\"".len()..];
    rest[..rest.find('"').unwrap()].to_string()
}

/// The value of cookie `name` among a response's `Set-Cookie` headers.
fn set_cookie(resp: &reqwest::Response, name: &str) -> Option<String> {
    resp.headers().get_all("set-cookie").iter().filter_map(|v| v.to_str().ok()).find_map(|c| {
        c.split(';').next()?.strip_prefix(&format!("{name}=")).map(str::to_string)
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn passwords_session_ids_and_dashboard_tokens_never_appear_in_logs_or_the_database() {
    use tokio::io::AsyncWriteExt;
    let app = app::spawn_app().await;
    let db = app.db_url.clone();
    let password = "pw-never-logged-7f3a9c";
    let mut child = tokio::process::Command::new(process::bin())
        .args(["user", "create", "--org", "acme", "--email", "owner@acme.test", "--role", "owner", "--database", &db])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .env("RUST_LOG", "trace")
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(format!("{password}\n").as_bytes()).await.unwrap();
    let out = child.wait_with_output().await.unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let cli_output = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));

    let mut server = Proc::spawn(
        &["serve", "--no-workers", "--listen", "127.0.0.1:0", "--database", &db, "--log-format", "json"],
        &[("RUST_LOG", "trace")],
    );
    let base = server.base_url().await;
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let form = http.get(format!("{base}/login")).send().await.unwrap();
    let pre = set_cookie(&form, "sitescan_csrf").expect("a pre-login CSRF cookie");
    let csrf = csrf_of(&form.text().await.unwrap());
    let login = |pw: &str| {
        http.post(format!("{base}/login"))
            .header("cookie", format!("sitescan_csrf={pre}"))
            .form(&[("csrf", csrf.as_str()), ("email", "owner@acme.test"), ("password", pw)])
            .send()
    };
    assert_eq!(login("wrong-pw-also-secret").await.unwrap().status(), 401);
    let ok = login(password).await.unwrap();
    assert_eq!(ok.status(), 303);
    let session = set_cookie(&ok, "sitescan_session").expect("a session cookie");
    let cookie = format!("sitescan_session={session}");
    let page = http.get(format!("{base}/account/api-tokens")).header("cookie", &cookie).send().await.unwrap().text().await.unwrap();
    let made = http
        .post(format!("{base}/account/api-tokens"))
        .header("cookie", &cookie)
        .form(&[("csrf", csrf_of(&page).as_str()), ("name", "dash"), ("scopes", "scans:read")])
        .send()
        .await
        .unwrap();
    assert_eq!(made.status(), 201);
    let body = made.text().await.unwrap();
    let i = body.find("sitescan_").unwrap();
    let token: String = body[i..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-').collect();
    assert!(sitescan_store::looks_like_token(&token));
    let r = http.get(format!("{base}/api/v1/scans")).bearer_auth(&token).send().await.unwrap();
    assert_eq!(r.status(), 200);
    // An invite link: its token is a secret too (request logs carry the path).
    let members = http.get(format!("{base}/account/members")).header("cookie", &cookie).send().await.unwrap().text().await.unwrap();
    let invited = http
        .post(format!("{base}/account/members/invite"))
        .header("cookie", &cookie)
        .form(&[("csrf", csrf_of(&members).as_str()), ("email", "new@acme.test"), ("role", "member")])
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let at = invited.find("/invite/").expect("an invite link");
    let invite: String = invited[at + 8..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
    assert_eq!(http.get(format!("{base}/invite/{invite}")).send().await.unwrap().status(), 200);
    server.stop(Duration::from_secs(10)).await;

    let logs = server.output();
    assert!(!logs.contains(&invite), "the logs carry an invite token");
    assert!(logs.contains("signed in"), "the sign-in was logged (the grep below means something)");
    let secret = token.trim_start_matches("sitescan_").to_string();
    for (what, s) in [("password", password), ("failed password", "wrong-pw-also-secret"), ("session id", session.as_str()), ("token", secret.as_str())] {
        assert!(!logs.contains(s), "the logs carry the {what}");
        assert!(!cli_output.contains(s), "the CLI output carries the {what}");
    }
    let dump = dump_database(&app).await;
    assert!(dump.contains("$argon2id$"), "the dump covers the users table");
    for (what, s) in [("password", password), ("session id", session.as_str()), ("token", secret.as_str()), ("invite", invite.as_str())] {
        assert!(!dump.contains(s), "the database holds the {what}");
    }
}
