//! Gatherers and checks agree: a page check reads only the artifacts it declares in
//! `requires` (`PageView` fails any other read). Pages of the fixture sites are rendered by real
//! Chromium, then every page check judges each of them: a check that reads an artifact it does
//! not declare fails on every page where it reaches that read, and is named here.

use crate::fixture_dir;
use crate::fixture_site::FixtureSite;
use crate::scan_harness::Engine;
use sitescan::checks::{CHECKS, Findings, PageView, Thresholds};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_page_check_reads_only_the_artifacts_it_declares() {
    let mut sites = Vec::new();
    let mut urls = Vec::new();
    for name in ["shop", "content", "interact", "clean"] {
        let site = FixtureSite::start().await;
        let paths = fixture_dir::serve(&site, name, "http://127.0.0.2:9", &[]);
        urls.extend(paths.iter().filter(|p| p.ends_with(".html") || p.ends_with('/')).map(|p| site.url(p)));
        sites.push(site);
    }
    assert!(urls.len() >= 20, "pages to judge: {urls:?}");
    let engine = Engine::start(4).await;
    let session = engine.scanner.pool().session().await.expect("a browser session");
    let mut pages = Vec::new();
    for url in &urls {
        let page = tokio::time::timeout(Duration::from_secs(60), session.capture(url)).await.expect("captured within 60 s");
        if page.rendered() && page.gather_errors.is_empty() {
            pages.push(page);
        }
    }
    session.close().await;
    engine.shutdown().await;
    assert!(pages.len() * 10 >= urls.len() * 9, "most pages render with every gatherer: {} of {}", pages.len(), urls.len());

    let violations = tokio::task::spawn_blocking(move || {
        let thresholds = Thresholds::default();
        let mut violations = std::collections::BTreeMap::<String, (String, Vec<String>)>::new();
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        for page in &pages {
            for check in CHECKS.iter() {
                let meta = check.meta();
                let mut out = Vec::new();
                let judged = catch_unwind(AssertUnwindSafe(|| {
                    let mut sink = Findings::new(meta, &mut out);
                    check.page(&PageView::new(page, meta), &thresholds, &mut sink);
                }));
                if let Err(panic) = judged {
                    let message = panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()));
                    let entry = violations.entry(meta.id.to_string()).or_insert_with(|| (message.unwrap_or_default(), Vec::new()));
                    entry.1.push(page.final_url.clone());
                }
            }
        }
        std::panic::set_hook(hook);
        violations
    })
    .await
    .unwrap();
    let report: Vec<String> =
        violations.iter().map(|(id, (message, urls))| format!("{id}: {message} ({} pages, e.g. {})", urls.len(), urls[0])).collect();
    assert!(report.is_empty(), "checks that failed on a fully gathered page:\n{}", report.join("\n"));
}

/// The site checks never judge a page whose DOM was not read: a page that breaks the DOM
/// gatherer (its `document.title` getter throws) digests to empty defaults, which must not read
/// as "no icon link" or "no hreflang return link". The same site with the DOM read shows both
/// findings, so the quiet is the guard's doing.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn site_checks_skip_pages_whose_dom_was_not_read() {
    use crate::fixture_site::Route;
    use crate::scan_harness::Expect;

    // No page can break the DOM gatherer any more (it runs in an isolated world): the failure is
    // injected for the pages named (debug builds read `SITESCAN_TEST_FAIL_GATHERERS`).
    async fn site(start_broken: bool, german_broken: bool) -> FixtureSite {
        let site = FixtureSite::start().await;
        let breaks = |_broken: bool| String::new();
        let page = |lang: &str, title: &str, head: String, body: &str| {
            format!("<!doctype html><html lang={lang}><head><meta charset=utf-8><title>{title}</title>{head}</head><body><main><h1>{title}</h1>{body}</main></body></html>")
        };
        // The start page has no icon link (and /favicon.ico is a 404); the English page lists the
        // German one as its alternate; the German page lists none back. Either may break the DOM
        // gatherer.
        site.route("/", Route::html(page("en", "Start", breaks(start_broken), "<a href=\"/en/\">English</a> <a href=\"/de/\">Deutsch</a>")));
        let en_alternates = format!("<link rel=alternate hreflang=en href=\"{}\"><link rel=alternate hreflang=de href=\"{}\">", site.url("/en/"), site.url("/de/"));
        site.route("/en/", Route::html(page("en", "English", en_alternates, "<a href=\"/de/\">Deutsch</a>")));
        site.route("/de/", Route::html(page("de", "Deutsch", breaks(german_broken), "<a href=\"/en/\">English</a>")));
        site
    }

    let engine = Engine::start(2).await;
    let read = site(false, false).await;
    let start_broken = site(true, false).await;
    let german_broken = site(false, true).await;
    // SAFETY: set before this test's scans start; the entries name this test's own ports, so
    // another test in the same process (plain `cargo test`) is not touched.
    unsafe { std::env::set_var("SITESCAN_TEST_FAIL_GATHERERS", format!("dom@{},dom@{}", start_broken.url("/"), german_broken.url("/de/"))) };
    let read_scan = engine.scan(read.url("/")).await;
    let start_scan = engine.scan(start_broken.url("/")).await;
    let german_scan = engine.scan(german_broken.url("/")).await;
    engine.shutdown().await;
    let mut e = Expect::default();

    // DOM read: both site findings appear.
    let favicon = |scan: &crate::scan_harness::Scan| scan.findings.iter().filter(|f| f.check_id == "search.favicon-missing").count();
    let no_return = |scan: &crate::scan_harness::Scan| scan.findings.iter().filter(|f| f.check_id == "i18n.hreflang-no-return").count();
    e.check(favicon(&read_scan) == 1, || format!("favicon-missing on the readable site: {}", read_scan.describe_url(&read.url("/"))));
    e.check(no_return(&read_scan) == 1, || format!("hreflang-no-return on the readable site: {}", read_scan.describe_url(&read.url("/en/"))));

    // DOM not read on the start page, then on the German page: the DOM gatherer failed there, the
    // page checks that need it say so, and the site checks judge nothing from that page.
    for (scan, url) in [(&start_scan, start_broken.url("/")), (&german_scan, german_broken.url("/de/"))] {
        let page = scan.page(&url);
        let skipped = page.is_some_and(|p| p.checks_not_run.iter().any(|n| n.check_id == "search.title-missing" && n.reason.starts_with("the dom gatherer failed")));
        e.check(skipped, || format!("{url}: the DOM gatherer failed and title-missing was not run: {page:?}"));
    }
    e.check(favicon(&start_scan) == 0, || format!("favicon-missing judged an unread DOM: {:?}", start_scan.findings));
    e.check(no_return(&german_scan) == 0, || format!("hreflang-no-return judged an unread DOM: {:?}", german_scan.findings));
    // The rest of the site is judged as usual (the crawl cannot go past an unread start page).
    e.check(favicon(&german_scan) == 1, || "favicon-missing where the start page was read".to_string());
    e.finish();
}
