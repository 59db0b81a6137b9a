//! Hostile pages: scans POSTed through the API and run by real workers with real Chromium over
//! sites that misbehave on purpose. Each scan ends within its time budget with a report that says
//! what happened (a page error kind, a gather error, a finding, or `summary.error`), memory stays
//! bounded (this process and the browsers it launched, sampled every 200 ms), and the server
//! stays up (health answers and an ordinary scan completes afterwards).
//!
//! `SITESCAN_TEST_LONG=1` makes every hostile payload larger (see tests/README.md "Reliability").

use crate::app;
use crate::engine;
use crate::hostile_site;

use engine::{EngineSpec, MemorySampler};
use hostile_site::{Behaviour, HostileSite};
use serde_json::Value;
use sitescan::browser::CaptureOptions;
use std::time::{Duration, Instant};

fn long() -> bool {
    std::env::var_os("SITESCAN_TEST_LONG").is_some_and(|v| v != "0")
}

const PAGE_TIMEOUT: Duration = Duration::from_secs(30);
/// The most one hostile scan may take: preflight, robots.txt and sitemaps (5 s fetch timeout
/// each), up to 3 pages at the page budget (retried once after a crash), link statuses.
const SCAN_BUDGET: Duration = Duration::from_secs(200);

fn html(title: &str, body: &str) -> Behaviour {
    Behaviour::html(format!("<!doctype html><html lang=en><head><meta charset=utf-8><title>{title}</title></head><body><main><h1>{title}</h1>{body}</main></body></html>"))
}

struct Case {
    name: &'static str,
    start: String,
    /// What the report must say: a page error kind of the start page, `summary.error.code`,
    /// a check id among the findings, or that the start page rendered.
    expect: Expect,
}

#[derive(Debug)]
enum Expect {
    PageError(&'static [&'static str]),
    ScanError(&'static str),
    Finding(&'static str),
    Rendered,
    RenderedOr(&'static [&'static str]),
}

