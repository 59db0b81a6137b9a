//! `spawn_app()`: the real `Application` in-process on `127.0.0.1:0` with a database of its own
//! (a temp SQLite file, or a fresh PostgreSQL database when `SITESCAN_TEST_DATABASE_URL` is set),
//! plus helpers to mint tokens and seed scans and findings through the store layer, and a small
//! HTTP client that returns what a user sees (status, headers, JSON body).
//!
//! Every JSON response of an `/api/` route received through `call`/`call_auth` (and so `get`,
//! `post`, ...) is validated against the OpenAPI document the service serves (`contract`): a
//! field added to a response without its schema fails whichever test first sees it.
//!
//! Used as `sitescan_test_support::app` by every test binary that talks to the server.

#![allow(dead_code)]

use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use sea_orm::{ConnectionTrait, Database};
use serde_json::Value;
use sitescan::api::{ApiSettings, Application, RateWindow};
use sitescan::model::{AddressPolicy, Finding, ScanMode, Severity, Target, TriggeredBy};
use sitescan::model::ReportPage;
use sitescan_store::{ApiToken, CreateOutcome, ScanRow, Store};
use std::net::SocketAddr;
use std::time::Duration;
use uuid::Uuid;

/// The environment variable naming the PostgreSQL server to test against.
pub const PG_ENV: &str = "SITESCAN_TEST_DATABASE_URL";

/// Rate windows so generous that no test meets them unless it asks to.
pub fn lifted_windows() -> Vec<RateWindow> {
    vec![RateWindow { limit: 1_000_000, period: Duration::from_secs(1) }]
}

/// What a test may change about the application it starts.
#[derive(Debug, Clone)]
pub struct AppOptions {
    pub rate_windows: Vec<RateWindow>,
    /// `--allow-target` CIDRs.
    pub allow: Vec<ipnet::IpNet>,
    /// `memory` or a `redis://` URL.
    pub rate_backend: String,
    /// The DNS server ownership TXT records are asked of (`--dns-server`).
    pub dns_server: Option<std::net::SocketAddr>,
    /// Caps on the live streams (the dashboard's live views, `WatchScan`).
    pub streams: sitescan::scans::StreamCaps,
    /// Host names the site service's egress guard answers itself (like `/etc/hosts`).
    pub hosts: std::collections::HashMap<String, Vec<std::net::IpAddr>>,
}

impl Default for AppOptions {
    fn default() -> Self {
        AppOptions {
            rate_windows: lifted_windows(),
            allow: Vec::new(),
            rate_backend: "memory".to_string(),
            dns_server: None,
            streams: sitescan::scans::StreamCaps::default(),
            hosts: std::collections::HashMap::new(),
        }
    }
}

impl AppOptions {
    /// Rate windows `(limit, period)`, enforced at once.
    pub fn rate(mut self, windows: &[(u32, Duration)]) -> Self {
        self.rate_windows = windows.iter().map(|&(limit, period)| RateWindow { limit, period }).collect();
        self
    }

    pub fn rate_backend(mut self, backend: &str) -> Self {
        self.rate_backend = backend.to_string();
        self
    }

    pub fn dns_server(mut self, addr: std::net::SocketAddr) -> Self {
        self.dns_server = Some(addr);
        self
    }

    pub fn streams(mut self, caps: sitescan::scans::StreamCaps) -> Self {
        self.streams = caps;
        self
    }

    /// `name` resolves to `ip` for the site service (ownership checks).
    pub fn host(mut self, name: &str, ip: &str) -> Self {
        self.hosts.entry(name.to_string()).or_default().push(ip.parse().expect("IP address"));
        self
    }

    pub fn allow_target(mut self, cidr: &str) -> Self {
        self.allow.push(cidr.parse().expect("CIDR"));
        self
    }
}

