//! One tenant's outbound work cannot delay another's. Each test performs the attack for real:
//! webhook receivers and monitored hosts on 127.0.0.1 that answer slowly or never, a tenant
//! with many queued messages or due probes beside a tenant with one, the dashboard's forms
//! driven past their limits. Assertions are on what users see: deliveries received (and in
//! which order), status codes and page text, probes recorded; never on elapsed time.

use crate::app::{AppOptions, TestApp, spawn_app_with};
use crate::dashboard_client::{PASSWORD, Web, count, page, redirect_to};
use crate::fixture_site::{FixtureSite, Route};
use crate::hostile_site::{Behaviour, HostileSite};
use axum::http::StatusCode;
use sitescan::accounts::{Role, users};
use sitescan::events::webhooks::{self, MAX_ENDPOINTS_PER_ORG, TEST_EVENTS_PER_ORG};
use sitescan::events::{Attempt, BreakerRule, Deliverer, ManualClock, SecretBox, SystemClock};
use sitescan::model::AddressPolicy;
use sitescan::net::{EgressGuard, Fetcher, FetcherOptions};
use sitescan::recurring::monitor::{MAX_MONITORS_PER_ORG, MAX_MONITORS_PER_SITE, PROBES_PER_ORG};
use sitescan::recurring::{self, Clock, MonitorRunner, Probe, ProbeState};
use sitescan_store::Store;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

const LOOPBACK: &str = "127.0.0.0/8";

fn secrets() -> SecretBox {
    SecretBox::from_text(crate::app::TEST_SECRET_KEY).expect("test key")
}

/// A `site.ownership_lost` event to queue.
fn lost() -> sitescan::proto::v1::OwnershipLostEvent {
    sitescan::events::payloads::ownership_lost(0, uuid::Uuid::nil(), "https://lost.test", uuid::Uuid::nil(), "the token is gone".into())
}

fn fetcher() -> Arc<Fetcher> {
    let guard = Arc::new(EgressGuard::new(AddressPolicy::new(vec![LOOPBACK.parse().unwrap()])));
    Arc::new(Fetcher::new(guard, FetcherOptions::default()).expect("fetcher"))
}

fn deliverer(store: &Store, clock: Arc<dyn Clock>, breaker: BreakerRule) -> Deliverer {
    Deliverer { store: store.clone(), fetcher: fetcher(), secrets: secrets(), clock, owner: "outbound-test".into(), breaker, dashboard: None }
}

/// Every delivery any receiver of a test got, in the order they arrived: (tenant, event type);
/// and, per tenant, the most deliveries its receivers held at once.
#[derive(Clone, Default)]
struct Arrivals {
    log: Arc<Mutex<Vec<(String, String)>>>,
    open: Arc<Mutex<std::collections::HashMap<String, (usize, usize)>>>,
}

impl Arrivals {
    fn of(&self, tenant: &str) -> usize {
        self.log.lock().unwrap().iter().filter(|(t, _)| t == tenant).count()
    }

    fn most_at_once(&self, tenant: &str) -> usize {
        self.open.lock().unwrap().get(tenant).map_or(0, |(_, most)| *most)
    }

    fn enter(&self, tenant: &str) {
        let mut open = self.open.lock().unwrap();
        let (now, most) = open.entry(tenant.to_string()).or_default();
        *now += 1;
        *most = (*most).max(*now);
    }

    fn leave(&self, tenant: &str) {
        if let Some((now, _)) = self.open.lock().unwrap().get_mut(tenant) {
            *now -= 1;
        }
    }
}

