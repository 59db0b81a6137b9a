//! `sitescan.v1.OwnerService` through a real tonic client on the REST port: the `scans:active`
//! scope, sites and their ownership proof against a fixture site on loopback, the attestation
//! recorded with an active scan, secrets that never come back, and the v1 API showing active
//! scans read-only. Then a worker that finds ownership gone fails the scan.

use crate::app::{self, AppOptions, TestApp, spawn_app_with};
use crate::fixture_site::{FixtureSite, Route};
use sitescan::proto::v1 as pb;
use sitescan::proto::v1::owner_service_client::OwnerServiceClient;
use tonic::transport::Channel;
use tonic::{Code, Request};

const FILE: &str = "/.well-known/sitescan-verification.txt";

async fn client(app: &TestApp) -> OwnerServiceClient<Channel> {
    OwnerServiceClient::connect(app.base.clone()).await.expect("gRPC connects on the REST port")
}

fn authed<T>(message: T, token: &str) -> Request<T> {
    let mut req = Request::new(message);
    req.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    req
}

async fn app_and_site() -> (TestApp, FixtureSite) {
    let app = spawn_app_with(AppOptions::default().allow_target("127.0.0.0/8")).await;
    let site = FixtureSite::start().await;
    site.route("/", Route::html("<!doctype html><html lang=en><title>Shop</title><h1>Shop</h1>"));
    (app, site)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn owner_service_needs_the_active_scope() {
    let (app, site) = app_and_site().await;
    let mut c = client(&app).await;
    let passive = app.token("acme").await;
    let err = c.list_sites(authed(pb::ListSitesRequest {}, &passive)).await.expect_err("passive token");
    assert_eq!(err.code(), Code::PermissionDenied, "{err:?}");
    let err = c
        .list_secrets(authed(pb::SiteRef { site: site.url("/") }, &passive))
        .await
        .expect_err("a passive token cannot see secrets");
    assert_eq!(err.code(), Code::PermissionDenied, "{err:?}");
    let err = c.list_sites(Request::new(pb::ListSitesRequest {})).await.expect_err("no token");
    assert_eq!(err.code(), Code::Unauthenticated, "{err:?}");
    // The default token is passive: scans:active is never given without asking.
    let (_, row) = app.token_with("acme", &[]).await;
    assert!(!row.scopes.contains("scans:active"), "{}", row.scopes);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verified_site_gets_an_attested_active_scan_that_v1_shows_read_only() {
    let (app, site) = app_and_site().await;
    let mut c = client(&app).await;
    let (owner, token_row) = app.token_with("acme", &["scans:read", "scans:active"]).await;

    let added = c.add_site(authed(pb::AddSiteRequest { url: site.url("/shop?x=1") }, &owner)).await.expect("add").into_inner();
    assert_eq!(added.origin, site.origin());
    assert!(!added.verified);
    assert_eq!(added.verification_token.len(), 32);
    assert!(added.attestation_statement.contains(&site.origin()), "{}", added.attestation_statement);
    let again = c.add_site(authed(pb::AddSiteRequest { url: site.url("/") }, &owner)).await.expect_err("duplicate");
    assert_eq!(again.code(), Code::AlreadyExists);
    let bad = c.add_site(authed(pb::AddSiteRequest { url: "not a url at all".into() }, &owner)).await.expect_err("bad url");
    assert_eq!(bad.code(), Code::InvalidArgument);

    // Not published yet: the check runs, says why, and nothing can start.
    let v = c.verify_site(authed(pb::VerifySiteRequest { site: added.id.clone() }, &owner)).await.expect("verify").into_inner();
    assert!(!v.verified);
    assert!(v.error.contains("well-known file"), "{}", v.error);
    let start = |attestation: String| pb::StartActiveScanRequest { site: added.id.clone(), attestation, max_pages: 3 };
    let refused = c.start_active_scan(authed(start(added.attestation_statement.clone()), &owner)).await.expect_err("unverified");
    assert_eq!(refused.code(), Code::FailedPrecondition);
    assert!(refused.message().starts_with("ownership_unverified"), "{}", refused.message());

    site.route(FILE, Route::typed("text/plain", format!("{}\n", added.verification_token)));
    let v = c.verify_site(authed(pb::VerifySiteRequest { site: site.url("/") }, &owner)).await.expect("verify").into_inner();
    assert!(v.verified, "{}", v.error);
    assert_eq!(v.site.as_ref().map(|s| s.verified_method.as_str()), Some("file"));

    // The page budget is the site service's rule: out of bounds, nothing starts.
    for max_pages in [-1, 10_001] {
        let over = pb::StartActiveScanRequest { max_pages, ..start(added.attestation_statement.clone()) };
        let refused = c.start_active_scan(authed(over, &owner)).await.expect_err("max_pages out of bounds");
        assert_eq!(refused.code(), Code::InvalidArgument, "{max_pages}: {refused:?}");
        assert!(refused.message().contains("max_pages: from 0 (the default) to 10000"), "{}", refused.message());
    }
    assert_eq!(app.store.list_scans("acme", 10, None).await.expect("list").rows.len(), 0, "no scan was created");
    let wrong = c.start_active_scan(authed(start("I agree".into()), &owner)).await.expect_err("wrong statement");
    assert_eq!(wrong.code(), Code::InvalidArgument);
    assert!(wrong.message().contains(&added.attestation_statement), "{}", wrong.message());
    let scan = c.start_active_scan(authed(start(added.attestation_statement.clone()), &owner)).await.expect("start").into_inner();
    assert_eq!(scan.mode, pb::ScanMode::Active as i32);

    let id: uuid::Uuid = scan.id.parse().expect("uuid");
    let attested = app.store.attestation(id).await.expect("read").expect("recorded with the scan");
    assert_eq!(attested.statement, added.attestation_statement);
    assert_eq!(attested.client_addr.as_deref(), Some("127.0.0.1"));
    assert!(attested.actor.contains(&token_row.id.to_string()), "{}", attested.actor);

    // v1 shows it, read-only, with mode active; a v1 body asking for an active scan is refused.
    let reader = app.token("acme").await;
    let listed = app.get("/api/v1/scans", &reader).await;
    listed.expect(200);
    let row = listed.json["scans"].as_array().expect("scans").iter().find(|s| s["id"] == scan.id.as_str()).cloned().expect("listed");
    assert_eq!(row["mode"], "active");
    let body = format!(r#"{{"target":"{}","mode":"active"}}"#, site.url("/"));
    app.post("/api/v1/scans", &reader, &body).await.expect(400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_are_sealed_and_never_returned() {
    let (app, site) = app_and_site().await;
    let mut c = client(&app).await;
    let (owner, _) = app.token_with("acme", &["scans:active"]).await;
    let added = c.add_site(authed(pb::AddSiteRequest { url: site.url("/") }, &owner)).await.expect("add").into_inner();
    let value = "correct-horse-battery-staple-0193";
    let put = pb::PutSecretRequest { site: added.id.clone(), name: "PASSWORD".into(), value: value.into() };
    c.put_secret(authed(put, &owner)).await.expect("put");
    let bad = pb::PutSecretRequest { site: added.id.clone(), name: "bad name!".into(), value: "x".into() };
    assert_eq!(c.put_secret(authed(bad, &owner)).await.expect_err("bad name").code(), Code::InvalidArgument);
    let listed = c.list_secrets(authed(pb::SiteRef { site: added.id.clone() }, &owner)).await.expect("list").into_inner();
    assert_eq!(listed.secrets.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["PASSWORD"]);
    assert!(!format!("{listed:?}").contains(value));

    let site_id: uuid::Uuid = added.id.parse().unwrap();
    let stored = app.store.site_secret_values(site_id).await.expect("read");
    assert_eq!(stored.len(), 1);
    assert!(!stored[0].1.contains(value), "stored in clear: {}", stored[0].1);
    let key = sitescan_store::SecretBox::from_text(app::TEST_SECRET_KEY).unwrap();
    let at = sitescan_store::SealedAt { table: "site_secrets", row: &added.id, name: "PASSWORD" };
    assert_eq!(key.open(&stored[0].1, at).expect("opens with the key, bound to its site and name"), value);
    // Moved to another site (or name), the sealed value no longer opens.
    let moved = sitescan_store::SealedAt { row: "00000000-0000-0000-0000-000000000000", ..at };
    assert!(key.open(&stored[0].1, moved).is_err());

    let removed = c
        .remove_secret(authed(pb::RemoveSecretRequest { site: added.id.clone(), name: "PASSWORD".into() }, &owner))
        .await
        .expect("remove")
        .into_inner();
    assert!(removed.removed);
}

/// One rule for secret names: every name a journey can refer to can be stored, and the other
/// way round; a bad name is refused with the rule and never echoed (it may be the secret).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_a_journey_refers_to_can_be_stored_by_that_name() {
    let (app, site) = app_and_site().await;
    let mut c = client(&app).await;
    let (owner, _) = app.token_with("acme", &["scans:active"]).await;
    let added = c.add_site(authed(pb::AddSiteRequest { url: site.url("/") }, &owner)).await.expect("add").into_inner();
    let journey = r##"{"name": "sign-in", "steps": [{"navigate": "/"}, {"fill": "#key", "value": "{{secret.api-key}}"}]}"##;
    let put = pb::PutJourneyRequest { site: added.id.clone(), definition: journey.into() };
    c.put_journey(authed(put, &owner)).await.expect("a journey naming api-key");
    let put = pb::PutSecretRequest { site: added.id.clone(), name: " api-key ".into(), value: "k-123".into() };
    let stored = c.put_secret(authed(put, &owner)).await.expect("the secret it names").into_inner();
    assert_eq!(stored.name, "api-key", "stored under the name the journey writes");
    let site_id: uuid::Uuid = added.id.parse().unwrap();
    let sealed = app.store.site_secret_values(site_id).await.expect("read");
    let names: Vec<&str> = sealed.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["api-key"], "the name the journey's {{{{secret.api-key}}}} looks up");

    for bad in ["api key", "api-key=k-123", &"k".repeat(65), ""] {
        let put = pb::PutSecretRequest { site: added.id.clone(), name: bad.into(), value: "k-123".into() };
        let err = c.put_secret(authed(put, &owner)).await.expect_err("bad name");
        assert_eq!(err.code(), Code::InvalidArgument, "{bad:?}");
        assert!(err.message().contains("1 to 64 characters") && !err.message().contains("k-123"), "{}", err.message());
    }
    let journey = r##"{"name": "x", "steps": [{"navigate": "/"}, {"fill": "#key", "value": "{{secret.api key}}"}]}"##;
    let put = pb::PutJourneyRequest { site: added.id.clone(), definition: journey.into() };
    assert_eq!(c.put_journey(authed(put, &owner)).await.expect_err("a name no secret can have").code(), Code::InvalidArgument);
    let listed = c.list_secrets(authed(pb::SiteRef { site: added.id.clone() }, &owner)).await.expect("list").into_inner();
    assert_eq!(listed.secrets.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["api-key"], "nothing else stored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_whose_issuer_is_no_longer_an_owner_opens_nothing() {
    let (app, _site) = app_and_site().await;
    let user = sitescan::accounts::users::create_user(&app.store, "acme", "boss@example.org", sitescan::accounts::Role::Owner, "a long enough password 1")
        .await
        .expect("user");
    sitescan::accounts::users::create_user(&app.store, "acme", "other@example.org", sitescan::accounts::Role::Owner, "another long password 2")
        .await
        .expect("a second owner, so the first can be demoted");
    let (plain, _) = app
        .store
        .create_token_with("acme", Some("ci"), &["scans:active".to_string()], Some(&user.id), None)
        .await
        .expect("token");
    let mut c = client(&app).await;
    c.list_sites(authed(pb::ListSitesRequest {}, &plain)).await.expect("an owner's token works");
    sitescan::accounts::users::set_role(&app.store, "acme", &user.id, sitescan::accounts::Role::Member).await.expect("demote");
    let err = c.list_sites(authed(pb::ListSitesRequest {}, &plain)).await.expect_err("demoted");
    // The demotion revoked the tokens the owner had issued.
    assert_eq!(err.code(), Code::Unauthenticated, "{err:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schedules_and_monitors_are_managed_over_owner_service() {
    let (app, site) = app_and_site().await;
    let mut c = client(&app).await;
    let (owner, _) = app.token_with("acme", &["scans:active"]).await;
    let added = c.add_site(authed(pb::AddSiteRequest { url: site.url("/") }, &owner)).await.expect("add").into_inner();
    let schedule = |cron: &str, mode: pb::ScanMode, attestation: &str| pb::AddScheduleRequest {
        site: added.id.clone(),
        cron: cron.into(),
        timezone: "Europe/Paris".into(),
        mode: mode as i32,
        attestation: attestation.into(),
    };
    let nightly = c.add_schedule(authed(schedule("0 3 * * *", pb::ScanMode::Passive, ""), &owner)).await.expect("nightly").into_inner();
    assert_eq!(nightly.timezone, "Europe/Paris");
    assert!(nightly.next_run_at.is_some());
    let bad = c.add_schedule(authed(schedule("every night", pb::ScanMode::Passive, ""), &owner)).await.expect_err("bad cron");
    assert_eq!(bad.code(), Code::InvalidArgument);
    assert!(bad.message().starts_with("cron"), "{}", bad.message());
    let unattested = c.add_schedule(authed(schedule("0 4 * * 1", pb::ScanMode::Active, "yes"), &owner)).await.expect_err("no attestation");
    assert_eq!(unattested.code(), Code::InvalidArgument);
    let weekly = c
        .add_schedule(authed(schedule("0 4 * * 1", pb::ScanMode::Active, &added.attestation_statement), &owner))
        .await
        .expect("an attested active schedule")
        .into_inner();
    assert_eq!(weekly.mode, pb::ScanMode::Active as i32);
    let row = app.store.schedule("acme", weekly.id.parse().unwrap()).await.unwrap().expect("stored");
    assert!(row.attestation.as_deref().is_some_and(|a| a.contains(&added.attestation_statement)), "{row:?}");

    let listed = c.list_schedules(authed(pb::SiteRef { site: added.id.clone() }, &owner)).await.expect("list").into_inner();
    assert_eq!(listed.schedules.len(), 2);
    c.remove_schedule(authed(pb::RemoveByIdRequest { id: nightly.id.clone() }, &owner)).await.expect("remove");
    let gone = c.remove_schedule(authed(pb::RemoveByIdRequest { id: nightly.id.clone() }, &owner)).await.expect_err("gone");
    assert_eq!(gone.code(), Code::NotFound);

    let unverified = c.add_monitor(authed(pb::AddMonitorRequest { site: added.id.clone(), every: "5m".into() }, &owner)).await.expect_err("unverified");
    assert_eq!(unverified.code(), Code::FailedPrecondition, "{unverified:?}");
    assert!(unverified.message().starts_with("ownership_unverified"), "{}", unverified.message());
    app.store.record_site_verification(added.id.parse().unwrap(), Ok("file"), 1).await.unwrap();
    let monitor = c.add_monitor(authed(pb::AddMonitorRequest { site: added.id.clone(), every: "5m".into() }, &owner)).await.expect("monitor").into_inner();
    assert_eq!(monitor.every_seconds, 300);
    let fast = c.add_monitor(authed(pb::AddMonitorRequest { site: added.id.clone(), every: "10s".into() }, &owner)).await.expect_err("too often");
    assert_eq!(fast.code(), Code::InvalidArgument);
    let monitors = c.list_monitors(authed(pb::SiteRef { site: site.url("/") }, &owner)).await.expect("list").into_inner();
    assert_eq!(monitors.monitors.len(), 1);

    // Another organisation sees none of it.
    let (other, _) = app.token_with("other", &["scans:active"]).await;
    let err = c.list_schedules(authed(pb::SiteRef { site: added.id.clone() }, &other)).await.expect_err("not theirs");
    assert_eq!(err.code(), Code::NotFound);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sites_budget_is_set_refused_with_every_error_and_removed_over_owner_service() {
    let (app, site) = app_and_site().await;
    let mut c = client(&app).await;
    let (owner, _) = app.token_with("acme", &["scans:read", "scans:active"]).await;
    let (other, _) = app.token_with("globex", &["scans:read", "scans:active"]).await;
    let added = c.add_site(authed(pb::AddSiteRequest { url: site.url("/") }, &owner)).await.expect("add").into_inner();
    assert_eq!(added.budget, None, "no budget yet");

    // Two mistakes: both named, under the path `budget`, and nothing stored.
    let bad = r#"{"assertions": {"search.title-misssing": "error", "metrics.lcp-p75": "error"}}"#;
    let err = c.set_budget(authed(pb::SetBudgetRequest { site_id: added.id.clone(), budget: bad.into() }, &owner)).await.expect_err("invalid");
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    let body: serde_json::Value = serde_json::from_slice(err.details()).expect("the API error object in the details");
    assert_eq!(body["error"], "invalid_input");
    let issues = body["issues"].as_array().expect("issues");
    assert_eq!(issues.len(), 2, "{body}");
    assert!(issues.iter().all(|i| i["path"] == "budget"), "{body}");
    assert!(issues.iter().any(|i| i["message"].as_str().unwrap().starts_with("search.title-misssing: ")), "{body}");
    assert!(issues.iter().any(|i| i["message"].as_str().unwrap().contains("maxNumericValue")), "{body}");
    let listed = c.list_sites(authed(pb::ListSitesRequest {}, &owner)).await.unwrap().into_inner();
    assert_eq!(listed.sites[0].budget, None, "nothing stored on error");

    // A billion laughs (aliases that would expand to gigabytes) is refused before it expands.
    let mut bomb = String::from("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    for (i, name) in ["b", "c", "d", "e", "f", "g", "h", "i"].iter().enumerate() {
        let prev = ["a", "b", "c", "d", "e", "f", "g", "h"][i];
        bomb.push_str(&format!("{name}: &{name} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"));
    }
    let started = std::time::Instant::now();
    let err = c.set_budget(authed(pb::SetBudgetRequest { site_id: added.id.clone(), budget: bomb }, &owner)).await.expect_err("a bomb");
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    let body: serde_json::Value = serde_json::from_slice(err.details()).expect("the API error object in the details");
    assert!(body["issues"][0]["message"].as_str().is_some_and(|m| m.contains("alias") || m.contains("anchor")), "{body}");
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "refused, not expanded");

    // A valid one (YAML) is kept as written; another organisation cannot see or set it.
    let yaml = "search.title-missing: [error, {maxCount: 0}]\nmetrics.lcp-p75: [warn, {maxNumericValue: 2500}]\n";
    let set = c.set_budget(authed(pb::SetBudgetRequest { site_id: added.id.clone(), budget: yaml.into() }, &owner)).await.expect("set").into_inner();
    assert_eq!(set.budget.as_deref(), Some(yaml));
    let err = c.set_budget(authed(pb::SetBudgetRequest { site_id: added.id.clone(), budget: String::new() }, &other)).await.expect_err("another org");
    assert_eq!(err.code(), Code::NotFound, "{err:?}");
    let listed = c.list_sites(authed(pb::ListSitesRequest {}, &owner)).await.unwrap().into_inner();
    assert_eq!(listed.sites[0].budget.as_deref(), Some(yaml), "another organisation changed nothing");

    // A passive token is refused; an empty budget removes it.
    let passive = app.token("acme").await;
    let err = c.set_budget(authed(pb::SetBudgetRequest { site_id: added.id.clone(), budget: String::new() }, &passive)).await.expect_err("passive");
    assert_eq!(err.code(), Code::PermissionDenied, "{err:?}");
    let removed = c.set_budget(authed(pb::SetBudgetRequest { site_id: site.url("/any"), budget: "  ".into() }, &owner)).await.expect("remove").into_inner();
    assert_eq!(removed.budget, None);
}
