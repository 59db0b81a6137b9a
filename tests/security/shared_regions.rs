//! What a page puts in a region the site repeats travels, as axe-core's findings, from one page's
//! scan into the script sitescan runs on the next page (`browser/axe_share.js` gives the region's
//! findings back there). A hostile footer carries an attribute value that axe quotes in its
//! failure summary, shaped to break out of that data into code (quotes, a backslash, a line
//! separator, a template literal, a closing script tag) and, if it ever ran, to call home. The
//! scan must give the value back on every page as text, and nothing may call home.

use crate::engine::{Collect, EngineSpec, scan_options};
use crate::fixture_site::{FixtureSite, Route};
use tokio_util::sync::CancellationToken;

/// In HTML: `x"); new Image().src = "/pwned?1"; //<U+2028>`${fetch("/pwned?2")}`</script>`.
const PAYLOAD: &str = "x&quot;); new Image().src = &quot;/pwned?1&quot;; //\\\u{2028}`${fetch(&quot;/pwned?2&quot;)}`&lt;/script&gt;";
const PAYLOAD_TEXT: &str = "x\"); new Image().src = \"/pwned?1\"; //\\\u{2028}`${fetch(\"/pwned?2\")}`</script>";
const PAGES: [&str; 6] = ["/", "/a", "/b", "/c", "/d", "/e"];

fn page(i: usize) -> String {
    let links: String = PAGES.iter().map(|p| format!("<a href=\"{p}\">Page {p}</a> ")).collect();
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Page {i}</title></head><body>\
         <main><h1>Page {i}</h1><p>Content of page {i}.</p></main>\
         <footer><nav aria-label=\"Footer\">{links}</nav><p>Terms and conditions apply.</p>\
         <div role=\"checkbox\" tabindex=\"0\" aria-checked=\"{PAYLOAD}\">I agree</div><span>a</span><span>b</span></footer></body></html>"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_hostile_value_in_a_shared_region_comes_back_as_text_and_never_runs() {
    let site = FixtureSite::start().await;
    for (i, p) in PAGES.iter().enumerate() {
        site.route(p, Route::html(page(i)));
    }
    site.route("/pwned", Route::html("no"));
    // The full capture, as a worker runs it, one page at a time: every page after the first is
    // given the footer's findings back.
    let spec = EngineSpec { capture: sitescan::browser::CaptureOptions::default(), pages_per_browser: 1, ..EngineSpec::default() };
    assert!(spec.capture.share, "sharing is on by default");
    let scanner = spec.scanner().await;
    let start = url::Url::parse(&site.url("/")).unwrap();
    let mut sink = Collect::default();
    let stats = scanner.run(&start, &scan_options(PAGES.len()), &mut sink, None, CancellationToken::new()).await.expect("the scan runs");
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let reused = scanner.pool().stats().regions_reused;
    scanner.pool().shutdown().await;

    assert_eq!(stats.pages, PAGES.len());
    // The attack ran: the footer was judged once and handed to the other pages' scripts.
    assert!(reused >= (PAGES.len() - 1) as u64, "the footer was given back on the other pages ({reused})");
    // Nothing ran from it.
    assert_eq!(site.hit_count("/pwned"), 0, "the payload ran in a page");
    // And every page reports the value as axe quoted it, verbatim.
    for p in PAGES {
        let url = site.url(p);
        let summary = sink
            .findings
            .iter()
            .filter(|f| f.check_id == "accessibility.aria-valid-attr-value" && f.url() == Some(url.as_str()))
            .filter_map(|f| f.evidence.get("failure_summary").and_then(|v| v.as_str()))
            .next()
            .unwrap_or_default()
            .to_string();
        assert!(summary.contains(PAYLOAD_TEXT), "the value on {p}: {summary:?}");
    }
}
