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
