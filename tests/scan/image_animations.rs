//! An image many pages show has its bytes read once a scan when its server lets them be reused
//! (a validator, or fresh for a while), and every page still gets the verdict its own image's
//! bytes give: the same findings as a scan that reads every image on every page (`--no-share`),
//! a response that must not be stored read on every page, and an image whose bytes change under
//! the same URL (a new validator) read again.

use crate::fixture_site::{FixtureSite, Route};
use crate::shared_regions::findings;
use sitescan::crawl::ScanOptions;
use sitescan_test_support::media_gen::gif;
use sitescan_test_support::scan_harness::{Engine, Scan};
use std::sync::Arc;
use std::time::Duration;

const CHECK: &str = "accessibility.animation-too-long";

fn fires(scan: &Scan, page: &str, selector: &str) -> bool {
    scan.findings.iter().any(|f| f.check_id == CHECK && f.url().is_some_and(|u| u.ends_with(page)) && f.selector() == Some(selector))
}

fn img(id: &str, src: &str) -> String {
    format!("<p><img id=\"{id}\" src=\"{src}\" width=\"200\" height=\"100\" alt=\"A shoe, {id}\"></p>")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_many_pages_show_is_read_once_and_judged_alike_on_every_page() {
    const PAGES: usize = 10;
    let site = FixtureSite::start().await;
    let forever = gif(&[40, 40, 40], Some(0));
    site.route("/spin.gif", Route::typed("image/gif", forever.clone()).header("cache-control", "public, max-age=3600"));
    site.route("/still.gif", Route::typed("image/gif", gif(&[0], None)).header("etag", "\"still-1\""));
    site.route("/live.gif", Route::typed("image/gif", forever).header("cache-control", "no-store"));
    let links: String = (0..PAGES).map(|j| format!("<a href=\"/p{j}\">Page {j}</a> ")).collect();
    for i in 0..PAGES {
        let body = format!("<h1>Page {i}</h1>{}{}{}<nav>{links}</nav>", img("spin", "/spin.gif"), img("still", "/still.gif"), img("live", "/live.gif"));
        site.route(&format!("/p{i}"), Route::html(format!("<!doctype html><html lang=\"en\"><head><title>Page {i}</title></head><body><main>{body}</main></body></html>")));
    }
    let shared = Engine::start(4).await;
    let full = Engine::start_unshared(4).await;
    let a = shared.scan(site.url("/p0")).await;
    let b = full.scan(site.url("/p0")).await;
    let reused = shared.scanner.pool().stats().images_reused;
    assert_eq!(full.scanner.pool().stats().images_reused, 0, "--no-share reads every image on every page");
    assert_eq!((a.pages.len(), b.pages.len()), (PAGES, PAGES));

    let (fa, fb) = (findings(&a), findings(&b));
    let only_shared: Vec<_> = fa.iter().filter(|(k, n)| fb.get(*k) != Some(n)).map(|(k, n)| format!("{n} x {k}")).collect();
    let only_full: Vec<_> = fb.iter().filter(|(k, n)| fa.get(*k) != Some(n)).map(|(k, n)| format!("{n} x {k}")).collect();
    assert!(only_shared.is_empty() && only_full.is_empty(), "shared:\n{}\nfull:\n{}", only_shared.join("\n"), only_full.join("\n"));
    for i in 0..PAGES {
        let p = format!("/p{i}");
        assert!(fires(&a, &p, "#spin"), "the endless GIF on {p}");
        assert!(fires(&a, &p, "#live"), "the endless GIF that must not be stored, on {p}");
        assert!(!fires(&a, &p, "#still"), "a still GIF on {p}");
    }
    // Four pages are captured at once: from the fifth on, each page's two reusable images were
    // read before.
    assert!(reused >= 2 * (PAGES - 4) as u64, "the reusable images were read once, not on every page ({reused} answered from the scan)");

    shared.shutdown().await;
    full.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_whose_bytes_change_under_its_url_is_read_again() {
    // A chain of pages captured one at a time: /p2 (which does not show the image) loads a style
    // sheet, and the server then swaps the image for an endless GIF under a new validator.
    let site = Arc::new(FixtureSite::start().await);
    site.route("/swap.gif", Route::typed("image/gif", gif(&[0], None)).header("etag", "\"v1\"").header("cache-control", "max-age=3600"));
    site.route("/gate.css", Route::typed("text/css", "p{margin:1em}"));
    for i in 0..5 {
        let next = if i < 4 { format!("<a href=\"/p{}\">Next</a>", i + 1) } else { String::new() };
        let head = if i == 2 { "<link rel=\"stylesheet\" href=\"/gate.css\">" } else { "" };
        let image = if i == 2 { String::new() } else { img("swap", "/swap.gif") };
        site.route(
            &format!("/p{i}"),
            Route::html(format!("<!doctype html><html lang=\"en\"><head><title>Page {i}</title>{head}</head><body><main><h1>Page {i}</h1>{image}{next}</main></body></html>")),
        );
    }
    let swapped = {
        let site = Arc::clone(&site);
        tokio::spawn(async move {
            let browser_loaded_gate = |site: &FixtureSite| {
                site.hits().iter().any(|h| h.path == "/gate.css" && h.headers.iter().any(|(k, v)| k.eq_ignore_ascii_case("sec-fetch-dest") && v == "style"))
            };
            for _ in 0..6000 {
                if browser_loaded_gate(&site) {
                    let endless = gif(&[40, 40, 40], Some(0));
                    site.route("/swap.gif", Route::typed("image/gif", endless).header("etag", "\"v2\"").header("cache-control", "max-age=3600"));
                    return true;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            false
        })
    };
    let engine = Engine::start(1).await;
    let scan = engine.scan_with(&site.url("/p0"), ScanOptions { max_pages: 10, max_depth: 10, page_concurrency: 1, ..ScanOptions::default() }).await;
    let reused = engine.scanner.pool().stats().images_reused;
    engine.shutdown().await;
    assert!(swapped.await.unwrap(), "the browser loaded /gate.css");
    assert_eq!(scan.pages.len(), 5);
    assert!(!fires(&scan, "/p0", "#swap") && !fires(&scan, "/p1", "#swap"), "the still GIF before the swap");
    assert!(fires(&scan, "/p3", "#swap") && fires(&scan, "/p4", "#swap"), "the endless GIF under the new validator, read again");
    assert!(reused >= 2, "each version read once: /p1 and /p4 answered from the scan ({reused})");
}
