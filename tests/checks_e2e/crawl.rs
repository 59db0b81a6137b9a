//! End to end: the crawlability and search checks on fixture sites served on 127.0.0.1, each
//! scanned by the real engine (robots.txt, sitemaps, link statuses, Chromium rendering):
//!
//! - `shop`: valid robots.txt and sitemap index; a sitemap listing broken, moved and noindex
//!   URLs; pages with link, redirect, title, description, canonical, Open Graph and viewport
//!   defects, each next to its near miss.
//! - `norobots`: no robots.txt, no sitemap, no favicon.
//! - `down`: robots.txt and the start page answer 500.
//! - `blocked`: robots.txt disallows everything and has broken lines.
//! - `badmaps`: robots.txt announces three broken sitemaps.
//!
//! A second fixture server on another port is "another origin" (a syndicated article's canonical).

use crate::fixture_dir;
use crate::fixture_site;
use crate::scan_harness;

use fixture_site::{FixtureSite, Route};
use scan_harness::{Engine, Expect};
use serde_json::json;
use sitescan::model::Severity::{Critical, High, Low, Medium};

async fn serve(name: &str, other: &FixtureSite) -> FixtureSite {
    let site = FixtureSite::start().await;
    fixture_dir::serve(&site, name, &other.origin(), &[]);
    site
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn crawl_and_search_checks_fire_on_their_fixtures_and_not_on_near_misses() {
    let other = FixtureSite::start().await;
    other.route(
        "/syndicated.html",
        Route::html("<!DOCTYPE html><html lang=\"en\"><title>The original article</title><h1>The original</h1></html>"),
    );
    let shop = serve("shop", &other).await;
    let norobots = serve("norobots", &other).await;
    let down = serve("down", &other).await;
    let blocked = serve("blocked", &other).await;
    let badmaps = serve("badmaps", &other).await;

    let engine = Engine::start(4).await;
    let (s, nr, dn, bl, bm) = tokio::join!(
        engine.scan(shop.url("/")),
        engine.scan(norobots.url("/")),
        engine.scan(down.url("/")),
        engine.scan(blocked.url("/")),
        engine.scan(badmaps.url("/")),
    );
    engine.shutdown().await;
    for scan in [&s, &nr, &dn, &bl, &bm] {
        scan.dump();
    }
    let u = |p: &str| shop.url(p);
    let mut e = Expect::default();

    // robots.txt
    scan_robots(&mut e, &s, &nr, &dn, &bl, &shop, &norobots, &down, &blocked);
    // sitemaps
    s.quiet_site(&mut e, "crawlability.sitemap-missing", &u("/"));
    bl.quiet_site(&mut e, "crawlability.sitemap-missing", &blocked.url("/")); // /sitemap.xml, not announced
    nr.fires(&mut e, "crawlability.sitemap-missing", &norobots.url("/"), Low, None);
    for path in ["/sitemap-broken.xml", "/sitemap-html.xml", "/sitemap-404.xml"] {
        bm.fires(&mut e, "crawlability.sitemap-invalid", &badmaps.url(path), Medium, None);
    }
    s.quiet_site(&mut e, "crawlability.sitemap-invalid", &u("/sitemap-index.xml"));
    s.quiet_site(&mut e, "crawlability.sitemap-invalid", &u("/sitemap-pages.xml"));
    s.fires_with(&mut e, "crawlability.sitemap-url-error", &u("/gone.html"), Medium, None, "status", json!(404));
    s.fires_with(&mut e, "crawlability.sitemap-url-error", &u("/old-page.html"), Medium, None, "status", json!(301));
    s.fires_with(&mut e, "crawlability.sitemap-url-error", &u("/hidden.html"), Medium, None, "value", json!("noindex"));
    for path in ["/", "/about.html", "/preview.html", "/other-bots.html", "/sitemap-pages.xml"] {
        s.quiet_site(&mut e, "crawlability.sitemap-url-error", &u(path));
    }
    // A sitemap index lists sitemaps: fetched once as a sitemap, never rendered as a page.
    e.check(s.page(&u("/sitemap-pages.xml")).is_none() && shop.hit_count("/sitemap-pages.xml") == 1, || {
        format!("/sitemap-pages.xml was rendered or fetched {} times", shop.hit_count("/sitemap-pages.xml"))
    });

    // pages and links
    s.fires_with(
        &mut e,
        "crawlability.http-error",
        &u("/missing.html"),
        High,
        None,
        "found_on",
        u("/links.html").into(),
    );
    dn.fires(&mut e, "crawlability.http-error", &down.url("/"), Critical, None);
    dn.rendered(&mut e, &down.url("/about.html")); // the crawl went on past the error page
    s.quiet(&mut e, "crawlability.http-error", &u("/about.html"));
    // A linked text file is rendered in Chromium's viewer: no accessibility findings about it.
    if s.rendered(&mut e, &u("/notes.txt")) {
        let a11y: Vec<_> = s
            .findings
            .iter()
            .filter(|f| f.url() == Some(u("/notes.txt").as_str()) && f.category() == "accessibility")
            .collect();
        e.check(a11y.is_empty(), || format!("accessibility findings on a text file: {a11y:#?}"));
    }
    s.quiet_site(&mut e, "crawlability.http-error", &u("/moved.html"));
    let links = u("/links.html");
    let links_good = u("/links-good.html");
    s.fires(&mut e, "crawlability.broken-link", &links, High, Some("#to-missing"));
    s.fires(&mut e, "crawlability.broken-link", &links, High, Some("#to-gone-pdf"));
    s.quiet(&mut e, "crawlability.broken-link", &links_good);
    s.fires_with(
        &mut e,
        "crawlability.redirect-chain",
        &u("/chain-end.html"),
        Medium,
        None,
        "resource",
        u("/chain-a.html").into(),
    );
    s.quiet(&mut e, "crawlability.redirect-chain", &u("/about.html")); // reached from /moved.html in one hop
    s.fires_with(
        &mut e,
        "crawlability.redirect-loop",
        &u("/loop-a.html"),
        High,
        None,
        "resource",
        u("/loop-a.html").into(),
    );
    s.quiet_site(&mut e, "crawlability.redirect-loop", &u("/about.html"));
    s.fires_with(&mut e, "crawlability.noindex", &u("/hidden.html"), High, None, "in_sitemap", json!(true));
    s.fires_with(
        &mut e,
        "crawlability.noindex",
        &u("/search/noindex-nocanon.html"),
        Medium,
        None,
        "in_sitemap",
        json!(false),
    );
    s.quiet(&mut e, "crawlability.noindex", &u("/preview.html"));
    s.quiet(&mut e, "crawlability.noindex", &u("/other-bots.html"));
    s.fires(&mut e, "crawlability.blocked-by-robots", &links, Low, Some("#to-private"));
    s.fires(&mut e, "crawlability.blocked-by-robots", &links, Low, Some("#to-zip"));
    s.quiet(&mut e, "crawlability.blocked-by-robots", &links_good);
    bl.fires(&mut e, "crawlability.blocked-by-robots", &blocked.url("/"), Low, Some("#to-products"));
    // Passive means polite: nothing robots.txt disallows is fetched, not even to check its status.
    for path in ["/private/secret.html", "/downloads/catalogue.zip"] {
        e.check(shop.hit_count(path) == 0, || {
            format!("{path} is disallowed by robots.txt but was fetched {} times", shop.hit_count(path))
        });
    }
    e.check(blocked.hit_count("/products.html") == 0, || "the blocked site's /products.html was fetched".into());
    s.fires(&mut e, "crawlability.non-crawlable-link", &links, Low, Some("#js-link"));
    s.fires(&mut e, "crawlability.non-crawlable-link", &links, Low, Some("#hash-link"));
    s.fires(&mut e, "crawlability.non-crawlable-link", &links, Low, Some("#click-link"));
    s.quiet(&mut e, "crawlability.non-crawlable-link", &links_good);
    // crawlability.no-https-redirect is judged for https start URLs only.
    s.quiet_everywhere(&mut e, "crawlability.no-https-redirect");

    // search: titles and descriptions
    let p = |name: &str| u(&format!("/search/{name}.html"));
    s.fires(&mut e, "search.title-missing", &p("no-title"), High, None);
    s.quiet(&mut e, "search.title-missing", &p("js-title"));
    s.fires_with(&mut e, "search.title-length", &p("short-title"), Low, None, "value", json!(5));
    s.quiet(&mut e, "search.title-length", &p("long-ok-title"));
    s.fires(&mut e, "search.title-duplicate", &p("dup-a"), Medium, None);
    s.fires(&mut e, "search.title-duplicate", &p("dup-b"), Medium, None);
    s.quiet(&mut e, "search.title-duplicate", &p("dup-variant"));
    s.fires(&mut e, "search.meta-description-missing", &p("no-desc"), Medium, None);
    s.quiet(&mut e, "search.meta-description-missing", &p("desc-case"));
    s.fires(&mut e, "search.meta-description-length", &p("short-desc"), Low, None);
    s.quiet(&mut e, "search.meta-description-length", &u("/about.html"));
    s.fires(&mut e, "search.meta-description-duplicate", &p("dup-a"), Low, None);
    s.fires(&mut e, "search.meta-description-duplicate", &p("dup-b"), Low, None);
    s.quiet(&mut e, "search.meta-description-duplicate", &p("dup-variant"));

    // search: canonicals
    s.fires(&mut e, "search.canonical-missing", &p("no-canonical"), Low, None);
    s.quiet(&mut e, "search.canonical-missing", &p("header-canonical"));
    s.quiet(&mut e, "search.canonical-missing", &p("noindex-nocanon"));
    s.fires(&mut e, "search.canonical-invalid", &p("canonical-relative"), Medium, Some("#relative-canonical"));
    s.fires(&mut e, "search.canonical-invalid", &p("canonical-two"), Medium, Some("#second-canonical"));
    // Search engines (and Lighthouse) read canonicals in <head> only: one in <body> neither
    // conflicts with the head's nor counts as a declaration.
    s.quiet(&mut e, "search.canonical-invalid", &p("canonical-body"));
    s.quiet(&mut e, "search.canonical-missing", &p("canonical-body"));
    s.quiet(&mut e, "search.canonical-invalid", &p("canonical-body-only"));
    s.fires(&mut e, "search.canonical-missing", &p("canonical-body-only"), Low, Some("#only-canonical"));
    s.fires_with(&mut e, "search.canonical-invalid", &p("canonical-404"), Medium, None, "status", json!(404));
    for page in [p("dup-variant"), p("canonical-other"), p("header-canonical"), u("/about.html"), u("/")] {
        s.quiet(&mut e, "search.canonical-invalid", &page);
    }
    s.fires_with(
        &mut e,
        "search.canonical-cross-origin",
        &p("canonical-other"),
        Low,
        None,
        "value",
        other.origin().into(),
    );
    s.quiet(&mut e, "search.canonical-cross-origin", &p("dup-variant"));
    s.quiet(&mut e, "search.canonical-cross-origin", &u("/about.html"));

    // search: previews, viewport, favicon, link texts
    s.fires(&mut e, "search.open-graph-missing", &p("og-partial"), Low, None);
    s.quiet(&mut e, "search.open-graph-missing", &u("/about.html"));
    s.fires_with(&mut e, "search.open-graph-image-broken", &p("og-broken"), Medium, None, "status", json!(404));
    s.fires(&mut e, "search.open-graph-image-broken", &p("og-html"), Medium, None);
    s.quiet(&mut e, "search.open-graph-image-broken", &u("/")); // relative og:image, HEAD answers 405
    s.quiet(&mut e, "search.open-graph-image-broken", &u("/about.html"));
    s.fires(&mut e, "search.viewport-missing", &p("no-viewport"), Medium, None);
    s.quiet(&mut e, "search.viewport-missing", &p("viewport-order"));
    nr.fires(&mut e, "search.favicon-missing", &norobots.url("/"), Low, None);
    s.quiet(&mut e, "search.favicon-missing", &u("/")); // no icon link, but /favicon.ico answers
    bl.quiet(&mut e, "search.favicon-missing", &blocked.url("/")); // an icon link, no /favicon.ico
    s.fires(&mut e, "search.link-text-generic", &p("generic"), Low, Some("#click-here"));
    s.fires(&mut e, "search.link-text-generic", &p("generic"), Low, Some("#read-more"));
    s.quiet(&mut e, "search.link-text-generic", &p("descriptive"));

    eprintln!(
        "crawl scans: shop {} pages in {:?}; the others {:?} {:?} {:?} {:?}",
        s.pages.len(),
        s.took,
        nr.took,
        dn.took,
        bl.took,
        bm.took
    );
    e.finish();
}

#[allow(clippy::too_many_arguments)]
fn scan_robots(
    e: &mut Expect,
    s: &scan_harness::Scan,
    nr: &scan_harness::Scan,
    dn: &scan_harness::Scan,
    bl: &scan_harness::Scan,
    shop: &FixtureSite,
    norobots: &FixtureSite,
    down: &FixtureSite,
    blocked: &FixtureSite,
) {
    dn.fires_with(e, "crawlability.robots-txt-unreachable", &down.url("/robots.txt"), High, None, "status", json!(500));
    nr.quiet_site(e, "crawlability.robots-txt-unreachable", &norobots.url("/robots.txt")); // 404: no rules
    s.quiet_site(e, "crawlability.robots-txt-unreachable", &shop.url("/robots.txt"));
    let robots = blocked.url("/robots.txt");
    bl.fires_with(e, "crawlability.robots-txt-blocks-all", &robots, Critical, None, "line", json!(4));
    s.quiet_site(e, "crawlability.robots-txt-blocks-all", &shop.url("/robots.txt")); // only BadBot is blocked
    for line in [1, 3, 5] {
        bl.fires_with(e, "crawlability.robots-txt-invalid", &robots, Low, None, "line", json!(line));
    }
    s.quiet_site(e, "crawlability.robots-txt-invalid", &shop.url("/robots.txt"));
}
