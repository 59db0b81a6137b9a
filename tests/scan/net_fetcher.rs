//! The guarded HTTP fetcher against fixture sites on loopback: redirects recorded and re-checked,
//! refused hops, size cap, compression, HEAD->GET fallback, timeouts.

use crate::fixture_site;

use fixture_site::{FixtureSite, Route};
use sitescan::model::AddressPolicy;
use sitescan::net::{DEFAULT_USER_AGENT, EgressGuard, FetchErrorKind, Fetcher, FetcherOptions};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

fn guard() -> Arc<EgressGuard> {
    let mut hosts = HashMap::new();
    hosts.insert("good.test".to_string(), vec!["127.0.0.1".parse().unwrap()]);
    hosts.insert("evil.test".to_string(), vec!["127.0.0.2".parse().unwrap()]);
    Arc::new(EgressGuard::new(AddressPolicy::new(vec!["127.0.0.1/32".parse().unwrap()])).with_host_overrides(hosts))
}

fn fetcher() -> Fetcher {
    Fetcher::new(guard(), FetcherOptions::default()).unwrap()
}

#[tokio::test]
async fn follows_and_records_redirects() {
    let site = FixtureSite::start().await;
    site.route("/a", Route::redirect(301, "/b"));
    site.route("/b", Route::redirect(302, &site.url("/c")));
    site.route("/c", Route::typed("text/plain", "done").header("x-robots-tag", "noindex"));
    let r = fetcher().get(&site.url("/a")).await;
    assert_eq!(r.error, None);
    assert_eq!(r.status, Some(200));
    assert_eq!(r.final_url, site.url("/c"));
    assert_eq!(r.text(), "done");
    assert_eq!(r.redirects.len(), 2);
    assert_eq!((r.redirects[0].url.as_str(), r.redirects[0].status), (site.url("/a").as_str(), 301));
    assert_eq!(r.redirects[0].location.as_deref(), Some("/b"));
    assert_eq!((r.redirects[1].url.as_str(), r.redirects[1].status), (site.url("/b").as_str(), 302));
    assert_eq!(r.header("x-robots-tag"), Some("noindex"));
    let ua = site.hits()[0].headers.iter().find(|(k, _)| k == "user-agent").map(|(_, v)| v.clone());
    assert_eq!(ua.as_deref(), Some(DEFAULT_USER_AGENT));
    assert!(DEFAULT_USER_AGENT.starts_with("sitescan/"));
}

#[tokio::test]
async fn a_redirect_into_a_blocked_range_is_refused_and_never_connects() {
    let site = FixtureSite::start().await;
    let evil = FixtureSite::start_on("127.0.0.2").await;
    evil.route("/", Route::html("secret"));
    site.route("/to-literal", Route::redirect(302, &evil.url("/")));
    site.route("/to-name", Route::redirect(307, &format!("http://evil.test:{}/", evil.port())));
    for path in ["/to-literal", "/to-name"] {
        let r = fetcher().get(&site.url(path)).await;
        let err = r.error.clone().expect("refused");
        assert_eq!(err.kind, FetchErrorKind::Blocked, "{path}: {err:?}");
        // A literal is echoed; a name says what it resolves to, never the address.
        let said = if path == "/to-literal" { "127.0.0.2 is a loopback address" } else { "evil.test resolves to a loopback address" };
        assert!(err.message.contains(said), "{}", err.message);
        assert!(path == "/to-literal" || !err.message.contains("127.0.0.2"), "{}", err.message);
        assert_eq!(r.status, None);
        assert_eq!(r.redirects.len(), 1, "the hop that led there is recorded");
        assert!(r.body.is_empty());
    }
    let st = fetcher().status(&site.url("/to-name")).await;
    assert!(st.error.as_deref().unwrap_or("").starts_with("blocked:"), "{st:?}");
    assert_eq!(evil.connections(), 0, "nothing may reach 127.0.0.2");
}

#[tokio::test]
async fn names_go_through_the_guarded_resolver() {
    let site = FixtureSite::start().await;
    site.route("/", Route::html("ok"));
    let r = fetcher().get(&format!("http://good.test:{}/", site.port())).await;
    assert_eq!((r.status, r.error), (Some(200), None));
    let host = site.hits()[0].headers.iter().find(|(k, _)| k == "host").map(|(_, v)| v.clone());
    assert_eq!(host, Some(format!("good.test:{}", site.port())));
    // A literal in a blocked range is refused before any request.
    let r = fetcher().get("http://10.0.0.1/").await;
    assert_eq!(r.error.unwrap().kind, FetchErrorKind::Blocked);
}

