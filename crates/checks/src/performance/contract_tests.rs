//! A page that follows every performance rule produces no performance finding. (The catalogue contract for
//! every category is `checks::contract_tests`.)

/// A fast, lean page: good vitals, compressed and long-cached static files, a small DOM.
#[test]
fn clean_page_is_quiet() {
    use super::test_support::{page, response};
    use crate::{Thresholds, run_page_checks};
    use crate::model::{LongTask, PageMetrics};

    let metrics = PageMetrics {
        ttfb_ms: Some(180.0),
        fcp_ms: Some(900.0),
        lcp_ms: Some(1400.0),
        cls: Some(0.02),
        tbt_ms: Some(80.0),
        long_tasks: vec![LongTask { start_ms: 1000.0, duration_ms: 120.0 }],
        transfer_bytes: 600_000,
        requests: 3,
        dom_elements: 700,
        dom_max_depth: 12,
        ..Default::default()
    };
    let long = &[("cache-control", "public, max-age=31536000, immutable"), ("content-encoding", "br")];
    let mut doc =
        response("https://example.com/page", "document", "text/html", 30_000, &[("content-encoding", "gzip")]);
    doc.is_navigation = true;
    doc.ttfb_ms = Some(180.0);
    let mut css = response("https://example.com/app.3f9a.css", "stylesheet", "text/css", 40_000, long);
    css.render_blocking = Some(true);
    css.start_ms = Some(200.0);
    css.end_ms = Some(400.0);
    let js = response("https://example.com/app.9c1e.js", "script", "text/javascript", 120_000, long);
    let p = page(metrics, vec![doc, css, js]);
    let findings: Vec<_> =
        run_page_checks(&p, &Thresholds::default()).findings.into_iter().filter(|f| f.category() == "performance").collect();
    assert!(findings.is_empty(), "{findings:#?}");
}
