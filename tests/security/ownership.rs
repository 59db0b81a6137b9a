//! Ownership holds for the whole active scan. One host name, two machines on one port: the
//! owner's (127.0.0.1) and a victim's (127.0.0.2). Ownership is proved while the name resolves
//! to the owner's; then the name is rebound to the victim's. The repository probes and the
//! journeys of the active scan still reach only the owner's machine (the addresses the proof
//! connected to), ownership is proved again there right before the probes, and a proof that no
//! longer holds stops the scan before any probe. A redirect to a sibling subdomain proves nothing.

use crate::engine::EngineSpec;
use crate::fixture_site::{FixtureSite, Route, init_test_log};
use sitescan::model::{AddressPolicy, JourneySecrets, JourneySpec, parse_journey};
use sitescan::net::{EgressGuard, Fetcher, FetcherOptions};
use sitescan::crawl::{OwnershipPin, OwnershipRecheck, ScanError, ScanOptions};
use sitescan::sites::{DnsServer, MethodFailure, OwnershipMethod, VerifyError, Verifier};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use url::Url;

const TOKEN: &str = "Pinned_Ownership_Token_0123456789";
const HOST: &str = "shop.example.test";

/// The owner's machine and the victim's, on the same port.
async fn owner_and_victim() -> (FixtureSite, FixtureSite) {
    for _ in 0..20 {
        let owner = FixtureSite::start_on("127.0.0.1").await;
        if let Some(victim) = FixtureSite::try_start_at("127.0.0.2", owner.port()).await {
            return (owner, victim);
        }
    }
    panic!("no port free on both 127.0.0.1 and 127.0.0.2");
}

/// Both machines serve a site; only the victim's has a repository exposed.
fn serve(owner: &FixtureSite, victim: &FixtureSite) {
    for site in [owner, victim] {
        site.route("/", Route::html("<!doctype html><html lang=en><head><title>Shop</title></head><body><main><h1>Shop</h1><a href=\"/account\">Account</a></main></body></html>"));
        // Linked from nowhere: only the journey asks for it.
        site.route("/members", Route::html("<!doctype html><html lang=en><head><title>Members</title></head><body><main><h1>Members</h1></main></body></html>"));
    }
    owner.route("/.well-known/sitescan-verification.txt", Route::typed("text/plain", format!("{TOKEN}\n")));
    victim.route("/.git/HEAD", Route::typed("text/plain", "ref: refs/heads/main\n"));
    victim.route("/.git/config", Route::typed("text/plain", "[core]\n\trepositoryformatversion = 0\n"));
    victim.route("/.env", Route::typed("text/plain", "DATABASE_PASSWORD=victim\n"));
}

fn verifier(resolves_to: &str) -> Verifier {
    let overrides: HashMap<String, Vec<IpAddr>> = [(HOST.to_string(), vec![resolves_to.parse().unwrap()])].into_iter().collect();
    let guard = EgressGuard::new(AddressPolicy::new(vec!["127.0.0.0/8".parse().unwrap()])).with_host_overrides(overrides);
    Verifier::new(Arc::new(Fetcher::new(Arc::new(guard), FetcherOptions::default()).unwrap()), DnsServer::System)
}

/// Proves ownership again with the real verifier (whatever DNS says: only at `addrs`).
struct Recheck {
    verifier: Verifier,
    start: Url,
}

#[async_trait::async_trait]
impl OwnershipRecheck for Recheck {
    async fn recheck(&self, addrs: &[IpAddr]) -> Result<(), String> {
        self.verifier.verify_at(&self.start, TOKEN, addrs).await.map(|_| ()).map_err(|e| e.to_string())
    }
}

