//! `/account/members`: invites (single use, 7 days), roles, removal; members get 403 pages on
//! owner pages.

use crate::dashboard_client::*;
use sitescan::accounts::{Role, invites, users};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invite_works_once_within_its_week_and_members_stay_out_of_owner_pages() {
    let app = app_with_owner().await;
    let mut web = owner(&app).await;
    page(&web.get("/account/members").await, 200);
    let r = web.post("/account/members/invite", &[("email", "Mia@Acme.test"), ("role", "member")]).await;
    page(&r, 201);
    let start = r.text.find("/invite/").expect("the link is shown");
    let token: String = r.text[start + 8..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
    assert_eq!(token.len(), 43);
    assert!(!web.get("/account/members").await.text.contains(&token), "shown once");

    let mut mia = Web::new(&app);
    let form = mia.get(&format!("/invite/{token}")).await;
    page(&form, 200);
    assert!(form.text.contains("mia@acme.test"));
    // A bad password leaves the invite usable.
    page(&mia.post(&format!("/invite/{token}"), &[("password", "short"), ("confirm", "short")]).await, 400);
    page(&mia.post(&format!("/invite/{token}"), &[("password", "long enough one"), ("confirm", "long enough two")]).await, 400);
    let ok = mia.post(&format!("/invite/{token}"), &[("password", "a good new password"), ("confirm", "a good new password")]).await;
    redirect_to(&ok, "/");
    page(&mia.get("/").await, 200);
    // Single use.
    let mut again = Web::new(&app);
    page(&again.get(&format!("/invite/{token}")).await, 404);
    again.get("/login").await;
    page(&again.post(&format!("/invite/{token}"), &[("password", "a good new password"), ("confirm", "a good new password")]).await, 404);

    // A member: 403 pages on owner pages, GET and POST.
    for path in ["/account/api-tokens", "/account/members"] {
        let r = mia.get(path).await;
        page(&r, 403);
        assert!(r.text.contains("Only an owner"));
    }
    mia.get("/").await;
    page(&mia.post("/account/api-tokens", &[("name", "x"), ("scopes", "scans:read")]).await, 403);
    assert!(app.store.list_tokens("acme").await.unwrap().is_empty());
    assert!(!mia.get("/").await.text.contains("/account/api-tokens"), "no owner links for members");

    // Roles and removal.
    let (m, _) = users::by_email(&app.store, "mia@acme.test").await.unwrap().unwrap();
    web.get("/account/members").await;
    page(&web.post(&format!("/account/members/{}/role", m.id), &[("role", "admin")]).await, 400);
    redirect_to(&web.post(&format!("/account/members/{}/role", m.id), &[("role", "owner")]).await, "/account/members?done=role");
    page(&mia.get("/account/members").await, 200);
    let (me, _) = users::by_email(&app.store, "owner@acme.test").await.unwrap().unwrap();
    page(&web.post(&format!("/account/members/{}/role", me.id), &[("role", "member")]).await, 400);
    page(&web.get(&format!("/account/members/{}/remove", m.id)).await, 200);
    redirect_to(&web.post(&format!("/account/members/{}/remove", m.id), &[("confirm", "yes")]).await, "/account/members?done=removed");
    redirect_to(&mia.get("/").await, "/login");
    page(&web.post(&format!("/account/members/{}/remove", m.id), &[]).await, 404);

    // Expired invites are refused.
    let (expired, _) = invites::create(&app.store, "acme", "late@acme.test", Role::Member, &me.id).await.unwrap();
    invites::set_expiry(&app.store, &expired, 0).await.unwrap();
    page(&Web::new(&app).get(&format!("/invite/{expired}")).await, 404);
    // Another organisation's member is not ours to change.
    let other = users::create_user(&app.store, "globex", "g@globex.test", Role::Member, PASSWORD).await.unwrap();
    page(&web.post(&format!("/account/members/{}/remove", other.id), &[]).await, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_change_ends_the_other_sessions() {
    let app = app_with_owner().await;
    let mut a = owner(&app).await;
    let mut b = owner(&app).await;
    a.get("/account/password").await;
    page(&a.post("/account/password", &[("current", "wrong wrong"), ("new", "another password"), ("confirm", "another password")]).await, 400);
    let r = a.post("/account/password", &[("current", PASSWORD), ("new", "another password"), ("confirm", "another password")]).await;
    redirect_to(&r, "/account/password?done=changed");
    page(&a.get("/").await, 200);
    redirect_to(&b.get("/").await, "/login");
    assert_eq!(b.login("owner@acme.test", PASSWORD).await.status.as_u16(), 401);
    redirect_to(&b.login("owner@acme.test", "another password").await, "/");
}