/// Where the test database lives, removed when the app is dropped.
enum DbGuard {
    /// A database the test owns itself.
    None,
    Sqlite(#[allow(dead_code)] tempfile::TempDir),
    Postgres { admin_url: String, name: String },
}

impl Drop for DbGuard {
    fn drop(&mut self) {
        if let DbGuard::Postgres { admin_url, name } = self {
            let (admin_url, name) = (admin_url.clone(), name.clone());
            // Dropped inside the test's runtime: drop the database from a thread of its own.
            let _ = std::thread::spawn(move || {
                let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
                rt.block_on(async move {
                    if let Ok(admin) = Database::connect(admin_url.as_str()).await {
                        let _ = admin.execute_unprepared(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await;
                        let _ = admin.close().await;
                    }
                });
            })
            .join();
        }
    }
}

/// A fresh, empty database URL for one test.
async fn fresh_database() -> (String, DbGuard) {
    match std::env::var(PG_ENV) {
        Ok(admin_url) if !admin_url.trim().is_empty() => {
            let name = format!("st_{}", Uuid::new_v4().simple());
            let admin = Database::connect(admin_url.as_str()).await.expect("connect to SITESCAN_TEST_DATABASE_URL");
            admin.execute_unprepared(&format!("CREATE DATABASE {name}")).await.expect("CREATE DATABASE");
            let _ = admin.close().await;
            let mut url = url::Url::parse(&admin_url).expect("SITESCAN_TEST_DATABASE_URL is a URL");
            url.set_path(&format!("/{name}"));
            (url.to_string(), DbGuard::Postgres { admin_url, name })
        }
        _ => {
            let dir = tempfile::tempdir().expect("temp dir");
            let url = format!("sqlite://{}?mode=rwc", dir.path().join("sitescan.db").display());
            (url, DbGuard::Sqlite(dir))
        }
    }
}

/// The Redis to test the shared rate limiter against: `SITESCAN_TEST_REDIS_URL`, else a local
/// Redis on 127.0.0.1:6379 when one answers (`None`, with a note, when there is none). Under
/// `SITESCAN_TEST_REQUIRE_REDIS=1` (set by `scripts/test.sh`, so CI) a missing Redis fails the
/// test instead of skipping the Redis case.
pub async fn redis_url() -> Option<String> {
    if let Ok(url) = std::env::var("SITESCAN_TEST_REDIS_URL")
        && !url.trim().is_empty()
    {
        return Some(url);
    }
    let probe = tokio::time::timeout(Duration::from_secs(1), tokio::net::TcpStream::connect("127.0.0.1:6379")).await;
    if matches!(probe, Ok(Ok(_))) {
        Some("redis://127.0.0.1:6379".to_string())
    } else if std::env::var("SITESCAN_TEST_REQUIRE_REDIS").is_ok_and(|v| v == "1") {
        panic!("SITESCAN_TEST_REQUIRE_REDIS=1 but no Redis answers on 127.0.0.1:6379 (scripts/services.sh starts one)");
    } else {
        eprintln!("no Redis on 127.0.0.1:6379 and SITESCAN_TEST_REDIS_URL unset: Redis limiter case skipped");
        None
    }
}

/// True when the suite runs against PostgreSQL.
pub fn on_postgres() -> bool {
    std::env::var(PG_ENV).is_ok_and(|v| !v.trim().is_empty())
}

/// A running application and what a test needs to talk to it.
pub struct TestApp {
    pub addr: SocketAddr,
    pub base: String,
    pub store: Store,
    pub db_url: String,
    pub http: reqwest::Client,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    // Last: the database goes after the server has been told to stop.
    _db: DbGuard,
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// Starts the application with rate limits lifted and no allow-list.
pub async fn spawn_app() -> TestApp {
    spawn_app_with(AppOptions::default()).await
}

pub async fn spawn_app_with(options: AppOptions) -> TestApp {
    let (db_url, guard) = fresh_database().await;
    start(db_url, guard, options).await
}

/// Starts the application on a database the test provides (migrated on start).
pub async fn spawn_app_at(db_url: &str, options: AppOptions) -> TestApp {
    start(db_url.to_string(), DbGuard::None, options).await
}

/// The key the test service seals site secrets with (32 bytes, hex).
pub const TEST_SECRET_KEY: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

/// Sites over a guarded fetcher with the test's policy, resolver and secret key.
pub fn site_service(store: &Store, policy: AddressPolicy, dns: Option<std::net::SocketAddr>) -> sitescan::sites::SiteService {
    site_service_with_hosts(store, policy, dns, std::collections::HashMap::new())
}

/// `site_service` whose guard answers `hosts` itself.
pub fn site_service_with_hosts(
    store: &Store,
    policy: AddressPolicy,
    dns: Option<std::net::SocketAddr>,
    hosts: std::collections::HashMap<String, Vec<std::net::IpAddr>>,
) -> sitescan::sites::SiteService {
    use sitescan::net::{EgressGuard, Fetcher, FetcherOptions};
    let guard = EgressGuard::new(policy.clone()).with_host_overrides(hosts);
    let fetcher = Fetcher::new(std::sync::Arc::new(guard), FetcherOptions::default()).expect("fetcher");
    let dns = dns.map_or(sitescan::sites::DnsServer::System, sitescan::sites::DnsServer::At);
    let verifier = sitescan::sites::Verifier::new(std::sync::Arc::new(fetcher), dns);
    let key = sitescan_store::SecretBox::from_text(TEST_SECRET_KEY).expect("test key");
    sitescan::sites::SiteService::new(store.clone(), verifier, policy, Some(key))
}

async fn start(db_url: String, guard: DbGuard, options: AppOptions) -> TestApp {
    if std::env::var_os("SITESCAN_TEST_LOG").is_some() {
        sitescan::telemetry::init(false, "info");
    }
    let store = Store::open(&db_url, true).await.expect("open and migrate the test database");
    let settings = ApiSettings { listen: "127.0.0.1:0".to_string(), rate_windows: options.rate_windows, rate_limit_backend: options.rate_backend };
    let config = sitescan::app::AppConfig { policy: AddressPolicy::new(options.allow.clone()), streams: options.streams, ..Default::default() };
    let services = sitescan::app::App::new(store.clone(), config)
        .with_sites(site_service_with_hosts(&store, AddressPolicy::new(options.allow.clone()), options.dns_server, options.hosts.clone()));
    let app = Application::build(&settings, services).await.expect("bind the API");
    let addr = app.addr();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(app.run_until(async move {
        let _ = rx.await;
    }));
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("HTTP client");
    TestApp {
        addr,
        base: format!("http://{addr}"),
        store,
        db_url,
        http,
        shutdown: Some(tx),
        _db: guard,
    }
}

/// What a user sees of a response.
#[derive(Debug, Clone)]
pub struct Resp {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub text: String,
    /// The body as JSON (`Value::Null` when it is not JSON).
    pub json: Value,
}

impl Resp {
    pub async fn from(response: reqwest::Response) -> Resp {
        let status = response.status();
        let headers = response.headers().clone();
        let text = response.text().await.expect("read body");
        let json = serde_json::from_str(&text).unwrap_or(Value::Null);
        Resp { status, headers, text, json }
    }

