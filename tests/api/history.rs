//! A site's history and two scans compared, over REST and gRPC: the same numbers the
//! dashboard's charts and compare page show, cursor-paginated, scoped to the organisation, every
//! refusal in the spec's error shape (each response validated against the served OpenAPI by
//! `app.call`).

use crate::app;

use app::{TestApp, spawn_app};
use serde_json::Value;
use sitescan::model::Severity::{High, Low, Medium};
use sitescan::proto::v1 as pb;
use sitescan::proto::v1::scan_service_client::ScanServiceClient;
use tonic::Request;

fn authed<T>(message: T, token: &str) -> Request<T> {
    let mut req = Request::new(message);
    req.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    req
}

/// Three completed scans of shop.example.com (oldest first), and scans that are not its history.
async fn site_with_history(app: &TestApp) -> Vec<uuid::Uuid> {
    let mut ids = Vec::new();
    ids.push(app.completed_scan("acme", "https://shop.example.com/", &[("/", 1000.0), ("/a", 2000.0), ("/b", 3000.0), ("/c", 4000.0)], &[("search.title-missing", "/", "", High), ("accessibility.image-alt", "/a", "img.hero", Medium)]).await);
    app.completed_scan("acme", "https://shop.example.com:8443/", &[("/", 1.0)], &[("search.title-missing", "/", "", High)]).await;
    app.completed_scan("acme", "https://blog.example.com/", &[("/", 1.0)], &[("search.title-missing", "/", "", High)]).await;
    app.completed_scan("globex", "https://shop.example.com/", &[("/", 1.0)], &[("search.title-missing", "/", "", High)]).await;
    ids.push(app.completed_scan("acme", "https://shop.example.com/cart", &[("/", 900.0)], &[("security.header-missing", "/", "", Low)]).await);
    ids.push(app.completed_scan("acme", "http://shop.example.com/", &[("/", 500.0)], &[]).await);
    ids.push(app.completed_scan("acme", "https://shop.example.com/", &[("/", 800.0), ("/new", 700.0)], &[("accessibility.image-alt", "/", "img.logo", Medium), ("security.header-missing", "/new", "", Low)]).await);
    app.seed_scan("acme", "https://shop.example.com/").await;
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_pages_through_exactly_one_sites_completed_scans() {
    let app = spawn_app().await;
    let ids = site_with_history(&app).await;
    let (first, second, newest) = (ids[0], ids[1], ids[3]);
    let token = app.token("acme").await;

    let r = app.get("/api/v1/history?target=shop.example.com&limit=2", &token).await;
    r.expect(200);
    assert_eq!(r.json["origin"], "https://shop.example.com");
    let scans = r.json["scans"].as_array().unwrap();
    assert_eq!(scans.iter().map(|s| s["scan_id"].as_str().unwrap().to_string()).collect::<Vec<_>>(), [newest.to_string(), second.to_string()], "newest first; http:// and :8443 are other sites");
    assert_eq!(scans[0]["findings_count"], serde_json::json!({"critical": 0, "high": 0, "medium": 1, "low": 1, "info": 0}));
    assert_eq!(scans[0]["categories"], serde_json::json!({"accessibility": 1, "security": 1}));
    assert_eq!(scans[1]["target"], "https://shop.example.com/cart");
    assert_eq!(scans[1]["lcp_p75_ms"], 900.0);
    let cursor = r.json["next_cursor"].as_str().expect("a next page").to_string();

    let r = app.get(&format!("/api/v1/history?target=https://shop.example.com/anything&limit=2&cursor={cursor}"), &token).await;
    r.expect(200);
    let scans = r.json["scans"].as_array().unwrap();
    assert_eq!(scans.len(), 1, "{}", r.text);
    assert_eq!(scans[0]["scan_id"], first.to_string());
    // The 75th percentile of four pages (nearest rank): 3 s; CLS of 0, .01, .02, .03: .02.
    assert_eq!(scans[0]["lcp_p75_ms"], 3000.0);
    assert_eq!(scans[0]["cls_p75"], 0.02);
    assert_eq!(scans[0]["tbt_p75_ms"], 50.0);
    assert!(r.json["next_cursor"].is_null());

    // The http:// site is its own history; another organisation sees only its own.
    let r = app.get("/api/v1/history?target=http://shop.example.com", &token).await;
    assert_eq!(r.json["scans"].as_array().unwrap().len(), 1);
    let theirs = app.token("globex").await;
    let r = app.get("/api/v1/history?target=shop.example.com", &theirs).await;
    r.expect(200);
    assert_eq!(r.json["scans"].as_array().unwrap().len(), 1);
    let r = app.get("/api/v1/history?target=nobody.example.org", &token).await;
    r.expect(200);
    assert_eq!(r.json["scans"], serde_json::json!([]));
    assert!(r.json["next_cursor"].is_null());

    // Refusals, each naming the field; a cursor of another list is refused too.
    app.get("/api/v1/history", &token).await.expect_invalid("target");
    app.get("/api/v1/history?target=", &token).await.expect_invalid("target");
    app.get("/api/v1/history?target=ftp://shop.example.com", &token).await.expect_invalid("target");
    app.get(&format!("/api/v1/history?target={}", "a".repeat(3000)), &token).await.expect_invalid("target");
    app.get("/api/v1/history?target=shop.example.com&limit=0", &token).await.expect_invalid("limit");
    app.get("/api/v1/history?target=shop.example.com&limit=x", &token).await.expect_invalid("limit");
    app.get("/api/v1/history?target=shop.example.com&cursor=nope", &token).await.expect_invalid("cursor");
    let scans_cursor = app.get("/api/v1/scans?limit=1", &token).await.json["next_cursor"].as_str().unwrap().to_string();
    app.get(&format!("/api/v1/history?target=shop.example.com&cursor={scans_cursor}"), &token).await.expect_invalid("cursor");
    app.get("/api/v1/history?target=a&target=b", &token).await.expect_invalid("target");
    // The scope and the token.
    let (write_only, _) = app.token_with("acme", &["scans:write"]).await;
    app.get("/api/v1/history?target=shop.example.com", &write_only).await.expect_error(403, "forbidden");
    app.call("GET", "/api/v1/history?target=shop.example.com", None, None).await.expect_error(401, "invalid_token");

    // gRPC answers with the same page.
    let mut c = ScanServiceClient::connect(app.base.clone()).await.unwrap();
    let got = c.list_scan_history(authed(pb::ListScanHistoryRequest { target: "shop.example.com".into(), limit: Some(2), cursor: None }, &token)).await.unwrap().into_inner();
    assert_eq!(got.origin, "https://shop.example.com");
    assert_eq!(got.scans.iter().map(|s| s.scan_id.clone()).collect::<Vec<_>>(), [newest.to_string(), second.to_string()]);
    assert_eq!(got.scans[0].categories.get("security"), Some(&1));
    assert_eq!(got.scans[1].lcp_p75_ms, Some(900.0));
    let next = c.list_scan_history(authed(pb::ListScanHistoryRequest { target: "shop.example.com".into(), limit: Some(2), cursor: got.next_cursor }, &token)).await.unwrap().into_inner();
    assert_eq!(next.scans.len(), 1);
    assert_eq!(next.scans[0].cls_p75, Some(0.02));
    let refused = c.list_scan_history(authed(pb::ListScanHistoryRequest { target: String::new(), limit: None, cursor: None }, &token)).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compare_answers_what_the_dashboard_shows_and_refuses_what_it_cannot_compare() {
    let app = spawn_app().await;
    let target = "https://shop.example.com/";
    let base = app
        .completed_scan("acme", target, &[("/", 1200.0), ("/old", 900.0)], &[
            ("accessibility.image-alt", "/", "img.hero", Medium),
            ("search.title-missing", "/", "", High),
            ("accessibility.label", "/old", "#q", Medium),
        ])
        .await;
    let head = app
        .completed_scan("acme", target, &[("/", 3100.0), ("/new", 800.0)], &[
            ("accessibility.image-alt", "/", "img.hero", Medium),
            ("accessibility.image-alt", "/", "img.logo", High),
            ("forms.label-missing", "/new", "#email", Medium),
        ])
        .await;
    let token = app.token("acme").await;
    let changes = app.get(&format!("/api/v1/scans/{head}"), &token).await.json["report"]["summary"]["changes"].clone();

    let r = app.get(&format!("/api/v1/compare?base={base}&head={head}"), &token).await;
    r.expect(200);
    let c = &r.json;
    for key in ["new", "fixed", "persisting"] {
        assert_eq!(c["counts"][key], changes[key], "{key}: the comparison says what the head's report says ({changes})");
    }
    assert_eq!(c["counts"], serde_json::json!({"new": 2, "fixed": 1, "persisting": 1}));
    assert_eq!(c["base"]["id"], base.to_string());
    assert_eq!(c["head"]["mode"], "passive");
    let checks = |k: &str| c[k].as_array().unwrap().iter().map(|g| g["check_id"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    assert_eq!(checks("new"), ["accessibility.image-alt", "forms.label-missing"]);
    assert_eq!(checks("fixed"), ["search.title-missing"]);
    assert_eq!(checks("persisting"), ["accessibility.image-alt"]);
    let image_alt = &c["new"][0];
    assert_eq!(image_alt["severity"], "high");
    assert_eq!(image_alt["count"], 1);
    assert_eq!(image_alt["findings"][0]["locator"], "img.logo");
    assert_eq!(image_alt["findings"][0]["page_url"], "https://shop.example.com/");
    assert_eq!(c["pages_added"], serde_json::json!(["https://shop.example.com/new"]));
    assert_eq!(c["pages_gone"], serde_json::json!(["https://shop.example.com/old"]));
    let vitals = c["vitals"].as_array().unwrap();
    assert_eq!(vitals.len(), 1);
    // A whole number is written as an integer (`1200`), as JSON has one number type.
    assert_eq!(vitals[0]["lcp_ms"], serde_json::json!({"base": 1200, "head": 3100}));
    let categories: Vec<(String, u64, u64)> = c["categories"].as_array().unwrap().iter().map(|x| (x["category"].as_str().unwrap().into(), x["base"].as_u64().unwrap(), x["head"].as_u64().unwrap())).collect();
    assert!(categories.contains(&("accessibility".into(), 2, 2)) && categories.contains(&("search".into(), 1, 0)), "{categories:?}");

    // gRPC: the same comparison.
    let mut client = ScanServiceClient::connect(app.base.clone()).await.unwrap();
    let got = client.compare_scans(authed(pb::CompareScansRequest { base: base.to_string(), head: head.to_string() }, &token)).await.unwrap().into_inner();
    assert_eq!(got.counts.unwrap(), pb::ComparisonCounts { new: 2, fixed: 1, persisting: 1 });
    assert_eq!(got.new.iter().map(|g| g.check_id.as_str()).collect::<Vec<_>>(), ["accessibility.image-alt", "forms.label-missing"]);
    assert_eq!(got.new[0].severity(), pb::Severity::High);
    assert_eq!(got.vitals[0].lcp_ms.unwrap(), pb::BeforeAfter { base: Some(1200.0), head: Some(3100.0) });

    // Refusals name the field and change nothing.
    let before: Value = app.get("/api/v1/scans", &token).await.json;
    app.get("/api/v1/compare", &token).await.expect_invalid("base").expect_invalid("head");
    app.get(&format!("/api/v1/compare?base={base}&head=nope"), &token).await.expect_invalid("head");
    let other_site = app.completed_scan("acme", "https://blog.example.com/", &[("/", 1.0)], &[]).await;
    let r = app.get(&format!("/api/v1/compare?base={base}&head={other_site}"), &token).await;
    r.expect_invalid("head");
    assert!(r.json["message"].as_str().unwrap().contains("same site"), "{}", r.text);
    let queued = app.seed_scan("acme", target).await;
    let r = app.get(&format!("/api/v1/compare?base={base}&head={}", queued.id), &token).await;
    r.expect_invalid("head");
    assert!(r.text.contains("only completed scans"), "{}", r.text);
    app.get(&format!("/api/v1/compare?base={base}&head={}", uuid::Uuid::now_v7()), &token).await.expect_error(404, "not_found");
    let theirs = app.token("globex").await;
    app.get(&format!("/api/v1/compare?base={base}&head={head}"), &theirs).await.expect_error(404, "not_found");
    let after: Value = app.get("/api/v1/scans", &token).await.json;
    assert_eq!(before["scans"].as_array().unwrap().len() + 2, after["scans"].as_array().unwrap().len(), "only the two scans this test made");
    let refused = client.compare_scans(authed(pb::CompareScansRequest { base: base.to_string(), head: String::new() }, &token)).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
}
