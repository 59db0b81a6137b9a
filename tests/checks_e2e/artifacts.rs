//! Gatherers and checks agree: a page check reads only the artifacts it declares in
//! `requires`. Pages of the fixture sites are rendered by real Chromium once; then every page
//! check judges each page as gathered and as it would be had each undeclared artifact's gatherer
//! failed (`PageSnapshot::without`). A check whose findings differ reads that artifact without
//! declaring it: on a page where its gatherer fails it would report a false finding (or miss a
//! real one) instead of saying it did not run.

use crate::fixture_dir;
use crate::fixture_site::FixtureSite;
use crate::scan_harness::Engine;
use sitescan::checks::{CHECKS, Findings, Thresholds};
use sitescan::model::{Artifact, PageSnapshot};
use std::time::Duration;

/// What `check` reports on `page`, as comparable text.
fn judged(check: &dyn sitescan::checks::Check, page: &PageSnapshot, thresholds: &Thresholds) -> Vec<String> {
    let mut out = Vec::new();
    let mut sink = Findings::new(check.meta(), &mut out);
    check.page(page, thresholds, &mut sink);
    drop(sink);
    let mut text: Vec<String> = out.iter().map(|f| format!("{} {}", f.check_id, serde_json::Value::Object(f.evidence.clone()))).collect();
    text.sort();
    text
}

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
        let mut violations = std::collections::BTreeMap::<(String, &'static str), Vec<String>>::new();
        for page in &pages {
            for check in CHECKS.iter() {
                let meta = check.meta();
                let whole = judged(*check, page, &thresholds);
                for artifact in Artifact::ALL.into_iter().filter(|a| !meta.requires.contains(a)) {
                    if judged(*check, &page.without(artifact), &thresholds) != whole {
                        violations.entry((meta.id.to_string(), artifact.gatherer())).or_default().push(page.final_url.clone());
                    }
                }
            }
        }
        violations
    })
    .await
    .unwrap();
    let report: Vec<String> = violations
        .iter()
        .map(|((id, artifact), urls)| format!("{id} reads `{artifact}` without declaring it ({} pages, e.g. {})", urls.len(), urls[0]))
        .collect();
    assert!(report.is_empty(), "checks that read an artifact they do not declare:\n{}", report.join("\n"));
}
