//! `/settings/webhooks` over real HTTP: an owner adds an endpoint (the signing secret shown once,
//! sealed in the database), sends a test event that a receiver on loopback gets, signed, and
//! reads the attempt in the delivery log; a blocked address is refused; members cannot see it;
//! another organisation's owner can neither test nor remove it.

use crate::app::{AppOptions, spawn_app_with};
use crate::dashboard_client::{PASSWORD, Web, page, redirect_to};
use crate::fixture_site::{FixtureSite, Route};
use sitescan::accounts::{Role, users};
use sitescan::events::{Deliverer, SystemClock};
use sitescan::model::AddressPolicy;
use sitescan::net::{EgressGuard, Fetcher, FetcherOptions};
use std::sync::Arc;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_adds_an_endpoint_sends_a_test_event_and_reads_the_log() {
    let app = spawn_app_with(AppOptions::default().allow_target("127.0.0.0/8")).await;
    users::create_user(&app.store, "acme", "owner@acme.test", Role::Owner, PASSWORD).await.unwrap();
    let receiver = FixtureSite::start().await;
    receiver.route_method("POST", "/hook", Route::new(204));
    let mut web = Web::new(&app);
    redirect_to(&web.login("owner@acme.test", PASSWORD).await, "/");
    page(&web.get("/settings/webhooks").await, 200);

    let none = web.post("/settings/webhooks", &[("url", &receiver.url("/hook")), ("min_severity", "high")]).await;
    page(&none, 400);
    assert!(none.text.contains("at least one event"), "{}", none.text);
    let blocked = web.post("/settings/webhooks", &[("url", "http://10.0.0.1/hook"), ("events", "scan.completed")]).await;
    page(&blocked, 400);
    assert_eq!(crate::dashboard_client::count(&app, "webhook_endpoints").await, 0);

    let added = web
        .post("/settings/webhooks", &[("url", &receiver.url("/hook")), ("events", "scan.completed"), ("events", "site.ownership_lost"), ("min_severity", "high")])
        .await;
    page(&added, 201);
    let secret = added.text.split("id=\"secret-value\" class=\"secret\">").nth(1).and_then(|r| r.split('<').next()).expect("secret shown").to_string();
    assert!(secret.starts_with("whsec_"), "{secret}");
    let listed = web.get("/settings/webhooks").await;
    assert!(listed.text.contains(&receiver.url("/hook")) && !listed.text.contains(&secret), "shown once");
    let row = app.store.list_webhooks("acme").await.unwrap().pop().unwrap();
    assert!(!row.secret_enc.contains(secret.trim_start_matches("whsec_")), "sealed at rest");

    redirect_to(&web.post(&format!("/settings/webhooks/{}/test", row.id), &[]).await, "/settings/webhooks?done=test");
    let guard = Arc::new(EgressGuard::new(AddressPolicy::new(vec!["127.0.0.0/8".parse().unwrap()])));
    let deliverer = Deliverer {
        store: app.store.clone(),
        fetcher: Arc::new(Fetcher::new(guard, FetcherOptions::default()).unwrap()),
        secrets: sitescan_store::SecretBox::from_text(crate::app::TEST_SECRET_KEY).unwrap(),
        clock: Arc::new(SystemClock),
        owner: "dashboard-test".into(),
        breaker: Default::default(),
        dashboard: None,
    };
    deliverer.run_once().await.unwrap();
    let hit = receiver.hits().into_iter().find(|h| h.path == "/hook").expect("the receiver got the test event");
    assert!(hit.headers.iter().any(|(k, v)| k == "webhook-signature" && v.starts_with("v1,")), "{:?}", hit.headers);
    let log = web.get("/settings/webhooks").await;
    assert!(log.text.contains("HTTP 204"), "the delivery log shows the answer: {}", log.text);

    // Another organisation's owner cannot test or remove it: the endpoint is not found for them.
    users::create_user(&app.store, "globex", "owner@globex.test", Role::Owner, PASSWORD).await.unwrap();
    let mut stranger = Web::new(&app);
    redirect_to(&stranger.login("owner@globex.test", PASSWORD).await, "/");
    assert!(!stranger.get("/settings/webhooks").await.text.contains(&receiver.url("/hook")), "it is not listed for them");
    page(&stranger.post(&format!("/settings/webhooks/{}/test", row.id), &[]).await, 404);
    page(&stranger.post(&format!("/settings/webhooks/{}/remove", row.id), &[]).await, 404);
    assert_eq!(crate::dashboard_client::count(&app, "webhook_endpoints").await, 1, "another organisation removed nothing");

    users::create_user(&app.store, "acme", "member@acme.test", Role::Member, PASSWORD).await.unwrap();
    let mut member = Web::new(&app);
    redirect_to(&member.login("member@acme.test", PASSWORD).await, "/");
    page(&member.get("/settings/webhooks").await, 403);

    redirect_to(&web.post(&format!("/settings/webhooks/{}/remove", row.id), &[]).await, "/settings/webhooks?done=removed");
    assert_eq!(crate::dashboard_client::count(&app, "webhook_endpoints").await, 0);
}