    /// A header's value as text (panics when absent).
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .unwrap_or_else(|| panic!("header {name} missing; headers: {:?}; body: {}", self.headers, self.text))
            .to_str()
            .expect("header is text")
    }

    pub fn header_opt(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// A header that must be a non-negative integer.
    pub fn header_u64(&self, name: &str) -> u64 {
        let v = self.header(name);
        v.parse().unwrap_or_else(|_| panic!("header {name} is not an integer: {v:?}"))
    }

    /// Asserts the status, printing the body on failure.
    #[track_caller]
    pub fn expect(&self, status: u16) -> &Self {
        assert_eq!(self.status.as_u16(), status, "unexpected status; body: {}", self.text);
        self
    }

    /// Asserts the spec's error object with this status and `error` value, and a JSON content type.
    #[track_caller]
    pub fn expect_error(&self, status: u16, error: &str) -> &Self {
        self.expect(status);
        let ct = self.header_opt("content-type").unwrap_or_default();
        assert!(ct.starts_with("application/json"), "error content-type is {ct:?}; body {}", self.text);
        assert!(self.json.is_object(), "error body is not a JSON object: {}", self.text);
        assert_eq!(self.json["error"], Value::String(error.to_string()), "body: {}", self.text);
        if let Some(message) = self.json.get("message") {
            assert!(message.is_string(), "message must be a string: {}", self.text);
        }
        self
    }

    /// Asserts a 400 `invalid_input` whose `issues` name `path`.
    #[track_caller]
    pub fn expect_invalid(&self, path: &str) -> &Self {
        self.expect_error(400, "invalid_input");
        let issues = self.json["issues"].as_array().unwrap_or_else(|| panic!("issues missing: {}", self.text));
        assert!(!issues.is_empty(), "issues is empty: {}", self.text);
        for issue in issues {
            let keys: Vec<&String> = issue.as_object().expect("issue is an object").keys().collect();
            assert!(issue["path"].is_string() && issue["message"].is_string(), "issue shape {issue}");
            assert!(keys.len() == 2, "issue has exactly path and message: {issue}");
        }
        assert!(
            issues.iter().any(|i| i["path"] == path),
            "no issue with path {path:?}: {}",
            self.text
        );
        self
    }
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// Sends `method path` with an optional bearer token and an optional raw body.
    pub async fn call(&self, method: &str, path: &str, token: Option<&str>, body: Option<&str>) -> Resp {
        let method_text = method.to_string();
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
        let mut req = self.http.request(method, self.url(path));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        if let Some(b) = body {
            req = req.header("content-type", "application/json").body(b.to_string());
        }
        let resp = Resp::from(req.send().await.expect("send request")).await;
        contract::check(&method_text, path, &resp);
        resp
    }

    /// Sends a request with a raw `Authorization` header value (or none).
    pub async fn call_auth(&self, method: &str, path: &str, authorization: Option<&str>, body: Option<&str>) -> Resp {
        let method_text = method.to_string();
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
        let mut req = self.http.request(method, self.url(path));
        if let Some(a) = authorization {
            req = req.header("authorization", a);
        }
        if let Some(b) = body {
            req = req.header("content-type", "application/json").body(b.to_string());
        }
        let resp = Resp::from(req.send().await.expect("send request")).await;
        contract::check(&method_text, path, &resp);
        resp
    }

    pub async fn get(&self, path: &str, token: &str) -> Resp {
        self.call("GET", path, Some(token), None).await
    }

    pub async fn post(&self, path: &str, token: &str, body: &str) -> Resp {
        self.call("POST", path, Some(token), Some(body)).await
    }

    /// `POST /api/v1/scans` that must succeed; returns the body.
    pub async fn create_scan(&self, token: &str, target: &str) -> Value {
        let body = serde_json::json!({ "target": target }).to_string();
        let r = self.post("/api/v1/scans", token, &body).await;
        r.expect(201);
        r.json
    }

    /// A token with both scopes for `org` (created if new).
    pub async fn token(&self, org: &str) -> String {
        self.token_with(org, &["scans:read", "scans:write"]).await.0
    }

    /// A token with exactly `scopes` for `org`.
    pub async fn token_with(&self, org: &str, scopes: &[&str]) -> (String, ApiToken) {
        let scopes: Vec<String> = scopes.iter().map(|s| s.to_string()).collect();
        self.store.create_token(org, Some("test"), &scopes).await.expect("create token")
    }

    /// A queued scan created through the store (as the API would, but without HTTP).
    pub async fn seed_scan(&self, org: &str, target: &str) -> ScanRow {
        self.store.set_org(org, None).await.expect("org");
        let target = Target::parse(target, &AddressPolicy::default()).expect("valid target");
        match self.store.create_scan(org, &target, ScanMode::Passive, TriggeredBy::Api, None).await.expect("create scan") {
            CreateOutcome::Created(row) => row,
            CreateOutcome::QuotaExceeded(q) => panic!("quota exceeded while seeding: {q:?}"),
        }
    }

    /// Findings written through the store, as a worker writes site-level findings.
    pub async fn seed_findings(&self, scan_id: Uuid, org: &str, findings: &[Finding]) {
        self.store.insert_findings(scan_id, org, findings).await.expect("insert findings");
    }

    /// A page and its findings written through the store, as a worker writes them.
    pub async fn seed_page(&self, scan_id: Uuid, org: &str, seq: i32, page: &ReportPage, findings: &[Finding]) {
        self.store.insert_page_results(scan_id, org, seq, page, findings).await.expect("insert page results");
    }

    /// A completed scan of `target` for `org`, as a worker leaves one: a page per (path, LCP),
    /// each with its findings (check id, page path, selector, severity), the comparison with
    /// its baseline made at completion and its site's budget judged (and `scan.budget_failed`
    /// queued) as the worker does. Returns its id.
    pub async fn completed_scan(&self, org: &str, target: &str, pages: &[(&str, f64)], findings: &[(&str, &str, &str, Severity)]) -> Uuid {
        let row = self.seed_scan(org, target).await;
        let owner = "completed-scan-helper";
        let claimed = self.store.claim_scan(owner, Duration::from_secs(60), 3).await.expect("claim").expect("claimed");
        assert_eq!(claimed.id, row.id, "no other queued scan in the way");
        let origin = url::Url::parse(&row.target_url).expect("target url").origin().ascii_serialization();
        let mut summary = sitescan::model::ReportSummary::empty();
        for (seq, (path, lcp)) in pages.iter().enumerate() {
            let url = format!("{origin}{path}");
            let page = ReportPage {
                url: url.clone(),
                final_url: None,
                status: Some(200),
                title: Some("Page".into()),
                metrics: serde_json::json!({"lcp_ms": lcp, "cls": 0.01 * seq as f64, "tbt_ms": 50.0}),
                error: None,
                checks_not_run: Vec::new(),
            };
            let on_page: Vec<Finding> = findings
                .iter()
                .filter(|(_, p, _, _)| p == path)
                .map(|(check, _, selector, severity)| {
                    let mut f = finding(check, *severity, &url);
                    if !selector.is_empty() {
                        f.evidence.insert("selector".into(), serde_json::json!(selector));
                    }
                    f
                })
                .collect();
            for f in &on_page {
                summary.count(&f.check_id, f.severity, 1);
            }
            summary.pages_scanned += 1;
            self.seed_page(row.id, org, seq as i32, &page, &on_page).await;
        }
        let scan = self.store.scan(org, row.id).await.expect("read").expect("the scan");
        let changes = sitescan::compare::compare_with_baseline(&self.store, &scan, &[]).await.expect("compare at completion");
        summary.changes = Some(changes.counts);
        // The site's budget, judged and announced as the worker does at completion.
        let verdict = sitescan::crawl::site_budget::judge_site_budget(&self.store, &scan).await.expect("judge the site's budget");
        summary.budget = verdict.as_ref().map(|v| v.result.clone());
        assert!(self.store.complete_scan(row.id, owner, &sitescan::model::StoredReport::of(summary)).await.expect("complete"));
        if let Some(verdict) = &verdict {
            sitescan::crawl::site_budget::announce_verdict(&self.store, &scan, verdict, sitescan_store::time::now_us()).await.expect("announce the verdict");
        }
        row.id
    }

    /// Rows in the scans table, all organisations.
    pub async fn count_scans(&self) -> i64 {
        let stmt = self.store.stmt("SELECT COUNT(*) AS n FROM scans", vec![]);
        let row = self.store.conn().query_one_raw(stmt).await.expect("count").expect("row");
        row.try_get("", "n").expect("n")
    }
}

/// A finding as a check would report it.
pub fn finding(check_id: &str, severity: Severity, url: &str) -> Finding {
    let mut evidence = serde_json::Map::new();
    evidence.insert("url".into(), Value::String(url.to_string()));
    Finding {
        check_id: check_id.to_string(),
        severity,
        title: format!("{check_id} title"),
        description: format!("{check_id} description"),
        remediation: format!("{check_id} remediation"),
        cwe_id: None,
        evidence,
        ..Default::default()
    }
}

/// Parses an RFC 3339 timestamp of a response, panicking with context otherwise.
#[track_caller]
pub fn rfc3339(v: &Value) -> chrono::DateTime<chrono::FixedOffset> {
    let s = v.as_str().unwrap_or_else(|| panic!("timestamp is not a string: {v}"));
    chrono::DateTime::parse_from_rfc3339(s).unwrap_or_else(|e| panic!("{s:?} is not RFC 3339: {e}"))
}

/// Asserts a lowercase hyphenated UUID string.
#[track_caller]
pub fn assert_uuid(v: &Value) -> Uuid {
    let s = v.as_str().unwrap_or_else(|| panic!("id is not a string: {v}"));
    let id = Uuid::parse_str(s).unwrap_or_else(|e| panic!("{s:?} is not a UUID: {e}"));
    assert_eq!(id.hyphenated().to_string(), s, "UUIDs are lowercase hyphenated");
    id
}

/// Sorted keys of a JSON object.
pub fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().unwrap_or_else(|| panic!("not an object: {v}")).keys().cloned().collect();
    k.sort();
    k
}

/// Percent-encodes a query value.
pub fn enc(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// The served OpenAPI document as a contract on responses (see the module comment).
pub mod contract {
    use super::Resp;
    use serde_json::{Value, json};
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock};

    fn doc() -> &'static Value {
        static DOC: OnceLock<Value> = OnceLock::new();
        DOC.get_or_init(|| serde_yaml::from_str(sitescan::api::openapi::document()).expect("the served OpenAPI document parses"))
    }

