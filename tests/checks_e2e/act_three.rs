//! End to end: the three checks of the ACT rules that need judgement (c4a8a4 descriptive title,
//! 0va7u6 images of text, qt1vmo descriptive image names) on the `act3` fixture site
//! (`tests/fixtures/sites/act3/`), rendered by real Chromium, the images read by Tesseract.

use crate::fixture_dir;
use crate::fixture_site;
use crate::scan_harness;

use fixture_site::FixtureSite;
use scan_harness::{Engine, Expect};
use serde_json::json;
use sitescan::model::Severity::{Low, Medium};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn act_three_checks_fire_on_their_fixtures_and_not_on_near_misses() {
    let site = FixtureSite::start().await;
    fixture_dir::serve(&site, "act3", "http://127.0.0.2:9", &[]);
    let engine = Engine::start_with_ocr(4).await;
    let scan = engine.scan(site.url("/")).await;
    engine.shutdown().await;
    scan.dump();
    let u = |p: &str| site.url(p);
    let mut e = Expect::default();
    const TITLE: &str = "accessibility.title-not-descriptive";
    const TEXT: &str = "accessibility.image-of-text";
    const NAME: &str = "accessibility.image-name-not-descriptive";

    // The image checks ran on every page (Tesseract is installed where the tests run).
    for p in &scan.pages {
        let skipped: Vec<_> = p.checks_not_run.iter().filter(|n| [TITLE, TEXT, NAME].contains(&n.check_id.as_str())).collect();
        e.check(skipped.is_empty(), || format!("{}: not run: {skipped:?}", p.url));
    }

    // Titles.
    scan.fires_with(&mut e, TITLE, &u("/title/apple.html"), Low, Some("title"), "reason", json!("unrelated-to-content"));
    scan.fires_with(&mut e, TITLE, &u("/title/untitled.html"), Medium, Some("title"), "reason", json!("placeholder"));
    scan.fires_with(&mut e, TITLE, &u("/title/search.html"), Low, Some("title"), "reason", json!("site-name-only"));
    scan.fires_with(&mut e, TITLE, &u("/title/search.html"), Low, Some("title"), "needs_review", json!(true));
    for page in ["/", "/title/clementine.html", "/title/search-good.html", "/images/text.html", "/images/text-good.html", "/images/names.html", "/images/names-good.html"] {
        scan.quiet(&mut e, TITLE, &u(page));
    }

    // Images of text: a button image, a decorative banner, a CSS background.
    let text = u("/images/text.html");
    scan.fires_with(&mut e, TEXT, &text, Medium, Some("#press"), "needs_review", json!(true));
    scan.fires(&mut e, TEXT, &text, Medium, Some("#welcome"));
    scan.fires(&mut e, TEXT, &text, Medium, Some("#hours"));
    let press = scan.of(TEXT, &text).find(|f| f.selector() == Some("#press"));
    e.check(
        press.is_some_and(|f| f.evidence["recognised_text"].as_str().is_some_and(|t| t.to_lowercase().contains("press"))),
        || format!("the button's words are the evidence: {press:?}"),
    );
    // Real text, a logo in the home link, one letter, a photo, text laid over an image, lettering.
    scan.quiet(&mut e, TEXT, &u("/images/text-good.html"));
    scan.quiet(&mut e, TEXT, &u("/images/names-good.html"));

    // Image names.
    let names = u("/images/names.html");
    scan.fires_with(&mut e, NAME, &names, Medium, Some("#ercim"), "reason", json!("contradicts-image-text"));
    scan.fires_with(&mut e, NAME, &names, Medium, Some("#html5"), "reason", json!("contradicts-image-text"));
    scan.fires_with(&mut e, NAME, &names, Medium, Some("#filename"), "reason", json!("file-name"));
    scan.fires_with(&mut e, NAME, &names, Medium, Some("#generic"), "reason", json!("generic"));
    scan.fires_with(&mut e, NAME, &names, Medium, Some("#shoe2"), "same_as", json!("#shoe1"));
    scan.quiet_selector(&mut e, NAME, &names, "#shoe1");
    for page in ["/images/names-good.html", "/images/text-good.html", "/images/text.html", "/"] {
        scan.quiet(&mut e, NAME, &u(page));
    }
    e.finish();
}

