//! Role changes take effect: an owner who is demoted, removed or disabled leaves nothing behind
//! that still works. The tokens they issued are refused (the confirmation page names them before
//! anything happens), their pending invitations are cancelled, and the active schedules they
//! attested pause until an owner attests them again. Through the real dashboard and REST API.

use crate::dashboard_client::*;
use sitescan::accounts::{Role, invites, users};
use sitescan::model::ScanMode;
use sitescan::recurring::{Attester, add_schedule};

/// A second owner with a token, an invitation and an attested active schedule; returns the
/// owner, the token, the invitation's token and the schedule's id.
async fn boss_with_handouts(app: &crate::app::TestApp, email: &str, token_name: &str) -> (users::User, String, String, uuid::Uuid) {
    let boss = users::create_user(&app.store, "acme", email, Role::Owner, PASSWORD).await.expect("owner");
    let (token, _) = app
        .store
        .create_token_with("acme", Some(token_name), &["scans:read".to_string(), "scans:active".to_string()], Some(&boss.id), None)
        .await
        .expect("token");
    let (invite, _) = invites::create(&app.store, "acme", &format!("new-{email}"), Role::Member, &boss.id).await.expect("invite");
    let origin = format!("https://{}.example.com", token_name.replace(' ', "-"));
    let now = sitescan_store::time::now_us();
    let site = app.store.add_site("acme", &origin, &origin[8..], "Roles_Token_0123456789abcdef", &boss.id, now).await.expect("site").expect("new");
    app.store.record_site_verification(site.id, Ok("file"), now).await.expect("verified");
    let attester = Attester { actor: format!("user:{} <{}>", boss.id, boss.email), client_addr: Some("127.0.0.1".into()) };
    let attestation = sitescan::model::Attestation::confirm(&origin, sitescan::model::Confirmation::Ticked(true), attester).expect("ticked");
    let schedule = add_schedule(&app.store, "acme", &origin, "0 3 * * *", None, ScanMode::Active, Some(attestation), now).await.expect("schedule");
    assert!(schedule.attestation.is_some());
    (boss, token, invite, schedule.id)
}

async fn still_works(app: &crate::app::TestApp, token: &str) -> u16 {
    app.get("/api/v1/scans", token).await.status.as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_demoted_or_removed_owner_leaves_nothing_that_still_works() {
    let app = app_with_owner().await;
    let mut web = owner(&app).await;
    let (boss, token, invite, schedule) = boss_with_handouts(&app, "boss@acme.test", "deploy bot").await;
    assert_eq!(still_works(&app, &token).await, 200);

    // Demotion: the confirmation names the token first, and nothing changes until confirmed.
    web.get("/account/members").await;
    let confirm = web.post(&format!("/account/members/{}/role", boss.id), &[("role", "member")]).await;
    page(&confirm, 200);
    assert!(confirm.text.contains("deploy bot") && confirm.text.contains("stops working"), "{}", confirm.text);
    assert!(confirm.text.contains("schedules") && confirm.text.contains("Invitations"), "{}", confirm.text);
    assert_eq!(still_works(&app, &token).await, 200, "not yet confirmed");
    assert_eq!(users::by_id(&app.store, &boss.id).await.unwrap().unwrap().role, Role::Owner);
    let done = web.post(&format!("/account/members/{}/role", boss.id), &[("role", "member"), ("confirm", "yes")]).await;
    redirect_to(&done, "/account/members?done=role");
    let refused = app.get("/api/v1/scans", &token).await;
    refused.expect_error(401, "invalid_token");
    assert!(invites::peek(&app.store, &invite).await.unwrap().is_none(), "the invitation is cancelled");
    page(&Web::new(&app).get(&format!("/invite/{invite}")).await, 404);
    let paused = app.store.schedule("acme", schedule).await.unwrap().expect("kept");
    assert!(paused.attestation.is_none(), "the active schedule waits for an owner's attestation");
    // Promoted again, the revoked token stays revoked.
    redirect_to(&web.post(&format!("/account/members/{}/role", boss.id), &[("role", "owner")]).await, "/account/members?done=role");
    assert_eq!(still_works(&app, &token).await, 401);

    // Removal: the same, named on the removal's confirmation.
    let (other, token2, invite2, schedule2) = boss_with_handouts(&app, "other@acme.test", "nightly ci").await;
    let confirm = web.get(&format!("/account/members/{}/remove", other.id)).await;
    page(&confirm, 200);
    assert!(confirm.text.contains("nightly ci") && confirm.text.contains("stops working"), "{}", confirm.text);
    redirect_to(&web.post(&format!("/account/members/{}/remove", other.id), &[("confirm", "yes")]).await, "/account/members?done=removed");
    assert_eq!(still_works(&app, &token2).await, 401);
    assert!(invites::peek(&app.store, &invite2).await.unwrap().is_none());
    assert!(app.store.schedule("acme", schedule2).await.unwrap().expect("kept").attestation.is_none());

    // Disabled from the command line: the same.
    let (third, token3, _, schedule3) = boss_with_handouts(&app, "third@acme.test", "release job").await;
    users::disable(&app.store, &third.email).await.expect("disable");
    assert_eq!(still_works(&app, &token3).await, 401);
    assert!(app.store.schedule("acme", schedule3).await.unwrap().expect("kept").attestation.is_none());
    // The owner who acted keeps everything of theirs.
    assert_eq!(users::by_email(&app.store, "owner@acme.test").await.unwrap().unwrap().0.role, Role::Owner);
}
