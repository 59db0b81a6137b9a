//! Ownership proof against fixture sites on loopback, with the real guarded fetcher, and a DNS
//! server of the test's own: hickory-server (the server of the project whose resolver the
//! product uses) with an in-memory zone, on UDP at 127.0.0.1.

use crate::fixture_site::{FixtureSite, Route, init_test_log};
use hickory_server::ServerFuture;
use hickory_server::authority::{Catalog, ZoneType};
use hickory_server::proto::rr::rdata::{SOA, TXT};
use hickory_server::proto::rr::{LowerName, Name, RData, Record};
use hickory_server::store::in_memory::InMemoryAuthority;
use sitescan::model::AddressPolicy;
use sitescan::net::{EgressGuard, Fetcher, FetcherOptions};
use sitescan::sites::{DnsServer, MethodFailure, OwnershipMethod, VerifyError, Verifier};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use url::Url;

const TOKEN: &str = "Zq3x_7VbT0kLmN9pQrStUvWxYz012345";
const OTHER: &str = "wrongwrongwrongwrongwrongwrong00";

fn verifier(dns: DnsServer, overrides: &[(&str, &str)]) -> Verifier {
    let map: HashMap<String, Vec<std::net::IpAddr>> =
        overrides.iter().map(|(h, ip)| (h.to_string(), vec![ip.parse().expect("ip")])).collect();
    let guard = EgressGuard::new(AddressPolicy::new(vec!["127.0.0.0/8".parse().expect("net")])).with_host_overrides(map);
    let fetcher = Fetcher::new(Arc::new(guard), FetcherOptions::default()).expect("fetcher");
    Verifier::new(Arc::new(fetcher), dns)
}

fn url(s: &str) -> Url {
    Url::parse(s).expect("url")
}

fn failure(err: &VerifyError, method: OwnershipMethod) -> MethodFailure {
    match err {
        VerifyError::Unverified { failures, .. } => {
            failures.iter().find(|(m, _)| *m == method).map(|(_, f)| f.clone()).expect("every method is reported")
        }
        other => panic!("expected Unverified, got {other}"),
    }
}

#[tokio::test]
async fn the_well_known_file_proves_ownership_and_a_wrong_token_does_not() {
    init_test_log();
    let site = FixtureSite::start().await;
    site.route("/", Route::html("<!doctype html><title>Shop</title>"));
    site.route("/.well-known/sitescan-verification.txt", Route::typed("text/plain", format!("{TOKEN}\n")));
    let v = verifier(DnsServer::System, &[]);
    let ok = v.verify(&url(&site.url("/")), TOKEN).await.expect("verified");
    assert_eq!(ok.method, OwnershipMethod::File);
    assert!(site.hits().iter().any(|h| h.path.starts_with("/.well-known/sitescan-") && h.path != "/.well-known/sitescan-verification.txt"), "the soft-404 guard asked for a random path");

    let err = v.verify(&url(&site.url("/")), OTHER).await.expect_err("wrong token");
    assert!(matches!(failure(&err, OwnershipMethod::File), MethodFailure::TokenAbsent { .. }), "{err}");
    assert!(matches!(failure(&err, OwnershipMethod::Meta), MethodFailure::MetaAbsent { .. }), "{err}");
    assert!(matches!(failure(&err, OwnershipMethod::Dns), MethodFailure::NoHostName { .. }), "{err}");
    let text = err.to_string();
    assert!(text.contains("well-known file") && text.contains("meta") && text.contains("DNS TXT"), "{text}");
}

#[tokio::test]
async fn a_soft_404_site_does_not_prove_ownership_by_file() {
    init_test_log();
    let site = FixtureSite::start().await;
    // Every path answers 200 with the same body, the token included.
    site.route("*", Route::typed("text/plain", format!("{TOKEN}\n")));
    let err = verifier(DnsServer::System, &[]).verify(&url(&site.url("/")), TOKEN).await.expect_err("soft 404");
    assert!(matches!(failure(&err, OwnershipMethod::File), MethodFailure::SoftNotFound { .. }), "{err}");
}

#[tokio::test]
async fn the_meta_tag_proves_ownership_only_in_the_head() {
    init_test_log();
    let site = FixtureSite::start().await;
    site.route("/", Route::html(format!("<!doctype html><html><head><title>Shop</title><meta name=\"sitescan-verification\" content=\"{TOKEN}\"></head><body>Hi</body></html>")));
    let v = verifier(DnsServer::System, &[]);
    let ok = v.verify(&url(&site.url("/")), TOKEN).await.expect("verified");
    assert_eq!(ok.method, OwnershipMethod::Meta);
    assert!(v.verify(&url(&site.url("/")), OTHER).await.is_err());

    // In the body (where user content lives), it proves nothing.
    site.route("/", Route::html(format!("<!doctype html><html><head><title>Shop</title></head><body><p>x</p><meta name=\"sitescan-verification\" content=\"{TOKEN}\"></body></html>")));
    let err = v.verify(&url(&site.url("/")), TOKEN).await.expect_err("meta in body");
    assert!(matches!(failure(&err, OwnershipMethod::Meta), MethodFailure::MetaAbsent { .. }), "{err}");
}

