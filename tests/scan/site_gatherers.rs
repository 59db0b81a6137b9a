//! A site gatherer that failed silences exactly its checks: with real Chromium, each of the
//! passive site gatherers (robots.txt, sitemaps, statuses, the https probe, the page digests) is
//! broken in turn after the crawl. The checks that declare its artifact are reported as not run,
//! with the gatherer's error, and give no finding (though the emptied artifact would mislead them:
//! no sitemaps reads as "sitemap missing"); every other site check finds what it found on the
//! whole site.

use crate::fixture_site::{FixtureSite, Route};
use sitescan::model::SiteArtifact;
use sitescan::crawl::ScanOptions;
use sitescan_test_support::scan_harness::{Engine, Scan};
use std::collections::BTreeSet;

fn page(title: &str, links: &str) -> Route {
    Route::html(format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title></head><body><main><h1>{title}</h1>{links}</main></body></html>"
    ))
}

/// A site the passive site checks have something to say about: a disallowed link, a sitemap that
/// is gone and one that lists a page that is gone, a broken link, two pages with one title, no
/// favicon.
async fn site() -> FixtureSite {
    let site = FixtureSite::start().await;
    site.route(
        "/robots.txt",
        Route::typed("text/plain", format!("User-agent: *\nDisallow: /private\nSitemap: {}\nSitemap: {}\n", site.url("/sitemap.xml"), site.url("/old-sitemap.xml"))),
    );
    site.route("/old-sitemap.xml", Route::new(404));
    site.route(
        "/sitemap.xml",
        Route::typed(
            "application/xml",
            format!(
                "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>{}</loc></url><url><loc>{}</loc></url><url><loc>{}</loc></url></urlset>",
                site.url("/"),
                site.url("/a"),
                site.url("/gone")
            ),
        ),
    );
    site.route("/", page("Same title", r#"<a href="/a">A</a> <a href="/private">Private</a> <a href="/missing">Missing</a>"#));
    site.route("/a", page("Same title", r#"<a href="/">Home</a>"#));
    site.route("/private", page("Private", ""));
    site.route("/gone", Route::new(404));
    site.route("/missing", Route::new(404));
    site
}

/// The site checks (id -> the site artifacts it declares).
fn site_checks() -> Vec<(&'static str, &'static [SiteArtifact])> {
    sitescan::checks::catalogue().filter(|m| !m.site_requires.is_empty()).map(|m| (m.id, m.site_requires)).collect()
}

/// (check id, url) of the findings of site checks, those declaring `artifact` or not.
fn site_findings(scan: &Scan, artifact: SiteArtifact, declaring: bool) -> BTreeSet<(String, String)> {
    let checks = site_checks();
    scan.findings
        .iter()
        .filter(|f| checks.iter().any(|(id, needs)| *id == f.check_id && needs.contains(&artifact) == declaring))
        .map(|f| (f.check_id.clone(), f.evidence.get("url").and_then(|u| u.as_str()).unwrap_or_default().to_string()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_site_gatherer_silences_exactly_its_checks() {
    let site = site().await;
    let engine = Engine::start(4).await;
    let options = || ScanOptions { max_pages: 20, max_depth: 3, page_concurrency: 4, ..ScanOptions::default() };
    let whole = engine.scan_with(&site.url("/"), options()).await;
    assert!(whole.site_checks_not_run.iter().all(|n| n.check_id.starts_with("journeys.") || n.check_id.starts_with("repository.")) || whole.site_checks_not_run.is_empty(),
        "on the whole site every passive site check ran: {:?}", whole.site_checks_not_run);
    let passive = [SiteArtifact::Robots, SiteArtifact::Sitemaps, SiteArtifact::Statuses, SiteArtifact::HttpsProbe, SiteArtifact::Pages];
    let mut problems = Vec::new();
    for artifact in passive {
        let before = site_findings(&whole, artifact, true);
        // Not vacuous: the whole site gives these checks something to find (the https probe only
        // judges https sites, and this one is http).
        if artifact != SiteArtifact::HttpsProbe && before.is_empty() {
            problems.push(format!("{artifact:?}: no check declaring it found anything on the whole site"));
        }
        let broken = engine.scan_with(&site.url("/"), ScanOptions { fail_site_gatherers: vec![artifact], ..options() }).await;
        let after = site_findings(&broken, artifact, true);
        if !after.is_empty() {
            problems.push(format!("{artifact:?} failed, yet its checks found {after:?}"));
        }
        let expected: BTreeSet<&str> = site_checks().iter().filter(|(_, needs)| needs.contains(&artifact)).map(|(id, _)| *id).collect();
        let not_run: BTreeSet<&str> = broken
            .site_checks_not_run
            .iter()
            .filter(|n| n.reason.contains(artifact.gatherer()) && n.reason.contains("failed on purpose"))
            .map(|n| n.check_id.as_str())
            .collect();
        if !expected.is_subset(&not_run) {
            problems.push(format!("{artifact:?} failed: not reported as not run: {:?}", expected.difference(&not_run).collect::<Vec<_>>()));
        }
        let others_before = site_findings(&whole, artifact, false);
        let others_after = site_findings(&broken, artifact, false);
        if others_before != others_after {
            problems.push(format!(
                "{artifact:?} failed and the other site checks changed: lost {:?}, gained {:?}",
                others_before.difference(&others_after).collect::<Vec<_>>(),
                others_after.difference(&others_before).collect::<Vec<_>>()
            ));
        }
        println!("{artifact:?}: {} findings of its checks on the whole site, 0 when it failed; {} checks not run", before.len(), expected.len());
    }
    engine.shutdown().await;
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
