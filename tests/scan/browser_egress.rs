//! The egress guard holds for everything Chromium does: with only 127.0.0.1/32 allowed, a page on
//! 127.0.0.1 that loads an image, a script, a stylesheet over https, a fetch and a websocket from
//! 127.0.0.2 (by address and by a name that resolves there), and that follows a redirect to
//! 127.0.0.3, gets every one of them blocked and recorded in its snapshot, and nothing reaches the
//! listeners on 127.0.0.2 and 127.0.0.3.

use crate::fixture_site;

use fixture_site::{FixtureSite, Route, init_test_log};
use sitescan::browser::{BrowserOptions, BrowserPool, CaptureOptions};
use sitescan::model::AddressPolicy;
use sitescan::net::{EgressGuard, FetchErrorKind, Fetcher, FetcherOptions};
use std::collections::HashMap;
use std::sync::Arc;

#[tokio::test]
async fn every_browser_request_goes_through_the_guard() {
    init_test_log();
    let site = FixtureSite::start().await;
    let evil2 = FixtureSite::start_on("127.0.0.2").await;
    let evil3 = FixtureSite::start_on("127.0.0.3").await;
    for evil in [&evil2, &evil3] {
        evil.route("/pixel.png", Route::typed("image/png", "x"));
        evil.route("/x.js", Route::typed("text/javascript", "window.stolen = 1"));
        evil.route("/landing", Route::html("<title>internal</title>"));
    }
    let (p2, p3, p1) = (evil2.port(), evil3.port(), site.port());
    let page = format!(
        r#"<!doctype html><title>egress</title>
<link rel="stylesheet" href="http://good.test:{p1}/ok.css">
<img id="lit" src="http://127.0.0.2:{p2}/pixel.png">
<img id="named" src="http://evil.test:{p2}/named.png">
<img id="tls" src="https://127.0.0.2:{p2}/secure.png">
<script src="http://127.0.0.2:{p2}/x.js"></script>
<a href="/go">a link that redirects</a>
<iframe src="/go"></iframe>
<script>
fetch('http://127.0.0.2:{p2}/api').catch(e => console.log('fetch failed'));
try {{ const ws = new WebSocket('ws://127.0.0.2:{p2}/ws'); ws.onerror = () => console.log('ws failed'); }} catch (e) {{}}
</script>"#
    );
    site.route("/", Route::html(page));
    site.route("/ok.css", Route::typed("text/css", "body{margin:0}"));
    site.route("/go", Route::redirect(302, &format!("http://127.0.0.3:{p3}/landing")));

    let mut hosts = HashMap::new();
    hosts.insert("evil.test".to_string(), vec!["127.0.0.2".parse().unwrap()]);
    hosts.insert("good.test".to_string(), vec!["127.0.0.1".parse().unwrap()]);
    let guard = Arc::new(EgressGuard::new(AddressPolicy::new(vec!["127.0.0.1/32".parse().unwrap()])).with_host_overrides(hosts));
    let options = BrowserOptions { capture: CaptureOptions { axe: false, keyboard_walk: false, ..CaptureOptions::default() }, ..BrowserOptions::default() };
    let pool = BrowserPool::start(options, guard.clone()).await.unwrap();
    let session = pool.session().await.unwrap();

    let snap = session.capture(&site.url("/")).await;
    assert_eq!((snap.status, snap.error.clone()), (Some(200), None));
    let find = |needle: &str| snap.requests.iter().find(|r| r.url.contains(needle)).unwrap_or_else(|| panic!("no request for {needle}: {:#?}", snap.requests));
    // The allowed name resolves through the guard (Chromium resolves nothing itself).
    let ok = find("good.test");
    assert_eq!((ok.status, ok.blocked_reason.clone()), (Some(200), None));
    for needle in [
        format!("127.0.0.2:{p2}/pixel.png"),
        format!("evil.test:{p2}/named.png"),
        format!("https://127.0.0.2:{p2}/secure.png"),
        format!("127.0.0.2:{p2}/x.js"),
        format!("127.0.0.2:{p2}/api"),
        format!("ws://127.0.0.2:{p2}/ws"),
        format!("127.0.0.3:{p3}/landing"),
    ] {
        let r = find(&needle);
        assert_eq!(r.blocked_reason.as_deref(), Some("egress"), "{needle}: {r:#?}");
        assert_eq!(r.status, None, "{needle}");
        assert!(r.failure.is_some(), "{needle}");
    }
    // The iframe's redirect hop itself was allowed and recorded.
    let hop = snap.requests.iter().find(|r| r.url == site.url("/go")).unwrap();
    assert_eq!(hop.status, Some(302));
    assert!(snap.dom.images.iter().filter(|i| i.url.as_deref().is_some_and(|u| u.contains("127.0.0.2") || u.contains("evil.test"))).all(|i| i.broken));

    // Capturing the redirecting link itself: the chain is recorded, the blocked hop is the error.
    let go = session.capture(&site.url("/go")).await;
    let err = go.error.clone().expect("blocked");
    assert_eq!(err.kind, "blocked", "{err:?}");
    assert!(err.message.contains("127.0.0.3"), "{}", err.message);
    assert_eq!(go.redirects.len(), 1);
    assert_eq!((go.redirects[0].status, go.redirects[0].location.clone()), (302, Some(format!("http://127.0.0.3:{p3}/landing"))));
    assert_eq!(go.final_url, format!("http://127.0.0.3:{p3}/landing"));
    assert_eq!(go.status, None);
    assert_eq!(go.dom.title, None, "the proxy's refusal page is not gathered");

    // A blocked address as the start URL.
    let direct = session.capture(&evil2.url("/landing")).await;
    assert_eq!(direct.error.map(|e| e.kind), Some("blocked".to_string()));
    let tls = session.capture(&format!("https://127.0.0.2:{p2}/")).await;
    assert_eq!(tls.error.map(|e| e.kind), Some("blocked".to_string()));

    // The fetcher refuses the same link.
    let fetcher = Fetcher::new(guard, FetcherOptions::default()).unwrap();
    let status = fetcher.status(&site.url("/go")).await;
    assert!(status.error.as_deref().unwrap_or("").starts_with("blocked:"), "{status:?}");
    assert_eq!(fetcher.get(&site.url("/go")).await.error.map(|e| e.kind), Some(FetchErrorKind::Blocked));

    session.close().await;
    let blocked = pool.proxy().blocked();
    assert!(blocked.iter().any(|b| b.host == "127.0.0.3"));
    assert!(blocked.iter().any(|b| b.host == "evil.test"));
    pool.shutdown().await;
    assert_eq!(evil2.connections(), 0, "nothing may reach 127.0.0.2");
    assert_eq!(evil3.connections(), 0, "nothing may reach 127.0.0.3");
}
