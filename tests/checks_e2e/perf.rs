//! End to end: the media and performance checks on the `perf` fixture site
//! (`tests/fixtures/sites/perf/`), rendered by real Chromium through the scan engine. Slow
//! responses, missing compression and cache headers come from the fixture server, declared per
//! path in the site's `_site.yaml`; binary assets are generated here.

use crate::fixture_dir;
use crate::fixture_site;
use crate::media_gen;
use crate::scan_harness;

use fixture_site::{FixtureSite, Route};
use scan_harness::{Engine, Expect};
use sitescan::model::Severity::{High, Low, Medium};

const CACHED: &str = "public, max-age=604800";

fn asset(content_type: &str, body: Vec<u8>) -> Route {
    Route::typed(content_type, body).header("cache-control", CACHED)
}

/// The generated assets the pages use.
fn serve_assets(site: &FixtureSite) {
    let png = |w, h| asset("image/png", media_gen::png(w, h));
    site.route("/gen/big.png", png(400, 400)); // 480 KB
    site.route("/gen/retina.png", png(400, 400));
    site.route("/gen/small.png", png(60, 40));
    site.route("/gen/small2.png", png(60, 40));
    site.route("/gen/small3.png", png(60, 40));
    site.route("/gen/light.png", png(149, 134)); // 60 KB
    site.route("/gen/heavy.png", png(1300, 1200)); // 4.7 MB
    // Heroes are raster images: Chromium leaves low-entropy images (a flat SVG) out of LCP.
    site.route("/gen/hero.png", png(600, 250));
    // performance.lcp: the hero takes 3 s.
    site.route("/gen/slow-hero.png", png(600, 250).delay(std::time::Duration::from_secs(3)));
    site.route("/gen/px.gif", asset("image/gif", media_gen::GIF_1X1.to_vec()));
    site.route("/gen/tone.wav", asset("audio/wav", media_gen::wav(4.0)));
    site.route("/gen/chime.wav", asset("audio/wav", media_gen::wav(1.0)));
    let mut svg =
        String::from(r#"<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200" viewBox="0 0 300 200">"#);
    for i in 0..2500 {
        svg.push_str(&format!(
            r##"<circle cx="{}" cy="{}" r="{}" fill="#{:06x}"/>"##,
            i % 300,
            (i * 7) % 200,
            1 + i % 5,
            (i * 2654435761u64 as usize) & 0xffffff
        ));
    }
    svg.push_str("</svg>");
    site.route("/gen/big.svg", asset("image/svg+xml", svg.into_bytes()).gzip(true));
    let script: String =
        (0..60_000).map(|i| format!("// line {i:06} of a large, very compressible script\n")).collect();
    site.route("/gen/big-compressed.js", asset("text/javascript", script.into_bytes()).gzip(true));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn media_and_performance_checks_fire_on_their_fixtures_and_not_on_near_misses() {
    let site = FixtureSite::start().await;
    fixture_dir::serve(&site, "perf", "http://127.0.0.2:9", &[]);
    serve_assets(&site);
    let engine = Engine::start(4).await;
    let scan = engine.scan(site.url("/")).await;
    engine.shutdown().await;
    scan.dump();
    let u = |p: &str| site.url(p);
    let mut e = Expect::default();

    // media
    let bad = u("/media/images-bad.html");
    let good = u("/media/images-good.html");
    scan.fires(&mut e, "media.image-broken", &bad, High, Some("#broken"));
    scan.quiet(&mut e, "media.image-broken", &good);
    scan.fires(&mut e, "media.image-oversized", &bad, Medium, Some("#oversized"));
    scan.quiet(&mut e, "media.image-oversized", &good);
    scan.fires_with(
        &mut e,
        "media.image-legacy-format",
        &bad,
        Low,
        Some("#oversized"),
        "resource",
        u("/gen/big.png").into(),
    );
    scan.quiet(&mut e, "media.image-legacy-format", &u("/media/legacy-good.html"));
    scan.fires(&mut e, "media.image-missing-dimensions", &bad, Medium, Some("#no-dims"));
    scan.quiet(&mut e, "media.image-missing-dimensions", &good);
    scan.fires(&mut e, "media.image-not-lazy", &bad, Low, Some("#eager-far"));
    scan.quiet(&mut e, "media.image-not-lazy", &good);
    scan.fires(&mut e, "media.lcp-image-lazy", &u("/media/lcp-lazy.html"), Medium, Some("#hero"));
    scan.quiet(&mut e, "media.lcp-image-lazy", &u("/media/lcp-eager.html"));
    scan.fires(&mut e, "media.video-no-captions", &u("/media/video.html"), High, Some("#talk"));
    scan.quiet(&mut e, "media.video-no-captions", &u("/media/video-good.html"));
    scan.fires(&mut e, "media.autoplay-audio", &u("/media/video.html"), Medium, Some("#radio"));
    scan.quiet(&mut e, "media.autoplay-audio", &u("/media/video-good.html"));

    // performance: Core Web Vitals and timings
    scan.fires(&mut e, "performance.lcp", &u("/perf/slow-lcp.html"), Medium, Some("#hero"));
    scan.quiet(&mut e, "performance.lcp", &u("/media/lcp-eager.html"));
    scan.fires(&mut e, "performance.cls", &u("/perf/cls.html"), High, None);
    scan.quiet(&mut e, "performance.cls", &u("/perf/cls-good.html"));
    scan.fires(&mut e, "performance.tbt", &u("/perf/busy.html"), High, None);
    scan.quiet(&mut e, "performance.tbt", &u("/perf/busy-good.html"));
    scan.fires(&mut e, "performance.long-task", &u("/perf/busy.html"), Low, None);
    scan.quiet(&mut e, "performance.long-task", &u("/perf/busy-good.html"));
    scan.fires(&mut e, "performance.fcp", &u("/perf/blocking.html"), Low, None);
    scan.quiet(&mut e, "performance.fcp", &u("/perf/blocking-good.html"));
    scan.fires_with(
        &mut e,
        "performance.render-blocking",
        &u("/perf/blocking.html"),
        Medium,
        None,
        "resource",
        u("/perf/slow.css").into(),
    );
    scan.quiet(&mut e, "performance.render-blocking", &u("/perf/blocking-good.html"));
    scan.fires(&mut e, "performance.ttfb", &u("/perf/slow-ttfb.html"), Low, None);
    scan.quiet(&mut e, "performance.ttfb", &u("/perf/fast-ttfb.html"));

    // performance: weight, requests, compression, caching, DOM
    scan.fires(&mut e, "performance.page-weight", &u("/perf/heavy.html"), Medium, None);
    scan.quiet(&mut e, "performance.page-weight", &u("/perf/light.html"));
    scan.fires(&mut e, "performance.request-count", &u("/perf/many.html"), Low, None);
    scan.quiet(&mut e, "performance.request-count", &u("/perf/some.html"));
    let uncompressed = u("/perf/uncompressed.html");
    scan.fires_with(
        &mut e,
        "performance.uncompressed-text",
        &uncompressed,
        Medium,
        None,
        "resource",
        uncompressed.clone().into(),
    );
    scan.fires_with(
        &mut e,
        "performance.uncompressed-text",
        &uncompressed,
        Medium,
        None,
        "resource",
        u("/perf/big.js").into(),
    );
    scan.quiet(&mut e, "performance.uncompressed-text", &u("/perf/compressed.html"));
    scan.quiet(&mut e, "performance.uncompressed-text", &u("/perf/light.html"));
    scan.fires_with(
        &mut e,
        "performance.cache-policy",
        &u("/perf/cache.html"),
        Low,
        None,
        "resource",
        u("/perf/nocache.js").into(),
    );
    scan.fires_with(
        &mut e,
        "performance.cache-policy",
        &u("/perf/cache.html"),
        Low,
        None,
        "resource",
        u("/perf/short.css").into(),
    );
    scan.quiet(&mut e, "performance.cache-policy", &u("/perf/cache-good.html"));
    scan.fires(&mut e, "performance.dom-size", &u("/perf/dom-big.html"), Low, None);
    scan.quiet(&mut e, "performance.dom-size", &u("/perf/dom-ok.html"));

    eprintln!("perf scan: {} pages in {:?}", scan.pages.len(), scan.took);
    e.finish();
}