fn dotted_hits(site: &FixtureSite) -> Vec<String> {
    site.hits().into_iter().filter(|h| h.path.starts_with("/.") && !h.path.starts_with("/.well-known/")).map(|h| h.path).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_dns_rebinding_the_probes_and_journeys_reach_only_the_proved_machine() {
    init_test_log();
    let (owner, victim) = owner_and_victim().await;
    serve(&owner, &victim);
    let start = Url::parse(&format!("http://{HOST}:{}/", owner.port())).unwrap();

    // The proof, while the name resolves to the owner's machine.
    let proved = verifier("127.0.0.1").verify(&start, TOKEN).await.expect("ownership proved");
    assert_eq!(proved.addresses, vec!["127.0.0.1".parse::<IpAddr>().unwrap()], "the proof says where it connected");

    // Rebound: from now on the name resolves to the victim's machine.
    let spec = EngineSpec { allow: vec!["127.0.0.0/8"], overrides: vec![(HOST, "127.0.0.2")], ..EngineSpec::default() };
    let scanner = spec.scanner().await;
    let journey = parse_journey(r#"{"name": "account", "steps": [{"navigate": "/members"}, {"assert": {"text": "Members"}}]}"#).unwrap();
    let pin = OwnershipPin { host: HOST.into(), addrs: proved.addresses.clone(), recheck: Arc::new(Recheck { verifier: verifier("127.0.0.2"), start: start.clone() }) };
    let options = ScanOptions {
        max_pages: 1,
        max_depth: 0,
        active: true,
        probe_budget: 30,
        journeys: vec![JourneySpec::new(journey, JourneySecrets::new()).unwrap()],
        pin: Some(pin.clone()),
        ..ScanOptions::default()
    };
    let mut sink = crate::sink::Collect::default();
    scanner.run(&start, &options, &mut sink, None, CancellationToken::new()).await.expect("the active scan runs");

    assert!(victim.hit_count("/") >= 1, "the rebinding is real: the passive crawl went to the victim's machine");
    assert!(dotted_hits(&victim).is_empty(), "a probe reached the victim's machine: {:?}", dotted_hits(&victim));
    assert_eq!(victim.hit_count("/members"), 0, "the journey reached the victim's machine");
    assert!(!dotted_hits(&owner).is_empty(), "the probes ran, at the proved machine");
    assert_eq!(owner.hit_count("/members"), 1, "the journey ran, at the proved machine");
    assert!(owner.hit_count("/.well-known/sitescan-verification.txt") >= 2, "ownership was proved again before the probes");
    assert!(!sink.findings.iter().any(|f| f.check_id.starts_with("repository.")), "nothing of the victim's is reported: {:?}", sink.findings.iter().map(|f| &f.check_id).collect::<Vec<_>>());
    assert!(!sink.findings.iter().any(|f| f.check_id.starts_with("journeys.step")), "the journey passed at the owner's machine");

    // Ownership gone by the time of the probes: the scan stops before any probe.
    owner.route("/.well-known/sitescan-verification.txt", Route::new(404));
    let probes_before = dotted_hits(&owner).len();
    let mut sink = crate::sink::Collect::default();
    let failed = scanner.run(&start, &ScanOptions { journeys: Vec::new(), ..options }, &mut sink, None, CancellationToken::new()).await;
    assert!(matches!(&failed, Err(ScanError::OwnershipUnverified(m)) if m.contains("before the repository probes")), "{:?}", failed.err());
    assert_eq!(dotted_hits(&owner).len(), probes_before, "no probe after the failed proof");
    assert!(dotted_hits(&victim).is_empty());
    scanner.pool().shutdown().await;
}

#[tokio::test]
async fn a_redirect_to_a_sibling_subdomain_proves_nothing() {
    init_test_log();
    let site = FixtureSite::start().await;
    let port = site.port();
    // www.example.test and attacker.example.test are one machine here; the attacker controls
    // what attacker.example.test serves, and www redirects there.
    let overrides: HashMap<String, Vec<IpAddr>> =
        ["www.example.test", "attacker.example.test"].iter().map(|h| (h.to_string(), vec!["127.0.0.1".parse().unwrap()])).collect();
    let guard = EgressGuard::new(AddressPolicy::new(vec!["127.0.0.0/8".parse().unwrap()])).with_host_overrides(overrides);
    let v = Verifier::new(Arc::new(Fetcher::new(Arc::new(guard), FetcherOptions::default()).unwrap()), DnsServer::System);
    site.route("/.well-known/sitescan-verification.txt", Route::redirect(302, &format!("http://attacker.example.test:{port}/token.txt")));
    site.route("/", Route::redirect(302, &format!("http://attacker.example.test:{port}/meta.html")));
    site.route("/token.txt", Route::typed("text/plain", TOKEN));
    site.route("/meta.html", Route::html(format!("<html><head><meta name=\"sitescan-verification\" content=\"{TOKEN}\"></head></html>")));
    let start = Url::parse(&format!("http://www.example.test:{port}/")).unwrap();
    let err = v.verify(&start, TOKEN).await.expect_err("a sibling's answer proves nothing");
    let VerifyError::Unverified { failures, .. } = &err else { panic!("{err}") };
    for method in [OwnershipMethod::File, OwnershipMethod::Meta] {
        let f = failures.iter().find(|(m, _)| *m == method).map(|(_, f)| f.clone()).expect("reported");
        assert!(matches!(f, MethodFailure::OffHostRedirect { .. }), "{method:?}: {f}");
    }
    // The same host (here: the same origin) is followed.
    site.route("/", Route::redirect(302, "/meta.html"));
    assert_eq!(v.verify(&start, TOKEN).await.expect("same host").method, OwnershipMethod::Meta);
}
