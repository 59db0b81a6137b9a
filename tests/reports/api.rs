//! `GET /api/v1/scans/{scanId}/report.html` and `.../report.sarif` end to end: the real
//! application on `127.0.0.1:0` with a temp SQLite database, a completed scan seeded through the
//! store (create, claim, page results, complete), REST and gRPC callers; plus the proto's
//! annotations against the route table and the OpenAPI document.

use prost_reflect::{DescriptorPool, DynamicMessage, Value as ReflectValue};
use serde_json::{Value, json};
use sitescan::api::{ApiSettings, Application, RateWindow};
use sitescan::model::{AddressPolicy, Finding, ReportSummary, ScanMode, Severity, SeverityCounts, Target, TriggeredBy};
use sitescan::proto::v1 as pb;
use crate::renderers::{html, sarif};
use sitescan::model::ReportPage;
use sitescan_store::{CreateOutcome, SCOPE_READ, SCOPE_WRITE, Store};
use std::collections::BTreeSet;
use std::time::Duration;
use uuid::Uuid;

struct App {
    base: String,
    addr: std::net::SocketAddr,
    store: Store,
    http: reqwest::Client,
    _shutdown: tokio::sync::oneshot::Sender<()>,
    _dir: tempfile::TempDir,
}

async fn spawn(windows: Vec<RateWindow>) -> App {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("sitescan.db").display());
    let store = Store::open(&url, true).await.expect("open and migrate the test database");
    let settings = ApiSettings { listen: "127.0.0.1:0".into(), rate_windows: windows, rate_limit_backend: "memory".into() };
    let services = sitescan::app::App::new(store.clone(), sitescan::app::AppConfig::default());
    let app = Application::build(&settings, services).await.expect("bind the API");
    let addr = app.addr();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(app.run_until(async move {
        let _ = rx.await;
    }));
    let http = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
    App { base: format!("http://{addr}"), addr, store, http, _shutdown: tx, _dir: dir }
}

fn lifted() -> Vec<RateWindow> {
    vec![RateWindow { limit: 1_000_000, period: Duration::from_secs(1) }]
}

async fn token(store: &Store, org: &str, scopes: &[&str]) -> String {
    let scopes: Vec<String> = scopes.iter().map(|s| s.to_string()).collect();
    store.create_token(org, Some("test"), &scopes).await.unwrap().0
}

fn finding(check_id: &str, severity: Severity, title: &str, evidence: Value) -> Finding {
    Finding {
        check_id: check_id.into(),
        severity,
        title: title.into(),
        description: format!("Why {title} matters."),
        remediation: format!("Fix {title}."),
        cwe_id: None,
        evidence: evidence.as_object().unwrap().clone(),
        ..Default::default()
    }
}

/// Seeds a completed scan of two pages for `org` through the store, as a worker would.
async fn seed_completed(store: &Store, org: &str) -> Uuid {
    let target = Target::parse("https://shop.example.com/", &AddressPolicy::default()).unwrap();
    let CreateOutcome::Created(scan) = store.create_scan(org, &target, ScanMode::Passive, TriggeredBy::Api, None).await.unwrap() else {
        panic!("quota");
    };
    let owner = "report-test-worker";
    let claimed = store.claim_scan(owner, Duration::from_secs(60), 3).await.unwrap().expect("claimed");
    assert_eq!(claimed.id, scan.id);
    let home = ReportPage {
        url: "https://shop.example.com/".into(),
        final_url: Some("https://shop.example.com/".into()),
        status: Some(200),
        title: Some("Example Shop".into()),
        metrics: json!({"ttfb_ms": 320.0, "fcp_ms": 900.0, "lcp_ms": 4300.0, "cls": 0.05, "tbt_ms": 250.0, "transfer_bytes": 900_000, "requests": 40}),
        error: None,
        checks_not_run: Vec::new(),
    };
    let home_findings = vec![
        finding("accessibility.image-alt", Severity::Critical, "Images must have alternative text",
            json!({"url": "https://shop.example.com/", "selector": "img.hero", "snippet": "<img class=\"hero\" src=\"/h.jpg\"><script>alert(1)</script>",
                   "wcag": ["wcag2a"], "help_url": "https://dequeuniversity.com/rules/axe/4.14/image-alt"})),
        finding("performance.lcp", Severity::High, "Largest Contentful Paint is slow", json!({"url": "https://shop.example.com/", "value": 4300.0, "limit": 4000})),
    ];
    store.insert_page_results(scan.id, org, 0, &home, &home_findings).await.unwrap();
    let about = ReportPage {
        url: "https://shop.example.com/about".into(),
        final_url: Some("https://shop.example.com/about".into()),
        status: Some(200),
        title: Some("About".into()),
        metrics: json!({"ttfb_ms": 90.0, "fcp_ms": 400.0, "lcp_ms": 800.0, "cls": 0.0, "tbt_ms": 0.0, "transfer_bytes": 120_000, "requests": 12}),
        error: None,
        checks_not_run: vec![sitescan::model::CheckNotRun {
            check_id: "accessibility.keyboard-trap".into(),
            reason: "the keyboard gatherer failed: timed out after 5s".into(),
        }],
    };
    let about_findings = vec![finding("search.meta-description-missing", Severity::Medium, "Page has no meta description", json!({"url": "https://shop.example.com/about"}))];
    store.insert_page_results(scan.id, org, 1, &about, &about_findings).await.unwrap();
    let mut summary = ReportSummary::empty();
    summary.pages_scanned = 2;
    summary.duration_ms = 5200;
    let mut counts = SeverityCounts::default();
    for f in home_findings.iter().chain(&about_findings) {
        summary.count(&f.check_id, f.severity, 1);
        counts.add(f.severity, 1);
    }
    assert!(store.complete_scan(scan.id, owner, &sitescan::model::StoredReport::of(summary.clone())).await.unwrap());
    scan.id
}

