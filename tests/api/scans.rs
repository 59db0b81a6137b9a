//! `POST /api/v1/scans`, `GET /api/v1/scans` and `GET /api/v1/scans/{scanId}` over real HTTP:
//! creation and its exact body, normalisation, every refusal of the target policy (and that a
//! refused request creates nothing), every Scan field, `limit` bounds, `include_findings`, and
//! keyset pagination (each row exactly once, explicit null cursor, tampered cursors, concurrent
//! inserts, ties on `created_at`).

use crate::app;

use app::{AppOptions, assert_uuid, keys, rfc3339, spawn_app, spawn_app_with};
use serde_json::{Value, json};
use std::collections::HashSet;

const SCANS: &str = "/api/v1/scans";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_returns_201_with_exactly_the_four_fields() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let r = app.post(SCANS, &token, r#"{"target": "Example.com"}"#).await;
    r.expect(201);
    assert!(r.header("content-type").starts_with("application/json"));
    assert_eq!(keys(&r.json), ["id", "mode", "status", "target"], "body: {}", r.text);
    assert_uuid(&r.json["id"]);
    assert_eq!(r.json["status"], "queued");
    assert_eq!(r.json["mode"], "passive");
    assert_eq!(r.json["target"], "https://example.com/");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn targets_are_normalised_to_the_whatwg_form() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let cases = [
        ("Example.com", "https://example.com/"),
        ("EXAMPLE.COM", "https://example.com/"),
        ("example.com:8080/a?b#frag", "https://example.com:8080/a?b"),
        ("HTTP://Example.COM:80", "http://example.com/"),
        ("https://example.com:443/x", "https://example.com/x"),
        ("https://example.com", "https://example.com/"),
        ("  example.org  ", "https://example.org/"),
        ("https://bücher.de/", "https://xn--bcher-kva.de/"),
        ("http://93.184.216.34/", "http://93.184.216.34/"),
        ("https://[2606:4700::1111]/", "https://[2606:4700::1111]/"),
    ];
    for (input, normalised) in cases {
        let body = app.create_scan(&token, input).await;
        assert_eq!(body["target"], normalised, "target {input:?}");
        let id = body["id"].as_str().unwrap();
        let got = app.get(&format!("{SCANS}/{id}"), &token).await;
        got.expect(200);
        assert_eq!(got.json["scan"]["target_url"], normalised, "stored target of {input:?}");
    }
    // The hostname is the bare host (no brackets, no port).
    let list = app.get(&format!("{SCANS}?limit=100"), &token).await;
    let hosts: HashSet<&str> =
        list.json["scans"].as_array().unwrap().iter().map(|s| s["target_hostname"].as_str().unwrap()).collect();
    for h in ["example.com", "example.org", "xn--bcher-kva.de", "93.184.216.34", "2606:4700::1111"] {
        assert!(hosts.contains(h), "hostname {h} missing from {hosts:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn body_is_json_whatever_the_content_type() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    for ct in [None, Some("text/plain"), Some("application/x-www-form-urlencoded"), Some("application/xml")] {
        let mut req = app.http.post(app.url(SCANS)).bearer_auth(&token).body(r#"{"target":"example.com"}"#);
        if let Some(ct) = ct {
            req = req.header("content-type", ct);
        }
        let r = app::Resp::from(req.send().await.unwrap()).await;
        r.expect(201);
        assert_eq!(r.json["target"], "https://example.com/", "content-type {ct:?}");
    }
}

/// Every malformed body: 400 `invalid_input` with issues, and nothing is created.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_bodies_are_invalid_input() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let long = format!("https://example.com/{}", "a".repeat(2049 - "https://example.com/".len()));
    assert_eq!(long.chars().count(), 2049);
    let cases: Vec<(String, &str)> = vec![
        ("{".into(), "body"),
        ("not json".into(), "body"),
        (r#"{"target": "example.com""#.into(), "body"),
        ("[]".into(), "body"),
        (r#"["example.com"]"#.into(), "body"),
        (r#""example.com""#.into(), "body"),
        ("42".into(), "body"),
        ("null".into(), "body"),
        ("".into(), "body"),
        ("   ".into(), "body"),
        ("{}".into(), "target"),
        (r#"{"target": null}"#.into(), "target"),
        (r#"{"target": 42}"#.into(), "target"),
        (r#"{"target": ["example.com"]}"#.into(), "target"),
        (r#"{"target": {"url": "example.com"}}"#.into(), "target"),
        (r#"{"target": true}"#.into(), "target"),
        (r#"{"target": ""}"#.into(), "target"),
        (r#"{"target": "   "}"#.into(), "target"),
        (r#"{"target": "example.com", "mode": "active"}"#.into(), "mode"),
        (r#"{"target": "example.com", "extra": 1}"#.into(), "extra"),
        (r#"{"url": "example.com"}"#.into(), "url"),
        (json!({ "target": long }).to_string(), "target"),
    ];
    for (body, path) in &cases {
        let r = app.post(SCANS, &token, body).await;
        assert_eq!(r.status.as_u16(), 400, "body {body:?} gave {} {}", r.status, r.text);
        r.expect_invalid(path);
    }
    // Invalid UTF-8 and an oversized body are refused with the error object too.
    let req = app.http.post(app.url(SCANS)).bearer_auth(&token).body(vec![b'{', 0xff, 0xfe, b'}']);
    app::Resp::from(req.send().await.unwrap()).await.expect_error(400, "invalid_input");
    // An oversized body gets the error, not a connection closed while the client still writes.
    for size in [70_000, 200_000, 500_000, 1_000_000] {
        let huge = json!({ "target": "example.com", "pad": "x".repeat(size) }).to_string();
        app.post(SCANS, &token, &huge).await.expect_error(400, "invalid_input");
    }

    assert_eq!(app.count_scans().await, 0, "a refused request must create nothing");
    let list = app.get(SCANS, &token).await;
    list.expect(200);
    assert_eq!(list.json["scans"], json!([]));
    assert_eq!(list.json["next_cursor"], Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_of_exactly_2048_characters_is_accepted() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let target = format!("https://example.com/{}", "a".repeat(2048 - "https://example.com/".len()));
    assert_eq!(target.len(), 2048);
    let body = app.create_scan(&token, &target).await;
    assert_eq!(body["target"], target.as_str());
}

/// The target policy: schemes, credentials, local names and every blocked IP range and spelling.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_targets_are_400_and_create_nothing() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let refused = [
        // Schemes other than http(s).
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        "ftp://example.com/",
        "file:///etc/passwd",
        "data:text/html,hello",
        "mailto:someone@example.com",
        "ws://example.com/",
        // Credentials.
        "http://public@127.0.0.1/",
        "http://user:pw@example.com/",
        "https://user@example.com/",
        // localhost and *.localhost.
        "localhost",
        "http://localhost/",
        "http://LOCALHOST:8080/",
        "http://localhost./",
        "http://a.localhost/",
        "https://deep.sub.localhost/x",
        // Loopback.
        "http://127.0.0.1/",
        "http://127.1.2.3:8080/",
        "http://[::1]/",
        // Private.
        "http://10.0.0.1/",
        "http://172.16.0.1/",
        "http://172.31.255.255/",
        "http://192.168.1.1/",
        // Link-local (cloud metadata).
        "http://169.254.169.254/latest/meta-data/",
        "http://[fe80::1]/",
        // CGNAT.
        "http://100.64.0.1/",
        "http://100.127.255.254/",
        // Multicast.
        "http://224.0.0.1/",
        "http://239.255.255.250/",
        "http://[ff02::1]/",
        // Unspecified.
        "http://0.0.0.0/",
        "http://0/",
        "http://[::]/",
        // IPv6 unique-local.
        "http://[fc00::1]/",
        "http://[fd12:3456::1]/",
        // IPv4-mapped IPv6.
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]/",
        "http://[::ffff:169.254.169.254]/",
        "http://[::ffff:10.0.0.1]/",
        // Other spellings of 127.0.0.1 / 10.0.0.1.
        "http://2130706433/",
        "http://0x7f.1/",
        "http://0x7f000001/",
        "http://0177.0.0.1/",
        "http://017700000001/",
        "http://127.1/",
        "http://%31%32%37.0.0.1/",
        "http://0xa.0.0.1/",
        // Not a URL or no host.
        "http://",
        "http:///path",
        "http://exa mple.com/",
    ];
    for target in refused {
        let r = app.post(SCANS, &token, &json!({ "target": target }).to_string()).await;
        assert_eq!(r.status.as_u16(), 400, "{target:?} should be refused, got {} {}", r.status, r.text);
        r.expect_invalid("target");
    }
    assert_eq!(app.count_scans().await, 0, "a refused request must create nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allow_target_opens_exactly_its_range() {
    let app = spawn_app_with(AppOptions::default().allow_target("127.0.0.1/32")).await;
    let token = app.token("acme").await;
    let body = app.create_scan(&token, "http://127.0.0.1:8081/").await;
    assert_eq!(body["target"], "http://127.0.0.1:8081/");
    let got = app.get(&format!("{SCANS}/{}", body["id"].as_str().unwrap()), &token).await;
    assert_eq!(got.json["scan"]["target_hostname"], "127.0.0.1");
    // Other loopback addresses and localhost stay refused.
    for target in ["http://127.0.0.2/", "http://[::1]/", "http://localhost:8081/", "http://10.0.0.1/"] {
        app.post(SCANS, &token, &json!({ "target": target }).to_string()).await.expect_invalid("target");
    }
    assert_eq!(app.count_scans().await, 1);
}

/// Every Scan field of a freshly created scan, in the list and in the single-scan endpoint.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn created_scan_appears_with_every_field() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let before = chrono::Utc::now();
    let created = app.create_scan(&token, "Example.com/path").await;
    let after = chrono::Utc::now();
    let id = created["id"].as_str().unwrap().to_string();

    let check_scan = |scan: &Value| {
        assert_eq!(
            keys(scan),
            [
                "completed_at", "created_at", "findings_count", "id", "mode", "started_at", "status", "target_hostname",
                "target_url", "triggered_by"
            ],
            "scan: {scan}"
        );
        assert_eq!(scan["id"], id.as_str());
        assert_eq!(scan["target_url"], "https://example.com/path");
        assert_eq!(scan["target_hostname"], "example.com");
        assert_eq!(scan["mode"], "passive");
        assert_eq!(scan["status"], "queued");
        assert_eq!(scan["started_at"], Value::Null, "explicit null");
        assert_eq!(scan["completed_at"], Value::Null, "explicit null");
        assert_eq!(scan["findings_count"], json!({"critical": 0, "high": 0, "medium": 0, "low": 0, "info": 0}));
        assert_eq!(scan["triggered_by"], "api");
        let created_at = rfc3339(&scan["created_at"]);
        let slack = chrono::Duration::seconds(2);
        assert!(created_at >= before - slack && created_at <= after + slack, "created_at {created_at} not now");
    };

    let list = app.get(SCANS, &token).await;
    list.expect(200);
    assert_eq!(keys(&list.json), ["next_cursor", "scans"]);
    assert_eq!(list.json["scans"].as_array().unwrap().len(), 1);
    check_scan(&list.json["scans"][0]);
    assert_eq!(list.json["next_cursor"], Value::Null, "explicit null on the last page");

    let one = app.get(&format!("{SCANS}/{id}"), &token).await;
    one.expect(200);
    assert_eq!(keys(&one.json), ["report", "scan"]);
    check_scan(&one.json["scan"]);
    assert_eq!(one.json["report"], Value::Null, "report is null while queued");
    let with = app.get(&format!("{SCANS}/{id}?include_findings=true"), &token).await;
    with.expect(200);
    assert_eq!(with.json["report"], Value::Null, "report is null while queued, include_findings or not");
    // Upper-case ids name the same scan.
    app.get(&format!("{SCANS}/{}", id.to_uppercase()), &token).await.expect(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn include_findings_accepts_booleans_and_refuses_garbage() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let id = app.create_scan(&token, "example.com").await["id"].as_str().unwrap().to_string();
    for v in ["true", "false"] {
        app.get(&format!("{SCANS}/{id}?include_findings={v}"), &token).await.expect(200);
    }
    for v in ["garbage", "yes", "2", "truthy"] {
        app.get(&format!("{SCANS}/{id}?include_findings={v}"), &token).await.expect_invalid("include_findings");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_and_malformed_ids_are_404() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    app.create_scan(&token, "example.com").await;
    for id in [
        uuid::Uuid::new_v4().to_string(),
        uuid::Uuid::now_v7().to_string(),
        "not-a-uuid".to_string(),
        "123".to_string(),
        "00000000-0000-0000-0000-00000000000g".to_string(),
        "%FF".to_string(),
        "a%20b".to_string(),
    ] {
        let r = app.get(&format!("{SCANS}/{id}"), &token).await;
        r.expect_error(404, "not_found");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scans_limit_bounds() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    for i in 0..101 {
        app.seed_scan("acme", &format!("site{i}.example.com")).await;
    }
    // Default 50.
    let r = app.get(SCANS, &token).await;
    r.expect(200);
    assert_eq!(r.json["scans"].as_array().unwrap().len(), 50);
    assert!(r.json["next_cursor"].is_string());
    // 1.
    let r = app.get(&format!("{SCANS}?limit=1"), &token).await;
    r.expect(200);
    assert_eq!(r.json["scans"].as_array().unwrap().len(), 1);
    assert!(r.json["next_cursor"].is_string());
    // Max 100.
    let r = app.get(&format!("{SCANS}?limit=100"), &token).await;
    r.expect(200);
    assert_eq!(r.json["scans"].as_array().unwrap().len(), 100);
    let next = r.json["next_cursor"].as_str().expect("a 101st row exists").to_string();
    let r = app.get(&format!("{SCANS}?limit=100&cursor={next}"), &token).await;
    r.expect(200);
    assert_eq!(r.json["scans"].as_array().unwrap().len(), 1);
    assert_eq!(r.json["next_cursor"], Value::Null);
    // Out of range or not an integer.
    for bad in ["0", "101", "-1", "abc", "1.5", "", "1e2", "99999999999999999999"] {
        app.get(&format!("{SCANS}?limit={bad}"), &token).await.expect_invalid("limit");
    }
}

/// Pages through N scans: each exactly once, in (created_at, id) descending order, and an
/// explicit null cursor on the last page, also when it is exactly full.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paging_visits_each_scan_exactly_once() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let other = app.token("other").await;
    let mut ids = HashSet::new();
    for i in 0..12 {
        ids.insert(app.create_scan(&token, &format!("s{i}.example.com")).await["id"].as_str().unwrap().to_string());
    }
    app.create_scan(&other, "other.example.com").await;
    for limit in [1usize, 3, 4, 5, 12, 13, 100] {
        let pages = page_all(&app, &token, SCANS, "scans", limit).await;
        let seen: Vec<String> = pages.iter().flatten().map(|s| s["id"].as_str().unwrap().to_string()).collect();
        assert_eq!(seen.len(), 12, "limit {limit}: {seen:?}");
        assert_eq!(seen.iter().cloned().collect::<HashSet<_>>(), ids, "limit {limit}");
        assert_ordered(&pages.concat());
        let expected_pages = 12usize.div_ceil(limit);
        assert_eq!(pages.len(), expected_pages, "limit {limit}: no trailing empty page");
        for (i, p) in pages.iter().enumerate() {
            let want = if i + 1 < expected_pages { limit } else { 12 - limit * (expected_pages - 1) };
            assert_eq!(p.len(), want, "limit {limit} page {i}");
        }
    }
}

/// Rows inserted while paging never make a row that existed when paging began be skipped or
/// repeated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paging_is_stable_while_rows_are_inserted() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let mut initial = HashSet::new();
    for i in 0..20 {
        initial.insert(app.seed_scan("acme", &format!("s{i}.example.com")).await.id.to_string());
    }
    // A writer inserting scans for the whole time the reader pages.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let store = app.store.clone();
        let stop = stop.clone();
        tokio::spawn(async move {
            let mut n = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let target = sitescan::model::Target::parse(
                    &format!("w{n}.example.com"),
                    &sitescan::model::AddressPolicy::default(),
                )
                .unwrap();
                store
                    .create_scan("acme", &target, sitescan::model::ScanMode::Passive, sitescan::model::TriggeredBy::Api, None)
                    .await
                    .unwrap();
                n += 1;
                tokio::time::sleep(std::time::Duration::from_millis(2)).await;
            }
            n
        })
    };
    let mut seen: Vec<String> = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let path = match &cursor {
            Some(c) => format!("{SCANS}?limit=3&cursor={c}"),
            None => format!("{SCANS}?limit=3"),
        };
        let r = app.get(&path, &token).await;
        r.expect(200);
        seen.extend(r.json["scans"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap().to_string()));
        // Between fetches, also insert through the API.
        app.create_scan(&token, &format!("between{pages}.example.com")).await;
        pages += 1;
        match r.json["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
        assert!(pages < 100, "paging does not end");
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let written = writer.await.unwrap();
    assert!(written > 0, "the writer inserted rows while paging");
    let unique: HashSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "a row was repeated: {seen:?}");
    for id in &initial {
        assert!(unique.contains(id), "row {id} that existed when paging began was skipped");
    }
}

/// Rows sharing one `created_at` are ordered and paged by id (the keyset's second column).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paging_breaks_created_at_ties_by_id() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let mut ids = HashSet::new();
    for i in 0..9 {
        ids.insert(app.seed_scan("acme", &format!("t{i}.example.com")).await.id.to_string());
    }
    // Give seven of them the same created_at (through the store's connection).
    let stmt = app.store.stmt(
        "UPDATE scans SET created_at = (SELECT MIN(created_at) FROM scans) + 1000 \
         WHERE id IN (SELECT id FROM scans ORDER BY created_at LIMIT 7)",
        vec![],
    );
    sea_orm::ConnectionTrait::execute_raw(app.store.conn(), stmt).await.unwrap();
    for limit in [1usize, 2, 3, 4] {
        let pages = page_all(&app, &token, SCANS, "scans", limit).await;
        let all = pages.concat();
        let seen: HashSet<String> = all.iter().map(|s| s["id"].as_str().unwrap().to_string()).collect();
        assert_eq!(all.len(), 9, "limit {limit}");
        assert_eq!(seen, ids, "limit {limit}");
        assert_ordered(&all);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_cursors_are_400() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    for i in 0..3 {
        app.seed_scan("acme", &format!("c{i}.example.com")).await;
    }
    let first = app.get(&format!("{SCANS}?limit=1"), &token).await;
    let cursor = first.json["next_cursor"].as_str().unwrap().to_string();
    app.get(&format!("{SCANS}?limit=1&cursor={cursor}"), &token).await.expect(200);
    // Tampered: one character changed in the middle, or cut short, or extended.
    let mut chars: Vec<char> = cursor.chars().collect();
    chars[10] = if chars[10] == 'A' { 'B' } else { 'A' };
    let tampered: String = chars.into_iter().collect();
    let cases = [
        tampered,
        cursor[..cursor.len() - 2].to_string(),
        format!("{cursor}AA"),
        "random-string".to_string(),
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA".to_string(),
        "%00".to_string(),
        "x".repeat(400),
    ];
    for bad in &cases {
        app.get(&format!("{SCANS}?cursor={}", app::enc(bad)), &token).await.expect_invalid("cursor");
    }
    // A scans cursor is not a findings cursor, and the other way round.
    app.get(&format!("/api/v1/findings?cursor={cursor}"), &token).await.expect_invalid("cursor");
    // Another organisation's token cannot use it to see the first organisation's rows either way:
    // a valid cursor only positions the page.
    let other = app.token("other").await;
    let r = app.get(&format!("{SCANS}?cursor={cursor}"), &other).await;
    r.expect(200);
    assert_eq!(r.json["scans"], json!([]));
}

/// Fetches every page with `limit`; returns the items of each page.
async fn page_all(app: &app::TestApp, token: &str, path: &str, field: &str, limit: usize) -> Vec<Vec<Value>> {
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let url = match &cursor {
            Some(c) => format!("{path}?limit={limit}&cursor={}", app::enc(c)),
            None => format!("{path}?limit={limit}"),
        };
        let r = app.get(&url, token).await;
        r.expect(200);
        assert!(r.json.get("next_cursor").is_some(), "next_cursor must always be present: {}", r.text);
        let items = r.json[field].as_array().unwrap().clone();
        assert!(items.len() <= limit);
        pages.push(items);
        match &r.json["next_cursor"] {
            Value::String(c) => cursor = Some(c.clone()),
            Value::Null => break,
            other => panic!("next_cursor is neither a string nor null: {other}"),
        }
        assert!(pages.len() < 1000, "paging does not end");
    }
    pages
}

/// A stored status, mode or severity that is none of the documented values is read as an
/// error (the spec's `internal` object), never as a default that hides the corruption.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_corrupt_stored_value_is_an_error_not_a_default() {
    use sea_orm::ConnectionTrait;
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let id = app.create_scan(&token, "example.com").await["id"].as_str().unwrap().to_string();
    app.get(&format!("/api/v1/scans/{id}"), &token).await.expect(200);
    let corrupt = app.store.stmt("UPDATE scans SET status = 'paused'", vec![]);
    app.store.conn().execute_raw(corrupt).await.unwrap();
    for path in [format!("/api/v1/scans/{id}"), "/api/v1/scans".to_string()] {
        let r = app.get(&path, &token).await;
        r.expect_error(500, "internal");
        assert!(!r.text.contains("paused"), "the stored value stays in the log, not the answer: {}", r.text);
    }
}

/// Asserts descending (created_at, id) order.
fn assert_ordered(items: &[Value]) {
    for pair in items.windows(2) {
        let a = (rfc3339(&pair[0]["created_at"]), pair[0]["id"].as_str().unwrap());
        let b = (rfc3339(&pair[1]["created_at"]), pair[1]["id"].as_str().unwrap());
        assert!(a > b, "not in descending (created_at, id) order: {a:?} then {b:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scan_takes_the_level_asked_for_else_its_sites_else_the_default() {
    use sitescan::model::Level;
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let level_of = |body: Value| {
        let store = app.store.clone();
        async move {
            let id: uuid::Uuid = body["id"].as_str().expect("id").parse().expect("uuid");
            store.scan("acme", id).await.expect("read").expect("the scan").level
        }
    };
    // Asked for, in any case: the create body stays the four fields of the contract.
    let r = app.post(SCANS, &token, r#"{"target": "https://a.example/", "level": "aaa"}"#).await;
    r.expect(201);
    assert_eq!(keys(&r.json), ["id", "mode", "status", "target"], "body: {}", r.text);
    assert_eq!(level_of(r.json.clone()).await, Some(Level::AAA));
    let r = app.post(SCANS, &token, r#"{"target": "https://a.example/", "level": "A"}"#).await;
    assert_eq!(level_of(r.json.clone()).await, Some(Level::A));
    // Not asked for: the default, decided by the worker.
    let r = app.post(SCANS, &token, r#"{"target": "https://a.example/", "level": null}"#).await;
    assert_eq!(level_of(r.json.clone()).await, None);

    // Refused, with the field named, and nothing created.
    let before = app.count_scans().await;
    for body in [r#"{"target": "https://a.example/", "level": "AAAA"}"#, r#"{"target": "https://a.example/", "level": "2.2"}"#, r#"{"target": "https://a.example/", "level": 3}"#, r#"{"target": "https://a.example/", "level": ["AA"]}"#] {
        app.post(SCANS, &token, body).await.expect_invalid("level");
    }
    assert_eq!(app.count_scans().await, before, "a refused level creates nothing");

    // The organisation's site of the target's origin has a level: its scans take it.
    let site = app.store.add_site("acme", "https://shop.example", "shop.example", "tok", "owner@acme", 1).await.expect("add").expect("site");
    assert!(app.store.set_site_level("acme", site.id, Some(Level::AAA)).await.expect("set"));
    let r = app.post(SCANS, &token, r#"{"target": "https://shop.example/cart"}"#).await;
    assert_eq!(level_of(r.json.clone()).await, Some(Level::AAA), "the site's level");
    let r = app.post(SCANS, &token, r#"{"target": "https://shop.example/", "level": "A"}"#).await;
    assert_eq!(level_of(r.json.clone()).await, Some(Level::A), "asked for beats the site's");
    // Another organisation's site with that origin changes nothing for this one.
    let other = app.token("globex").await;
    let r = app.post(SCANS, &other, r#"{"target": "https://shop.example/"}"#).await;
    let id: uuid::Uuid = r.json["id"].as_str().expect("id").parse().expect("uuid");
    assert_eq!(app.store.scan("globex", id).await.expect("read").expect("scan").level, None);
}