async fn wait_all(app: &app::TestApp, token: &str, ids: &[(String, &Case)], within: Duration) -> Vec<Value> {
    let began = Instant::now();
    let mut done: Vec<Option<Value>> = vec![None; ids.len()];
    loop {
        for (i, (id, _)) in ids.iter().enumerate() {
            if done[i].is_some() {
                continue;
            }
            let r = app.get(&format!("/api/v1/scans/{id}?include_findings=true"), token).await;
            r.expect(200);
            let status = r.json["scan"]["status"].as_str().unwrap_or_default();
            if status == "completed" || status == "failed" {
                done[i] = Some(r.json.clone());
            }
        }
        if done.iter().all(Option::is_some) {
            return done.into_iter().map(Option::unwrap).collect();
        }
        let pending: Vec<&str> = ids.iter().zip(&done).filter(|(_, d)| d.is_none()).map(|((_, c), _)| c.name).collect();
        assert!(began.elapsed() < within, "still running after {within:?}: {pending:?}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

fn duration_of(body: &Value) -> Duration {
    let scan = &body["scan"];
    let started = app::rfc3339(&scan["started_at"]);
    let completed = app::rfc3339(&scan["completed_at"]);
    (completed - started).to_std().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn hostile_pages_end_within_budget_with_bounded_memory_and_the_server_stays_up() {
    let scale = if long() { 4 } else { 1 };
    let memory = MemorySampler::start();

    // One site with a page per behaviour.
    let site = HostileSite::start().await;
    site.route("/stall", Behaviour::Stall);
    site.route("/never-loads", html("Never loads", r#"<p>The image below never arrives.</p><img src="/stall" alt="x"><script async src="/trickle.js"></script>"#));
    site.route("/parser-blocked", html("Parser blocked", r#"<p>The script below never ends.</p><script src="/trickle.js"></script><p>after</p>"#));
    site.route("/trickle.js", Behaviour::Trickle { content_type: "text/javascript".into(), every: Duration::from_millis(500) });
    site.route("/trickle", Behaviour::Trickle { content_type: "text/html".into(), every: Duration::from_millis(300) });
    site.prefix("/loop/", Behaviour::RedirectLoop);
    site.route(
        "/big",
        Behaviour::wrapped(
            "text/html; charset=utf-8",
            "<!doctype html><html lang=en><head><title>Fifty megabytes</title></head><body><h1>Big</h1><a href=\"/big.bin\">bin</a><!--",
            (50 * scale) << 20,
            |_| "x".repeat(1024),
            "--><p>end</p></body></html>",
        ),
    );
    site.route("/big.bin", Behaviour::generated("application/octet-stream", (50 * scale) << 20, |_| "\0".repeat(4096)));
    site.route(
        "/links",
        Behaviour::wrapped(
            "text/html; charset=utf-8",
            "<!doctype html><html lang=en><head><title>A million links</title></head><body><h1>Links</h1>",
            (25 * scale) << 20,
            |i| format!("<a href=\"/p{i}\">{i}</a>\n"),
            "</body></html>",
        ),
    );
    site.prefix("/p", html("Linked", "<p>one of many</p>"));
    site.route(
        "/dialogs",
        html(
            "Dialogs",
            r#"<script>
              alert("hello"); confirm("sure?"); prompt("name?");
              window.addEventListener("beforeunload", (e) => { e.preventDefault(); e.returnValue = "stay"; return "stay"; });
              for (let i = 0; i < 50; i++) { try { window.open("/dialogs?popup=" + i); } catch (e) {} }
              setInterval(() => { try { alert("again"); } catch (e) {} }, 200);
              document.addEventListener("DOMContentLoaded", () => { print && print(); });
            </script><a href="/dialogs-2">more</a>"#,
        ),
    );
    site.route("/dialogs-2", html("More dialogs", r#"<script>onload = () => { confirm("leave?"); history.back(); location.reload(); };</script>"#));
    site.route("/busy", html("Busy", "<p>before</p><script>for (;;) {}</script><p>after</p>"));
    site.route(
        "/busy-later",
        html("Busy later", r#"<p>loads, then spins</p><script>onload = () => setTimeout(() => { for (;;) {} }, 100);</script>"#),
    );
    site.route(
        "/crash",
        html(
            "Crash",
            r#"<script>const keep = []; for (let i = 0; ; i++) { keep.push(new Array(2e7).fill(i + 0.5)); }</script>"#,
        ),
    );
    let deep = format!("{}x{}", "<div>".repeat(50_000 * scale), "</span>".repeat(1000));
    site.route(
        "/malformed",
        Behaviour::typed(
            "text/html",
            [
                b"<!doctype html><html><head><title>Broken</title><meta charset=\"klingon\"><head><body><p><table><tr><td><form><select><option>".to_vec(),
                vec![0xff, 0xfe, 0x00, 0xc3, 0x28, 0xe2, 0x82, 0x00],
                b"<a href=\"javascript:void(0)\"><a href=\"\x00/x\"><a href=\"http://[::1\">x</a><svg><math><script>/*".to_vec(),
                deep.into_bytes(),
                b"<img src=x onerror=\"throw new Error('boom')\"><iframe src=\"data:text/html,<script>for(;;){}</script>\"></iframe>".to_vec(),
            ]
            .concat(),
        ),
    );

    // Bait for the barrier and reading gatherers (`browser/barriers.js`, `browser/layout.js`):
    // thousands of click-only controls, tables set out as data, long justified italic passages.
    // Each gatherer reads a bounded share and its checks still report, capped per page.
    let many = 3_000 * scale;
    let controls: String = (0..many).map(|i| format!("<span class=c>Action {i}</span> ")).collect();
    let tables: String = (0..many).map(|i| format!("<table><tr class=h><td>Item</td><td>Price</td></tr><tr><td>{i}</td><td>{i}.50</td></tr></table>")).collect();
    site.route(
        "/barrier-bait",
        html(
            "Barrier bait",
            &format!(
                "<style>.c{{cursor:pointer}} .h td{{font-weight:700}}</style>{controls}{tables}<script>for (const c of document.querySelectorAll('.c')) c.addEventListener('click', () => {{}});</script>"
            ),
        ),
    );
    let passage = "WORDS SET IN CAPITALS AND ITALICS, JUSTIFIED FROM EDGE TO EDGE, LINE AFTER LINE OF THEM. ".repeat(20);
    let paragraphs: String = (0..many).map(|_| format!("<p>{passage}</p>")).collect();
    site.route(
        "/reading-bait",
        html("Reading bait", &format!("<style>p{{text-align:justify;font-style:italic;font-size:8px}}</style>{paragraphs}")),
    );

    // Sites whose robots.txt and sitemaps are enormous or malicious.
    let robots_big = HostileSite::start().await;
    robots_big.route("/", html("Robots enormous", "<a href=\"/a\">a</a>"));
    robots_big.route("/a", html("A", ""));
    robots_big.route(
        "/robots.txt",
        Behaviour::generated("text/plain", (20 * scale) << 20, |i| format!("User-agent: bot{i}\nDisallow: /private/{i}/\nAllow: /*$\n")),
    );
    robots_big.route(
        "/sitemap.xml",
        Behaviour::wrapped(
            "application/xml",
            r#"<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">"#,
            (60 * scale) << 20,
            |i| format!("<url><loc>http://127.0.0.1/page/{i}</loc></url>"),
            "</urlset>",
        ),
    );
    let robots_evil = HostileSite::start().await;
    robots_evil.route("/", html("Robots malicious", "<a href=\"/a\">a</a>"));
    robots_evil.route("/a", html("A", ""));
    let mut evil_robots: Vec<u8> = b"\xef\xbb\xbfUser-agent: *\x00\nDisallow: \xff\xfe/\n".to_vec();
    for i in 0..2_000 {
        evil_robots.extend(format!("Sitemap: {}\n", robots_evil.url(&format!("/sitemap-{}.xml", i % 30))).into_bytes());
    }
    evil_robots.extend(format!("Disallow: /{}\n", "a*".repeat(100_000)).into_bytes());
    evil_robots.extend(format!("Crawl-delay: {}\n", "9".repeat(400)).into_bytes());
    // Past the 500 KiB a crawler reads.
    evil_robots.extend(format!("User-agent: {}\nDisallow: /\n", "A".repeat(1 << 20)).into_bytes());
    robots_evil.route("/robots.txt", Behaviour::typed("text/plain", evil_robots));
    let bomb = r#"<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
<!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<urlset><url><loc>&lol9;</loc></url><url><loc>&xxe;</loc></url></urlset>"#;
    for i in 0..30 {
        let body = match i % 5 {
            0 => Behaviour::typed("application/xml", bomb),
            // An index that lists itself and its siblings (a loop).
            1 => Behaviour::typed(
                "application/xml",
                format!(
                    "<sitemapindex>{}</sitemapindex>",
                    (0..30).map(|j| format!("<sitemap><loc>{}</loc></sitemap>", robots_evil.url(&format!("/sitemap-{j}.xml")))).collect::<String>()
                ),
            ),
            2 => Behaviour::typed("application/xml", format!("<urlset>{}</urlset>", "<url>".repeat(100_000))),
            3 => Behaviour::Trickle { content_type: "application/xml".into(), every: Duration::from_millis(200) },
            _ => Behaviour::typed("application/xml", gzip_bomb((200 * scale) << 20)).header("content-encoding", "gzip"),
        };
        robots_evil.route(&format!("/sitemap-{i}.xml"), body);
    }

    let cases = vec![
        Case { name: "answer never comes", start: site.url("/stall"), expect: Expect::ScanError("target_timeout") },
        Case { name: "load never finishes", start: site.url("/never-loads"), expect: Expect::Rendered },
        Case { name: "parser blocked by a script that never ends", start: site.url("/parser-blocked"), expect: Expect::PageError(&["timeout"]) },
        Case { name: "body never ends", start: site.url("/trickle"), expect: Expect::PageError(&["timeout", "navigation"]) },
        Case { name: "infinite redirect loop", start: site.url("/loop/0"), expect: Expect::PageError(&["redirect_loop"]) },
        Case { name: "50 MB response", start: site.url("/big"), expect: Expect::Rendered },
        // Rendering a million anchors can outlast the navigation budget on a busy machine: either
        // way the scan ends in time and says so.
        Case { name: "a million links", start: site.url("/links"), expect: Expect::RenderedOr(&["timeout"]) },
        Case { name: "popups and dialogs", start: site.url("/dialogs"), expect: Expect::Rendered },
        Case { name: "endless JS loop", start: site.url("/busy"), expect: Expect::PageError(&["timeout", "crashed"]) },
        Case { name: "endless JS loop after load", start: site.url("/busy-later"), expect: Expect::Rendered },
        // The renderer dies of V8's out-of-memory within seconds when alone (see the next test, which
        // requires `crashed`); next to the other hostile pages it may outlast the budget.
        Case { name: "tab-crashing allocation", start: site.url("/crash"), expect: Expect::PageError(&["crashed", "timeout"]) },
        Case { name: "malformed HTML", start: site.url("/malformed"), expect: Expect::Rendered },
        Case { name: "barrier bait", start: site.url("/barrier-bait"), expect: Expect::Finding("accessibility.control-not-focusable") },
        Case { name: "reading bait", start: site.url("/reading-bait"), expect: Expect::Finding("accessibility.text-too-small") },
        Case { name: "enormous robots.txt and sitemap", start: robots_big.url("/"), expect: Expect::Finding("crawlability.sitemap-invalid") },
        Case { name: "malicious robots.txt, XML bombs, sitemap loops", start: robots_evil.url("/"), expect: Expect::Finding("crawlability.sitemap-invalid") },
    ];

    let app = app::spawn_app_with(app::AppOptions::default().allow_target("127.0.0.1/32")).await;
    let spec = EngineSpec {
        navigation_timeout: Duration::from_secs(15),
        page_timeout: PAGE_TIMEOUT,
        fetch_timeout: Duration::from_secs(5),
        capture: CaptureOptions::default(),
        ..EngineSpec::default()
    };
    let scanner = spec.scanner().await;
    let workers = engine::workers(app.store.clone(), scanner.clone(), 2, 3);
    let token = app.token("acme").await;
    let began = Instant::now();
    let mut ids = Vec::new();
    for case in &cases {
        let created = app.create_scan(&token, &case.start).await;
        ids.push((created["id"].as_str().unwrap().to_string(), case));
    }
    let results = wait_all(&app, &token, &ids, Duration::from_secs(if long() { 1800 } else { 600 })).await;

    // The server stayed up: health, and an ordinary scan afterwards.
    app.call("GET", "/healthz", None, None).await.expect(200);
    app.call("GET", "/readyz", None, None).await.expect(200);
    let normal = HostileSite::start().await;
    normal.route("/", html("Ordinary", "<p>fine</p>"));
    let after = app.create_scan(&token, &normal.url("/")).await;
    let after_case = Case { name: "ordinary scan afterwards", start: normal.url("/"), expect: Expect::Rendered };
    let after_ids = vec![(after["id"].as_str().unwrap().to_string(), &after_case)];
    let after_result = wait_all(&app, &token, &after_ids, Duration::from_secs(120)).await;
    let stats = scanner.pool().stats();
    workers.shutdown().await;

    let mut report = Vec::new();
    let mut failures = Vec::new();
    for ((_, case), body) in ids.iter().zip(&results).chain(after_ids.iter().zip(&after_result)) {
        let status = body["scan"]["status"].as_str().unwrap_or_default();
        let took = duration_of(body);
        let pages = body["report"]["pages"].as_array().cloned().unwrap_or_default();
        let first = pages.iter().find(|p| p["url"] == case.start.as_str());
        let findings = body["report"]["findings"].as_array().cloned().unwrap_or_default();
        let said = match &case.expect {
            Expect::ScanError(code) => status == "failed" && body["report"]["summary"]["error"]["code"] == *code,
            Expect::PageError(kinds) => {
                status == "completed" && first.is_some_and(|p| kinds.iter().any(|k| p["error"]["kind"] == *k))
            }
            Expect::Finding(check) => status == "completed" && findings.iter().any(|f| f["check_id"] == *check),
            Expect::Rendered => status == "completed" && first.is_some_and(|p| p["error"].is_null() && p["status"] == 200),
            Expect::RenderedOr(kinds) => {
                status == "completed"
                    && first.is_some_and(|p| (p["error"].is_null() && p["status"] == 200) || kinds.iter().any(|k| p["error"]["kind"] == *k))
            }
        };
        let error = first.map(|p| p["error"].clone()).unwrap_or(Value::Null);
        let mut crawl: Vec<&str> = findings.iter().filter_map(|f| f["check_id"].as_str()).filter(|c| c.starts_with("crawlability.")).collect();
        crawl.sort();
        crawl.dedup();
        report.push(format!(
            "{:<48} {status:<9} {:>6.1}s pages={} findings={} {crawl:?} start-page error={}",
            case.name,
            took.as_secs_f64(),
            pages.len(),
            findings.len(),
            if error.is_null() { body["report"]["summary"]["error"].to_string() } else { error.to_string() }
        ));
        if !said {
            failures.push(format!("{}: expected {:?}; got status {status}, start page {first:?}, summary {}", case.name, case.expect, body["report"]["summary"]));
        }
        // However much a page holds, a check reports at most its per-page cap there.
        let mut per_check: std::collections::BTreeMap<(&str, &str), usize> = Default::default();
        for f in &findings {
            *per_check.entry((f["check_id"].as_str().unwrap_or_default(), f["evidence"]["url"].as_str().unwrap_or_default())).or_default() += 1;
        }
        if let Some(((check, url), n)) = per_check.iter().find(|(_, n)| **n > sitescan::checks::MAX_FINDINGS_PER_CHECK_PER_PAGE * 10) {
            failures.push(format!("{}: {n} findings of {check} on {url}", case.name));
        }
        if took > SCAN_BUDGET {
            failures.push(format!("{}: took {took:?}, over the {SCAN_BUDGET:?} budget", case.name));
        }
    }
    let self_mb = memory.max_self_mb();
    let children_mb = memory.max_children_mb();
    eprintln!("hostile pages ({} scans in {:?}, pool {stats:?}):\n{}", results.len() + 1, began.elapsed(), report.join("\n"));
    eprintln!("memory: max RSS of this process {self_mb} MB, of the browsers {children_mb} MB ({} samples)", memory.samples.load(std::sync::atomic::Ordering::SeqCst));
    assert!(failures.is_empty(), "{}\n\n{}", failures.join("\n"), report.join("\n"));
    assert!(self_mb < 1536, "this process (API, workers, fixture servers) stayed under 1.5 GB: {self_mb} MB");
    assert!(children_mb < 12 * 1024, "the browsers stayed under 12 GB (the crash page grows a renderer to V8's heap limit): {children_mb} MB");
    assert!(memory.samples.load(std::sync::atomic::Ordering::SeqCst) > 10, "memory was sampled");
}

/// A gzip stream that inflates to `bytes` zero bytes.
fn gzip_bomb(bytes: usize) -> Vec<u8> {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..bytes >> 20 {
        enc.write_all(&zeros).unwrap();
    }
    enc.finish().unwrap()
}

/// The page's own renderer dies of a V8 out-of-memory: the capture says `crashed` (after one
/// retry on a fresh renderer), not `timeout`, and the browser goes on serving. How long V8 takes
/// to reach its heap limit depends on the machine's load, so the page budget is generous and the
/// kind of error, not the time, is what tells a crash from a page that merely ran out of time.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_tab_that_crashes_itself_is_reported_as_crashed() {
    let site = HostileSite::start().await;
    site.route("/crash", html("Crash", r#"<script>const keep = []; for (let i = 0; ; i++) { keep.push(new Array(2e7).fill(i + 0.5)); }</script>"#));
    site.route("/ok", html("Fine", "<p>fine</p>"));
    let spec = EngineSpec { navigation_timeout: Duration::from_secs(60), page_timeout: Duration::from_secs(90), ..EngineSpec::default() };
    let scanner = spec.scanner().await;
    let session = scanner.pool().session().await.unwrap();
    let began = Instant::now();
    let snap = session.capture(&site.url("/crash")).await;
    let took = began.elapsed();
    let after = session.capture(&site.url("/ok")).await;
    session.close().await;
    scanner.pool().shutdown().await;
    eprintln!("crash page: {:?} in {took:?}; next page {:?} {:?}", snap.error, after.status, after.error);
    assert_eq!(snap.error.as_ref().map(|e| e.kind.as_str()), Some("crashed"), "{:?} after {took:?}", snap.error);
    assert!(after.rendered(), "the next page renders: {:?}", after.error);
}

/// A valid sitemap larger than the fetcher's default body cap (5 MB) but within the protocol's
/// 50 MB is read whole, not reported as truncated; one over 50 MB is cut and says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_valid_sitemap_is_read_whole_and_an_oversized_one_is_reported() {
    let site = HostileSite::start().await;
    let entry = |i: usize| format!("<url><loc>https://a.example/page/{i:08}</loc></url>");
    let per = entry(0).len();
    let head = r#"<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">"#;
    site.route("/big.xml", Behaviour::wrapped("application/xml", head, 12 << 20, entry, "</urlset>"));
    site.route("/huge.xml", Behaviour::wrapped("application/xml", head, 60 << 20, entry, "</urlset>"));
    let spec = EngineSpec::default();
    let fetcher = sitescan::net::Fetcher::new(spec.guard(), sitescan::net::FetcherOptions::default()).unwrap();
    let gate = sitescan::crawl::politeness::HostGate::new(2, Duration::ZERO);
    let start = url::Url::parse(&site.url("/")).unwrap();
    let listed = vec![site.url("/big.xml"), site.url("/huge.xml")];
    let mut errors = Vec::new();
    let maps = sitescan::crawl::site_gather::fetch_sitemaps(&fetcher, &gate, &start, &listed, &mut errors).await;
    assert!(errors.is_empty(), "the parser held: {errors:?}");
    let big = maps.iter().find(|m| m.url.ends_with("/big.xml")).unwrap();
    assert_eq!(big.parse_error, None, "a 12 MB sitemap is within the protocol's limit");
    assert_eq!(big.url_count, (12usize << 20).div_ceil(per));
    let huge = maps.iter().find(|m| m.url.ends_with("/huge.xml")).unwrap();
    assert!(huge.limit.as_deref().is_some_and(|e| e.contains("limit of 50 MB")), "{:?}", huge.limit);
    assert_eq!(huge.parse_error, None, "the cut is the reason, not the XML it left unclosed");
}