async fn get(app: &App, path: &str, token: Option<&str>) -> reqwest::Response {
    let mut req = app.http.get(format!("{}{path}", app.base));
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    req.send().await.unwrap()
}

fn header<'r>(resp: &'r reqwest::Response, name: &str) -> &'r str {
    resp.headers().get(name).unwrap_or_else(|| panic!("header {name} missing: {:?}", resp.headers())).to_str().unwrap()
}

#[tokio::test]
async fn html_and_sarif_reports_render_the_scan_body() {
    let app = spawn(lifted()).await;
    let t = token(&app.store, "acme", &[]).await;
    let id = seed_completed(&app.store, "acme").await;

    let body: Value = get(&app, &format!("/api/v1/scans/{id}?include_findings=true"), Some(&t)).await.text().await.map(|t| serde_json::from_str(&t).unwrap()).unwrap();
    assert_eq!(body["scan"]["status"], "completed");
    assert_eq!(body["report"]["findings"].as_array().unwrap().len(), 3);

    let resp = get(&app, &format!("/api/v1/scans/{id}/report.html"), Some(&t)).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(header(&resp, "content-type"), "text/html; charset=utf-8");
    assert_eq!(header(&resp, "content-security-policy"), html::content_security_policy());
    assert_eq!(header(&resp, "x-content-type-options"), "nosniff");
    for h in ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"] {
        header(&resp, h).parse::<u64>().unwrap_or_else(|_| panic!("{h} is an integer"));
    }
    let page = resp.text().await.unwrap();
    assert_eq!(page, html::render(&body).unwrap(), "the HTML report is rendered from the GetScan body");
    assert!(page.contains("Images must have alternative text"));
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && page.matches("<script>").count() == 1);

    let resp = get(&app, &format!("/api/v1/scans/{id}/report.sarif"), Some(&t)).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(header(&resp, "content-type"), "application/sarif+json");
    header(&resp, "x-ratelimit-remaining");
    let text = resp.text().await.unwrap();
    assert_eq!(text, sarif::render(&body).unwrap(), "the SARIF report is rendered from the GetScan body");
    let log: Value = serde_json::from_str(&text).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    assert_eq!(results[0]["ruleId"], "accessibility.image-alt");
    assert_eq!(log["runs"][0]["invocations"][0]["properties"]["scanId"], id.to_string());
    let schema = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tools/report-validators/node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json");
    assert!(schema.exists(), "{} is missing: run `bash scripts/setup.sh`", schema.display());
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(schema).unwrap()).unwrap();
    let validator = jsonschema::draft4::options().should_validate_formats(true).build(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&log).map(|e| format!("{e} at {}", e.instance_path)).collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[tokio::test]