    /// The documented path template that `path` is an instance of (`/api/v1/scans/{scanId}`).
    fn template(path: &str) -> Option<&'static str> {
        let parts: Vec<&str> = path.split('/').collect();
        doc()["paths"].as_object()?.keys().map(String::as_str).find(|t| {
            let tp: Vec<&str> = t.split('/').collect();
            tp.len() == parts.len() && tp.iter().zip(&parts).all(|(a, b)| (a.starts_with('{') && a.ends_with('}') && !b.is_empty()) || a == b)
        })
    }

    fn resolve(v: &Value) -> &Value {
        match v.get("$ref").and_then(Value::as_str) {
            Some(r) => resolve(doc().pointer(r.trim_start_matches('#')).unwrap_or_else(|| panic!("bad $ref {r}"))),
            None => v,
        }
    }

    fn validator(key: String, schema: &Value) -> Arc<jsonschema::Validator> {
        static CACHE: OnceLock<Mutex<HashMap<String, Arc<jsonschema::Validator>>>> = OnceLock::new();
        let cache = CACHE.get_or_init(Mutex::default);
        if let Some(v) = cache.lock().unwrap().get(&key) {
            return v.clone();
        }
        let root = json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "components": doc()["components"], "allOf": [schema]});
        let v = Arc::new(jsonschema::options().should_validate_formats(true).build(&root).unwrap_or_else(|e| panic!("{key}: schema does not compile: {e}")));
        cache.lock().unwrap().insert(key, v.clone());
        v
    }

    /// Validates the body of a webhook delivery against the served document's `webhooks:` entry
    /// for its `type`.
    #[track_caller]
    pub fn check_webhook(body: &Value) {
        let kind = body["type"].as_str().unwrap_or_else(|| panic!("a delivery without a type: {body}"));
        let entry = &doc()["webhooks"][kind]["post"]["requestBody"]["content"]["application/json"]["schema"];
        assert!(entry.is_object(), "{kind}: the served document lists no such webhook");
        let errors: Vec<String> = validator(format!("webhook {kind}"), entry).iter_errors(body).map(|e| format!("{e} at {}", e.instance_path)).collect();
        assert!(errors.is_empty(), "{kind}: the delivery does not match the served OpenAPI document: {errors:#?}\nbody: {body}");
    }

    /// Validates a JSON response of a documented operation against its documented schema.
    /// Undocumented paths and methods (the 404 and 405 tests) are the router's business.
    #[track_caller]
    pub fn check(method: &str, path_and_query: &str, r: &Resp) {
        let path = path_and_query.split(['?', '#']).next().unwrap_or_default();
        if !path.starts_with("/api/") || !r.header_opt("content-type").is_some_and(|c| c.starts_with("application/json")) {
            return;
        }
        let Some(tpl) = template(path) else { return };
        let op = &doc()["paths"][tpl][method.to_ascii_lowercase()];
        if !op.is_object() {
            return;
        }
        let status = r.status.as_u16().to_string();
        let what = format!("{method} {path_and_query} -> {status} ({tpl})");
        let responses = &op["responses"];
        let response = responses.get(&status).or_else(|| responses.get("default")).unwrap_or_else(|| panic!("{what}: status not documented"));
        let schema = &resolve(response)["content"]["application/json"]["schema"];
        assert!(schema.is_object(), "{what}: the document gives no JSON schema");
        let errors: Vec<String> = validator(format!("{method} {tpl} {status}"), schema).iter_errors(&r.json).map(|e| format!("{e} at {}", e.instance_path)).collect();
        assert!(errors.is_empty(), "{what}: the response does not match the served OpenAPI document: {errors:#?}\nbody: {}", r.text);
    }
}