#[tokio::test]
async fn redirects_off_the_sites_host_are_refused() {
    init_test_log();
    let elsewhere = FixtureSite::start_on("127.0.0.2").await;
    elsewhere.route("/", Route::html(format!("<html><head><meta name=\"sitescan-verification\" content=\"{TOKEN}\"></head></html>")));
    elsewhere.route("/.well-known/sitescan-verification.txt", Route::typed("text/plain", TOKEN));
    let site = FixtureSite::start().await;
    site.route("/", Route::redirect(302, &elsewhere.url("/")));
    site.route("/.well-known/sitescan-verification.txt", Route::redirect(301, &elsewhere.url("/.well-known/sitescan-verification.txt")));
    let v = verifier(DnsServer::System, &[]);
    let err = v.verify(&url(&site.url("/")), TOKEN).await.expect_err("off-domain redirect");
    assert!(matches!(failure(&err, OwnershipMethod::File), MethodFailure::OffHostRedirect { .. }), "{err}");
    assert!(matches!(failure(&err, OwnershipMethod::Meta), MethodFailure::OffHostRedirect { .. }), "{err}");

    // Redirects on the same domain (here the same address) are followed.
    site.route("/", Route::redirect(302, "/home"));
    site.route("/home", Route::html(format!("<html><head><meta name=\"sitescan-verification\" content=\"{TOKEN}\"></head></html>")));
    assert_eq!(v.verify(&url(&site.url("/")), TOKEN).await.expect("same-site redirect").method, OwnershipMethod::Meta);

    // More than five hops are refused.
    for i in 0..7 {
        site.route(&format!("/r{i}"), Route::redirect(302, &format!("/r{}", i + 1)));
    }
    site.route("/r7", Route::html(format!("<html><head><meta name=\"sitescan-verification\" content=\"{TOKEN}\"></head></html>")));
    let err = v.verify(&url(&site.url("/r0")), TOKEN).await.expect_err("too many redirects");
    assert!(matches!(failure(&err, OwnershipMethod::Meta), MethodFailure::TooManyRedirects { .. }), "{err}");
}

/// The zone the test DNS server is authoritative for.
const ZONE: &str = "example.test.";

/// A DNS server on 127.0.0.1 (UDP), authoritative for `example.test.`, with one TXT record per
/// value of `txt` on `name` (a name of that zone); other names of the zone do not exist
/// (NXDOMAIN). Returns its address; it stops when the test's runtime does.
async fn dns_server(name: &str, txt: Vec<String>) -> SocketAddr {
    let origin = Name::from_ascii(ZONE).expect("zone");
    let owner = Name::from_ascii(name).expect("name");
    assert!(origin.zone_of(&owner), "{name} is not in {ZONE}");
    let mut zone = InMemoryAuthority::empty(origin.clone(), ZoneType::Primary, false);
    let soa = SOA::new(Name::from_ascii("ns.example.test.").expect("ns"), Name::from_ascii("hostmaster.example.test.").expect("rname"), 1, 3600, 600, 86_400, 60);
    assert!(zone.upsert_mut(Record::from_rdata(origin.clone(), 60, RData::SOA(soa)), 1), "SOA");
    // One record per value, as zone files publish them.
    for value in txt {
        assert!(zone.upsert_mut(Record::from_rdata(owner.clone(), 60, RData::TXT(TXT::new(vec![value]))), 1), "TXT");
    }
    let mut catalog = Catalog::new();
    catalog.upsert(LowerName::new(&origin), vec![Arc::new(zone)]);
    let socket = tokio::net::UdpSocket::bind("127.0.0.1:0").await.expect("bind dns");
    let addr = socket.local_addr().expect("dns addr");
    let mut server = ServerFuture::new(catalog);
    server.register_socket(socket);
    tokio::spawn(async move {
        let _ = server.block_until_done().await;
    });
    addr
}

#[tokio::test]
async fn a_dns_txt_record_proves_ownership_and_a_wrong_one_does_not() {
    init_test_log();
    // The host resolves (for HTTP) to a site that offers no file and no meta tag.
    let site = FixtureSite::start().await;
    site.route("/", Route::html("<!doctype html><title>Shop</title>"));
    let start = url(&format!("http://shop.example.test:{}/", site.port()));
    let overrides = [("shop.example.test", "127.0.0.1")];

    let good = dns_server("shop.example.test.", vec!["v=spf1 -all".into(), format!("sitescan-verification={TOKEN}")]).await;
    let ok = verifier(DnsServer::At(good), &overrides).verify(&start, TOKEN).await.expect("verified by DNS");
    assert_eq!(ok.method, OwnershipMethod::Dns);
    assert_eq!(ok.proof, "shop.example.test");

    let err = verifier(DnsServer::At(good), &overrides).verify(&start, OTHER).await.expect_err("wrong token");
    assert!(matches!(failure(&err, OwnershipMethod::Dns), MethodFailure::DnsTokenAbsent { .. }), "{err}");

    // A record on another name proves nothing for this one.
    let other = dns_server("other.example.test.", vec![format!("sitescan-verification={TOKEN}")]).await;
    let err = verifier(DnsServer::At(other), &overrides).verify(&start, TOKEN).await.expect_err("other name");
    assert!(matches!(failure(&err, OwnershipMethod::Dns), MethodFailure::DnsTokenAbsent { .. }), "{err}");
}

