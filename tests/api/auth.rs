//! Authentication, scopes, tenancy and the router's own answers, over real HTTP: 401
//! `invalid_token` for every bad `Authorization` on every endpoint, revocation effective on the
//! very next call, 403 `forbidden` per scope, 404 `not_found` for other organisations' scans
//! (never 403), JSON 404 for unknown routes, 405 `method_not_allowed` with `Allow`, `/healthz`,
//! `/readyz` and `x-request-id`.

use crate::app;

use app::{TestApp, spawn_app};

/// Every endpoint, as (method, path, body); `{id}` is replaced by a real scan id.
const ENDPOINTS: [(&str, &str, Option<&str>); 5] = [
    ("POST", "/api/v1/scans", Some(r#"{"target":"example.com"}"#)),
    ("GET", "/api/v1/scans", None),
    ("GET", "/api/v1/scans/{id}", None),
    ("GET", "/api/v1/scans/{id}?include_findings=true", None),
    ("GET", "/api/v1/findings", None),
];

async fn scan_id(app: &TestApp, token: &str) -> String {
    app.create_scan(token, "example.com").await["id"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_authorization_is_401_on_every_endpoint() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let id = scan_id(&app, &token).await;
    let unknown = format!("sitescan_{}", "A".repeat(43));
    let bad: Vec<Option<String>> = vec![
        None,
        Some(String::new()),
        Some("Bearer".into()),
        Some("Bearer ".into()),
        Some(format!("Basic {token}")),
        Some(format!("Token {token}")),
        Some(token.clone()),
        Some(format!("Bearer{token}")),
        Some("Bearer sitescan_short".into()),
        Some("Bearer not-a-token".into()),
        Some(format!("Bearer {}", &token[..token.len() - 1])),
        Some(format!("Bearer {token}x")),
        Some(format!("Bearer other_{}", &token["sitescan_".len()..])),
        Some(format!("Bearer {}", token.replacen("sitescan_", "sitescan-", 1))),
        Some(format!("Bearer {unknown}")),
        Some(format!("Bearer {token} {token}")),
    ];
    let before = app.count_scans().await;
    for (method, path, body) in ENDPOINTS {
        let path = path.replace("{id}", &id);
        for auth in &bad {
            let r = app.call_auth(method, &path, auth.as_deref(), body).await;
            assert_eq!(r.status.as_u16(), 401, "{method} {path} with {auth:?}: {}", r.text);
            r.expect_error(401, "invalid_token");
        }
    }
    assert_eq!(app.count_scans().await, before, "a 401 POST creates nothing");
    // The good token still works everywhere.
    for (method, path, body) in ENDPOINTS {
        let path = path.replace("{id}", &id);
        let r = app.call(method, &path, Some(&token), body).await;
        assert!(r.status.is_success(), "{method} {path}: {} {}", r.status, r.text);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_token_is_401_on_the_very_next_call() {
    let app = spawn_app().await;
    let keeper = app.token("acme").await;
    let id = scan_id(&app, &keeper).await;
    // Revoked by id.
    let (by_id, row) = app.token_with("acme", &["scans:read", "scans:write"]).await;
    app.get("/api/v1/scans", &by_id).await.expect(200);
    app.store.revoke_token(&row.id.to_string()).await.unwrap();
    for (method, path, body) in ENDPOINTS {
        let path = path.replace("{id}", &id);
        app.call(method, &path, Some(&by_id), body).await.expect_error(401, "invalid_token");
    }
    // Revoked by plaintext, between two calls on the same keep-alive connection.
    let (by_plain, _) = app.token_with("acme", &["scans:read", "scans:write"]).await;
    for (method, path, body) in ENDPOINTS {
        let path = path.replace("{id}", &id);
        let r = app.call(method, &path, Some(&by_plain), body).await;
        assert!(r.status.is_success(), "{method} {path}: {}", r.text);
    }
    app.store.revoke_token(&by_plain).await.unwrap();
    app.get("/api/v1/scans", &by_plain).await.expect_error(401, "invalid_token");
    // Revoking twice is harmless; other tokens are unaffected.
    app.store.revoke_token(&by_plain).await.unwrap();
    app.get("/api/v1/scans", &keeper).await.expect(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scopes_are_enforced_with_403() {
    let app = spawn_app().await;
    let full = app.token("acme").await;
    let id = scan_id(&app, &full).await;
    let (read_only, _) = app.token_with("acme", &["scans:read"]).await;
    let (write_only, _) = app.token_with("acme", &["scans:write"]).await;

    let r = app.post("/api/v1/scans", &read_only, r#"{"target":"example.com"}"#).await;
    r.expect_error(403, "forbidden");
    assert_eq!(app.count_scans().await, 1, "a 403 POST creates nothing");
    // Refused on scope even when the body is invalid or the target blocked: nothing is revealed.
    app.post("/api/v1/scans", &read_only, "{").await.expect_error(403, "forbidden");

    for path in [
        "/api/v1/scans".to_string(),
        format!("/api/v1/scans/{id}"),
        format!("/api/v1/scans/{id}?include_findings=true"),
        format!("/api/v1/scans/{}", uuid::Uuid::new_v4()),
        "/api/v1/findings".to_string(),
        "/api/v1/findings?severity=high".to_string(),
    ] {
        app.get(&path, &write_only).await.expect_error(403, "forbidden");
        let r = app.get(&path, &read_only).await;
        assert_ne!(r.status.as_u16(), 403, "{path} with scans:read: {}", r.text);
    }
    // The write-only token can create; the read-only one can read.
    app.create_scan(&write_only, "example.org").await;
    app.get("/api/v1/scans", &read_only).await.expect(200);
    app.get(&format!("/api/v1/scans/{id}"), &read_only).await.expect(200);
    app.get("/api/v1/findings", &read_only).await.expect(200);
}

/// Another organisation's data is invisible: its scans are 404 (never 403) and never listed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn organisations_are_isolated() {
    let app = spawn_app().await;
    let acme = app.token("acme").await;
    let globex = app.token("globex").await;
    let acme_scan = scan_id(&app, &acme).await;
    let globex_scan = scan_id(&app, &globex).await;
    for (token, mine, theirs) in [(&acme, &acme_scan, &globex_scan), (&globex, &globex_scan, &acme_scan)] {
        app.get(&format!("/api/v1/scans/{mine}"), token).await.expect(200);
        for q in ["", "?include_findings=true"] {
            app.get(&format!("/api/v1/scans/{theirs}{q}"), token).await.expect_error(404, "not_found");
        }
        let list = app.get("/api/v1/scans", token).await;
        let ids: Vec<&str> = list.json["scans"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
        assert_eq!(ids, [mine.as_str()]);
    }
    // A read-only token of another organisation also gets 404, not 403.
    let (reader, _) = app.token_with("globex", &["scans:read"]).await;
    app.get(&format!("/api/v1/scans/{acme_scan}"), &reader).await.expect_error(404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_routes_are_json_404() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    // `/` is the dashboard (a redirect to /login, tests/dashboard.rs); everything else unknown
    // stays the JSON 404.
    for path in [
        "/api",
        "/api/v1",
        "/api/v1/nope",
        "/api/v2/scans",
        "/api/v1/scans/",
        "/api/v1/scans/x/y",
        "/api/v1/findings/abc",
        "/docs/api/openapi.json",
        "/favicon.ico",
    ] {
        for auth in [None, Some(token.as_str())] {
            let r = app.call("GET", path, auth, None).await;
            r.expect_error(404, "not_found");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_methods_are_405_with_allow() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let id = scan_id(&app, &token).await;
    let cases = [
        ("DELETE", "/api/v1/scans".to_string(), vec!["GET", "POST"]),
        ("PUT", "/api/v1/scans".to_string(), vec!["GET", "POST"]),
        ("PATCH", "/api/v1/scans".to_string(), vec!["GET", "POST"]),
        ("POST", format!("/api/v1/scans/{id}"), vec!["GET"]),
        ("DELETE", format!("/api/v1/scans/{id}"), vec!["GET"]),
        ("PUT", format!("/api/v1/scans/{id}"), vec!["GET"]),
        ("POST", "/api/v1/findings".to_string(), vec!["GET"]),
        ("DELETE", "/api/v1/findings".to_string(), vec!["GET"]),
        ("POST", "/docs/api/openapi".to_string(), vec!["GET"]),
        ("POST", "/healthz".to_string(), vec!["GET"]),
    ];
    for (method, path, allowed) in cases {
        for auth in [None, Some(token.as_str())] {
            let r = app.call(method, &path, auth, None).await;
            r.expect_error(405, "method_not_allowed");
            let allow: Vec<String> = r.header("allow").split(',').map(|m| m.trim().to_ascii_uppercase()).collect();
            for m in &allowed {
                assert!(allow.iter().any(|a| a == m), "{method} {path}: Allow {allow:?} lacks {m}");
            }
            assert!(!allow.iter().any(|a| a == method), "{method} {path}: Allow {allow:?} lists the refused method");
        }
    }
    assert_eq!(app.count_scans().await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_probes_answer_without_a_token() {
    let app = spawn_app().await;
    let r = app.call("GET", "/healthz", None, None).await;
    r.expect(200);
    assert!(r.header("content-type").starts_with("application/json"));
    assert_eq!(r.json["status"], "ok");
    let r = app.call("GET", "/readyz", None, None).await;
    r.expect(200);
    assert_eq!(r.json["status"], "ready");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_is_503_without_the_database() {
    let app = spawn_app().await;
    app.call("GET", "/readyz", None, None).await.expect(200);
    app.store.clone().close().await;
    let r = app.call("GET", "/readyz", None, None).await;
    r.expect(503);
    assert!(r.json["error"].is_string(), "503 carries the error object: {}", r.text);
    app.call("GET", "/healthz", None, None).await.expect(200);
    // The API endpoints answer with the error object too, never a bare 500.
    let token = format!("sitescan_{}", "D".repeat(43));
    for (method, path, body) in ENDPOINTS {
        let path = path.replace("{id}", &uuid::Uuid::new_v4().to_string());
        let r = app.call(method, &path, Some(&token), body).await;
        r.expect_error(503, "unavailable");
        r.header_u64("retry-after");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_ids_are_echoed_or_generated() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let send = |path: &str, id: Option<&str>, auth: Option<&str>| {
        let mut req = app.http.get(app.url(path));
        if let Some(id) = id {
            req = req.header("x-request-id", id);
        }
        if let Some(t) = auth {
            req = req.bearer_auth(t);
        }
        async move { app::Resp::from(req.send().await.unwrap()).await }
    };
    for (path, auth) in [
        ("/api/v1/scans", Some(token.as_str())),
        ("/api/v1/scans", None),
        ("/api/v1/nope", None),
        ("/healthz", None),
    ] {
        let r = send(path, Some("req-1234_abc"), auth).await;
        assert_eq!(r.header("x-request-id"), "req-1234_abc", "{path} echoes the id");
        let a = send(path, None, auth).await;
        let b = send(path, None, auth).await;
        let (ga, gb) = (a.header("x-request-id").to_string(), b.header("x-request-id").to_string());
        assert!(!ga.is_empty() && ga != gb, "{path}: generated ids {ga:?} {gb:?} must be fresh");
    }
    // A gRPC call carries one too.
    let mut client = sitescan::proto::v1::scan_service_client::ScanServiceClient::connect(app.base.clone()).await.unwrap();
    let mut req = tonic::Request::new(sitescan::proto::v1::ListScansRequest::default());
    req.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    req.metadata_mut().insert("x-request-id", "grpc-req-1".parse().unwrap());
    let resp = client.list_scans(req).await.unwrap();
    assert_eq!(resp.metadata().get("x-request-id").unwrap(), "grpc-req-1");
}

/// Two instances on one database: a revocation through either takes effect on the next call on
/// both (no cache), and each accepts the other's cursors (the signing key lives in the database).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_share_revocations_and_cursors() {
    let a = spawn_app().await;
    let b = app::spawn_app_at(&a.db_url, app::AppOptions::default()).await;
    let token = a.token("acme").await;
    for i in 0..3 {
        a.create_scan(&token, &format!("s{i}.example.com")).await;
    }
    let page_a = a.get("/api/v1/scans?limit=1", &token).await;
    let cursor = page_a.json["next_cursor"].as_str().unwrap().to_string();
    let from_a = a.get(&format!("/api/v1/scans?limit=5&cursor={cursor}"), &token).await;
    let from_b = b.get(&format!("/api/v1/scans?limit=5&cursor={cursor}"), &token).await;
    from_b.expect(200);
    assert_eq!(from_a.json, from_b.json, "instance B pages A's cursor the same way");
    assert_eq!(from_b.json["scans"].as_array().unwrap().len(), 2);
    // Warm both instances with the token, then revoke through the store.
    a.get("/api/v1/scans", &token).await.expect(200);
    b.get("/api/v1/scans", &token).await.expect(200);
    a.store.revoke_token(&token).await.unwrap();
    b.get("/api/v1/scans", &token).await.expect_error(401, "invalid_token");
    a.get("/api/v1/scans", &token).await.expect_error(401, "invalid_token");
}

/// `last_used_at` is recorded, and not rewritten on every request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn last_used_at_is_recorded_at_most_once_a_minute() {
    let app = spawn_app().await;
    let (token, row) = app.token_with("acme", &["scans:read"]).await;
    assert_eq!(row.last_used_at, None);
    app.get("/api/v1/scans", &token).await.expect(200);
    let mut first = None;
    for _ in 0..50 {
        let t = app.store.list_tokens("acme").await.unwrap().into_iter().find(|t| t.id == row.id).unwrap();
        if t.last_used_at.is_some() {
            first = t.last_used_at;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let first = first.expect("last_used_at is recorded after a request");
    for _ in 0..5 {
        app.get("/api/v1/scans", &token).await.expect(200);
    }
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let t = app.store.list_tokens("acme").await.unwrap().into_iter().find(|t| t.id == row.id).unwrap();
    assert_eq!(t.last_used_at, Some(first), "not rewritten within a minute");
}
