//! Every byte a target sends has a budget, tried by performing the attack against the real
//! `sitescan scan` binary: a sitemap bomb (robots.txt names 8 sitemaps of 48 MB of unclosed
//! nested tags each, gzip'd to a few kilobytes) and a page whose `<title>` and meta description
//! are 4 MB each. The process's own peak memory is read from `/proc/<pid>/status` (`VmHWM`) while
//! it scans; the report is read back and measured.

use crate::hostile_site;
use crate::process;

use hostile_site::{Behaviour, HostileSite};
use serde_json::Value;
use std::io::Write;
use std::time::{Duration, Instant};

/// The documented budget is 400 MB above an idle process; the tests hold the whole process to it.
const MEMORY_BUDGET: u64 = 400 << 20;

fn kb_field(status: &str, field: &str) -> Option<u64> {
    status.lines().find_map(|l| l.strip_prefix(field)).and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok()).map(|kb| kb << 10)
}

/// Runs `sitescan scan ARGS` to its end, reading its memory every 50 ms: (exit code, the first
/// RSS reading, peak RSS (`VmHWM`, the kernel's high-water mark), output).
async fn scan_measured(args: &[&str]) -> (i32, u64, u64, String) {
    let mut proc = process::Proc::spawn(args, &[("RUST_LOG", "warn")]);
    let (mut idle, mut peak) = (0u64, 0u64);
    let began = Instant::now();
    let code = loop {
        if let Ok(status) = std::fs::read_to_string(format!("/proc/{}/status", proc.pid)) {
            if idle == 0 {
                idle = kb_field(&status, "VmRSS:").unwrap_or(0);
            }
            peak = peak.max(kb_field(&status, "VmHWM:").unwrap_or(0));
        }
        if let Ok(Some(exit)) = proc.child.try_wait() {
            break exit.code().unwrap_or(-1);
        }
        assert!(began.elapsed() < Duration::from_secs(300), "the scan did not end; output:\n{}", proc.tail());
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    (code, idle, peak, proc.output())
}

fn page(title: &str) -> Behaviour {
    Behaviour::html(format!(
        "<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport content='width=device-width'><title>{title}</title></head><body><main><h1>{title}</h1><p>Hello.</p></main></body></html>"
    ))
}

fn read_report(path: &std::path::Path) -> (u64, Value) {
    let bytes = std::fs::read(path).expect("the report was written");
    (bytes.len() as u64, serde_json::from_slice(&bytes).expect("the report is JSON"))
}

fn findings(report: &Value) -> Vec<Value> {
    report["report"]["findings"].as_array().cloned().unwrap_or_default()
}

/// 48 MB of `<a>` opened and never closed, gzip'd: what one bomb sitemap sends (about 50 KB).
fn nested_bomb() -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(br#"<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">"#).unwrap();
    let chunk = "<a>".repeat(1 << 20);
    for _ in 0..16 {
        gz.write_all(chunk.as_bytes()).unwrap();
    }
    gz.finish().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_sitemap_bomb_costs_a_bounded_process_and_one_short_finding_per_sitemap() {
    let bomb = nested_bomb();
    assert!(bomb.len() < 512 << 10, "the bomb is small on the wire: {} bytes", bomb.len());
    let site = HostileSite::start().await;
    site.route("/", page("Bombed"));
    let mut robots = String::from("User-agent: *\nAllow: /\n");
    for i in 0..8 {
        robots.push_str(&format!("Sitemap: {}\n", site.url(&format!("/sitemap-{i}.xml"))));
        site.route(
            &format!("/sitemap-{i}.xml"),
            Behaviour::typed("application/xml", bomb.clone()).header("content-encoding", "gzip"),
        );
    }
    site.route("/robots.txt", Behaviour::typed("text/plain", robots));

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.json");
    let start = site.url("/");
    let (code, idle, peak, output) = scan_measured(&[
        "scan", &start, "--allow-target", "127.0.0.1/32", "--max-pages", "1", "--format", "json", "--output", out.to_str().unwrap(),
    ])
    .await;
    assert!(code == 0 || code == 1, "the scan ran to its end (exit {code}):\n{output}");
    eprintln!("sitemap bomb: first reading {} MB, peak {} MB", idle >> 20, peak >> 20);
    // Stricter than the budget (400 MB above an idle process): 400 MB in all.
    assert!(peak < MEMORY_BUDGET, "peak {} MB, over the {} MB budget", peak >> 20, MEMORY_BUDGET >> 20);

    let (report_bytes, report) = read_report(&out);
    assert!(report_bytes < 1 << 20, "the report is {report_bytes} bytes");
    assert_eq!(report["scan"]["status"], "completed", "{:#}", report["report"]["summary"]);
    let invalid: Vec<Value> = findings(&report).into_iter().filter(|f| f["check_id"] == "crawlability.sitemap-invalid").collect();
    assert_eq!(invalid.len(), 8, "one finding per announced sitemap: {invalid:#?}");
    for f in &invalid {
        let value = f["evidence"]["value"].as_str().unwrap_or_default();
        assert!(value.contains("sitescan's limit"), "the finding says which budget: {value}");
        assert!(serde_json::to_vec(f).unwrap().len() < 4096, "a short finding: {f:#}");
    }
    assert!(
        invalid.iter().any(|f| f["evidence"]["value"].as_str().is_some_and(|v| v.contains("nest deeper than sitescan's limit of 16"))),
        "the depth limit stopped the parser: {invalid:#?}"
    );
    // The bombs are 48 MB each inflated: the scan's total budget leaves the later ones unread.
    assert!(
        invalid.iter().any(|f| f["evidence"]["value"].as_str().is_some_and(|v| v.contains("not read"))),
        "past the scan's sitemap bytes, sitemaps are listed, not read: {invalid:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_page_that_logs_forty_sixteen_megabyte_strings_costs_a_bounded_process() {
    // The page's own script makes the bytes: nothing large crosses the wire from the server.
    let site = HostileSite::start().await;
    site.route(
        "/",
        Behaviour::html(
            "<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport content='width=device-width'><title>Loud page</title></head>\
             <body><main><h1>Loud page</h1><p>Hello.</p></main><script>\
             const big = 'x'.repeat(16 << 20);\
             for (let i = 0; i < 20; i++) { console.log(big + i); console.error(big + i); }\
             </script></body></html>",
        ),
    );
    site.route("/robots.txt", Behaviour::typed("text/plain", "User-agent: *\nAllow: /\n"));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.json");
    let start = site.url("/");
    let (code, idle, peak, output) = scan_measured(&[
        "scan", &start, "--allow-target", "127.0.0.1/32", "--max-pages", "1", "--format", "json", "--output", out.to_str().unwrap(),
    ])
    .await;
    assert!(code == 0 || code == 1, "the scan ran to its end (exit {code}):\n{output}");
    eprintln!("console flood: first reading {} MB, peak {} MB", idle >> 20, peak >> 20);
    assert!(peak < MEMORY_BUDGET, "peak {} MB, over the {} MB budget", peak >> 20, MEMORY_BUDGET >> 20);
    let (report_bytes, report) = read_report(&out);
    assert!(report_bytes < 1 << 20, "the report is {report_bytes} bytes");
    assert_eq!(report["scan"]["status"], "completed");
    assert!(report["report"]["summary"].get("checks_not_run").is_none(), "every check ran: {:#}", report["report"]["summary"]);
    let errors: Vec<Value> = findings(&report).into_iter().filter(|f| f["check_id"] == "runtime.console-error").collect();
    assert!(!errors.is_empty(), "the console errors are still reported");
    assert!(errors.iter().all(|f| serde_json::to_vec(f).unwrap().len() < 8192), "short findings: {errors:#?}");
}

/// The page's script inserts twenty 4 MB JSON-LD blocks: the collector reads 1 MB a block and
/// 4 MB a page, and says of the others that they were read only in part.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_page_that_writes_eighty_megabytes_of_json_ld_costs_a_bounded_process() {
    let site = HostileSite::start().await;
    site.route(
        "/",
        Behaviour::html(
            "<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport content='width=device-width'><title>Structured page</title></head>\
             <body><main><h1>Structured page</h1><p>Hello.</p></main><script>\
             const name = 'x'.repeat(4 << 20);\
             for (let i = 0; i < 20; i++) { const s = document.createElement('script'); s.type = 'application/ld+json';\
               s.textContent = JSON.stringify({'@context': 'https://schema.org', '@type': 'Thing', name: name + i}); document.head.appendChild(s); }\
             </script></body></html>",
        ),
    );
    site.route("/robots.txt", Behaviour::typed("text/plain", "User-agent: *\nAllow: /\n"));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.json");
    let start = site.url("/");
    let (code, idle, peak, output) = scan_measured(&[
        "scan", &start, "--allow-target", "127.0.0.1/32", "--max-pages", "1", "--format", "json", "--output", out.to_str().unwrap(),
    ])
    .await;
    assert!(code == 0 || code == 1, "the scan ran to its end (exit {code}):\n{output}");
    eprintln!("JSON-LD flood: first reading {} MB, peak {} MB", idle >> 20, peak >> 20);
    assert!(peak < MEMORY_BUDGET, "peak {} MB, over the {} MB budget", peak >> 20, MEMORY_BUDGET >> 20);
    let (_, report) = read_report(&out);
    let cut: Vec<Value> = findings(&report).into_iter().filter(|f| f["check_id"] == "structured-data.json-ld-invalid").collect();
    assert!(!cut.is_empty(), "the blocks over the budget are reported");
    assert!(
        cut.iter().all(|f| f["evidence"]["value"].as_str().is_some_and(|v| v.contains("read only in part"))),
        "each says it was read only in part, none is called broken JSON: {cut:#?}"
    );
}

/// The page's script sends 30,000 requests: the page's event log stops at its byte budget, and
/// the checks that read it judge the part recorded and say how much that was.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_page_that_sends_thirty_thousand_requests_costs_a_bounded_process() {
    let site = HostileSite::start().await;
    site.route(
        "/",
        Behaviour::html(
            "<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport content='width=device-width'><title>Busy page</title></head>\
             <body><main><h1>Busy page</h1><p>Hello.</p></main><script>\
             const pad = 'p'.repeat(2000);\
             for (let i = 0; i < 30000; i++) fetch('/api/' + i + '?' + pad).catch(() => {});\
             </script></body></html>",
        ),
    );
    site.prefix("/api/", Behaviour::typed("application/json", "{}"));
    site.route("/robots.txt", Behaviour::typed("text/plain", "User-agent: *\nAllow: /\n"));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.json");
    let start = site.url("/");
    let (code, idle, peak, output) = scan_measured(&[
        "scan", &start, "--allow-target", "127.0.0.1/32", "--max-pages", "1", "--format", "json", "--output", out.to_str().unwrap(), "--allow-incomplete",
    ])
    .await;
    assert!(code == 0 || code == 1, "the scan ran to its end (exit {code}):\n{output}");
    eprintln!("request flood: first reading {} MB, peak {} MB", idle >> 20, peak >> 20);
    assert!(peak < MEMORY_BUDGET, "peak {} MB, over the {} MB budget", peak >> 20, MEMORY_BUDGET >> 20);
    let (_, report) = read_report(&out);
    assert_eq!(report["scan"]["status"], "completed", "{output}");
}

/// A 40 MB document (a comment makes it cheap to render): its served bytes are not read over
/// the channel (Chromium would send them whole), and the report says which checks that left out.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_forty_megabyte_document_is_not_read_whole() {
    let site = HostileSite::start().await;
    let comment = "x".repeat(40 << 20);
    site.route(
        "/",
        Behaviour::html(format!(
            "<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport content='width=device-width'><title>Heavy page</title></head>\
             <body><main><h1>Heavy page</h1><p>Hello.</p></main><!-- {comment} --></body></html>"
        )),
    );
    site.route("/robots.txt", Behaviour::typed("text/plain", "User-agent: *\nAllow: /\n"));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.json");
    let start = site.url("/");
    let (code, idle, peak, output) = scan_measured(&[
        "scan", &start, "--allow-target", "127.0.0.1/32", "--max-pages", "1", "--format", "json", "--output", out.to_str().unwrap(), "--allow-incomplete",
    ])
    .await;
    assert!(code == 0 || code == 1, "the scan ran to its end (exit {code}):\n{output}");
    eprintln!("heavy document: first reading {} MB, peak {} MB", idle >> 20, peak >> 20);
    assert!(peak < MEMORY_BUDGET, "peak {} MB, over the {} MB budget", peak >> 20, MEMORY_BUDGET >> 20);
    let (_, report) = read_report(&out);
    let gaps = report["report"]["summary"]["checks_not_run"].to_string();
    assert!(gaps.contains("semantics.parse-error") && gaps.contains("over sitescan's 32 MB budget"), "the served HTML's checks say why they did not run: {gaps}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_four_megabyte_title_is_a_two_kilobyte_finding_that_says_it_was_cut() {
    let site = HostileSite::start().await;
    let title = "T".repeat(4 << 20);
    let description = "D".repeat(4 << 20);
    site.route(
        "/",
        Behaviour::html(format!(
            "<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport content='width=device-width'><title>{title}</title><meta name=description content='{description}'></head><body><main><h1>Big head</h1><p>Hello.</p></main></body></html>"
        )),
    );
    site.route("/robots.txt", Behaviour::typed("text/plain", "User-agent: *\nAllow: /\n"));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.json");
    let start = site.url("/");
    let (code, idle, peak, output) = scan_measured(&[
        "scan", &start, "--allow-target", "127.0.0.1/32", "--max-pages", "1", "--format", "json", "--output", out.to_str().unwrap(),
    ])
    .await;
    assert!(code == 0 || code == 1, "the scan ran to its end (exit {code}):\n{output}");
    eprintln!("4 MB title: first reading {} MB, peak {} MB", idle >> 20, peak >> 20);
    assert!(peak < MEMORY_BUDGET, "peak {} MB, over the {} MB budget", peak >> 20, MEMORY_BUDGET >> 20);

    let (report_bytes, report) = read_report(&out);
    assert!(report_bytes < 512 << 10, "the report is {report_bytes} bytes, not megabytes of title");
    let all = findings(&report);
    for f in &all {
        let size = serde_json::to_vec(&f["evidence"]).unwrap().len();
        assert!(size <= sitescan::model::finding_size::MAX_FINDING_BYTES, "{} evidence is {size} bytes", f["check_id"]);
    }
    let long_title = all.iter().find(|f| f["check_id"] == "search.title-length").unwrap_or_else(|| panic!("the long title is reported: {all:#?}"));
    let evidence = &long_title["evidence"];
    assert_eq!(evidence["truncated"], true, "{evidence:#}");
    let original = evidence["original_lengths"].as_object().and_then(|m| m.values().filter_map(Value::as_u64).max()).unwrap_or(0);
    assert!(original >= 4 << 20, "the original length is kept: {evidence:#}");
    let cut: Vec<&str> = evidence.as_object().unwrap().values().filter_map(Value::as_str).collect();
    assert!(cut.iter().all(|v| v.len() <= sitescan::model::finding_size::MAX_VALUE_BYTES), "every value is within 2 KiB");
    let page_title = report["report"]["pages"][0]["title"].as_str().unwrap_or_default();
    assert!(page_title.len() <= sitescan::model::finding_size::MAX_VALUE_BYTES && page_title.starts_with("TTT"), "the page entry's title: {} bytes", page_title.len());
    let capped = &report["report"]["summary"]["capped"];
    assert!(capped["findings_truncated"].as_u64().is_some_and(|n| n >= 1), "the summary says findings were cut: {:#}", report["report"]["summary"]);
}

/// What the console guard does not see: forty uncaught exceptions and rejections of 16 MB each
/// (the browser's own report of each would cross DevTools whole, and building it holds the
/// renderer half a second), and a worker, where no sitescan script runs, that logs forty 16 MB
/// strings (each crosses the channel as one message). The errors are cut in the page; the
/// worker's messages are measured from their frame headers and streamed past unread. The
/// findings still say the page threw and logged errors, and what was cut.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_page_that_throws_forty_sixteen_megabyte_errors_costs_a_bounded_process() {
    let site = HostileSite::start().await;
    site.route(
        "/",
        Behaviour::html(
            "<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport content='width=device-width'><title>Throwing page</title></head>\
             <body><main><h1>Throwing page</h1><p>Hello.</p></main><script>\
             const big = 'x'.repeat(16 << 20);\
             for (let i = 0; i < 20; i++) { setTimeout(() => { throw new Error(big + i); }, 0); Promise.reject(big + i); }\
             const src = \"const big = 'x'.repeat(16 << 20); for (let i = 0; i < 20; i++) { console.log(big + i); console.error(big + i); }\";\
             new Worker(URL.createObjectURL(new Blob([src], {type: 'text/javascript'})));\
             </script></body></html>",
        ),
    );
    site.route("/robots.txt", Behaviour::typed("text/plain", "User-agent: *\nAllow: /\n"));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.json");
    let start = site.url("/");
    let (code, idle, peak, output) = scan_measured(&[
        "scan", &start, "--allow-target", "127.0.0.1/32", "--max-pages", "1", "--format", "json", "--output", out.to_str().unwrap(),
    ])
    .await;
    assert!(code == 0 || code == 1, "the scan ran to its end (exit {code}):\n{output}");
    eprintln!("exception flood: first reading {} MB, peak {} MB", idle >> 20, peak >> 20);
    assert!(peak < MEMORY_BUDGET, "peak {} MB, over the {} MB budget", peak >> 20, MEMORY_BUDGET >> 20);
    let (report_bytes, report) = read_report(&out);
    assert!(report_bytes < 1 << 20, "the report is {report_bytes} bytes");
    assert_eq!(report["scan"]["status"], "completed");
    assert!(report["report"]["summary"].get("checks_not_run").is_none(), "every check ran: {:#}", report["report"]["summary"]);
    let all = findings(&report);
    let first = |id: &str| all.iter().find(|f| f["check_id"] == id).unwrap_or_else(|| panic!("{id} is reported: {all:#?}")).clone();
    for id in ["runtime.uncaught-exception", "runtime.unhandled-rejection"] {
        let f = first(id);
        let message = f["evidence"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("[cut by sitescan: 16777218 characters]") || message.contains("[cut by sitescan: 16777217 characters]"), "{id} says it was cut: {message}");
        let thrown: u64 = all.iter().filter(|g| g["check_id"] == id).filter_map(|g| g["evidence"]["count"].as_u64()).sum();
        assert_eq!(thrown, 20, "{id}: each of the twenty is counted: {all:#?}");
        assert!(serde_json::to_vec(&f).unwrap().len() < 8192, "a short finding: {f:#}");
    }
    assert_eq!(first("runtime.uncaught-exception")["evidence"]["line"], 1, "where it was thrown");
    let logged = first("runtime.console-error");
    let message = logged["evidence"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("did not read this console message: Chromium sent 16.0 MB, over sitescan's budget of 4 MB"), "the worker's messages were not read, and it says so: {message}");
}
