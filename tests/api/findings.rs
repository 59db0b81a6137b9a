//! `GET /api/v1/findings` with findings seeded through the store for two scans in two
//! organisations (isolation, every Finding field, `severity`, `check_id` and `since` filters,
//! bounds, paging), and `GET /api/v1/scans/{id}` of a scan completed through the store layer
//! (`report.summary` with every category; `pages` and `findings` with `include_findings=true`).

use crate::app;

use app::{TestApp, assert_uuid, finding, keys, rfc3339, spawn_app};
use serde_json::{Value, json};
use sitescan::model::{PASSIVE_CATEGORIES, ReportSummary, Severity, SeverityCounts};
use sitescan::model::ReportPage;
use std::collections::HashSet;
use std::time::Duration;
use uuid::Uuid;

const FINDINGS: &str = "/api/v1/findings";

struct Seeded {
    app: TestApp,
    acme: String,
    globex: String,
    acme_scan: Uuid,
    globex_scan: Uuid,
    /// `created_at` of the second acme batch, as the API shows it.
    acme_b2_at: String,
}

/// acme: batch 1 (3 findings), batch 2 (2, one with a CWE and rich evidence), then one finding
/// with every nullable field null. globex: 2 findings.
async fn seeded() -> Seeded {
    let app = spawn_app().await;
    let acme = app.token("acme").await;
    let globex = app.token("globex").await;
    let acme_scan: Uuid = app.create_scan(&acme, "acme.example.com").await["id"].as_str().unwrap().parse().unwrap();
    let globex_scan: Uuid = app.create_scan(&globex, "globex.example.com").await["id"].as_str().unwrap().parse().unwrap();
    let page = "https://acme.example.com/";
    app.seed_findings(acme_scan, "acme", &[
        finding("search.title-missing", Severity::High, page),
        finding("accessibility.image-alt-missing", Severity::Low, page),
        finding("performance.lcp-slow", Severity::Medium, page),
    ])
    .await;
    tokio::time::sleep(Duration::from_millis(5)).await;
    let mut rich = finding("runtime.mixed-content", Severity::High, "https://acme.example.com/shop");
    rich.cwe_id = Some("CWE-319".into());
    rich.help_url = Some("https://developer.mozilla.org/en-US/docs/Web/Security/Mixed_content".into());
    rich.evidence.insert("selector".into(), json!("img#hero"));
    rich.evidence.insert("snippet".into(), json!("<img id=\"hero\" src=\"http://cdn/x.png\">"));
    rich.evidence.insert("value".into(), json!(3));
    rich.evidence.insert("ratio".into(), json!(0.25));
    rich.evidence.insert("nested".into(), json!({"list": [1, "two", null, true]}));
    app.seed_findings(acme_scan, "acme", &[rich, finding("search.title-missing", Severity::Critical, page)]).await;
    tokio::time::sleep(Duration::from_millis(5)).await;
    // A finding with every nullable column null, written in SQL as no build of ours writes one.
    {
        use sea_orm::{ConnectionTrait, DbBackend, Statement};
        let conn = app.store.conn();
        let backend = conn.get_database_backend();
        let sql = match backend {
            DbBackend::Postgres => "INSERT INTO findings (id, scan_id, org_id, check_id, severity, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
            _ => "INSERT INTO findings (id, scan_id, org_id, check_id, severity, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        };
        let values: [sea_orm::Value; 6] = [
            Uuid::now_v7().into(),
            acme_scan.into(),
            "acme".into(),
            "i18n.lang-missing".into(),
            "info".into(),
            sitescan_store::time::now_us().into(),
        ];
        conn.execute_raw(Statement::from_sql_and_values(backend, sql, values)).await.unwrap();
    }
    app.seed_findings(globex_scan, "globex", &[
        finding("search.title-missing", Severity::High, "https://globex.example.com/"),
        finding("forms.label-missing", Severity::Low, "https://globex.example.com/"),
    ])
    .await;
    let all = app.get(FINDINGS, &acme).await;
    let acme_b2_at = all.json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["check_id"] == "runtime.mixed-content")
        .unwrap()["created_at"]
        .as_str()
        .unwrap()
        .to_string();
    Seeded { app, acme, globex, acme_scan, globex_scan, acme_b2_at }
}

fn findings(v: &Value) -> &Vec<Value> {
    v["findings"].as_array().unwrap_or_else(|| panic!("no findings array: {v}"))
}

