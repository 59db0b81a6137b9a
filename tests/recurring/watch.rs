//! gRPC `WatchScan`: the watcher's instance is not the worker's. The test plays the worker
//! straight on the store (claim, pages, completion), the server streams what it sees; another
//! organisation's scan is NOT_FOUND and a token without scans:read is refused.

use super::app;
use sitescan::proto::v1 as pb;
use sitescan::proto::v1::scan_service_client::ScanServiceClient;
use sitescan::model::ReportPage;
use std::time::Duration;
use tonic::transport::Channel;

fn watch_request(token: &str, scan_id: &str) -> tonic::Request<pb::WatchScanRequest> {
    let mut req = tonic::Request::new(pb::WatchScanRequest { scan_id: scan_id.to_string() });
    req.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    req
}

fn page(url: &str) -> ReportPage {
    ReportPage { url: url.into(), final_url: None, status: Some(200), title: None, metrics: serde_json::json!({}), error: None, checks_not_run: Vec::new() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_scan_streams_state_and_pages_until_the_end() {
    let app = app::spawn_app().await;
    let token = app.token("acme").await;
    let scan = app.seed_scan("acme", "https://watch.example.com/").await;
    let channel = Channel::from_shared(app.base.clone()).unwrap().connect().await.unwrap();
    let mut client = ScanServiceClient::new(channel);

    let mut stream = client.watch_scan(watch_request(&token, &scan.id.to_string())).await.expect("watch").into_inner();
    let next = |m: Option<pb::ScanProgress>| m.expect("a message before the end");
    let first = next(tokio::time::timeout(Duration::from_secs(10), stream.message()).await.unwrap().unwrap());
    assert_eq!(first.scan.as_ref().unwrap().status(), pb::ScanStatus::Queued);
    assert_eq!(first.pages_done, 0);

    // A worker elsewhere claims the scan, stores two pages and completes it.
    let store = app.store.clone();
    let worker = tokio::spawn(async move {
        let claimed = store.claim_scan("elsewhere", Duration::from_secs(30), 3).await.unwrap().expect("claimed");
        tokio::time::sleep(Duration::from_millis(400)).await;
        store.insert_page_results(claimed.id, "acme", 1, &page("https://watch.example.com/"), &[]).await.unwrap();
        tokio::time::sleep(Duration::from_millis(400)).await;
        store.insert_page_results(claimed.id, "acme", 2, &page("https://watch.example.com/a"), &[]).await.unwrap();
        let report = sitescan::model::StoredReport::of(sitescan::model::ReportSummary::empty());
        assert!(store.complete_scan(claimed.id, "elsewhere", &report).await.unwrap());
    });

    let mut seen = Vec::new();
    while let Some(m) = tokio::time::timeout(Duration::from_secs(20), stream.message()).await.expect("the stream moves").expect("no error") {
        seen.push(m);
    }
    worker.await.unwrap();
    let statuses: Vec<pb::ScanStatus> = seen.iter().map(|m| m.scan.as_ref().unwrap().status()).collect();
    let pages: Vec<&str> = seen.iter().filter_map(|m| m.page_url.as_deref()).collect();
    assert_eq!(pages, ["https://watch.example.com/", "https://watch.example.com/a"], "one message per page, in order: {seen:#?}");
    assert!(statuses.contains(&pb::ScanStatus::Running), "{statuses:?}");
    assert_eq!(statuses.last(), Some(&pb::ScanStatus::Completed), "the last message is the end state: {statuses:?}");
    assert_eq!(seen.last().unwrap().pages_done, 2);
    assert_eq!(seen.iter().filter(|m| m.scan.as_ref().unwrap().status() == pb::ScanStatus::Completed).count(), 1);

    // A finished scan: its pages and its end state, then the end of the stream at once.
    let mut again = client.watch_scan(watch_request(&token, &scan.id.to_string())).await.unwrap().into_inner();
    let mut replay = Vec::new();
    while let Some(m) = tokio::time::timeout(Duration::from_secs(10), again.message()).await.unwrap().unwrap() {
        replay.push(m);
    }
    assert_eq!(replay.len(), 3, "two pages and the end: {replay:#?}");
    assert_eq!(replay[2].scan.as_ref().unwrap().status(), pb::ScanStatus::Completed);

    // Another organisation's scan does not exist; a token without scans:read is refused.
    let globex = app.token("globex").await;
    let err = client.watch_scan(watch_request(&globex, &scan.id.to_string())).await.expect_err("refused");
    assert_eq!(err.code(), tonic::Code::NotFound);
    let err = client.watch_scan(watch_request(&token, "not-a-uuid")).await.expect_err("refused");
    assert_eq!(err.code(), tonic::Code::NotFound);
    let (write_only, _) = app.token_with("acme", &["scans:write"]).await;
    let err = client.watch_scan(watch_request(&write_only, &scan.id.to_string())).await.expect_err("refused");
    assert_eq!(err.code(), tonic::Code::PermissionDenied);
}

/// Reflection answers on v1 and v1alpha alike: the list of services, and the file of every
/// service with the files it imports (what grpcurl's `describe` walks).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reflection_answers_on_v1_and_v1alpha() {
    let app = app::spawn_app().await;
    let channel = Channel::from_shared(app.base.clone()).unwrap().connect().await.unwrap();
    {
        use tonic_reflection::pb::v1::{
            ServerReflectionRequest, server_reflection_client::ServerReflectionClient,
            server_reflection_request::MessageRequest, server_reflection_response::MessageResponse,
        };
        let mut client = ServerReflectionClient::new(channel.clone());
        let reqs = vec![
            ServerReflectionRequest { host: String::new(), message_request: Some(MessageRequest::ListServices(String::new())) },
            ServerReflectionRequest { host: String::new(), message_request: Some(MessageRequest::FileContainingSymbol("sitescan.v1.ScanService.WatchScan".into())) },
            ServerReflectionRequest { host: String::new(), message_request: Some(MessageRequest::FileByFilename("google/protobuf/struct.proto".into())) },
        ];
        let mut s = client.server_reflection_info(tokio_stream::iter(reqs)).await.expect("v1 answers").into_inner();
        let Some(MessageResponse::ListServicesResponse(list)) = s.message().await.unwrap().unwrap().message_response else { panic!("v1 list") };
        let names: Vec<&str> = list.service.iter().map(|x| x.name.as_str()).collect();
        for name in ["sitescan.v1.ScanService", "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"] {
            assert!(names.contains(&name), "v1 lists {name}: {names:?}");
        }
        for _ in 0..2 {
            let m = s.message().await.unwrap().unwrap().message_response;
            assert!(matches!(m, Some(MessageResponse::FileDescriptorResponse(ref f)) if !f.file_descriptor_proto.is_empty()), "v1: {m:?}");
        }
    }
    {
        use tonic_reflection::pb::v1alpha::{
            ServerReflectionRequest, server_reflection_client::ServerReflectionClient,
            server_reflection_request::MessageRequest, server_reflection_response::MessageResponse,
        };
        let mut client = ServerReflectionClient::new(channel);
        let reqs = vec![
            ServerReflectionRequest { host: String::new(), message_request: Some(MessageRequest::ListServices(String::new())) },
            ServerReflectionRequest { host: String::new(), message_request: Some(MessageRequest::FileContainingSymbol("grpc.reflection.v1.ServerReflection".into())) },
        ];
        let mut s = client.server_reflection_info(tokio_stream::iter(reqs)).await.expect("v1alpha answers").into_inner();
        let Some(MessageResponse::ListServicesResponse(list)) = s.message().await.unwrap().unwrap().message_response else { panic!("v1alpha list") };
        let names: Vec<&str> = list.service.iter().map(|x| x.name.as_str()).collect();
        for name in ["sitescan.v1.ScanService", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"] {
            assert!(names.contains(&name), "v1alpha lists {name}: {names:?}");
        }
        let m = s.message().await.unwrap().unwrap().message_response;
        assert!(matches!(m, Some(MessageResponse::FileDescriptorResponse(ref f)) if !f.file_descriptor_proto.is_empty()), "v1alpha describes v1: {m:?}");
    }
}