#[tokio::test]
async fn body_is_capped_and_marked_truncated() {
    let site = FixtureSite::start().await;
    site.route("/big", Route::typed("application/octet-stream", vec![b'x'; 100_000]));
    let f = Fetcher::new(guard(), FetcherOptions { max_bytes: 10_240, ..FetcherOptions::default() }).unwrap();
    let r = f.get(&site.url("/big")).await;
    assert_eq!(r.status, Some(200));
    assert!(r.truncated);
    assert_eq!(r.body.len(), 10_240);
    assert_eq!(r.error.unwrap().kind, FetchErrorKind::TooLarge);
}

#[tokio::test]
async fn gzip_bodies_are_decoded() {
    let site = FixtureSite::start().await;
    let text = "User-agent: *\nDisallow: /private\n".repeat(50);
    site.route("/robots.txt", Route::typed("text/plain", text.clone()).gzip(true));
    let r = fetcher().get(&site.url("/robots.txt")).await;
    assert_eq!(r.error, None);
    assert_eq!(r.text(), text);
    let accept = site.hits()[0].headers.iter().find(|(k, _)| k == "accept-encoding").map(|(_, v)| v.clone()).unwrap();
    assert!(accept.contains("gzip") && accept.contains("br"), "{accept}");
}

#[tokio::test]
async fn status_falls_back_from_head_to_get() {
    let site = FixtureSite::start().await;
    site.route_method("HEAD", "/page", Route::new(405));
    site.route("/page", Route::html("hi").header("x-robots-tag", "noindex, nofollow"));
    site.route("/plain", Route::html("hi"));
    let st = fetcher().status(&site.url("/page")).await;
    assert_eq!(st.status, Some(200));
    assert_eq!(st.x_robots_tag.as_deref(), Some("noindex, nofollow"));
    assert_eq!(st.content_type.as_deref(), Some("text/html; charset=utf-8"));
    let methods: Vec<String> = site.hits().iter().map(|h| h.method.clone()).collect();
    assert_eq!(methods, ["HEAD", "GET"]);
    // A HEAD that works is not repeated.
    let st = fetcher().status(&site.url("/plain")).await;
    assert!(st.is_success());
    assert_eq!(site.hit_count("/plain"), 1);
}

#[tokio::test]
async fn status_records_redirects_and_404() {
    let site = FixtureSite::start().await;
    site.route("/old", Route::redirect(308, "/gone"));
    let st = fetcher().status(&site.url("/old")).await;
    assert_eq!(st.status, Some(404));
    assert_eq!(st.final_url, Some(site.url("/gone")));
    assert_eq!(st.redirects.len(), 1);
    assert_eq!(st.redirects[0].status, 308);
    assert_eq!(st.error, None);
}

#[tokio::test]
async fn redirect_loops_stop_after_ten_hops() {
    let site = FixtureSite::start().await;
    site.route("/loop", Route::redirect(302, "/loop"));
    let r = fetcher().get(&site.url("/loop")).await;
    assert_eq!(r.error.unwrap().kind, FetchErrorKind::TooManyRedirects);
    assert_eq!(r.redirects.len(), 11);
    assert_eq!(site.hit_count("/loop"), 11);
}

#[tokio::test]
async fn slow_answers_time_out() {
    let site = FixtureSite::start().await;
    site.route("/slow", Route::html("late").delay(Duration::from_secs(3)));
    let f = Fetcher::new(guard(), FetcherOptions { timeout: Duration::from_millis(400), ..FetcherOptions::default() }).unwrap();
    let started = std::time::Instant::now();
    let r = f.get(&site.url("/slow")).await;
    assert_eq!(r.error.unwrap().kind, FetchErrorKind::Timeout);
    assert!(started.elapsed() < Duration::from_secs(2));
    let st = f.status(&site.url("/slow")).await;
    assert!(st.error.unwrap().starts_with("timeout:"));
}

#[tokio::test]
async fn connection_refused_is_data() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let r = fetcher().get(&format!("http://127.0.0.1:{port}/")).await;
    assert_eq!(r.error.unwrap().kind, FetchErrorKind::Network);
}
