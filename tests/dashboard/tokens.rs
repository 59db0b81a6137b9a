//! `/account/api-tokens`: made here, shown once, working at once on the API, revoked after a
//! confirmation (401 on the next call); expired tokens are 401 too.

use crate::dashboard_client::*;
use sitescan_store::time::now_us;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_made_on_the_page_works_once_shown_and_dies_when_revoked() {
    let app = app_with_owner().await;
    let mut web = owner(&app).await;
    page(&web.get("/account/api-tokens").await, 200);
    let r = web
        .post("/account/api-tokens", &[("name", "CI pipeline"), ("scopes", "scans:read"), ("scopes", "scans:write"), ("expires_in_days", "30")])
        .await;
    page(&r, 201);
    let token = token_in(&r.text).expect("the plaintext is on the answer");
    assert!(r.text.contains("shown only this once"));
    // Shown once: not on the next view of the list.
    let list = web.get("/account/api-tokens").await;
    assert!(!list.text.contains(&token) && list.text.contains("CI pipeline") && list.text.contains("scans:read, scans:write"));
    let row = app.store.list_tokens("acme").await.unwrap().pop().unwrap();
    assert!(row.expires_at.is_some() && row.created_by.is_some());
    assert_eq!(row.token_hash, sitescan_store::hash_token(&token));

    app.get("/api/v1/scans", &token).await.expect(200);
    app.create_scan(&token, "example.com").await;

    // Revoke: a confirmation page, then the POST.
    let confirm = web.get(&format!("/account/api-tokens/{}/revoke", row.id)).await;
    page(&confirm, 200);
    assert!(confirm.text.contains("Revoke the token") && confirm.text.contains("CI pipeline"));
    app.get("/api/v1/scans", &token).await.expect(200);
    let done = web.post(&format!("/account/api-tokens/{}/revoke", row.id), &[("confirm", "yes")]).await;
    redirect_to(&done, "/account/api-tokens?done=revoked");
    app.get("/api/v1/scans", &token).await.expect_error(401, "invalid_token");
    let list = web.get("/account/api-tokens?done=revoked").await;
    assert!(list.text.contains("revoked"));
    // Revoking again, or an unknown id, is a 404 page.
    page(&web.post(&format!("/account/api-tokens/{}/revoke", row.id), &[]).await, 404);
    page(&web.post(&format!("/account/api-tokens/{}/revoke", uuid::Uuid::new_v4()), &[]).await, 404);
    page(&web.get("/account/api-tokens/nope/revoke").await, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_token_is_401() {
    let app = crate::app::spawn_app().await;
    let scopes = vec!["scans:read".to_string()];
    let (live, _) = app.store.create_token_with("acme", Some("t"), &scopes, None, Some(now_us() + 60_000_000)).await.unwrap();
    let (dead, _) = app.store.create_token_with("acme", Some("t"), &scopes, None, Some(now_us() - 1)).await.unwrap();
    app.get("/api/v1/scans", &live).await.expect(200);
    app.get("/api/v1/scans", &dead).await.expect_error(401, "invalid_token");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forms_without_the_right_csrf_token_or_from_another_origin_change_nothing() {
    let app = app_with_owner().await;
    let mut web = owner(&app).await;
    web.get("/account/api-tokens").await;
    let fields = [("name", "x"), ("scopes", "scans:read")];
    let r = web.post_raw("/account/api-tokens", &fields).await;
    page(&r, 403);
    let r = web.post_raw("/account/api-tokens", &[("csrf", "wrong"), ("name", "x"), ("scopes", "scans:read")]).await;
    page(&r, 403);
    assert!(app.store.list_tokens("acme").await.unwrap().is_empty(), "nothing made");
    // Every state-changing form checks it.
    for path in ["/logout", "/scans", "/account/members/invite", "/account/password"] {
        page(&web.post_raw(path, &[("csrf", "wrong")]).await, 403);
    }
    assert!(web.get("/").await.status.is_success(), "still signed in");
    // Sign-in has a token too (login CSRF).
    let mut fresh = Web::new(&app);
    fresh.get("/login").await;
    page(&fresh.post_raw("/login", &[("email", "owner@acme.test"), ("password", PASSWORD)]).await, 403);

    // Origin: another site is refused even with the right token; the page's own passes.
    web.get("/account/api-tokens").await;
    web.origin = Some("http://evil.example".into());
    page(&web.post("/account/api-tokens", &fields).await, 403);
    assert!(app.store.list_tokens("acme").await.unwrap().is_empty());
    web.origin = Some(app.base.clone());
    page(&web.post("/account/api-tokens", &fields).await, 201);
    assert_eq!(app.store.list_tokens("acme").await.unwrap().len(), 1);
}