#[tokio::test]
async fn a_malformed_token_is_refused_before_any_request() {
    let site = FixtureSite::start().await;
    let err = verifier(DnsServer::System, &[]).verify(&url(&site.url("/")), "short").await.expect_err("bad token");
    assert_eq!(err, VerifyError::InvalidToken);
    assert!(site.hits().is_empty());
}

/// Runs queued scans with workers that prove ownership again right before each active scan.
async fn reverifying_workers(app: &crate::app::TestApp) -> sitescan::crawl::Workers {
    use sitescan::cli::args::BrowserArgs;
    use sitescan::crawl::{ScanOptions, WorkerConfig, Workers, worker::Ownership};
    let browser = BrowserArgs { browsers: 1, pages_per_browser: 2, cdp: vec![], chromium: None, proxy_listen: "127.0.0.1:0".parse().unwrap(), no_share: false, no_cache: false, ocr: false, no_ocr: false, chromium_no_sandbox: false };
    let policy = AddressPolicy::new(vec!["127.0.0.0/8".parse().unwrap()]);
    let scanner = sitescan::cli::engine::scanner(&browser, policy.clone()).await.expect("start the browser pool");
    let config = WorkerConfig {
        lease: std::time::Duration::from_secs(30),
        max_attempts: 3,
        poll: std::time::Duration::from_millis(100),
        options: ScanOptions { max_pages: 2, ..ScanOptions::default() },
        ownership: Ownership::Reverify(crate::app::site_service(&app.store, policy, None)),
        max_running_per_org: sitescan::crawl::DEFAULT_MAX_RUNNING_PER_ORG,
        page_sharing: false,
    };
    Workers::spawn(app.store.clone(), scanner, 1, config)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ownership_removed_between_queueing_and_running_fails_the_active_scan() {
    init_test_log();
    let app = crate::app::spawn_app_with(crate::app::AppOptions::default().allow_target("127.0.0.0/8")).await;
    let site = FixtureSite::start().await;
    site.route("/", Route::html("<!doctype html><html lang=en><title>Shop</title><h1>Shop</h1>"));
    let sites = crate::app::site_service(&app.store, AddressPolicy::new(vec!["127.0.0.0/8".parse().unwrap()]), None);
    let row = sites.add(sitescan::model::OrgId::new("acme"), &site.url("/"), "test").await.expect("add");
    site.route("/.well-known/sitescan-verification.txt", Route::typed("text/plain", row.verification_token.clone()));
    let start = sitescan::sites::StartActive {
        org: sitescan::model::OrgId::new("acme"),
        site_id: row.id,
        attestation: sitescan::model::Attestation::confirm(
            &row.origin,
            sitescan::model::Confirmation::Ticked(true),
            sitescan::model::Attester { actor: "user:test".into(), client_addr: Some("127.0.0.1".into()) },
        )
        .expect("confirmed"),
        triggered_by: sitescan::model::TriggeredBy::Manual,
        max_pages: Some(2),
    };
    let scan = sites.start_active_scan(start).await.expect("queued while verified");
    app.store
        .add_webhook(uuid::Uuid::now_v7(), "acme", "https://hooks.acme.test/x", &["site.ownership_lost".to_string()], None, "x1:sealed", 1)
        .await
        .expect("an endpoint that hears site.ownership_lost");
    // The owner takes the proof down before any worker runs the scan.
    site.route("/.well-known/sitescan-verification.txt", Route::new(404));
    let workers = reverifying_workers(&app).await;
    let token = app.token("acme").await;
    let started = std::time::Instant::now();
    let body = loop {
        let resp = app.get(&format!("/api/v1/scans/{}", scan.id), &token).await;
        let status = resp.json["scan"]["status"].as_str().unwrap_or_default().to_string();
        if status == "failed" || status == "completed" {
            break resp.json.clone();
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(60), "scan never ended: {:#}", resp.json);
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    };
    workers.shutdown().await;
    assert_eq!(body["scan"]["status"], "failed", "{body:#}");
    assert_eq!(body["report"]["summary"]["error"]["code"], "ownership_unverified", "{body:#}");
    assert_eq!(site.hit_count("/"), 1, "only the meta-tag check asked for the start page: nothing was scanned");
    let after = app.store.site("acme", row.id).await.expect("read").expect("site");
    assert!(!after.verified(), "the site shows as unverified");
    assert!(after.last_error.is_some());
    let claimed = app.store.claim_webhooks("test", i64::MAX / 2, 60_000_000, 10).await.expect("outbox");
    assert_eq!(claimed.iter().map(|m| m.event_type.as_str()).collect::<Vec<_>>(), ["site.ownership_lost"]);
    assert!(claimed[0].payload.contains(&row.id.to_string()), "{}", claimed[0].payload);
    crate::app::contract::check_webhook(&serde_json::from_str(&claimed[0].payload).unwrap());
}
