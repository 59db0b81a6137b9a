//! The same service over gRPC on the REST port: a real tonic client with `authorization` metadata
//! (CreateScan, ListScans, GetScan, ListFindings), status codes UNAUTHENTICATED,
//! PERMISSION_DENIED, NOT_FOUND, INVALID_ARGUMENT and RESOURCE_EXHAUSTED with the JSON error
//! object in the details, gRPC-Web over HTTP/1.1, gRPC health and reflection.

use crate::app;

use app::{AppOptions, TestApp, finding, spawn_app, spawn_app_with};
use prost::Message;
use serde_json::Value;
use sitescan::model::Severity;
use sitescan::proto::v1 as pb;
use sitescan::proto::v1::scan_service_client::ScanServiceClient;
use std::time::Duration;
use tonic::transport::Channel;
use tonic::{Code, Request, Status};

async fn client(app: &TestApp) -> ScanServiceClient<Channel> {
    ScanServiceClient::connect(app.base.clone()).await.expect("gRPC connects on the REST port")
}

fn authed<T>(message: T, token: &str) -> Request<T> {
    let mut req = Request::new(message);
    req.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    req
}

/// Asserts a status code and the JSON error object in its details; returns the object.
#[track_caller]
fn assert_status(result: Result<impl std::fmt::Debug, Status>, code: Code, error: &str) -> Value {
    let status = result.expect_err("the call must fail");
    assert_eq!(status.code(), code, "status: {status:?}");
    let details: Value = serde_json::from_slice(status.details())
        .unwrap_or_else(|e| panic!("details are not the JSON error object ({e}): {status:?}"));
    assert_eq!(details["error"], error, "details: {details}");
    details
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_calls_answer_like_rest() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let mut c = client(&app).await;
    let created = c.create_scan(authed(pb::CreateScanRequest { target: "Example.com".into(), level: None }, &token)).await.unwrap();
    for h in ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"] {
        assert!(created.metadata().get(h).is_some(), "gRPC response metadata lacks {h}");
    }
    let created = created.into_inner();
    uuid::Uuid::parse_str(&created.id).unwrap();
    assert_eq!(created.status(), pb::ScanStatus::Queued);
    assert_eq!(created.mode(), pb::ScanMode::Passive);
    assert_eq!(created.target, "https://example.com/");

    // The scan REST shows is the scan gRPC shows.
    let rest = app.get(&format!("/api/v1/scans/{}", created.id), &token).await;
    rest.expect(200);
    let got = c
        .get_scan(authed(pb::GetScanRequest { scan_id: created.id.clone(), include_findings: false }, &token))
        .await
        .unwrap()
        .into_inner();
    let scan = got.scan.unwrap();
    assert_eq!(scan.id, created.id);
    assert_eq!(scan.target_url, "https://example.com/");
    assert_eq!(scan.target_hostname, "example.com");
    assert_eq!(scan.status(), pb::ScanStatus::Queued);
    assert_eq!(scan.mode(), pb::ScanMode::Passive);
    assert_eq!(scan.triggered_by(), pb::TriggeredBy::Api);
    assert!(scan.started_at.is_none() && scan.completed_at.is_none());
    assert_eq!(scan.findings_count, Some(pb::SeverityCounts::default()));
    let created_at = scan.created_at.unwrap();
    let rest_created = app::rfc3339(&rest.json["scan"]["created_at"]);
    assert_eq!(created_at.seconds, rest_created.timestamp());
    assert_eq!(created_at.nanos as u32 / 1000, rest_created.timestamp_subsec_micros());
    assert!(got.report.is_none(), "no report while queued");

    // Another scan, then list with paging.
    c.create_scan(authed(pb::CreateScanRequest { target: "example.org".into(), level: None }, &token)).await.unwrap();
    let page = c
        .list_scans(authed(pb::ListScansRequest { limit: Some(1), cursor: None }, &token))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(page.scans.len(), 1);
    assert_eq!(page.scans[0].target_url, "https://example.org/", "newest first");
    let next = page.next_cursor.expect("a second page");
    let page2 = c
        .list_scans(authed(pb::ListScansRequest { limit: Some(1), cursor: Some(next) }, &token))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(page2.scans.len(), 1);
    assert_eq!(page2.scans[0].id, created.id);
    assert_eq!(page2.next_cursor, None, "unset on the last page");
    let all = c.list_scans(authed(pb::ListScansRequest::default(), &token)).await.unwrap().into_inner();
    assert_eq!(all.scans.len(), 2);

    // Findings.
    let scan_id: uuid::Uuid = created.id.parse().unwrap();
    let mut f = finding("runtime.mixed-content", Severity::High, "https://example.com/");
    f.cwe_id = Some("CWE-319".into());
    f.evidence.insert("count".into(), serde_json::json!(3));
    app.seed_findings(scan_id, "acme", &[f, finding("search.title-missing", Severity::Low, "https://example.com/")]).await;
    let findings = c
        .list_findings(authed(
            pb::ListFindingsRequest { severity: Some("high".into()), ..Default::default() },
            &token,
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(findings.findings.len(), 1);
    let f = &findings.findings[0];
    assert_eq!(f.check_id, "runtime.mixed-content");
    assert_eq!(f.severity(), pb::Severity::High);
    assert_eq!(f.scan_id, created.id);
    assert_eq!(f.cwe_id.as_deref(), Some("CWE-319"));
    let evidence = f.evidence.as_ref().unwrap();
    assert!(evidence.fields.contains_key("url") && evidence.fields.contains_key("count"));
    assert_eq!(findings.next_cursor, None);
    let everything = c.list_findings(authed(pb::ListFindingsRequest::default(), &token)).await.unwrap().into_inner();
    assert_eq!(everything.findings.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_status_codes_carry_the_error_object() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let (reader, _) = app.token_with("acme", &["scans:read"]).await;
    let (writer, _) = app.token_with("acme", &["scans:write"]).await;
    let other = app.token("globex").await;
    let mut c = client(&app).await;
    let theirs = c.create_scan(authed(pb::CreateScanRequest { target: "globex.com".into(), level: None }, &other)).await.unwrap();
    let theirs = theirs.into_inner().id;

    // UNAUTHENTICATED: no token, malformed, unknown, wrong scheme.
    assert_status(c.list_scans(Request::new(pb::ListScansRequest::default())).await, Code::Unauthenticated, "invalid_token");
    for auth in ["Bearer nope".to_string(), format!("Bearer sitescan_{}", "B".repeat(43)), format!("Basic {token}")] {
        let mut req = Request::new(pb::ListScansRequest::default());
        req.metadata_mut().insert("authorization", auth.parse().unwrap());
        assert_status(c.list_scans(req).await, Code::Unauthenticated, "invalid_token");
    }
    assert_status(
        c.create_scan(Request::new(pb::CreateScanRequest { target: "example.com".into(), level: None })).await,
        Code::Unauthenticated,
        "invalid_token",
    );
    // PERMISSION_DENIED.
    assert_status(
        c.create_scan(authed(pb::CreateScanRequest { target: "example.com".into(), level: None }, &reader)).await,
        Code::PermissionDenied,
        "forbidden",
    );
    assert_status(c.list_scans(authed(pb::ListScansRequest::default(), &writer)).await, Code::PermissionDenied, "forbidden");
    assert_status(
        c.get_scan(authed(pb::GetScanRequest { scan_id: theirs.clone(), include_findings: false }, &writer)).await,
        Code::PermissionDenied,
        "forbidden",
    );
    assert_status(
        c.list_findings(authed(pb::ListFindingsRequest::default(), &writer)).await,
        Code::PermissionDenied,
        "forbidden",
    );
    // NOT_FOUND: unknown, malformed, another organisation's.
    for id in [uuid::Uuid::new_v4().to_string(), "nope".to_string(), String::new(), theirs.clone()] {
        assert_status(
            c.get_scan(authed(pb::GetScanRequest { scan_id: id, include_findings: true }, &token)).await,
            Code::NotFound,
            "not_found",
        );
    }
    // INVALID_ARGUMENT, with issues naming the field.
    for target in ["http://127.0.0.1/", "localhost", "ftp://example.com/", "", "http://2130706433/"] {
        let d = assert_status(
            c.create_scan(authed(pb::CreateScanRequest { target: target.into(), level: None }, &token)).await,
            Code::InvalidArgument,
            "invalid_input",
        );
        assert_eq!(d["issues"][0]["path"], "target", "{target}: {d}");
    }
    for limit in [0, -1, 101] {
        let d = assert_status(
            c.list_scans(authed(pb::ListScansRequest { limit: Some(limit), cursor: None }, &token)).await,
            Code::InvalidArgument,
            "invalid_input",
        );
        assert_eq!(d["issues"][0]["path"], "limit");
    }
    assert_status(
        c.list_scans(authed(pb::ListScansRequest { limit: None, cursor: Some("junk".into()) }, &token)).await,
        Code::InvalidArgument,
        "invalid_input",
    );
    for req in [
        pb::ListFindingsRequest { limit: Some(201), ..Default::default() },
        pb::ListFindingsRequest { limit: Some(0), ..Default::default() },
        pb::ListFindingsRequest { severity: Some("bogus".into()), ..Default::default() },
        pb::ListFindingsRequest { since: Some("never".into()), ..Default::default() },
        pb::ListFindingsRequest { cursor: Some("junk".into()), ..Default::default() },
    ] {
        assert_status(c.list_findings(authed(req, &token)).await, Code::InvalidArgument, "invalid_input");
    }
    // Nothing refused was created.
    assert_eq!(app.count_scans().await, 1);
    // Revocation takes effect on the very next call.
    let (revoked, row) = app.token_with("acme", &["scans:read"]).await;
    c.list_scans(authed(pb::ListScansRequest::default(), &revoked)).await.unwrap();
    app.store.revoke_token(&row.id.to_string()).await.unwrap();
    assert_status(c.list_scans(authed(pb::ListScansRequest::default(), &revoked)).await, Code::Unauthenticated, "invalid_token");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_rate_limit_and_quota_are_resource_exhausted() {
    let app = spawn_app_with(AppOptions::default().rate(&[(2, Duration::from_secs(60))])).await;
    let token = app.token("acme").await;
    let mut c = client(&app).await;
    c.list_scans(authed(pb::ListScansRequest::default(), &token)).await.unwrap();
    c.list_scans(authed(pb::ListScansRequest::default(), &token)).await.unwrap();
    let status = c.list_scans(authed(pb::ListScansRequest::default(), &token)).await.unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted);
    let d: Value = serde_json::from_slice(status.details()).unwrap();
    assert_eq!(d["error"], "rate_limited");
    let retry = d["retry_after_seconds"].as_u64().expect("retry_after_seconds");
    assert!(retry >= 1);
    let meta = status.metadata();
    assert_eq!(meta.get("retry-after").unwrap().to_str().unwrap(), retry.to_string());
    assert_eq!(meta.get("x-ratelimit-limit").unwrap(), "2");
    assert_eq!(meta.get("x-ratelimit-remaining").unwrap(), "0");
    assert!(meta.get("x-ratelimit-reset").is_some());
    // REST and gRPC share the token's bucket.
    app.get("/api/v1/scans", &token).await.expect_error(429, "rate_limited");
    // Quota.
    app.store.set_org("small", Some(1)).await.unwrap();
    let t1 = app.token("small").await;
    let t2 = app.token("small").await;
    c.create_scan(authed(pb::CreateScanRequest { target: "example.com".into(), level: None }, &t1)).await.unwrap();
    let d = assert_status(
        c.create_scan(authed(pb::CreateScanRequest { target: "example.com".into(), level: None }, &t2)).await,
        Code::ResourceExhausted,
        "quota_exceeded",
    );
    assert_eq!(d["quota"]["limit"], 1);
    assert_eq!(d["quota"]["used"], 1);
    assert!(d["quota"]["resets_at"].is_string());
}

/// Splits a gRPC-Web body into (data frames, trailers).
fn grpc_web_frames(mut body: &[u8]) -> (Vec<Vec<u8>>, Vec<(String, String)>) {
    let mut data = Vec::new();
    let mut trailers = Vec::new();
    while !body.is_empty() {
        assert!(body.len() >= 5, "truncated frame header");
        let flag = body[0];
        let len = u32::from_be_bytes(body[1..5].try_into().unwrap()) as usize;
        let payload = &body[5..5 + len];
        if flag & 0x80 != 0 {
            for line in String::from_utf8(payload.to_vec()).unwrap().split("\r\n").filter(|l| !l.is_empty()) {
                let (k, v) = line.split_once(':').unwrap();
                trailers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
            }
        } else {
            data.push(payload.to_vec());
        }
        body = &body[5 + len..];
    }
    (data, trailers)
}

fn frame(message: &impl Message) -> Vec<u8> {
    let bytes = message.encode_to_vec();
    let mut out = vec![0u8];
    out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
    out.extend_from_slice(&bytes);
    out
}

async fn grpc_web(app: &TestApp, method: &str, token: Option<&str>, body: Vec<u8>) -> (reqwest::header::HeaderMap, Vec<u8>) {
    let mut req = app
        .http
        .post(app.url(&format!("/sitescan.v1.ScanService/{method}")))
        .header("content-type", "application/grpc-web+proto")
        .header("x-grpc-web", "1")
        .body(body);
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let resp = req.send().await.unwrap();
    assert_eq!(resp.version(), reqwest::Version::HTTP_11, "gRPC-Web over HTTP/1.1");
    assert_eq!(resp.status().as_u16(), 200);
    let headers = resp.headers().clone();
    let ct = headers.get("content-type").unwrap().to_str().unwrap().to_string();
    assert!(ct.starts_with("application/grpc-web"), "content-type {ct}");
    (headers, resp.bytes().await.unwrap().to_vec())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_web_over_http1() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let (_, body) =
        grpc_web(&app, "CreateScan", Some(&token), frame(&pb::CreateScanRequest { target: "Example.com".into(), level: None })).await;
    let (data, trailers) = grpc_web_frames(&body);
    assert_eq!(data.len(), 1);
    let created = pb::CreateScanResponse::decode(&data[0][..]).unwrap();
    assert_eq!(created.target, "https://example.com/");
    assert_eq!(created.status(), pb::ScanStatus::Queued);
    assert!(trailers.contains(&("grpc-status".into(), "0".into())), "trailers {trailers:?}");

    let (_, body) = grpc_web(
        &app,
        "ListScans",
        Some(&token),
        frame(&pb::ListScansRequest { limit: Some(10), cursor: None }),
    )
    .await;
    let (data, trailers) = grpc_web_frames(&body);
    let list = pb::ListScansResponse::decode(&data[0][..]).unwrap();
    assert_eq!(list.scans.len(), 1);
    assert_eq!(list.scans[0].id, created.id);
    assert!(trailers.contains(&("grpc-status".into(), "0".into())), "trailers {trailers:?}");

    let (_, body) = grpc_web(
        &app,
        "GetScan",
        Some(&token),
        frame(&pb::GetScanRequest { scan_id: created.id.clone(), include_findings: false }),
    )
    .await;
    let (data, _) = grpc_web_frames(&body);
    assert_eq!(pb::GetScanResponse::decode(&data[0][..]).unwrap().scan.unwrap().id, created.id);

    // Without a token: UNAUTHENTICATED (16), in the headers of a trailers-only answer or in the
    // trailers frame.
    let (headers, body) = grpc_web(&app, "ListScans", None, frame(&pb::ListScansRequest::default())).await;
    let (_, trailers) = grpc_web_frames(&body);
    let status = headers
        .get("grpc-status")
        .map(|v| v.to_str().unwrap().to_string())
        .or_else(|| trailers.iter().find(|(k, _)| k == "grpc-status").map(|(_, v)| v.clone()));
    assert_eq!(status.as_deref(), Some("16"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_health_and_reflection_answer() {
    let app = spawn_app().await;
    let channel = Channel::from_shared(app.base.clone()).unwrap().connect().await.unwrap();
    let mut health = tonic_health::pb::health_client::HealthClient::new(channel.clone());
    let r = health.check(tonic_health::pb::HealthCheckRequest { service: String::new() }).await.unwrap().into_inner();
    assert_eq!(r.status(), tonic_health::pb::health_check_response::ServingStatus::Serving);

    use tonic_reflection::pb::v1::{
        ServerReflectionRequest, server_reflection_client::ServerReflectionClient,
        server_reflection_request::MessageRequest, server_reflection_response::MessageResponse,
    };
    let mut reflection = ServerReflectionClient::new(channel);
    let requests = vec![
        ServerReflectionRequest { host: String::new(), message_request: Some(MessageRequest::ListServices(String::new())) },
        ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::FileContainingSymbol("sitescan.v1.ScanService".into())),
        },
    ];
    let mut stream = reflection.server_reflection_info(tokio_stream::iter(requests)).await.unwrap().into_inner();
    let first = stream.message().await.unwrap().unwrap();
    let Some(MessageResponse::ListServicesResponse(list)) = first.message_response else {
        panic!("unexpected reflection answer {first:?}")
    };
    let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    assert!(names.contains(&"sitescan.v1.ScanService".to_string()), "{names:?}");
    assert!(names.contains(&"grpc.health.v1.Health".to_string()), "{names:?}");
    let second = stream.message().await.unwrap().unwrap();
    let Some(MessageResponse::FileDescriptorResponse(files)) = second.message_response else {
        panic!("unexpected reflection answer {second:?}")
    };
    assert!(!files.file_descriptor_proto.is_empty());
}

/// The REST API also answers over HTTP/2 cleartext (prior knowledge) on the same port.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rest_over_h2c() {
    use http_body_util::{BodyExt, Full};
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let tcp = tokio::net::TcpStream::connect(app.addr).await.unwrap();
    let (mut sender, conn) = hyper::client::conn::http2::handshake(
        hyper_util::rt::TokioExecutor::new(),
        hyper_util::rt::TokioIo::new(tcp),
    )
    .await
    .expect("h2c handshake");
    tokio::spawn(conn);
    let req = http::Request::post(format!("http://{}/api/v1/scans", app.addr))
        .header("authorization", format!("Bearer {token}"))
        .body(Full::new(bytes::Bytes::from_static(br#"{"target":"example.com"}"#)))
        .unwrap();
    let resp = sender.send_request(req).await.unwrap();
    assert_eq!(resp.version(), http::Version::HTTP_2);
    assert_eq!(resp.status(), 201);
    let body: Value = serde_json::from_slice(&resp.into_body().collect().await.unwrap().to_bytes()).unwrap();
    assert_eq!(body["target"], "https://example.com/");
    let req = http::Request::get(format!("http://{}/api/v1/nope", app.addr))
        .body(Full::new(bytes::Bytes::new()))
        .unwrap();
    let resp = sender.send_request(req).await.unwrap();
    assert_eq!(resp.status(), 404);
    let body: Value = serde_json::from_slice(&resp.into_body().collect().await.unwrap().to_bytes()).unwrap();
    assert_eq!(body["error"], "not_found");
}