async fn reports_are_organisation_scoped_and_authenticated() {
    let app = spawn(lifted()).await;
    let acme = token(&app.store, "acme", &[]).await;
    let other = token(&app.store, "globex", &[]).await;
    let write_only = token(&app.store, "acme", &[SCOPE_WRITE]).await;
    let read_only = token(&app.store, "acme", &[SCOPE_READ]).await;
    let id = seed_completed(&app.store, "acme").await;
    for suffix in ["report.html", "report.sarif"] {
        let path = format!("/api/v1/scans/{id}/{suffix}");
        let expect = |resp: reqwest::Response, status: u16, error: &'static str| async move {
            assert_eq!(resp.status(), status, "{suffix}");
            assert!(header(&resp, "content-type").starts_with("application/json"), "{suffix}: errors are JSON");
            let body: Value = serde_json::from_str(&resp.text().await.unwrap()).unwrap();
            assert_eq!(body["error"], error, "{suffix}: {body}");
        };
        expect(get(&app, &path, None).await, 401, "invalid_token").await;
        expect(get(&app, &path, Some("sitescan_not-a-real-token")).await, 401, "invalid_token").await;
        // Another organisation's scan does not exist for the caller: 404, never 403.
        let resp = get(&app, &path, Some(&other)).await;
        header(&resp, "x-ratelimit-limit");
        expect(resp, 404, "not_found").await;
        let resp = get(&app, &path, Some(&write_only)).await;
        header(&resp, "x-ratelimit-limit");
        expect(resp, 403, "forbidden").await;
        expect(get(&app, &format!("/api/v1/scans/not-a-uuid/{suffix}"), Some(&acme)).await, 404, "not_found").await;
        expect(get(&app, &format!("/api/v1/scans/{}/{suffix}", Uuid::now_v7()), Some(&acme)).await, 404, "not_found").await;
        expect(get(&app, &format!("{path}?x=1&x=2"), Some(&acme)).await, 400, "invalid_input").await;
        assert_eq!(get(&app, &path, Some(&read_only)).await.status(), 200);
        // A wrong method is 405 with the JSON error object and an Allow header.
        let resp = app.http.post(format!("{}{path}", app.base)).bearer_auth(&acme).send().await.unwrap();
        assert_eq!(resp.status(), 405);
        assert!(header(&resp, "allow").contains("GET"));
    }
}

#[tokio::test]
async fn a_scan_that_has_not_run_gets_a_report_that_says_so() {
    let app = spawn(lifted()).await;
    let t = token(&app.store, "acme", &[]).await;
    let target = Target::parse("https://later.example.com/", &AddressPolicy::default()).unwrap();
    let CreateOutcome::Created(scan) = app.store.create_scan("acme", &target, ScanMode::Passive, TriggeredBy::Api, None).await.unwrap() else {
        panic!("quota");
    };
    let resp = get(&app, &format!("/api/v1/scans/{}/report.html", scan.id), Some(&t)).await;
    assert_eq!(resp.status(), 200);
    assert!(resp.text().await.unwrap().contains("This scan has not finished"));
    let log: Value = get(&app, &format!("/api/v1/scans/{}/report.sarif", scan.id), Some(&t)).await.text().await.map(|t| serde_json::from_str(&t).unwrap()).unwrap();
    assert_eq!(log["runs"][0]["invocations"][0]["executionSuccessful"], false);
    assert_eq!(log["runs"][0]["results"], json!([]));
}

#[tokio::test]
async fn report_requests_are_rate_limited_like_the_rest() {
    let app = spawn(vec![RateWindow { limit: 2, period: Duration::from_secs(60) }]).await;
    let t = token(&app.store, "acme", &[]).await;
    let id = seed_completed(&app.store, "acme").await;
    let path = format!("/api/v1/scans/{id}/report.html");
    assert_eq!(get(&app, &path, Some(&t)).await.status(), 200);
    assert_eq!(get(&app, &path, Some(&t)).await.status(), 200);
    let resp = get(&app, &format!("/api/v1/scans/{id}/report.sarif"), Some(&t)).await;
    assert_eq!(resp.status(), 429);
    for h in ["retry-after", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"] {
        header(&resp, h).parse::<u64>().unwrap_or_else(|_| panic!("{h} is an integer"));
    }
    let body: Value = serde_json::from_str(&resp.text().await.unwrap()).unwrap();
    assert_eq!(body["error"], "rate_limited");
    assert!(body["retry_after_seconds"].as_u64().is_some());
}

