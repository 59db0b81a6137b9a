//! Strangers leave no state behind: 2,000 unauthenticated requests to unknown gRPC methods (over
//! HTTP/2 and gRPC-Web), with unknown HTTP methods and to unknown REST paths, each with a random
//! bearer token, against a real `sitescan serve`, and `/metrics` stays the size it was, with none
//! of their names in a label. And a gRPC message over the 4 MiB limit is refused cleanly.

use crate::login::serve;
use futures::StreamExt;
use sitescan::proto::v1 as pb;
use sitescan::proto::v1::scan_service_client::ScanServiceClient;
use std::time::Duration;
use tonic::Code;

async fn metrics(http: &reqwest::Client, base: &str) -> String {
    let r = http.get(format!("{base}/metrics")).send().await.expect("GET /metrics");
    assert_eq!(r.status(), 200);
    r.text().await.unwrap()
}

/// The sum of the samples of `metric` whose labels contain `label`.
fn total(text: &str, metric: &str, label: &str) -> f64 {
    text.lines()
        .filter(|l| l.starts_with(&format!("{metric}{{")) && l.contains(label))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

fn random_bearer() -> String {
    format!("Bearer sitescan_{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple())
}

/// One request of the flood; `marker` is in every name the attacker chooses.
async fn one(http: reqwest::Client, grpc: tonic::transport::Channel, base: String, marker: String, i: usize) {
    match i % 4 {
        // gRPC over HTTP/2 to a method ScanService does not have.
        0 => {
            let mut client = tonic::client::Grpc::new(grpc);
            client.ready().await.expect("gRPC channel ready");
            let path = axum::http::uri::PathAndQuery::try_from(format!("/sitescan.v1.ScanService/x{marker}{i}")).unwrap();
            let mut req = tonic::Request::new(());
            req.metadata_mut().insert("authorization", random_bearer().parse().unwrap());
            let r = client.unary::<(), (), _>(req, path, tonic_prost::ProstCodec::default()).await;
            assert_eq!(r.expect_err("no such method").code(), Code::Unimplemented);
        }
        // gRPC-Web over HTTP/1.1 to a method OwnerService does not have.
        1 => {
            let r = http
                .post(format!("{base}/sitescan.v1.OwnerService/y{marker}{i}"))
                .header("content-type", "application/grpc-web+proto")
                .header("x-grpc-web", "1")
                .header("authorization", random_bearer())
                .body(vec![0u8, 0, 0, 0, 0])
                .send()
                .await
                .expect("gRPC-Web request");
            assert_eq!(r.headers().get("grpc-status").and_then(|v| v.to_str().ok()), Some("12"), "{:?}", r.headers());
        }
        // An extension method of the attacker's naming on a real route.
        2 => {
            let method = reqwest::Method::from_bytes(format!("M{}{i}", marker.to_uppercase()).as_bytes()).unwrap();
            let r = http.request(method, format!("{base}/api/v1/scans")).header("authorization", random_bearer()).send().await.expect("request");
            assert!(r.status().is_client_error(), "{}", r.status());
        }
        // An unknown REST path.
        _ => {
            let r = http.get(format!("{base}/api/v1/{marker}/{i}")).header("authorization", random_bearer()).send().await.expect("request");
            assert_eq!(r.status(), 404);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_thousand_unknown_requests_add_nothing_to_metrics() {
    let mut s = serve(&[], &[]).await;
    let http = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
    let grpc = tonic::transport::Endpoint::from_shared(s.base.clone()).unwrap().connect().await.expect("gRPC connects");
    let marker = format!("q{}", &uuid::Uuid::new_v4().simple().to_string()[..10]);
    // One of each first, so the series a stranger may legitimately touch (`other`, `unmatched`,
    // 404, 405, 12) exist before the baseline.
    for i in 0..4 {
        one(http.clone(), grpc.clone(), s.base.clone(), "warmup".into(), i).await;
    }
    metrics(&http, &s.base).await;
    let before = metrics(&http, &s.base).await;

    let n = 2000;
    futures::stream::iter(0..n)
        .map(|i| one(http.clone(), grpc.clone(), s.base.clone(), marker.clone(), i))
        .buffer_unordered(16)
        .collect::<Vec<()>>()
        .await;
    let after = metrics(&http, &s.base).await;

    // The flood was counted (so the size comparison means something) ...
    let grpc_other = total(&after, "sitescan_grpc_requests_total", r#"method="other""#) - total(&before, "sitescan_grpc_requests_total", r#"method="other""#);
    assert_eq!(grpc_other as usize, n / 2, "every unknown gRPC call is counted under `other`");
    let http_other = total(&after, "sitescan_http_requests_total", r#"method="other""#) - total(&before, "sitescan_http_requests_total", r#"method="other""#);
    assert_eq!(http_other as usize, n / 4, "every extension method is counted under `other`");
    // ... under labels of the server's own: no name the attacker chose, no new series.
    let marker_upper = marker.to_uppercase();
    let named = after.lines().find(|l| l.contains(&marker) || l.contains(&marker_upper));
    assert!(named.is_none(), "a metric carries the attacker's name: {named:?}");
    let series = |t: &str| t.lines().filter(|l| !l.starts_with('#')).count();
    assert_eq!(series(&after), series(&before), "no new series");
    let grown = after.len() as i64 - before.len() as i64;
    assert!(grown < 4096, "/metrics grew by {grown} bytes ({} -> {})", before.len(), after.len());
    eprintln!("flood: {n} requests, /metrics {} -> {} bytes", before.len(), after.len());
    s.server.stop(Duration::from_secs(10)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_grpc_message_is_refused_cleanly() {
    let mut s = serve(&[], &[]).await;
    let mut client = ScanServiceClient::connect(s.base.clone()).await.expect("gRPC connects");
    // Over the limit: refused before the call is authenticated or run.
    let big = pb::CreateScanRequest { target: "a".repeat(sitescan::api::router::MAX_GRPC_MESSAGE + 1024), level: None };
    let status = client.create_scan(big).await.expect_err("an oversized message is refused");
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert!(status.message().contains(&sitescan::api::router::MAX_GRPC_MESSAGE.to_string()), "names the limit: {status:?}");
    // Under it: decoded and answered by the service (no token: UNAUTHENTICATED).
    let under = pb::CreateScanRequest { target: "a".repeat(sitescan::api::router::MAX_GRPC_MESSAGE - 1024), level: None };
    let status = client.create_scan(under).await.expect_err("no token");
    assert_eq!(status.code(), Code::Unauthenticated, "{status:?}");
    // The server lives on and answers.
    assert!(s.server.child.try_wait().unwrap().is_none(), "the server is still running");
    let r = reqwest::get(format!("{}/healthz", s.base)).await.unwrap();
    assert_eq!(r.status(), 200);
    s.server.stop(Duration::from_secs(10)).await;
}
