//! The egress proxy on its own: allowed requests and tunnels go through, refused ones answer 403
//! with `x-sitescan-egress: blocked`, are recorded, and never reach the refused listener.

use crate::fixture_site;

use fixture_site::{FixtureSite, Route};
use sitescan::model::AddressPolicy;
use sitescan::net::{EGRESS_HEADER, EgressGuard, EgressProxy};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

async fn proxy() -> EgressProxy {
    let guard = Arc::new(EgressGuard::new(AddressPolicy::new(vec!["127.0.0.1/32".parse().unwrap()])));
    EgressProxy::start(guard, "127.0.0.1:0".parse().unwrap()).await.unwrap()
}

fn client(proxy: &EgressProxy) -> reqwest::Client {
    reqwest::Client::builder().proxy(reqwest::Proxy::http(proxy.proxy_server()).unwrap()).build().unwrap()
}

async fn raw(proxy: &EgressProxy, request: &str) -> (TcpStream, String) {
    let mut s = TcpStream::connect(proxy.addr()).await.unwrap();
    s.write_all(request.as_bytes()).await.unwrap();
    let mut buf = vec![0u8; 4096];
    let n = s.read(&mut buf).await.unwrap();
    (s, String::from_utf8_lossy(&buf[..n]).into_owned())
}

#[tokio::test]
async fn forwards_allowed_plain_http() {
    let site = FixtureSite::start().await;
    site.route("/x", Route::html("hello").header("set-cookie", "a=1; HttpOnly"));
    let p = proxy().await;
    let resp = client(&p).get(site.url("/x?q=1")).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers().get("set-cookie").unwrap(), "a=1; HttpOnly");
    assert_eq!(resp.text().await.unwrap(), "hello");
    assert_eq!(site.hits()[0].target, "/x?q=1", "origin-form upstream");
    assert!(p.blocked().is_empty());
}

#[tokio::test]
async fn refuses_plain_http_to_a_blocked_address() {
    let evil = FixtureSite::start_on("127.0.0.2").await;
    let p = proxy().await;
    let resp = client(&p).get(evil.url("/steal")).send().await.unwrap();
    assert_eq!(resp.status(), 403);
    assert_eq!(resp.headers().get(EGRESS_HEADER).unwrap(), "blocked");
    assert_eq!(evil.connections(), 0);
    let blocked = p.blocked();
    assert_eq!(blocked.len(), 1);
    assert_eq!(blocked[0].target, evil.url("/steal"));
    assert!(blocked[0].reason.contains("127.0.0.2"), "{}", blocked[0].reason);
    assert!(p.blocked_reason("127.0.0.2", evil.port()).is_some());
    assert!(p.blocked_reason("127.0.0.1", evil.port()).is_none());
}

#[tokio::test]
async fn tunnels_allowed_connect_and_refuses_blocked_connect() {
    let site = FixtureSite::start().await;
    site.route("/t", Route::html("through the tunnel"));
    let evil = FixtureSite::start_on("127.0.0.3").await;
    let p = proxy().await;

    let (_s, head) = raw(&p, &format!("CONNECT 127.0.0.3:{0} HTTP/1.1\r\nHost: 127.0.0.3:{0}\r\n\r\n", evil.port())).await;
    assert!(head.starts_with("HTTP/1.1 403"), "{head}");
    assert!(head.to_ascii_lowercase().contains("x-sitescan-egress: blocked"), "{head}");
    assert_eq!(evil.connections(), 0);
    assert!(p.blocked_reason("127.0.0.3", evil.port()).is_some());

    let (mut s, head) = raw(&p, &format!("CONNECT 127.0.0.1:{0} HTTP/1.1\r\nHost: 127.0.0.1:{0}\r\n\r\n", site.port())).await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    s.write_all(format!("GET /t HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n", site.port()).as_bytes()).await.unwrap();
    let mut body = String::new();
    s.read_to_string(&mut body).await.unwrap();
    assert!(body.starts_with("HTTP/1.1 200") && body.ends_with("through the tunnel"), "{body}");
}

#[tokio::test]
async fn shutdown_stops_listening() {
    let p = proxy().await;
    let addr = p.addr();
    p.shutdown().await;
    assert!(TcpStream::connect(addr).await.is_err());
}

#[tokio::test]
async fn the_deny_all_proxy_connects_nowhere() {
    let site = FixtureSite::start().await;
    site.route("/", Route::html("x"));
    let p = EgressProxy::start_deny_all("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let resp = client(&p).get(site.url("/")).send().await.unwrap();
    assert_eq!(resp.status(), 403);
    let (_s, head) = raw(&p, &format!("CONNECT 127.0.0.1:{0} HTTP/1.1\r\nHost: 127.0.0.1:{0}\r\n\r\n", site.port())).await;
    assert!(head.starts_with("HTTP/1.1 403"), "{head}");
    assert_eq!(site.connections(), 0);
}