#[tokio::test]
async fn grpc_get_scan_report_returns_the_same_documents() {
    let app = spawn(lifted()).await;
    let t = token(&app.store, "acme", &[]).await;
    let other = token(&app.store, "globex", &[]).await;
    let id = seed_completed(&app.store, "acme").await;
    let mut client = pb::scan_service_client::ScanServiceClient::connect(format!("http://{}", app.addr)).await.unwrap();
    let call = |format: pb::ReportFormat, token: &str| {
        let mut req = tonic::Request::new(pb::GetScanReportRequest { scan_id: id.to_string(), format: format as i32 });
        req.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
        req
    };
    let html_body = client.get_scan_report(call(pb::ReportFormat::Html, &t)).await.unwrap().into_inner();
    assert_eq!(html_body.content_type, "text/html; charset=utf-8");
    let rest = get(&app, &format!("/api/v1/scans/{id}/report.html"), Some(&t)).await.text().await.unwrap();
    assert_eq!(String::from_utf8(html_body.data).unwrap(), rest);
    let sarif_body = client.get_scan_report(call(pb::ReportFormat::Sarif, &t)).await.unwrap().into_inner();
    assert_eq!(sarif_body.content_type, "application/sarif+json");
    let rest = get(&app, &format!("/api/v1/scans/{id}/report.sarif"), Some(&t)).await.text().await.unwrap();
    assert_eq!(String::from_utf8(sarif_body.data).unwrap(), rest);
    let err = client.get_scan_report(call(pb::ReportFormat::Unspecified, &t)).await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::InvalidArgument);
    let err = client.get_scan_report(call(pb::ReportFormat::Html, &other)).await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::NotFound);
}

/// GetScan over gRPC and REST shows one typed report: the `Struct` is the REST body's report
/// object, which is the serde form of `Store::scan_report`, and a body reads back into it.
#[tokio::test]
async fn grpc_and_rest_get_scan_show_the_one_typed_report() {
    let app = spawn(lifted()).await;
    let t = token(&app.store, "acme", &[]).await;
    let id = seed_completed(&app.store, "acme").await;
    let typed = app.store.scan_report("acme", id, true).await.unwrap().expect("the scan");
    assert!(app.store.scan_report("globex", id, true).await.unwrap().is_none(), "another organisation's scan");
    let rest: Value = serde_json::from_str(&get(&app, &format!("/api/v1/scans/{id}?include_findings=true"), Some(&t)).await.text().await.unwrap()).unwrap();
    assert_eq!(rest, typed.to_body());
    assert_eq!(sitescan::model::ScanReport::from_body(&rest).unwrap(), typed);

    let mut client = pb::scan_service_client::ScanServiceClient::connect(format!("http://{}", app.addr)).await.unwrap();
    let mut req = tonic::Request::new(pb::GetScanRequest { scan_id: id.to_string(), include_findings: true });
    req.metadata_mut().insert("authorization", format!("Bearer {t}").parse().unwrap());
    let got = client.get_scan(req).await.unwrap().into_inner();
    let report = got.report.as_ref().expect("a report");
    assert_eq!(report.findings.as_ref().expect("with findings").items.len(), typed.findings().len());
    assert_eq!(sitescan::proto::json::to_value(&got).unwrap(), rest, "gRPC's message written by REST's rules is REST's body");
    let scan = got.scan.unwrap();
    assert_eq!(scan.status(), pb::ScanStatus::Completed);
    assert_eq!(scan.triggered_by(), pb::TriggeredBy::Api);
    assert_eq!(scan.findings_count.unwrap().critical, 1);
}

/// Every `google.api.http` binding (additional bindings included) of the service, as
/// (verb, path template).
fn annotated_routes() -> BTreeSet<(String, String)> {
    let pool = DescriptorPool::decode(sitescan::proto::FILE_DESCRIPTOR_SET).unwrap();
    let http = pool.get_extension_by_name("google.api.http").expect("google.api.http is in the descriptor set");
    let service = pool.get_service_by_name("sitescan.v1.ScanService").unwrap();
    let mut out = BTreeSet::new();
    fn rule(binding: &DynamicMessage, out: &mut BTreeSet<(String, String)>) {
        for verb in ["get", "put", "post", "delete", "patch"] {
            if binding.has_field_by_name(verb)
                && let Some(ReflectValue::String(path)) = binding.get_field_by_name(verb).as_deref()
            {
                out.insert((verb.to_uppercase(), path.clone()));
            }
        }
        if let Some(ReflectValue::List(more)) = binding.get_field_by_name("additional_bindings").as_deref() {
            for m in more {
                if let ReflectValue::Message(m) = m {
                    rule(m, out);
                }
            }
        }
    }
    for method in service.methods() {
        if method.is_server_streaming() {
            // Streams (WatchScan) are gRPC only: not transcoded.
            continue;
        }
        let options = method.options();
        assert!(options.has_extension(&http), "{} has no google.api.http annotation", method.full_name());
        if let ReflectValue::Message(m) = options.get_extension(&http).as_ref() {
            rule(m, &mut out);
        }
    }
    out
}

