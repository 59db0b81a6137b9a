//! The machine-readable description and the proto annotations:
//! `GET /docs/api/openapi` (no token, `text/yaml`, OpenAPI 3.1.x, version 1.0.0, paths equal to
//! the routes), real responses of every endpoint (successes and errors) validated against its
//! schemas and declared headers, and the `google.api.http` annotations of the compiled
//! descriptor equal to `sitescan::api::rest::routes()` one for one, each answering on a live
//! server; the query parameters and request bodies the document declares equal to the fields of
//! the proto's request messages, both ways.

use crate::app;

use app::{AppOptions, Resp, TestApp, finding, spawn_app, spawn_app_with};
use prost_reflect::{DescriptorPool, Value as PValue};
use serde_json::{Value, json};
use sitescan::model::{ReportSummary, Severity, SeverityCounts};
use std::collections::BTreeSet;
use std::time::Duration;

async fn openapi(app: &TestApp) -> Value {
    let r = app.call("GET", "/docs/api/openapi", None, None).await;
    r.expect(200);
    let yaml: serde_yaml::Value = serde_yaml::from_str(&r.text).expect("the document parses as YAML");
    serde_json::to_value(yaml).expect("YAML as JSON")
}

/// `{x}` path parameters renamed to `{}`, so `{scanId}` (OpenAPI) and `{scan_id}` (proto) compare.
fn template(path: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for c in path.chars() {
        match c {
            '{' => {
                inside = true;
                out.push('{');
            }
            '}' => {
                inside = false;
                out.push('}');
            }
            _ if inside => {}
            _ => out.push(c),
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openapi_is_served_without_a_token_as_yaml() {
    let app = spawn_app().await;
    let r = app.call("GET", "/docs/api/openapi", None, None).await;
    r.expect(200);
    let ct = r.header("content-type");
    assert!(ct.starts_with("text/yaml"), "content-type {ct}");
    // A token changes nothing, even a bad one.
    let with = app.call_auth("GET", "/docs/api/openapi", Some("Bearer nonsense"), None).await;
    with.expect(200);
    assert_eq!(with.text, r.text);
    let doc = openapi(&app).await;
    let version = doc["openapi"].as_str().expect("openapi is a string");
    assert!(version.starts_with("3.1."), "openapi {version}");
    assert_eq!(doc["info"]["version"], "1.0.0");
    assert!(doc["info"]["title"].is_string());
    // Every documented schema reference resolves.
    let text = serde_json::to_string(&doc).unwrap();
    for cap in regex::Regex::new(r##""\$ref":"#/([^"]+)""##).unwrap().captures_iter(&text) {
        let pointer = format!("/{}", &cap[1]);
        assert!(doc.pointer(&pointer).is_some(), "dangling $ref #{pointer}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openapi_paths_equal_the_routes() {
    let app = spawn_app().await;
    let doc = openapi(&app).await;
    let mut documented = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            if ["get", "put", "post", "delete", "patch", "head", "options", "trace"].contains(&method.as_str()) {
                documented.insert((method.to_ascii_uppercase(), template(path)));
            }
        }
    }
    let mut routed: BTreeSet<(String, String)> =
        sitescan::api::rest::routes().into_iter().map(|(m, p, _, _)| (m.to_string(), template(p))).collect();
    for p in ["/docs/api/openapi", "/healthz", "/readyz"] {
        routed.insert(("GET".to_string(), p.to_string()));
    }
    assert_eq!(documented, routed);
    // Path parameters are declared with the name the template uses.
    let param = regex::Regex::new(r"\{([^}]+)\}").unwrap();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for name in param.captures_iter(path) {
            for (method, op) in item.as_object().unwrap() {
                let declared = op["parameters"].as_array().into_iter().flatten().any(|p| p["in"] == "path" && p["name"] == name[1]);
                assert!(declared, "{method} {path} does not declare path parameter {}", &name[1]);
            }
        }
    }
}

/// The check catalogue in the document is the registry's, never a second list.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openapi_lists_the_registry_check_ids() {
    let app = spawn_app().await;
    let doc = openapi(&app).await;
    let check_id = &doc["components"]["schemas"]["CheckId"];
    let listed: Vec<String> = check_id["x-check-ids"]
        .as_array()
        .unwrap_or_else(|| panic!("CheckId has no x-check-ids list: {check_id}"))
        .iter()
        .map(|v| v.as_str().expect("check ids are strings").to_string())
        .collect();
    let mut registry: Vec<String> = sitescan::checks::catalogue().map(|m| m.id.to_string()).collect();
    registry.sort();
    assert_eq!(listed, registry);
    let pattern = regex::Regex::new(check_id["pattern"].as_str().expect("CheckId pattern")).unwrap();
    for id in &listed {
        assert!(pattern.is_match(id), "{id} does not match the CheckId pattern");
    }
}

/// Validates real responses against the document: schema of the status (or `default`), and the
/// headers it declares.
struct Checker {
    doc: Value,
}

impl Checker {
    fn resolve<'a>(&'a self, v: &'a Value) -> &'a Value {
        match v.get("$ref").and_then(Value::as_str) {
            Some(r) => self.resolve(self.doc.pointer(r.trim_start_matches('#')).unwrap_or_else(|| panic!("bad $ref {r}"))),
            None => v,
        }
    }

    fn validate_schema(&self, schema: &Value, body: &Value, what: &str) {
        let errors = self.schema_errors(schema, body, what);
        assert!(errors.is_empty(), "{what}: response does not match the document: {errors:#?}\nbody: {body}");
    }

    fn schema_errors(&self, schema: &Value, body: &Value, what: &str) -> Vec<String> {
        let root = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "components": self.doc["components"],
            "allOf": [schema],
        });
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(&root)
            .unwrap_or_else(|e| panic!("{what}: schema does not compile: {e}"));
        validator.iter_errors(body).map(|e| format!("{} at {}", e, e.instance_path)).collect()
    }

    /// Checks a response of `method path-template`.
    #[track_caller]
    fn check(&self, method: &str, path: &str, r: &Resp) {
        let what = format!("{method} {path} -> {}", r.status);
        let op = &self.doc["paths"][path][method.to_ascii_lowercase()];
        assert!(op.is_object(), "{what}: operation not documented");
        let responses = &op["responses"];
        let status = r.status.as_u16().to_string();
        let response = responses.get(&status).or_else(|| responses.get("default")).unwrap_or_else(|| {
            panic!("{what}: status not documented (documented: {:?})", responses.as_object().unwrap().keys())
        });
        let response = self.resolve(response);
        if let Some(headers) = response.get("headers").and_then(Value::as_object) {
            for (name, h) in headers {
                let h = self.resolve(h);
                let value = r.header_opt(name).unwrap_or_else(|| panic!("{what}: declared header {name} missing"));
                if h["schema"]["type"] == "integer" {
                    assert!(value.parse::<i64>().is_ok(), "{what}: header {name} {value:?} is not an integer");
                }
            }
        }
        let content = response["content"].as_object().unwrap_or_else(|| panic!("{what}: no content documented"));
        let ct = r.header("content-type");
        let (media, spec) = content
            .iter()
            .find(|(media, _)| ct.starts_with(media.as_str()))
            .unwrap_or_else(|| panic!("{what}: content-type {ct} not documented ({:?})", content.keys()));
        if media == "application/json" {
            self.validate_schema(&spec["schema"], &r.json, &what);
        }
    }

    fn error_schema(&self, r: &Resp, what: &str) {
        self.validate_schema(&json!({"$ref": "#/components/schemas/Error"}), &r.json, what);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_responses_validate_against_the_document() {
    let app = spawn_app().await;
    let c = Checker { doc: openapi(&app).await };
    let token = app.token("acme").await;
    let (reader, _) = app.token_with("acme", &["scans:read"]).await;
    let (writer, _) = app.token_with("acme", &["scans:write"]).await;
    let other = app.token("globex").await;
    const SCANS: &str = "/api/v1/scans";
    const SCAN: &str = "/api/v1/scans/{scanId}";
    const FINDINGS: &str = "/api/v1/findings";

    // createScan: 201, 400, 401, 403.
    let created = app.post(SCANS, &token, r#"{"target":"Example.com"}"#).await;
    c.check("POST", SCANS, created.expect(201));
    let id = created.json["id"].as_str().unwrap().to_string();
    for body in ["{", "[]", "{}", r#"{"target":"http://127.0.0.1/"}"#, r#"{"target":"x.com","more":1}"#] {
        c.check("POST", SCANS, app.post(SCANS, &token, body).await.expect(400));
    }
    c.check("POST", SCANS, app.call("POST", SCANS, None, Some("{}")).await.expect(401));
    c.check("POST", SCANS, app.post(SCANS, &reader, r#"{"target":"x.com"}"#).await.expect(403));

    // listScans: 200 (with and without a next page), 400, 401, 403.
    app.create_scan(&token, "example.org").await;
    c.check("GET", SCANS, app.get(SCANS, &token).await.expect(200));
    let paged = app.get(&format!("{SCANS}?limit=1"), &token).await;
    assert!(paged.json["next_cursor"].is_string());
    c.check("GET", SCANS, paged.expect(200));
    c.check("GET", SCANS, app.get(&format!("{SCANS}?limit=0"), &token).await.expect(400));
    c.check("GET", SCANS, app.get(&format!("{SCANS}?cursor=junk"), &token).await.expect(400));
    c.check("GET", SCANS, app.call("GET", SCANS, None, None).await.expect(401));
    c.check("GET", SCANS, app.get(SCANS, &writer).await.expect(403));

    // getScan: queued (null report), running, completed with and without findings, 400, 401,
    // 403, 404.
    let queued = app.get(&format!("{SCANS}/{id}"), &token).await;
    assert_eq!(queued.json["report"], Value::Null);
    c.check("GET", SCAN, queued.expect(200));
    let claimed = app.store.claim_scan("w", Duration::from_secs(60), 3).await.unwrap().unwrap();
    c.check("GET", SCAN, app.get(&format!("{SCANS}/{}", claimed.id), &token).await.expect(200));
    let page = sitescan::model::ReportPage {
        url: "https://example.com/".into(),
        final_url: Some("https://example.com/".into()),
        status: Some(200),
        title: Some("Example".into()),
        metrics: json!({"ttfb_ms": 10.5, "fcp_ms": 100, "lcp_ms": 200, "cls": 0.01, "tbt_ms": 0, "transfer_bytes": 1000, "requests": 3}),
        error: None,
        checks_not_run: Vec::new(),
    };
    let mut with_cwe = finding("runtime.mixed-content", Severity::High, "https://example.com/");
    with_cwe.cwe_id = Some("CWE-319".into());
    let fs = [with_cwe, finding("search.title-missing", Severity::Low, "https://example.com/")];
    app.seed_page(claimed.id, "acme", 0, &page, &fs).await;
    let mut summary = ReportSummary::empty();
    let mut counts = SeverityCounts::default();
    for f in &fs {
        summary.count(&f.check_id, f.severity, 1);
        counts.add(f.severity, 1);
    }
    summary.pages_scanned = 1;
    assert!(app.store.complete_scan(claimed.id, "w", &sitescan::model::StoredReport::of(summary.clone())).await.unwrap());
    let done = app.get(&format!("{SCANS}/{}", claimed.id), &token).await;
    assert!(done.json["report"]["summary"].is_object());
    c.check("GET", SCAN, done.expect(200));
    let full = app.get(&format!("{SCANS}/{}?include_findings=true", claimed.id), &token).await;
    assert_eq!(full.json["report"]["findings"].as_array().unwrap().len(), 2);
    c.check("GET", SCAN, full.expect(200));
    c.check("GET", SCAN, app.get(&format!("{SCANS}/{id}?include_findings=maybe"), &token).await.expect(400));
    c.check("GET", SCAN, app.call("GET", &format!("{SCANS}/{id}"), None, None).await.expect(401));
    c.check("GET", SCAN, app.get(&format!("{SCANS}/{id}"), &writer).await.expect(403));
    c.check("GET", SCAN, app.get(&format!("{SCANS}/{id}"), &other).await.expect(404));
    c.check("GET", SCAN, app.get(&format!("{SCANS}/nope"), &token).await.expect(404));

    // listFindings: 200 (including a finding with nulls), 400, 401, 403.
    let fr = app.get(FINDINGS, &token).await;
    assert_eq!(fr.json["findings"].as_array().unwrap().len(), 2);
    c.check("GET", FINDINGS, fr.expect(200));
    c.check("GET", FINDINGS, app.get(&format!("{FINDINGS}?limit=1"), &token).await.expect(200));
    for q in ["severity=bogus", "since=never", "limit=201", "cursor=junk"] {
        c.check("GET", FINDINGS, app.get(&format!("{FINDINGS}?{q}"), &token).await.expect(400));
    }
    c.check("GET", FINDINGS, app.call("GET", FINDINGS, None, None).await.expect(401));
    c.check("GET", FINDINGS, app.get(FINDINGS, &writer).await.expect(403));

    // Probes and the document itself.
    c.check("GET", "/healthz", &app.call("GET", "/healthz", None, None).await);
    c.check("GET", "/readyz", &app.call("GET", "/readyz", None, None).await);
    c.check("GET", "/docs/api/openapi", &app.call("GET", "/docs/api/openapi", None, None).await);

    // Outside the documented operations: 404 and 405 still carry the Error schema.
    let r = app.get("/api/v1/nope", &token).await;
    c.error_schema(r.expect(404), "GET /api/v1/nope");
    let r = app.call("DELETE", SCANS, Some(&token), None).await;
    c.error_schema(r.expect(405), "DELETE /api/v1/scans");
}

/// 429s (rate limit and quota) validate too, with the headers the document declares.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_many_requests_validate_against_the_document() {
    let app = spawn_app_with(AppOptions::default().rate(&[(1, Duration::from_secs(60))])).await;
    let c = Checker { doc: openapi(&app).await };
    let endpoints = [
        ("POST", "/api/v1/scans", "/api/v1/scans".to_string(), Some(r#"{"target":"example.com"}"#)),
        ("GET", "/api/v1/scans", "/api/v1/scans".to_string(), None),
        ("GET", "/api/v1/scans/{scanId}", format!("/api/v1/scans/{}", uuid::Uuid::new_v4()), None),
        ("GET", "/api/v1/findings", "/api/v1/findings".to_string(), None),
    ];
    for (method, template, path, body) in endpoints {
        let token = app.token("acme").await;
        let first = app.call(method, &path, Some(&token), body).await;
        c.check(method, template, &first);
        let limited = app.call(method, &path, Some(&token), body).await;
        limited.expect_error(429, "rate_limited");
        c.check(method, template, &limited);
    }
    app.store.set_org("quota-org", Some(1)).await.unwrap();
    let q1 = app.token("quota-org").await;
    let q2 = app.token("quota-org").await;
    app.post("/api/v1/scans", &q1, r#"{"target":"example.com"}"#).await.expect(201);
    let quota = app.post("/api/v1/scans", &q2, r#"{"target":"example.com"}"#).await;
    quota.expect_error(429, "quota_exceeded");
    c.check("POST", "/api/v1/scans", &quota);
}

/// The checker is not vacuous: bodies the document forbids are refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_checker_refuses_what_the_document_forbids() {
    let app = spawn_app().await;
    let c = Checker { doc: openapi(&app).await };
    let token = app.token("acme").await;
    let created = app.create_scan(&token, "example.com").await;
    let id = created["id"].as_str().unwrap().to_string();
    let scan = app.get(&format!("/api/v1/scans/{id}"), &token).await.json;
    let create_schema = json!({"$ref": "#/components/schemas/CreateScanResponse"});
    let scan_schema = json!({"$ref": "#/components/schemas/Scan"});
    assert!(c.schema_errors(&create_schema, &created, "real").is_empty());
    assert!(c.schema_errors(&scan_schema, &scan["scan"], "real").is_empty());
    let mut bad = Vec::new();
    let mut v = created.clone();
    v["mode"] = json!("active");
    bad.push((create_schema.clone(), v));
    let mut v = created.clone();
    v["extra"] = json!(1);
    bad.push((create_schema.clone(), v));
    let mut v = created.clone();
    v["id"] = json!("not-a-uuid");
    bad.push((create_schema.clone(), v));
    let mut v = scan["scan"].clone();
    v["created_at"] = json!("yesterday");
    bad.push((scan_schema.clone(), v));
    let mut v = scan["scan"].clone();
    v["findings_count"]["high"] = json!(-1);
    bad.push((scan_schema.clone(), v));
    let mut v = scan["scan"].clone();
    v.as_object_mut().unwrap().remove("target_url");
    bad.push((scan_schema.clone(), v));
    bad.push((json!({"$ref": "#/components/schemas/Error"}), json!({"message": "no error key"})));
    for (schema, body) in bad {
        assert!(!c.schema_errors(&schema, &body, "mutated").is_empty(), "the checker accepted {body}");
    }
}

/// Every `google.api.http` annotation of the compiled descriptor, as (verb, path).
fn annotations() -> BTreeSet<(String, String)> {
    let pool = DescriptorPool::decode(sitescan::proto::FILE_DESCRIPTOR_SET).expect("descriptor set decodes");
    let ext = pool.get_extension_by_name("google.api.http").expect("google.api.http is in the descriptor set");
    let service = pool.get_service_by_name("sitescan.v1.ScanService").expect("ScanService");
    let mut out = BTreeSet::new();
    let mut methods = 0;
    for method in service.methods() {
        if method.is_server_streaming() {
            // Streams (WatchScan) are gRPC only: not transcoded, so no annotation and no route.
            assert_eq!(method.name(), "WatchScan", "the only streaming RPC");
            continue;
        }
        methods += 1;
        let options = method.options();
        assert!(options.has_extension(&ext), "{} has no google.api.http annotation", method.full_name());
        let rule = options.get_extension(&ext);
        let PValue::Message(rule) = rule.as_ref() else { panic!("{}: HttpRule is not a message", method.name()) };
        let mut bindings = vec![rule.clone()];
        if let Some(PValue::List(extra)) = rule.get_field_by_name("additional_bindings").map(|v| v.into_owned()) {
            for b in extra {
                if let PValue::Message(m) = b {
                    bindings.push(m);
                }
            }
        }
        for b in bindings {
            let mut found = 0;
            for verb in ["get", "put", "post", "delete", "patch"] {
                if b.has_field_by_name(verb) {
                    let path = b.get_field_by_name(verb).unwrap().as_str().unwrap().to_string();
                    out.insert((verb.to_ascii_uppercase(), path));
                    found += 1;
                }
            }
            if b.has_field_by_name("custom") {
                let custom = b.get_field_by_name("custom").unwrap();
                let custom = custom.as_message().unwrap();
                out.insert((
                    custom.get_field_by_name("kind").unwrap().as_str().unwrap().to_ascii_uppercase(),
                    custom.get_field_by_name("path").unwrap().as_str().unwrap().to_string(),
                ));
                found += 1;
            }
            assert_eq!(found, 1, "{}: one verb per binding", method.name());
        }
        if method.name() == "CreateScan" {
            assert_eq!(rule.get_field_by_name("body").unwrap().as_str(), Some("*"), "CreateScan takes the body");
        }
    }
    assert_eq!(methods, 7, "CreateScan, ListScans, GetScan, ListFindings, GetScanReport, ListScanHistory, CompareScans");
    out
}

#[test]
fn annotations_equal_the_routes_one_for_one() {
    let annotated = annotations();
    let routes: Vec<(String, String)> =
        sitescan::api::rest::routes().into_iter().map(|(m, p, _, _)| (m.to_string(), p.to_string())).collect();
    let routed: BTreeSet<(String, String)> = routes.iter().cloned().collect();
    assert_eq!(routes.len(), routed.len(), "no route listed twice");
    assert_eq!(annotated, routed);
    assert_eq!(
        annotated,
        BTreeSet::from([
            ("POST".to_string(), "/api/v1/scans".to_string()),
            ("GET".to_string(), "/api/v1/scans".to_string()),
            ("GET".to_string(), "/api/v1/scans/{scan_id}".to_string()),
            ("GET".to_string(), "/api/v1/findings".to_string()),
            ("GET".to_string(), "/api/v1/scans/{scan_id}/report.html".to_string()),
            ("GET".to_string(), "/api/v1/scans/{scan_id}/report.sarif".to_string()),
            ("GET".to_string(), "/api/v1/history".to_string()),
            ("GET".to_string(), "/api/v1/compare".to_string()),
        ]),
        "the spec's four endpoints, the two report documents, a site's history and two scans compared"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_annotated_route_answers_on_a_live_server() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let base = app.completed_scan("acme", "https://example.com/", &[("/", 1000.0)], &[]).await;
    let head = app.completed_scan("acme", "https://example.com/", &[("/", 900.0)], &[]).await;
    let id = app.create_scan(&token, "example.com").await["id"].as_str().unwrap().to_string();
    // The required query parameters of the paths that have some.
    let query = |path: &str| match path {
        "/api/v1/history" => "?target=example.com".to_string(),
        "/api/v1/compare" => format!("?base={base}&head={head}"),
        _ => String::new(),
    };
    let param = regex::Regex::new(r"\{[^}]+\}").unwrap();
    for (verb, path) in annotations() {
        let path = param.replace_all(&path, id.as_str()).to_string() + &query(&path);
        let body = (verb == "POST").then_some(r#"{"target":"example.org"}"#);
        let r = app.call(&verb, &path, Some(&token), body).await;
        assert!(
            !matches!(r.status.as_u16(), 404 | 405),
            "{verb} {path} is annotated but answers {} {}",
            r.status,
            r.text
        );
        assert!(r.status.is_success(), "{verb} {path}: {} {}", r.status, r.text);
    }
}

/// Every binding's inputs, from the descriptor: (verb, path) -> (query parameters, body fields).
/// A field bound in the path is neither; with `body: "*"` the rest are the body, else the query.
fn annotated_inputs() -> std::collections::BTreeMap<(String, String), (BTreeSet<String>, BTreeSet<String>)> {
    let pool = DescriptorPool::decode(sitescan::proto::FILE_DESCRIPTOR_SET).expect("descriptor set decodes");
    let ext = pool.get_extension_by_name("google.api.http").expect("google.api.http is in the descriptor set");
    let service = pool.get_service_by_name("sitescan.v1.ScanService").expect("ScanService");
    let param = regex::Regex::new(r"\{([^}=]+)").unwrap();
    let mut out = std::collections::BTreeMap::new();
    for method in service.methods().filter(|m| !m.is_server_streaming()) {
        let options = method.options();
        let rule = options.get_extension(&ext);
        let PValue::Message(rule) = rule.as_ref() else { panic!("{}: HttpRule is not a message", method.name()) };
        let mut bindings = vec![rule.clone()];
        if let Some(PValue::List(extra)) = rule.get_field_by_name("additional_bindings").map(|v| v.into_owned()) {
            bindings.extend(extra.into_iter().filter_map(|b| if let PValue::Message(m) = b { Some(m) } else { None }));
        }
        for b in bindings {
            let verb = ["get", "put", "post", "delete", "patch"].into_iter().find(|v| b.has_field_by_name(v)).expect("a verb");
            let path = b.get_field_by_name(verb).unwrap().as_str().unwrap().to_string();
            let in_path: BTreeSet<String> = param.captures_iter(&path).map(|c| c[1].to_string()).collect();
            let body = b.get_field_by_name("body").and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
            let rest: BTreeSet<String> = method.input().fields().map(|f| f.name().to_string()).filter(|n| !in_path.contains(n)).collect();
            let (query, body) = if body == "*" { (BTreeSet::new(), rest) } else { (rest, BTreeSet::new()) };
            out.insert((verb.to_ascii_uppercase(), path), (query, body));
        }
    }
    out
}

/// The inputs of each operation in the served document: its query parameters and the
/// properties of its JSON request body.
fn documented_inputs(doc: &Value, verb: &str, path: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let op = &doc["paths"][path][verb.to_ascii_lowercase()];
    assert!(op.is_object(), "{verb} {path} is not in the document");
    let resolve = |v: &Value| -> Value {
        match v.get("$ref").and_then(Value::as_str) {
            Some(r) => r.trim_start_matches("#/").split('/').fold(doc.clone(), |node, key| node[key].clone()),
            None => v.clone(),
        }
    };
    let query = op["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .map(resolve)
        .filter(|p| p["in"] == "query")
        .map(|p| p["name"].as_str().expect("a parameter's name").to_string())
        .collect();
    let body_schema = resolve(&op["requestBody"]["content"]["application/json"]["schema"]);
    let body = body_schema["properties"].as_object().map(|p| p.keys().cloned().collect()).unwrap_or_default();
    (query, body)
}

/// One contract: every query parameter and request body property the proto's request messages
/// take is in the served document, and the document offers none they do not take.
#[test]
fn the_documents_parameters_and_bodies_equal_the_proto_requests() {
    let doc: serde_yaml::Value = serde_yaml::from_str(sitescan::api::openapi::document()).expect("the document parses");
    let doc = serde_json::to_value(doc).expect("YAML as JSON");
    let mut compared = 0;
    let mut diffs = Vec::new();
    let param = regex::Regex::new(r"\{([a-z_]+)\}").unwrap();
    for ((verb, path), (query, body)) in annotated_inputs() {
        let doc_path = param.replace_all(&path, |c: &regex::Captures| {
            // The document names path parameters in camelCase (`{scanId}`).
            let mut out = String::from("{");
            let mut upper = false;
            for ch in c[1].chars() {
                if ch == '_' {
                    upper = true;
                } else if upper {
                    out.extend(ch.to_uppercase());
                    upper = false;
                } else {
                    out.push(ch);
                }
            }
            out + "}"
        });
        let (doc_query, doc_body) = documented_inputs(&doc, &verb, &doc_path);
        // Fields the route itself fixes, so no request names them.
        let fixed: &[&str] = if path.ends_with("/report.html") || path.ends_with("/report.sarif") { &["format"] } else { &[] };
        let query: BTreeSet<String> = query.into_iter().filter(|f| !fixed.contains(&f.as_str())).collect();
        if doc_query != query {
            diffs.push(format!("{verb} {path}: query parameters: document {doc_query:?}, proto {query:?}"));
        }
        if doc_body != body {
            diffs.push(format!("{verb} {path}: request body: document {doc_body:?}, proto {body:?}"));
        }
        compared += 1;
    }
    assert!(diffs.is_empty(), "the document and the proto disagree:\n{}", diffs.join("\n"));
    assert_eq!(compared, 8, "every annotated binding was compared");
    // Not vacuous: the lists compared are the real ones.
    let inputs = annotated_inputs();
    let findings = &inputs[&("GET".to_string(), "/api/v1/findings".to_string())].0;
    assert!(["severity", "check_id", "since", "cursor", "limit"].iter().all(|p| findings.contains(*p)), "{findings:?}");
    assert!(inputs[&("POST".to_string(), "/api/v1/scans".to_string())].1.contains("target"));
}

/// The served document as JSON, read without a server (the same text `GET /docs/api/openapi`
/// answers with; `openapi_is_served_without_a_token_as_yaml` proves that).
fn served() -> Value {
    let doc: serde_yaml::Value = serde_yaml::from_str(sitescan::api::openapi::document()).expect("the document parses");
    serde_json::to_value(doc).expect("YAML as JSON")
}

/// The component a `$ref` names (`#/components/schemas/X` -> `X`), looking through `oneOf` with
/// null, `items` and `additionalProperties`.
fn referenced(schema: &Value) -> Option<String> {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        return r.strip_prefix("#/components/schemas/").map(str::to_string);
    }
    for key in ["items", "additionalProperties"] {
        if let Some(inner) = schema.get(key).filter(|v| v.is_object()) {
            return referenced(inner);
        }
    }
    schema.get("oneOf")?.as_array()?.iter().find_map(referenced)
}

/// One contract for the answers: every JSON answer and body of a binding is the schema of its
/// message, and every schema of a message has exactly the message's fields (both ways: none
/// missing, none invented), required unless declared `optional`, each message or enum field
/// pointing at that message's or enum's schema, all the way down.
#[test]
fn the_documents_schemas_equal_the_proto_messages() {
    let doc = served();
    let pool = DescriptorPool::decode(sitescan::proto::FILE_DESCRIPTOR_SET).unwrap();
    let schemas = doc["components"]["schemas"].as_object().expect("components.schemas");
    let mut diffs = Vec::new();
    // 1. Each binding's JSON answer and body.
    let mut todo: Vec<(String, String)> = Vec::new(); // (component, message full name)
    let scan_id = regex::Regex::new(r"\{scan_id\}").unwrap();
    for b in sitescan::api::openapi::schemas::bindings() {
        let doc_path = scan_id.replace_all(&b.path, "{scanId}").to_string();
        let op = &doc["paths"][&doc_path][b.verb.to_ascii_lowercase()];
        if b.answers_json() {
            let ok = ["200", "201"].iter().map(|s| &op["responses"][*s]).find(|r| r.is_object()).expect("a success response");
            match referenced(&ok["content"]["application/json"]["schema"]) {
                Some(c) => todo.push((c, b.output.full_name().to_string())),
                None => diffs.push(format!("{} {}: the answer is not a schema of the proto", b.verb, b.path)),
            }
        }
        if b.body == "*" {
            match referenced(&op["requestBody"]["content"]["application/json"]["schema"]) {
                Some(c) => todo.push((c, b.input.full_name().to_string())),
                None => diffs.push(format!("{} {}: the body is not a schema of the proto", b.verb, b.path)),
            }
        }
    }
    assert!(todo.len() >= 7, "every JSON answer and the one body: {todo:?}");
    // The webhooks' bodies: each a message of webhooks.proto, every event message listed.
    let mut hooked = BTreeSet::new();
    for (name, hook) in doc["webhooks"].as_object().expect("webhooks") {
        match referenced(&hook["post"]["requestBody"]["content"]["application/json"]["schema"]) {
            Some(c) => {
                let full = schemas[&c]["x-proto"].as_str().unwrap_or_default().to_string();
                hooked.insert(full.clone());
                todo.push((c, full));
            }
            None => diffs.push(format!("webhook {name}: the body is not a schema of the proto")),
        }
    }
    let events: BTreeSet<String> = pool
        .all_messages()
        .filter(|m| m.parent_file().name() == "sitescan/v1/webhooks.proto" && m.name().ends_with("Event"))
        .map(|m| m.full_name().to_string())
        .collect();
    assert_eq!(hooked, events, "every webhook event message is a documented webhook");
    // 2. Each schema of a message, and all it reaches.
    let mut seen = BTreeSet::new();
    let mut properties_compared = 0;
    while let Some((component, full)) = todo.pop() {
        if !seen.insert(component.clone()) {
            continue;
        }
        let schema = &schemas[&component];
        if let Some(e) = pool.get_enum_by_name(&full) {
            let expected: Vec<String> = e.values().filter(|v| v.number() != 0).map(|v| sitescan::proto::json::enum_value_name(e.name(), v.name())).collect();
            let listed: Vec<String> = schema["enum"].as_array().into_iter().flatten().filter_map(|v| v.as_str().map(str::to_string)).collect();
            if listed != expected {
                diffs.push(format!("{component}: enum {listed:?}, proto {expected:?}"));
            }
            continue;
        }
        let Some(message) = pool.get_message_by_name(&full) else {
            diffs.push(format!("{component}: {full} is not in the proto"));
            continue;
        };
        if schema["x-proto"] != full.as_str() {
            diffs.push(format!("{component}: x-proto {}, expected {full}", schema["x-proto"]));
        }
        // A `json_list` message is the array of its one repeated field.
        if let Some(list) = sitescan::proto::json::list_field(&message) {
            if schema["type"] != "array" {
                diffs.push(format!("{component}: a json_list message, not an array"));
            }
            match list.kind() {
                prost_reflect::Kind::Message(m) => match referenced(&schema["items"]) {
                    Some(c) => todo.push((c, m.full_name().to_string())),
                    None => diffs.push(format!("{component}: items are no schema of {}", m.full_name())),
                },
                _ => diffs.push(format!("{component}: a list of a kind the document does not test")),
            }
            continue;
        }
        let props = schema["properties"].as_object().cloned().unwrap_or_default();
        let documented: BTreeSet<String> =
            props.iter().filter(|(_, p)| p.get("x-not-in-proto") != Some(&Value::Bool(true))).map(|(k, _)| k.clone()).collect();
        let fields: BTreeSet<String> = message.fields().map(|f| f.name().to_string()).collect();
        if documented != fields {
            diffs.push(format!("{component}: properties {documented:?}, fields of {full} {fields:?}"));
        }
        let required: BTreeSet<String> = schema["required"].as_array().into_iter().flatten().filter_map(|v| v.as_str().map(str::to_string)).collect();
        let mandatory: BTreeSet<String> =
            message.fields().filter(|f| !f.field_descriptor_proto().proto3_optional() && !sitescan::proto::json::omitted_when_unset(f)).map(|f| f.name().to_string()).collect();
        if required != mandatory {
            diffs.push(format!("{component}: required {required:?}, fields not optional {mandatory:?}"));
        }
        if schema["additionalProperties"] != Value::Bool(false) {
            diffs.push(format!("{component}: additional properties are allowed"));
        }
        for field in message.fields() {
            let Some(prop) = props.get(field.name()) else { continue };
            properties_compared += 1;
            let kind = if field.is_map() {
                match field.kind() {
                    prost_reflect::Kind::Message(entry) => entry.map_entry_value_field().kind(),
                    k => k,
                }
            } else {
                field.kind()
            };
            let inner = match &kind {
                prost_reflect::Kind::Message(m) if !m.full_name().starts_with("google.protobuf.") => Some(m.full_name().to_string()),
                prost_reflect::Kind::Enum(e) => Some(e.full_name().to_string()),
                _ => None,
            };
            let Some(inner) = inner else { continue };
            match referenced(prop) {
                // An enum refined to a literal (`status: queued` of a new scan) names no schema.
                None if matches!(kind, prost_reflect::Kind::Enum(_)) && prop["enum"].is_array() => {}
                None => diffs.push(format!("{component}.{}: no schema of {inner}", field.name())),
                Some(c) => todo.push((c, inner)),
            }
        }
    }
    assert!(diffs.is_empty(), "the document and the proto disagree:\n{}", diffs.join("\n"));
    assert!(seen.len() >= 15 && properties_compared >= 60, "{} schemas, {properties_compared} properties", seen.len());
    assert!(seen.contains("ScanComparison") && seen.contains("Finding") && seen.contains("Severity"), "{seen:?}");
}
