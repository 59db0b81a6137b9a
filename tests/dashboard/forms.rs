//! Bad input on every form: over-long fields, wrong types, unknown ids: a form error or a 4xx
//! page, never a 500, and nothing changed.

use crate::dashboard_client::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_a_4xx_page_and_changes_nothing() {
    let app = app_with_owner().await;
    let mut web = owner(&app).await;
    web.get("/").await;
    let long = "x".repeat(10_000);
    let huge = "y".repeat(100_000);
    let scans = app.count_scans().await;
    let cases: Vec<(&str, Vec<(&str, &str)>)> = vec![
        ("/scans", vec![("target", &long)]),
        ("/scans", vec![("target", &huge)]),
        ("/scans", vec![]),
        ("/account/api-tokens", vec![("name", &long), ("scopes", "scans:read")]),
        ("/account/api-tokens", vec![("name", "ok"), ("scopes", "scans:everything")]),
        ("/account/api-tokens", vec![("name", "ok"), ("scopes", "scans:read"), ("expires_in_days", "abc")]),
        ("/account/api-tokens", vec![("name", "ok"), ("scopes", "scans:read"), ("expires_in_days", "-5")]),
        ("/account/api-tokens", vec![("name", "ok")]),
        ("/account/api-tokens", vec![("name", "bad\u{0}name"), ("scopes", "scans:read")]),
        ("/account/members/invite", vec![("email", &long), ("role", "member")]),
        ("/account/members/invite", vec![("email", "not an email"), ("role", "member")]),
        ("/account/members/invite", vec![("email", "a@acme.test"), ("role", "root")]),
        ("/account/members/invite", vec![("email", "owner@acme.test"), ("role", "member")]),
        ("/account/members/nope/role", vec![("role", "member")]),
        ("/account/members/nope/remove", vec![]),
        ("/account/api-tokens/nope/revoke", vec![]),
        ("/account/password", vec![("current", &long), ("new", &long), ("confirm", &long)]),
    ];
    for (path, fields) in cases {
        let r = web.post(path, &fields).await;
        let s = r.status.as_u16();
        assert!((400..500).contains(&s), "{path} {:?}: {s} {}", fields.iter().map(|(k, v)| (k, v.len())).collect::<Vec<_>>(), r.text.chars().take(300).collect::<String>());
        assert!(r.header("content-type").starts_with("text/html"), "{path}: a page");
    }
    // A body that is not a form, and a login with over-long fields.
    let r = app.http.post(app.url("/account/api-tokens")).header("content-type", "application/json").body("{}").send().await.unwrap();
    assert!(r.status().is_client_error() || r.status().is_redirection());
    let mut anon = Web::new(&app);
    anon.get("/login").await;
    page(&anon.post("/login", &[("email", &long), ("password", &long)]).await, 400);
    assert_eq!(app.count_scans().await, scans);
    assert!(app.store.list_tokens("acme").await.unwrap().is_empty());
    assert_eq!(count(&app, "invites").await, 0);
    assert_eq!(count(&app, "users").await, 1);
    page(&web.get("/").await, 200);
}