/// By default (no `--ocr`) each image is looked at cheaply first, the images captured together
/// a band of the page at a time, the viewport made as tall as the page once for those far below
/// it; only those that may hold words are captured again for Tesseract. Images of text anywhere
/// on a long page are still found, and the photo among them is not reported.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn by_default_images_of_text_far_down_a_long_page_are_found() {
    let site = FixtureSite::start().await;
    fixture_dir::serve(&site, "act3", "http://127.0.0.2:9", &[]);
    let engine = Engine::start(2).await;
    let scan = engine.scan(site.url("/images/text-below.html")).await;
    engine.shutdown().await;
    scan.dump();
    let u = |p: &str| site.url(p);
    let mut e = Expect::default();
    const TEXT: &str = "accessibility.image-of-text";

    e.check(scan.pages.len() == 2, || format!("the long page and the page it links: {:?}", scan.pages.iter().map(|p| &p.url).collect::<Vec<_>>()));
    for p in &scan.pages {
        let skipped: Vec<_> = p.checks_not_run.iter().filter(|n| n.check_id == TEXT).collect();
        e.check(skipped.is_empty(), || format!("{}: not run: {skipped:?}", p.url));
    }
    let below = u("/images/text-below.html");
    // One image inside the tall viewport's first band, one further down in it, and one below it.
    scan.fires_with(&mut e, TEXT, &below, Medium, Some("#press-below"), "needs_review", json!(true));
    scan.fires(&mut e, TEXT, &below, Medium, Some("#welcome-below"));
    scan.fires(&mut e, TEXT, &below, Medium, Some("#hours-below"));
    scan.quiet_selector(&mut e, TEXT, &below, "#photo-below");
    // The short page: every image in the viewport.
    let text = u("/images/text.html");
    scan.fires_with(&mut e, TEXT, &text, Medium, Some("#press"), "needs_review", json!(true));
    scan.fires(&mut e, TEXT, &text, Medium, Some("#welcome"));
    scan.fires(&mut e, TEXT, &text, Medium, Some("#hours"));
    e.finish();
}

/// By default an `img` shown as it is is looked at first from its own decoded pixels, drawn over
/// the colour behind it: white words on a transparent image in a dark header are found (they would
/// vanish over white). Images that cannot be drawn that way (fitted into a bordered box, or of
/// another origin, whose pixels the page may not read) are captured as before and found too; the
/// photo is passed over.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn by_default_images_drawn_from_their_own_pixels_or_captured_are_found() {
    let site = FixtureSite::start().await;
    let other = FixtureSite::start().await;
    fixture_dir::serve(&other, "act3", "http://127.0.0.2:9", &[]);
    fixture_dir::serve(&site, "act3", "http://127.0.0.2:9", &[("cross", other.origin())]);
    let engine = Engine::start(2).await;
    let scan = engine.scan(site.url("/images/text-drawn.html")).await;
    engine.shutdown().await;
    scan.dump();
    let page = site.url("/images/text-drawn.html");
    let mut e = Expect::default();
    const TEXT: &str = "accessibility.image-of-text";

    for p in &scan.pages {
        let skipped: Vec<_> = p.checks_not_run.iter().filter(|n| n.check_id == TEXT).collect();
        e.check(skipped.is_empty(), || format!("{}: not run: {skipped:?}", p.url));
    }
    scan.fires(&mut e, TEXT, &page, Medium, Some("#white-on-dark"));
    scan.fires(&mut e, TEXT, &page, Medium, Some("#fitted"));
    scan.fires(&mut e, TEXT, &page, Medium, Some("#other-origin"));
    scan.quiet_selector(&mut e, TEXT, &page, "#photo-drawn");
    e.finish();
}