#[test]
fn every_annotated_binding_is_routed_and_every_route_is_annotated() {
    let annotated = annotated_routes();
    assert!(annotated.contains(&("GET".into(), "/api/v1/scans/{scan_id}/report.html".into())));
    assert!(annotated.contains(&("GET".into(), "/api/v1/scans/{scan_id}/report.sarif".into())), "additional_bindings are read");
    let routed: BTreeSet<(String, String)> =
        sitescan::api::rest::routes().into_iter().map(|(verb, path, _, _)| (verb.to_string(), path.to_string())).collect();
    assert_eq!(annotated, routed);
}

#[test]
fn the_openapi_document_describes_both_report_endpoints() {
    let doc: serde_yaml::Value = serde_yaml::from_str(sitescan::api::openapi::document()).expect("the served document parses");
    let paths = doc["paths"].as_mapping().unwrap();
    let documented: BTreeSet<(String, String)> = paths
        .iter()
        .flat_map(|(path, ops)| {
            let path = path.as_str().unwrap().replace("{scanId}", "{scan_id}");
            ops.as_mapping().unwrap().keys().map(move |verb| (verb.as_str().unwrap().to_uppercase(), path.clone()))
        })
        .filter(|(_, p)| p.starts_with("/api/"))
        .collect();
    let routed: BTreeSet<(String, String)> =
        sitescan::api::rest::routes().into_iter().map(|(verb, path, _, _)| (verb.to_string(), path.to_string())).collect();
    assert_eq!(documented, routed);
    let html_op = &doc["paths"]["/api/v1/scans/{scanId}/report.html"]["get"];
    assert!(html_op["responses"]["200"]["content"]["text/html"].is_mapping());
    let sarif_op = &doc["paths"]["/api/v1/scans/{scanId}/report.sarif"]["get"];
    assert!(sarif_op["responses"]["200"]["content"]["application/sarif+json"].is_mapping());
    for op in [html_op, sarif_op] {
        for status in ["401", "403", "404", "429"] {
            assert!(op["responses"][status].is_mapping(), "{status} documented");
        }
    }
}

/// Ids and times vary per run; everything else of the body is the contract.
fn normalised(mut v: Value) -> Value {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(map) => {
                for (k, x) in map.iter_mut() {
                    if (k == "id" || k == "scan_id") && x.is_string() {
                        *x = json!("<id>");
                    } else if k.ends_with("_at") && x.is_string() {
                        *x = json!("<time>");
                    } else {
                        walk(x);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut v);
    v
}

/// The single-scan body, summary only and with findings, against a reviewed golden file: the
/// typed report must not change a byte of what clients read (`checks_not_run` per page is the one
/// addition). `SITESCAN_UPDATE_GOLDEN=1` rewrites the file after a deliberate change.
#[tokio::test]
async fn the_scan_body_matches_the_golden_file() {
    let app = spawn(lifted()).await;
    let t = token(&app.store, "acme", &[]).await;
    let id = seed_completed(&app.store, "acme").await;
    let mut bodies = serde_json::Map::new();
    for (name, query) in [("summary_only", ""), ("with_findings", "?include_findings=true")] {
        let resp = get(&app, &format!("/api/v1/scans/{id}{query}"), Some(&t)).await;
        assert_eq!(resp.status(), 200);
        let body: Value = serde_json::from_slice(&resp.bytes().await.unwrap()).unwrap();
        bodies.insert(name.into(), normalised(body));
    }
    let actual = serde_json::to_string_pretty(&Value::Object(bodies)).unwrap() + "\n";
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/reports/golden/scan_body.json");
    if std::env::var_os("SITESCAN_UPDATE_GOLDEN").is_some() {
        std::fs::write(path, &actual).unwrap();
    }
    let golden = std::fs::read_to_string(path).expect("tests/reports/golden/scan_body.json");
    assert_eq!(actual, golden, "the scan body drifted from tests/reports/golden/scan_body.json");
}