/// A webhook receiver on 127.0.0.1 for `tenant` that answers 200 after `delay` (read on each
/// request, so a test can speed it up), logging each delivery when it arrives.
async fn receiver(tenant: &str, delay: Arc<AtomicU64>, log: Arrivals) -> String {
    let tenant = tenant.to_string();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |body: String| {
            let (tenant, delay, log) = (tenant.clone(), delay.clone(), log.clone());
            async move {
                let event = serde_json::from_str::<serde_json::Value>(&body).ok().and_then(|v| v["type"].as_str().map(str::to_string));
                log.log.lock().unwrap().push((tenant.clone(), event.unwrap_or_default()));
                log.enter(&tenant);
                tokio::time::sleep(Duration::from_millis(delay.load(Ordering::SeqCst))).await;
                log.leave(&tenant);
                StatusCode::OK
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}/hook")
}

async fn app() -> TestApp {
    spawn_app_with(AppOptions::default().allow_target(LOOPBACK)).await
}

async fn owner_of(app: &TestApp, org: &str) -> Web {
    let email = format!("owner@{org}.test");
    users::create_user(&app.store, org, &email, Role::Owner, PASSWORD).await.unwrap();
    let mut web = Web::new(app);
    redirect_to(&web.login(&email, PASSWORD).await, "/");
    // The signed-in session's CSRF token, from a page.
    page(&web.get("/settings/webhooks").await, 200);
    web
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_tenants_webhooks_do_not_delay_another_tenants_deliveries() {
    let app = app().await;
    let store = &app.store;
    let arrivals = Arrivals::default();
    // Tenant A: six endpoints that each answer after 3 s (under the 10 s timeout, under the
    // breaker's 5 s: only the lanes keep them apart), five messages queued on each, first.
    let slow = Arc::new(AtomicU64::new(3_000));
    let events = vec!["site.ownership_lost".to_string()];
    for _ in 0..6 {
        let url = receiver("slow", slow.clone(), arrivals.clone()).await;
        webhooks::add_endpoint(store, &secrets(), "slowco", &url, &events, None, 1).await.unwrap();
    }
    let now = sitescan_store::time::now_us();
    for _ in 0..5 {
        assert_eq!(webhooks::org_event(store, "slowco", "site.ownership_lost", &lost(), now - 1_000_000).await.unwrap(), 6);
    }
    // Tenant B: one quick endpoint, five messages queued after all of A's.
    let quick = receiver("quick", Arc::new(AtomicU64::new(0)), arrivals.clone()).await;
    webhooks::add_endpoint(store, &secrets(), "quickco", &quick, &events, None, 1).await.unwrap();
    for _ in 0..5 {
        webhooks::org_event(store, "quickco", "site.ownership_lost", &lost(), now).await.unwrap();
    }

    // The delivery loop as `serve` runs it.
    let stop = CancellationToken::new();
    let handle = deliverer(store, Arc::new(SystemClock), BreakerRule::default()).spawn(Duration::from_millis(100), stop.clone());
    let mut waited = 0;
    while arrivals.of("quick") < 5 {
        assert!(waited < 600, "B's deliveries never arrived: {:?}", arrivals.log.lock().unwrap());
        tokio::time::sleep(Duration::from_millis(100)).await;
        waited += 1;
    }
    // Before lanes, a batch of A's twenty messages went (endpoint by endpoint, 3 s each) before
    // any of B's. Now B's five arrived while A had at most its share of slots in flight.
    let order = arrivals.log.lock().unwrap().clone();
    let last_quick = order.iter().rposition(|(t, _)| t == "quick").unwrap();
    let slow_before = order[..last_quick].iter().filter(|(t, _)| t == "slow").count();
    assert!(slow_before < 20, "B's deliveries waited behind {slow_before} of A's: {order:?}");
    // A never held more than its share of the loop's slots, one delivery per endpoint.
    assert!(arrivals.most_at_once("slow") <= webhooks::DELIVERIES_PER_ORG, "{order:?}");
    assert!(arrivals.most_at_once("quick") <= 1, "one delivery at a time per endpoint");
    // A is still served, in its lanes.
    let mut waited = 0;
    while arrivals.of("slow") < 2 * webhooks::DELIVERIES_PER_ORG {
        assert!(waited < 600, "A's deliveries stopped: {:?}", arrivals.log.lock().unwrap());
        tokio::time::sleep(Duration::from_millis(100)).await;
        waited += 1;
    }
    stop.cancel();
    let _ = handle.await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_receiver_that_keeps_answering_slowly_is_rested_by_its_breaker() {
    let app = app().await;
    let store = &app.store;
    let arrivals = Arrivals::default();
    let delay = Arc::new(AtomicU64::new(1_000));
    let url = receiver("slow", delay.clone(), arrivals.clone()).await;
    let events = vec!["site.ownership_lost".to_string()];
    let (endpoint, _) = webhooks::add_endpoint(store, &secrets(), "slowco", &url, &events, None, 1).await.unwrap();
    let clock = Arc::new(ManualClock::at(sitescan_store::time::now_us()));
    for _ in 0..6 {
        webhooks::org_event(store, "slowco", "site.ownership_lost", &lost(), clock.now_us()).await.unwrap();
    }
    // Slow is 300 ms here (a 1 s answer is slow), three in a row open it for a minute.
    let rule = BreakerRule { slow_after: Duration::from_millis(300), trip_after: 3, cool_down: Duration::from_secs(60) };
    let d = deliverer(store, clock.clone(), rule);

    assert_eq!(d.run_once().await.unwrap(), vec![Attempt::Delivered; 3], "three slow deliveries, then the breaker opened");
    assert_eq!(arrivals.of("slow"), 3);
    assert!(d.run_once().await.unwrap().is_empty(), "open: nothing is sent");
    let ep = store.webhook(endpoint).await.unwrap().unwrap();
    assert!(ep.enabled && ep.failing_since.is_none(), "resting is no failure: {ep:?}");

    clock.advance(Duration::from_secs(60));
    assert_eq!(d.run_once().await.unwrap(), [Attempt::Delivered], "half-open: one trial, slow again, so open again");
    assert_eq!(arrivals.of("slow"), 4);

    delay.store(0, Ordering::SeqCst);
    clock.advance(Duration::from_secs(60));
    assert_eq!(d.run_once().await.unwrap(), vec![Attempt::Delivered; 2], "a quick trial closes it: the rest go");
    assert_eq!(arrivals.of("slow"), 6);
    let log = store.webhook_deliveries(endpoint).await.unwrap();
    assert!(log.len() == 6 && log.iter().all(|l| l.attempt == 1 && l.status == Some(200)), "deferrals are no attempts: {log:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_endpoint_over_the_cap_is_refused_on_the_page() {
    let app = app().await;
    let mut web = owner_of(&app, "acme").await;
    for i in 0..MAX_ENDPOINTS_PER_ORG {
        let url = format!("http://127.0.0.1:9/hook/{i}");
        page(&web.post("/settings/webhooks", &[("url", &url), ("events", "scan.completed")]).await, 201);
    }
    let over = web.post("/settings/webhooks", &[("url", "http://127.0.0.1:9/hook/over"), ("events", "scan.completed")]).await;
    page(&over, 400);
    assert!(over.text.contains("The endpoint was not added") && over.text.contains("the most allowed"), "{}", over.text);
    assert!(!over.text.contains("whsec_"), "no secret for an endpoint that was not added");
    assert_eq!(count(&app, "webhook_endpoints").await, MAX_ENDPOINTS_PER_ORG, "the refusal changed nothing");
    // Another organisation has its own allowance.
    let mut other = owner_of(&app, "other").await;
    page(&other.post("/settings/webhooks", &[("url", "http://127.0.0.1:9/hook/other"), ("events", "scan.completed")]).await, 201);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loop_of_test_events_is_refused_past_the_limits() {
    let app = app().await;
    let mut web = owner_of(&app, "acme").await;
    let events = vec!["scan.completed".to_string()];
    let mut ids = Vec::new();
    for i in 0..=TEST_EVENTS_PER_ORG {
        let url = format!("http://127.0.0.1:9/hook/{i}");
        ids.push(webhooks::add_endpoint(&app.store, &secrets(), "acme", &url, &events, None, 1).await.unwrap().0);
    }
    let test = |id: uuid::Uuid| format!("/settings/webhooks/{id}/test");
    redirect_to(&web.post(&test(ids[0]), &[]).await, "/settings/webhooks?done=test");
    // Clicking again on the same endpoint at once.
    let again = web.post(&test(ids[0]), &[]).await;
    page(&again, 429);
    assert!(again.text.contains("No test event was sent") && again.text.contains("just sent to this endpoint"), "{}", again.text);
    assert_eq!(count(&app, "webhook_outbox").await, 1, "the refused click queued nothing");
    // One on each other endpoint, until the organisation's allowance is used up.
    for id in &ids[1..TEST_EVENTS_PER_ORG as usize] {
        redirect_to(&web.post(&test(*id), &[]).await, "/settings/webhooks?done=test");
    }
    let over = web.post(&test(ids[TEST_EVENTS_PER_ORG as usize]), &[]).await;
    page(&over, 429);
    assert!(over.text.contains("the organisation sent test events too often"), "{}", over.text);
    assert_eq!(count(&app, "webhook_outbox").await, TEST_EVENTS_PER_ORG, "nothing queued past the limit");
    // The limits are per organisation: another one tests its endpoint.
    let mut other = owner_of(&app, "other").await;
    let (theirs, _) = webhooks::add_endpoint(&app.store, &secrets(), "other", "http://127.0.0.1:9/other", &events, None, 1).await.unwrap();
    redirect_to(&other.post(&test(theirs), &[]).await, "/settings/webhooks?done=test");
}

/// A verified site of `org` at `origin`.
async fn verified_site(store: &Store, org: &str, origin: &str) -> sitescan_store::SiteRow {
    store.set_org(org, None).await.unwrap();
    let host = url::Url::parse(origin).unwrap().host_str().unwrap().to_string();
    let site = store.add_site(org, origin, &host, "Outbound_Token_0123456789abcdef", "test", 1).await.unwrap().unwrap();
    store.record_site_verification(site.id, Ok("file"), 1).await.unwrap();
    site
}

fn runner(store: &Store, clock: Arc<ManualClock>, probe_deadline: Duration) -> MonitorRunner {
    let policy = AddressPolicy::new(vec![LOOPBACK.parse().unwrap()]);
    MonitorRunner { store: store.clone(), fetcher: fetcher(), clock, policy, on_trigger: None, probe_deadline }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn monitors_need_a_verified_site_and_stop_at_the_caps() {
    let app = app().await;
    let mut web = owner_of(&app, "acme").await;
    let site = FixtureSite::start().await;
    site.route("/", Route::html("<!doctype html><html lang=en><title>Shop</title><h1>Shop</h1>"));
    let added = web.post("/sites", &[("url", &site.url("/"))]).await;
    let path = added.header("location").trim_end_matches("?done=added").to_string();

    let unverified = web.post(&format!("{path}/monitors"), &[("every", "5m")]).await;
    page(&unverified, 400);
    assert!(unverified.text.contains("The monitor was not added") && unverified.text.contains("is not verified"), "{}", unverified.text);
    assert_eq!(count(&app, "monitors").await, 0);

    let site_id: uuid::Uuid = path.trim_start_matches("/sites/").parse().unwrap();
    app.store.record_site_verification(site_id, Ok("file"), 1).await.unwrap();
    for _ in 0..MAX_MONITORS_PER_SITE {
        let r = web.post(&format!("{path}/monitors"), &[("every", "5m")]).await;
        assert_eq!(r.status.as_u16(), 303, "{}", r.text);
    }
    let sixth = web.post(&format!("{path}/monitors"), &[("every", "5m")]).await;
    page(&sixth, 400);
    assert!(sixth.text.contains(&format!("has {MAX_MONITORS_PER_SITE} monitors, the most allowed")), "{}", sixth.text);
    assert_eq!(count(&app, "monitors").await, MAX_MONITORS_PER_SITE, "the refusal changed nothing");

    // The organisation's cap over all of its sites: filled up to it, the next one is refused.
    let mut made = MAX_MONITORS_PER_SITE;
    let mut n = 0;
    while made < MAX_MONITORS_PER_ORG {
        n += 1;
        let other = verified_site(&app.store, "acme", &format!("https://s{n}.acme.test")).await;
        while made < MAX_MONITORS_PER_ORG && app.store.list_monitors("acme", Some(other.id)).await.unwrap().len() < MAX_MONITORS_PER_SITE as usize {
            recurring::add_monitor(&app.store, "acme", &other.origin, 300, 1).await.unwrap();
            made += 1;
        }
    }
    let fresh = verified_site(&app.store, "acme", "https://fresh.acme.test").await;
    let over = web.post(&format!("/sites/{}/monitors", fresh.id), &[("every", "5m")]).await;
    page(&over, 400);
    assert!(over.text.contains(&format!("the organisation has {MAX_MONITORS_PER_ORG} monitors")), "{}", over.text);
    assert_eq!(count(&app, "monitors").await, MAX_MONITORS_PER_ORG);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_probe_of_a_host_that_never_answers_ends_at_its_deadline() {
    let app = app().await;
    let host = HostileSite::start().await;
    host.route("/", Behaviour::Stall);
    let origin = host.url("/").trim_end_matches('/').to_string();
    let site = verified_site(&app.store, "acme", &origin).await;
    let clock = Arc::new(ManualClock::at(sitescan_store::time::now_us()));
    let m = recurring::add_monitor(&app.store, "acme", &site.id.to_string(), 60, clock.now_us()).await.unwrap();
    // The fetcher's own timeout is far longer; the probe's deadline ends it.
    let r = runner(&app.store, clock, Duration::from_secs(2));
    assert_eq!(r.run_once().await.unwrap(), [Probe::Recorded { monitor_id: m.id }]);
    let stored = app.store.monitor("acme", m.id).await.unwrap().unwrap();
    let state: ProbeState = serde_json::from_str(&stored.last_state.unwrap()).unwrap();
    assert_eq!(state.status, "error: deadline", "{state:?}");
    assert_eq!((state.robots_txt.as_str(), state.sitemap.as_str()), ("error: deadline", "error: deadline"), "nothing more was requested");
    assert_eq!(host.hit_count("/robots.txt"), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_tenants_many_stalled_probes_do_not_starve_another_tenants_monitor() {
    let app = app().await;
    let stalled = HostileSite::start().await;
    stalled.route("/", Behaviour::Stall);
    let quick = FixtureSite::start().await;
    quick.route("/", Route::html("<!doctype html><html lang=en><title>Quick</title><h1>Quick</h1>"));
    let slow_site = verified_site(&app.store, "slowco", stalled.url("/").trim_end_matches('/')).await;
    let quick_site = verified_site(&app.store, "quickco", &quick.origin()).await;
    let clock = Arc::new(ManualClock::at(sitescan_store::time::now_us()));
    // Sixteen monitors on one site, from before the caps (seeded past them): they keep working.
    let mut slow_ids = Vec::new();
    for i in 0..16 {
        let row = app.store.add_monitor("slowco", slow_site.id, 60, clock.now_us() - 60_000_000 + i, 1).await.unwrap();
        slow_ids.push(row.id);
    }
    // B's monitor is due last of all.
    let b = recurring::add_monitor(&app.store, "quickco", &quick_site.id.to_string(), 60, clock.now_us()).await.unwrap();
    let r = runner(&app.store, clock, Duration::from_secs(2));
    let probes = r.run_once().await.unwrap();
    assert_eq!(probes.len(), 17, "every due probe ran, the sixteen over the cap too: {probes:?}");
    assert!(probes.iter().all(|p| matches!(p, Probe::Recorded { .. })), "{probes:?}");
    // Before: the sixteen stalled probes took every slot and B waited for one to end. Now A has
    // its share of slots and B's probe ends first.
    assert_eq!(probes[0], Probe::Recorded { monitor_id: b.id }, "B was served first: {probes:?}");
    assert!(stalled.connections() >= PROBES_PER_ORG, "A's probes ran too");
}