fn check_ids(v: &Value) -> Vec<String> {
    let mut ids: Vec<String> = findings(v).iter().map(|f| f["check_id"].as_str().unwrap().to_string()).collect();
    ids.sort();
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn findings_are_scoped_to_the_organisation() {
    let s = seeded().await;
    let acme = s.app.get(FINDINGS, &s.acme).await;
    acme.expect(200);
    assert_eq!(keys(&acme.json), ["findings", "next_cursor"]);
    assert_eq!(findings(&acme.json).len(), 6);
    assert!(findings(&acme.json).iter().all(|f| f["scan_id"] == s.acme_scan.to_string().as_str()));
    assert_eq!(acme.json["next_cursor"], Value::Null);
    let globex = s.app.get(FINDINGS, &s.globex).await;
    assert_eq!(findings(&globex.json).len(), 2);
    assert!(findings(&globex.json).iter().all(|f| f["scan_id"] == s.globex_scan.to_string().as_str()));
    // Filters never reach across organisations either.
    let r = s.app.get(&format!("{FINDINGS}?check_id=forms.label-missing"), &s.acme).await;
    assert_eq!(findings(&r.json).len(), 0);
    // An organisation without findings sees none.
    let nobody = s.app.token("initech").await;
    let r = s.app.get(FINDINGS, &nobody).await;
    r.expect(200);
    assert_eq!(r.json, json!({"findings": [], "next_cursor": null}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_finding_field_has_its_shape() {
    let s = seeded().await;
    let r = s.app.get(FINDINGS, &s.acme).await;
    let check_re = regex::Regex::new(r"^[a-z0-9-]+\.[a-z0-9-]+$").unwrap();
    let cwe_re = regex::Regex::new(r"^CWE-[0-9]+$").unwrap();
    for f in findings(&r.json) {
        assert_eq!(
            keys(f),
            [
                "check_id", "created_at", "cwe_id", "description", "evidence", "help_url", "id", "remediation", "scan_id",
                "severity", "title"
            ],
            "finding {f}"
        );
        assert_uuid(&f["id"]);
        assert_eq!(assert_uuid(&f["scan_id"]), s.acme_scan);
        assert!(check_re.is_match(f["check_id"].as_str().unwrap()), "check_id {}", f["check_id"]);
        assert!(["critical", "high", "medium", "low", "info"].contains(&f["severity"].as_str().unwrap()));
        rfc3339(&f["created_at"]);
        for field in ["title", "description", "remediation", "cwe_id", "help_url"] {
            assert!(f[field].is_string() || f[field].is_null(), "{field} of {f}");
        }
        assert!(f["evidence"].is_object() || f["evidence"].is_null());
        if let Some(cwe) = f["cwe_id"].as_str() {
            assert!(cwe_re.is_match(cwe), "cwe_id {cwe}");
        }
    }
    let by_check = |id: &str| findings(&r.json).iter().find(|f| f["check_id"] == id).unwrap().clone();
    let rich = by_check("runtime.mixed-content");
    assert_eq!(rich["severity"], "high");
    assert_eq!(rich["cwe_id"], "CWE-319");
    assert_eq!(rich["help_url"], "https://developer.mozilla.org/en-US/docs/Web/Security/Mixed_content");
    assert!(by_check("performance.lcp-slow")["help_url"].is_null(), "a finding without a reference says so");
    assert_eq!(rich["title"], "runtime.mixed-content title");
    assert_eq!(rich["description"], "runtime.mixed-content description");
    assert_eq!(rich["remediation"], "runtime.mixed-content remediation");
    assert_eq!(
        rich["evidence"],
        json!({
            "url": "https://acme.example.com/shop",
            "selector": "img#hero",
            "snippet": "<img id=\"hero\" src=\"http://cdn/x.png\">",
            "value": 3,
            "ratio": 0.25,
            "nested": {"list": [1, "two", null, true]},
        })
    );
    let plain = by_check("performance.lcp-slow");
    assert_eq!(plain["cwe_id"], Value::Null, "explicit null cwe_id");
    assert_eq!(plain["evidence"], json!({"url": "https://acme.example.com/"}));
    let bare = by_check("i18n.lang-missing");
    for field in ["title", "description", "evidence", "remediation", "cwe_id"] {
        assert_eq!(bare.get(field), Some(&Value::Null), "{field} must be an explicit null: {bare}");
    }
    // Newest first: the bare finding was written last.
    assert_eq!(findings(&r.json)[0]["check_id"], "i18n.lang-missing");
    for pair in findings(&r.json).windows(2) {
        let a = (rfc3339(&pair[0]["created_at"]), pair[0]["id"].as_str().unwrap());
        let b = (rfc3339(&pair[1]["created_at"]), pair[1]["id"].as_str().unwrap());
        assert!(a > b, "not descending on (created_at, id): {a:?} {b:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn severity_filter() {
    let s = seeded().await;
    let get = async |q: &str| s.app.get(&format!("{FINDINGS}?severity={q}"), &s.acme).await;
    let r = get("high,low").await;
    r.expect(200);
    let sev: Vec<&str> = findings(&r.json).iter().map(|f| f["severity"].as_str().unwrap()).collect();
    assert_eq!(sev.len(), 3, "{sev:?}");
    assert!(sev.iter().all(|s| *s == "high" || *s == "low"), "{sev:?}");
    assert_eq!(check_ids(&r.json), ["accessibility.image-alt-missing", "runtime.mixed-content", "search.title-missing"]);
    let r = get("critical").await;
    assert_eq!(check_ids(&r.json), ["search.title-missing"]);
    assert_eq!(findings(&r.json)[0]["severity"], "critical");
    let r = get("info").await;
    assert_eq!(check_ids(&r.json), ["i18n.lang-missing"]);
    let r = get("critical,high,medium,low,info").await;
    assert_eq!(findings(&r.json).len(), 6);
    let r = get("low,high").await;
    assert_eq!(findings(&r.json).len(), 3, "order of the list does not matter");
    for bad in ["severe", "high,bogus", "HIGH", "high;low", "1"] {
        get(&app::enc(bad)).await.expect_invalid("severity");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_id_filter() {
    let s = seeded().await;
    let r = s.app.get(&format!("{FINDINGS}?check_id=search.title-missing"), &s.acme).await;
    r.expect(200);
    assert_eq!(check_ids(&r.json), ["search.title-missing", "search.title-missing"]);
    let r = s.app.get(&format!("{FINDINGS}?check_id=search.title-missing&severity=critical"), &s.acme).await;
    assert_eq!(findings(&r.json).len(), 1);
    assert_eq!(findings(&r.json)[0]["severity"], "critical");
    let r = s.app.get(&format!("{FINDINGS}?check_id=search.nope"), &s.acme).await;
    r.expect(200);
    assert_eq!(findings(&r.json).len(), 0);
    // Exact match, not a prefix.
    let r = s.app.get(&format!("{FINDINGS}?check_id=search"), &s.acme).await;
    assert_eq!(findings(&r.json).len(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn since_filter_is_inclusive() {
    let s = seeded().await;
    let at = chrono::DateTime::parse_from_rfc3339(&s.acme_b2_at).unwrap();
    let get = async |since: String| s.app.get(&format!("{FINDINGS}?since={}", app::enc(&since)), &s.acme).await;
    // Exactly the second batch's instant: batch 2 and the later finding.
    let r = get(s.acme_b2_at.clone()).await;
    r.expect(200);
    assert_eq!(check_ids(&r.json), ["i18n.lang-missing", "runtime.mixed-content", "search.title-missing"]);
    // The same instant written with another offset.
    let offset = at.with_timezone(&chrono::FixedOffset::east_opt(2 * 3600).unwrap());
    let r = get(offset.to_rfc3339_opts(chrono::SecondsFormat::Micros, false)).await;
    assert_eq!(findings(&r.json).len(), 3);
    // One microsecond later: only the last one.
    let later = at + chrono::Duration::microseconds(1);
    let r = get(later.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)).await;
    assert_eq!(check_ids(&r.json), ["i18n.lang-missing"]);
    // Long ago: everything; in the future: nothing.
    assert_eq!(findings(&get("2000-01-01T00:00:00Z".into()).await.json).len(), 6);
    let r = get("2999-01-01T00:00:00Z".into()).await;
    r.expect(200);
    assert_eq!(findings(&r.json).len(), 0);
    assert_eq!(r.json["next_cursor"], Value::Null);
    // Combined with the severity filter.
    let r = s.app.get(&format!("{FINDINGS}?since={}&severity=high", app::enc(&s.acme_b2_at)), &s.acme).await;
    assert_eq!(check_ids(&r.json), ["runtime.mixed-content"]);
    for bad in ["yesterday", "2026-13-45T00:00:00Z", "2026-01-01T25:00:00Z", "1700000000", "", "2026-01-01T00:00:00+25:00"] {
        get(bad.into()).await.expect_invalid("since");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_invalid_parameters_are_all_reported() {
    let s = seeded().await;
    let r = s.app.get(&format!("{FINDINGS}?limit=0&severity=bogus&since=never&cursor=junk"), &s.acme).await;
    r.expect_invalid("limit");
    r.expect_invalid("severity");
    r.expect_invalid("since");
    r.expect_invalid("cursor");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn findings_limit_bounds_and_paging() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let scan: Uuid = app.create_scan(&token, "example.com").await["id"].as_str().unwrap().parse().unwrap();
    let many: Vec<_> = (0..201)
        .map(|i| finding("search.title-missing", Severity::ALL[i % 5], &format!("https://example.com/{i}")))
        .collect();
    app.seed_findings(scan, "acme", &many[..150]).await;
    tokio::time::sleep(Duration::from_millis(3)).await;
    app.seed_findings(scan, "acme", &many[150..]).await;
    // Default 100.
    let r = app.get(FINDINGS, &token).await;
    r.expect(200);
    assert_eq!(findings(&r.json).len(), 100);
    assert!(r.json["next_cursor"].is_string());
    let r = app.get(&format!("{FINDINGS}?limit=1"), &token).await;
    assert_eq!(findings(&r.json).len(), 1);
    // Max 200, then the one left and an explicit null.
    let r = app.get(&format!("{FINDINGS}?limit=200"), &token).await;
    r.expect(200);
    assert_eq!(findings(&r.json).len(), 200);
    let c = r.json["next_cursor"].as_str().unwrap();
    let last = app.get(&format!("{FINDINGS}?limit=200&cursor={c}"), &token).await;
    assert_eq!(findings(&last.json).len(), 1);
    assert_eq!(last.json["next_cursor"], Value::Null);
    for bad in ["0", "201", "-1", "abc", "", "2.0"] {
        app.get(&format!("{FINDINGS}?limit={bad}"), &token).await.expect_invalid("limit");
    }
    // Every page size visits each finding exactly once; exactly-full last pages end with null.
    for limit in [7usize, 67, 100, 200] {
        let mut seen = Vec::new();
        let mut cursor: Option<String> = None;
        let mut pages = 0;
        loop {
            let url = match &cursor {
                Some(c) => format!("{FINDINGS}?limit={limit}&cursor={c}"),
                None => format!("{FINDINGS}?limit={limit}"),
            };
            let r = app.get(&url, &token).await;
            r.expect(200);
            pages += 1;
            seen.extend(findings(&r.json).iter().map(|f| f["id"].as_str().unwrap().to_string()));
            match r.json["next_cursor"].as_str() {
                Some(c) => cursor = Some(c.to_string()),
                None => break,
            }
        }
        assert_eq!(seen.len(), 201, "limit {limit}");
        assert_eq!(seen.iter().collect::<HashSet<_>>().len(), 201, "limit {limit}: repeated rows");
        assert_eq!(pages, 201usize.div_ceil(limit), "limit {limit}: no trailing empty page");
    }
    // A filtered listing keeps its filter across pages.
    let mut seen = 0;
    let mut cursor: Option<String> = None;
    loop {
        let url = match &cursor {
            Some(c) => format!("{FINDINGS}?limit=10&severity=critical&cursor={c}"),
            None => format!("{FINDINGS}?limit=10&severity=critical"),
        };
        let r = app.get(&url, &token).await;
        assert!(findings(&r.json).iter().all(|f| f["severity"] == "critical"));
        seen += findings(&r.json).len();
        match r.json["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    assert_eq!(seen, 41, "critical findings: every fifth of 201");
    // A findings cursor is refused by the scans list.
    let c = app.get(&format!("{FINDINGS}?limit=1"), &token).await.json["next_cursor"].as_str().unwrap().to_string();
    app.get(&format!("/api/v1/scans?cursor={c}"), &token).await.expect_invalid("cursor");
    // A tampered findings cursor is refused.
    let mut chars: Vec<char> = c.chars().collect();
    chars[12] = if chars[12] == 'x' { 'y' } else { 'x' };
    let tampered: String = chars.into_iter().collect();
    app.get(&format!("{FINDINGS}?cursor={tampered}"), &token).await.expect_invalid("cursor");
    app.get(&format!("{FINDINGS}?cursor=random-string"), &token).await.expect_invalid("cursor");
}

/// A scan claimed and completed through the store layer, as a worker would.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completed_scan_report() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let id: Uuid = app.create_scan(&token, "https://acme.example.com/").await["id"].as_str().unwrap().parse().unwrap();
    let claimed = app.store.claim_scan("worker-1", Duration::from_secs(60), 3).await.unwrap().expect("claimable");
    assert_eq!(claimed.id, id);
    let running = app.get(&format!("/api/v1/scans/{id}"), &token).await;
    assert_eq!(running.json["scan"]["status"], "running");
    rfc3339(&running.json["scan"]["started_at"]);
    assert_eq!(running.json["scan"]["completed_at"], Value::Null);
    assert_eq!(running.json["report"], Value::Null);

    let home = "https://acme.example.com/";
    let about = "https://acme.example.com/about";
    let mut cwe = finding("runtime.mixed-content", Severity::High, about);
    cwe.cwe_id = Some("CWE-319".into());
    cwe.evidence.insert("selector".into(), json!("img"));
    let page_findings = [
        vec![finding("search.title-missing", Severity::High, home), finding("accessibility.image-alt-missing", Severity::Critical, home)],
        vec![cwe, finding("performance.lcp-slow", Severity::Medium, about), finding("i18n.lang-missing", Severity::Info, about)],
    ];
    let pages = [
        ReportPage {
            url: home.into(),
            final_url: Some(home.into()),
            status: Some(200),
            title: Some("Acme".into()),
            metrics: json!({"ttfb_ms": 12.5, "fcp_ms": 300, "lcp_ms": 800.25, "cls": 0.05, "tbt_ms": 0, "transfer_bytes": 123456, "requests": 17}),
            error: None,
            checks_not_run: Vec::new(),
        },
        ReportPage {
            url: "https://acme.example.com/about-old".into(),
            final_url: Some(about.into()),
            status: Some(200),
            title: None,
            metrics: json!({"ttfb_ms": null, "fcp_ms": null, "lcp_ms": null, "cls": null, "tbt_ms": null, "transfer_bytes": 0, "requests": 1}),
            error: None,
            checks_not_run: Vec::new(),
        },
    ];
    // Written out of crawl order: the report lists pages by their sequence number.
    for (seq, (page, fs)) in pages.iter().zip(page_findings.iter()).enumerate().rev() {
        app.seed_page(id, "acme", seq as i32, page, fs).await;
    }
    let mut summary = ReportSummary::empty();
    summary.pages_scanned = 2;
    summary.duration_ms = 8400;
    let mut counts = SeverityCounts::default();
    for f in page_findings.iter().flatten() {
        summary.count(&f.check_id, f.severity, 1);
        counts.add(f.severity, 1);
    }
    assert!(app.store.complete_scan(id, "worker-1", &sitescan::model::StoredReport::of(summary.clone())).await.unwrap());

    // Without include_findings: only the summary.
    let r = app.get(&format!("/api/v1/scans/{id}"), &token).await;
    r.expect(200);
    let scan = &r.json["scan"];
    assert_eq!(scan["status"], "completed");
    let started = rfc3339(&scan["started_at"]);
    let completed = rfc3339(&scan["completed_at"]);
    assert!(completed >= started);
    assert_eq!(scan["findings_count"], json!({"critical": 1, "high": 2, "medium": 1, "low": 0, "info": 1}));
    assert_eq!(keys(&r.json["report"]), ["summary"], "report: {}", r.json["report"]);
    let s = &r.json["report"]["summary"];
    assert_eq!(s["pages_scanned"], 2);
    assert_eq!(s["duration_ms"], 8400);
    assert_eq!(s["error"], Value::Null);
    let categories = s["categories"].as_object().unwrap();
    let mut names: Vec<&str> = categories.keys().map(String::as_str).collect();
    names.sort();
    let mut expected: Vec<&str> = PASSIVE_CATEGORIES.to_vec();
    expected.sort();
    assert_eq!(names, expected, "every passive category, zeros included");
    let zero = json!({"critical": 0, "high": 0, "medium": 0, "low": 0, "info": 0});
    assert_eq!(categories["search"], json!({"critical": 0, "high": 1, "medium": 0, "low": 0, "info": 0}));
    assert_eq!(categories["accessibility"], json!({"critical": 1, "high": 0, "medium": 0, "low": 0, "info": 0}));
    assert_eq!(categories["runtime"], json!({"critical": 0, "high": 1, "medium": 0, "low": 0, "info": 0}));
    assert_eq!(categories["performance"], json!({"critical": 0, "high": 0, "medium": 1, "low": 0, "info": 0}));
    assert_eq!(categories["i18n"], json!({"critical": 0, "high": 0, "medium": 0, "low": 0, "info": 1}));
    for c in ["crawlability", "semantics", "structured-data", "media", "forms"] {
        assert_eq!(categories[c], zero, "category {c}");
    }
    let no = app.get(&format!("/api/v1/scans/{id}?include_findings=false"), &token).await;
    assert_eq!(no.json, r.json, "include_findings=false is the default");

    // With include_findings: summary, pages and findings.
    let full = app.get(&format!("/api/v1/scans/{id}?include_findings=true"), &token).await;
    full.expect(200);
    let report = &full.json["report"];
    assert_eq!(keys(report), ["findings", "pages", "summary"]);
    assert_eq!(report["summary"], r.json["report"]["summary"]);
    let got_pages = report["pages"].as_array().unwrap();
    assert_eq!(got_pages.len(), 2);
    assert_eq!(got_pages[0]["url"], home);
    assert_eq!(got_pages[0]["final_url"], home);
    assert_eq!(got_pages[0]["status"], 200);
    assert_eq!(got_pages[0]["title"], "Acme");
    assert_eq!(got_pages[0]["metrics"], pages[0].metrics);
    assert_eq!(got_pages[1]["url"], "https://acme.example.com/about-old");
    assert_eq!(got_pages[1]["final_url"], about);
    assert_eq!(got_pages[1]["title"], Value::Null, "explicit null title");
    assert_eq!(got_pages[1]["metrics"], pages[1].metrics);
    for p in got_pages {
        for k in ["url", "final_url", "status", "title", "metrics"] {
            assert!(p.get(k).is_some(), "page lacks {k}: {p}");
        }
    }
    let got_findings = report["findings"].as_array().unwrap();
    assert_eq!(got_findings.len(), 5);
    let listed = app.get(FINDINGS, &token).await;
    let listed_ids: HashSet<&str> = findings(&listed.json).iter().map(|f| f["id"].as_str().unwrap()).collect();
    for f in got_findings {
        assert_eq!(
            keys(f),
            [
                "check_id", "created_at", "cwe_id", "description", "evidence", "help_url", "id", "remediation", "scan_id",
                "severity", "title"
            ]
        );
        assert_eq!(f["scan_id"], id.to_string().as_str());
        assert!(listed_ids.contains(f["id"].as_str().unwrap()), "report finding is listed too");
        let listed_f = findings(&listed.json).iter().find(|l| l["id"] == f["id"]).unwrap();
        assert_eq!(f, listed_f, "the report's finding equals the listed one");
        assert!(f["evidence"]["url"].is_string(), "page-level evidence has url: {f}");
    }
    let cwe = got_findings.iter().find(|f| f["check_id"] == "runtime.mixed-content").unwrap();
    assert_eq!(cwe["cwe_id"], "CWE-319");
    assert_eq!(cwe["evidence"], json!({"url": about, "selector": "img"}));
    assert_eq!(full.json["scan"], r.json["scan"]);
}

/// A failed scan's summary carries its error object.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_scan_report_has_the_error() {
    let app = spawn_app().await;
    let token = app.token("acme").await;
    let id = app.create_scan(&token, "example.com").await["id"].as_str().unwrap().to_string();
    app.store.claim_scan("w", Duration::from_secs(60), 3).await.unwrap().unwrap();
    let report = sitescan::model::StoredReport::of(ReportSummary::failed("target_unreachable", "connection refused"));
    assert!(app.store.fail_scan(id.parse().unwrap(), "w", &report).await.unwrap());
    let r = app.get(&format!("/api/v1/scans/{id}"), &token).await;
    r.expect(200);
    assert_eq!(r.json["scan"]["status"], "failed");
    assert_eq!(r.json["report"]["summary"]["error"], json!({"code": "target_unreachable", "message": "connection refused"}));
    assert_eq!(r.json["report"]["summary"]["categories"].as_object().unwrap().len(), PASSIVE_CATEGORIES.len());
    let full = app.get(&format!("/api/v1/scans/{id}?include_findings=true"), &token).await;
    assert_eq!(full.json["report"]["pages"], json!([]));
    assert_eq!(full.json["report"]["findings"], json!([]));
}
