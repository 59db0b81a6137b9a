//! A page that tries to rewrite what sitescan's in-page scripts answer: it wraps `JSON.stringify`
//! to hand the contrast gatherer (`browser/contrast.js`) a capture a billion pixels wide with a
//! colour out of range. The gatherers run in an isolated world (the page's DOM, not its
//! JavaScript), so the page's wrapper is never called: it never sees an answer, the scan judges
//! the page as usual, and what is measured from pixels is the real element's. (The bounds
//! sitescan puts on every answer stay pinned by `gather::contrast`'s unit test
//! `a_page_cannot_ask_for_a_huge_box_or_feed_odd_numbers`.)

use crate::engine::{Collect, EngineSpec, scan_options};
use crate::fixture_site::{FixtureSite, Route};
use tokio_util::sync::CancellationToken;

const PAGE: &str = r#"<!doctype html><html lang=en><head><meta charset=utf-8><title>Forged answers</title>
<style>.band { padding: 12px; width: 480px; color: #999; background: linear-gradient(to right, #fff, #f0f0f0); }</style>
<script>
  // Every answer that carries a capture box is rewritten, and the page says so (/forged).
  const stringify = JSON.stringify;
  JSON.stringify = function (value, ...rest) {
    if (value && typeof value === 'object' && value.clip) {
      value.clip = { x: 0, y: 0, width: 1e9, height: 1e9 };
      value.fg = [1e308, -1e308, 0, 5];
      try { const x = new XMLHttpRequest(); x.open('GET', '/forged', false); x.send(); } catch (e) {}
    }
    return stringify.call(this, value, ...rest);
  };
</script></head>
<body><main><h1>Forged answers</h1>
<p class="band" id="low">Light grey text over a pale gradient, which axe leaves for review.</p>
</main></body></html>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_page_that_forges_the_contrast_scripts_answers_gets_no_capture_and_no_finding_from_it() {
    let site = FixtureSite::start().await;
    site.route("/", Route::html(PAGE));
    site.route("/forged", Route::html("ok"));
    // The full capture (axe and the keyboard walk), as a worker runs it.
    let spec = EngineSpec { capture: sitescan::browser::CaptureOptions::default(), ..EngineSpec::default() };
    let scanner = spec.scanner().await;
    let start = url::Url::parse(&site.url("/")).unwrap();
    let mut sink = Collect::default();
    let stats = scanner.run(&start, &scan_options(1), &mut sink, None, CancellationToken::new()).await.expect("the scan runs");
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    scanner.pool().shutdown().await;

    // The attack never ran: no answer of the gatherers passed through the page's JavaScript.
    assert_eq!(site.hit_count("/forged"), 0, "the page saw a gatherer's answer");
    assert_eq!(stats.pages, 1);
    let page = sink.pages.iter().find(|p| p.url == site.url("/")).expect("the page is recorded");
    assert!(page.error.is_none(), "the page was judged: {:?}", page.error);
    assert!(page.checks_not_run.is_empty(), "every check ran: {:?}", page.checks_not_run);
    // What was measured from pixels is the real element's.
    let from_pixels: Vec<_> = sink
        .findings
        .iter()
        .filter(|f| f.check_id.starts_with("accessibility.color-contrast"))
        .filter(|f| f.evidence.get("failure_summary").and_then(|v| v.as_str()).is_some_and(|s| s.contains("rendered pixels")))
        .collect();
    assert!(from_pixels.iter().all(|f| f.selector() == Some("#low")), "measured elsewhere: {from_pixels:#?}");
}
