//! Real Chromium renders fixture pages served on 127.0.0.1; the snapshot's content is asserted:
//! statuses, redirects, sizes, console, exceptions, rejections, metrics, LCP element, cookies,
//! security headers, DOM facts, axe violations, keyboard walk, CSP violations.

use crate::fixture_site;

use fixture_site::{FixtureSite, Route, init_test_log};
use sitescan::browser::{BrowserOptions, BrowserPool, CaptureOptions};
use sitescan::model::{AddressPolicy, PageSnapshot};
use sitescan::net::EgressGuard;
use std::sync::Arc;
use std::time::Duration;

fn guard() -> Arc<EgressGuard> {
    Arc::new(EgressGuard::new(AddressPolicy::new(vec!["127.0.0.1/32".parse().unwrap()])))
}

async fn pool(capture: CaptureOptions) -> Arc<BrowserPool> {
    let options = BrowserOptions { capture, pages_per_browser: 2, ..BrowserOptions::default() };
    BrowserPool::start(options, guard()).await.expect("start pool")
}

async fn capture_one(capture: CaptureOptions, url: &str) -> PageSnapshot {
    let pool = pool(capture).await;
    let session = pool.session().await.unwrap();
    let snap = session.capture(url).await;
    session.close().await;
    pool.shutdown().await;
    snap
}

/// Writes the snapshot to `$TMPDIR/sitescan-<name>.json` when `SITESCAN_TEST_DUMP` is set.
fn dump(name: &str, snap: &PageSnapshot) {
    if std::env::var_os("SITESCAN_TEST_DUMP").is_some() {
        let path = std::env::temp_dir().join(format!("sitescan-{name}.json"));
        std::fs::write(&path, serde_json::to_string_pretty(snap).unwrap()).unwrap();
    }
}

fn svg(w: u32, h: u32, color: &str) -> String {
    format!("<svg xmlns='http://www.w3.org/2000/svg' width='{w}' height='{h}'><rect width='{w}' height='{h}' fill='{color}'/></svg>")
}

/// An SVG with enough detail (bytes per pixel) for Chromium to count it as an LCP candidate:
/// low-entropy images are ignored by LCP.
fn busy_svg(w: u32, h: u32) -> String {
    let mut seed: u32 = 12345;
    let mut next = || {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        (seed >> 8) & 0xffff
    };
    let mut rects = String::new();
    for _ in 0..400 {
        let (x, y, s, c) = (next() % w, next() % h, 10 + next() % 60, next() & 0xffffff);
        rects.push_str(&format!("<rect x='{x}' y='{y}' width='{s}' height='{s}' fill='#{c:06x}'/>"));
    }
    format!("<svg xmlns='http://www.w3.org/2000/svg' width='{w}' height='{h}'>{rects}</svg>")
}

const RICH_PAGE: &str = r##"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Fixture shop: rich page</title>
<meta name="description" content="A fixture page with many things to find.">
<meta property="og:title" content="Fixture">
<link rel="canonical" href="/rich">
<link rel="alternate" hreflang="de" href="/de/rich">
<link rel="stylesheet" href="/style.css">
<script src="/app.js"></script>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","name":"Fixture"}</script>
</head>
<body>
<header><nav><a href="/about">About us</a> <a href="javascript:void(0)">JS link</a> <a href="#">Top</a> <a href="https://example.invalid/x#frag">Elsewhere</a></nav></header>
<main>
<h1>Welcome</h1>
<img id="hero" src="/img/hero.svg" alt="Hero" width="900" height="450">
<h2>Products</h2>
<h4>Skipped level</h4>
<img src="/img/noalt.svg">
<img src="/missing.png" alt="gone">
<center>old</center>
<div id="dup">one</div><div id="dup">two</div>
<div class="clicky">click me</div>
<div itemscope itemtype="https://schema.org/Product"><span itemprop="name">Widget</span><meta itemprop="sku" content="W-1"></div>
<form action="/search" method="get" id="search">
  <label for="q">Search</label><input id="q" name="q" type="text" autocomplete="off">
  <input name="email" type="text" placeholder="Your email">
  <input type="password" name="pw" aria-label="Password">
  <select name="size"><option>S</option><option>M</option></select>
  <button type="submit">Go</button>
</form>
<video src="/v.mp4" muted><track kind="captions" srclang="en" src="/v.vtt"></video>
<div style="height: 3000px"></div>
<img id="lazy" src="/img/lazy.svg" alt="Lazy" loading="lazy">
<img src="https://127.0.0.1:1/csp-blocked.png" alt="csp">
</main>
<footer>footer</footer>
<script>
document.querySelector('.clicky').addEventListener('click', () => {});
window.addEventListener('unload', () => {});
console.log('hello from the page', 42);
console.error('something failed');
setTimeout(() => { throw new Error('kaboom'); }, 10);
Promise.reject(new Error('nobody caught me'));
fetch('/api/data').then(r => r.json()).then(d => console.info('api', d.ok));
window.addEventListener('load', () => {
  setTimeout(() => { const p = document.createElement('p'); p.style.height = '200px'; p.textContent = 'shift'; document.querySelector('main').prepend(p); }, 100);
  // Well after first paint, so all of it beyond 50 ms counts toward TBT.
  setTimeout(() => { const t = performance.now(); while (performance.now() - t < 150) {} }, 300);
});
</script>
</body>
</html>"##;

async fn start_rich_site() -> FixtureSite {
    let site = FixtureSite::start().await;
    site.route(
        "/rich",
        Route::html(RICH_PAGE)
            .header("set-cookie", "sid=abc123; Path=/; Secure; HttpOnly; SameSite=Strict")
            .header("set-cookie", "theme=dark; Path=/")
            .header("content-security-policy", "img-src 'self'")
            .header("strict-transport-security", "max-age=31536000")
            .header("x-frame-options", "DENY")
            .header("x-content-type-options", "nosniff")
            .gzip(true),
    );
    site.route("/style.css", Route::typed("text/css", "body{font-family:sans-serif} .clicky{cursor:pointer}").header("cache-control", "max-age=3600").gzip(true));
    site.route("/app.js", Route::typed("text/javascript", "window.appLoaded = true;").header("etag", "\"v1\""));
    site.route("/img/hero.svg", Route::typed("image/svg+xml", busy_svg(900, 450)));
    site.route("/img/noalt.svg", Route::typed("image/svg+xml", svg(50, 50, "#3c3")));
    site.route("/img/lazy.svg", Route::typed("image/svg+xml", svg(300, 200, "#33c")));
    site.route("/api/data", Route::typed("application/json", "{\"ok\":true}"));
    site
}

#[tokio::test]
async fn captures_a_rich_page() {
    init_test_log();
    let site = start_rich_site().await;
    let snap = capture_one(CaptureOptions { screenshot: true, ..CaptureOptions::default() }, &site.url("/rich")).await;
    dump("rich", &snap);
    assert_eq!(snap.error, None, "{:?}", snap.gather_errors);
    assert!(snap.gather_errors.is_empty(), "{:?}", snap.gather_errors);
    assert_eq!(snap.status, Some(200));
    assert_eq!(snap.final_url, site.url("/rich"));
    assert_eq!(snap.mime_type.as_deref(), Some("text/html"));
    assert!(snap.capture_ms > 0);

    // Security headers and cookies (Set-Cookie only arrives in responseReceivedExtraInfo).
    assert_eq!(snap.header("strict-transport-security"), Some("max-age=31536000"));
    assert_eq!(snap.header("content-security-policy"), Some("img-src 'self'"));
    assert_eq!(snap.header("x-frame-options"), Some("DENY"));
    assert_eq!(snap.header("content-encoding"), Some("gzip"));
    let sid = snap.cookies.iter().find(|c| c.name == "sid").expect("sid cookie");
    assert!(sid.secure && sid.http_only && !sid.set_over_https);
    assert_eq!(sid.same_site.as_deref(), Some("Strict"));
    assert_eq!(sid.raw_masked, "sid=***; Path=/; Secure; HttpOnly; SameSite=Strict");
    assert_eq!(sid.set_by, site.url("/rich"));
    let theme = snap.cookies.iter().find(|c| c.name == "theme").expect("theme cookie");
    assert!(!theme.secure && !theme.http_only);

    // Served and rendered HTML.
    let served = snap.served_html.as_deref().unwrap();
    assert!(served.starts_with("<!doctype html>"), "served body is decoded from gzip");
    assert_eq!(snap.meta_charset_offset, served.find("<meta charset"));
    assert!(snap.rendered_html.as_deref().unwrap().contains("shift"), "rendered DOM includes script changes");

    // Network.
    let req = |path: &str| snap.requests.iter().find(|r| r.url == site.url(path)).unwrap_or_else(|| panic!("no request for {path}"));
    let doc = req("/rich");
    assert!(doc.is_navigation && doc.resource_type == "document");
    assert_eq!(doc.content_encoding.as_deref(), Some("gzip"));
    assert!(doc.encoded_bytes.unwrap() < doc.decoded_bytes.unwrap(), "gzip: {:?} < {:?}", doc.encoded_bytes, doc.decoded_bytes);
    assert_eq!(doc.decoded_bytes, Some(RICH_PAGE.len() as u64));
    let css = req("/style.css");
    assert_eq!((css.resource_type.as_str(), css.status, css.cache_control.as_deref()), ("stylesheet", Some(200), Some("max-age=3600")));
    assert_eq!(css.render_blocking, Some(true));
    assert_eq!(css.initiator_type.as_deref(), Some("parser"));
    assert_eq!(req("/app.js").etag.as_deref(), Some("\"v1\""));
    assert_eq!(req("/missing.png").status, Some(404));
    assert_eq!(req("/api/data").resource_type, "fetch");
    assert_eq!(req("/api/data").initiator_type.as_deref(), Some("script"));
    let csp_blocked = snap.requests.iter().find(|r| r.url.contains("csp-blocked.png")).expect("csp-blocked request");
    assert_eq!(csp_blocked.blocked_reason.as_deref(), Some("csp"));
    assert!(doc.start_ms == Some(0.0) && doc.end_ms.unwrap() > 0.0);
    assert!(req("/style.css").ttfb_ms.is_some());
    assert_eq!(snap.metrics.requests, snap.requests.len() as u64);
    assert!(snap.metrics.transfer_bytes > 1000);

    // Console, exceptions, rejections, CSP.
    assert!(snap.console.iter().any(|c| c.source == "console" && c.level == "log" && c.text == "hello from the page 42"));
    assert!(snap.console.iter().any(|c| c.source == "console" && c.level == "error" && c.text == "something failed"));
    assert!(snap.console.iter().any(|c| c.text == "api true"));
    assert!(snap.console.iter().any(|c| c.source == "network" && c.level == "error"), "404 logged: {:?}", snap.console);
    let ex = snap.js_errors.iter().find(|e| e.kind == "exception").expect("exception");
    assert_eq!(ex.message, "Error: kaboom");
    assert!(ex.stack.as_deref().unwrap().contains(&site.url("/rich")), "{:?}", ex.stack);
    let rej = snap.js_errors.iter().find(|e| e.kind == "unhandled-rejection").expect("rejection");
    assert_eq!(rej.message, "Error: nobody caught me");
    assert!(rej.stack.is_some());
    let csp = snap.csp_violations.iter().find(|v| v.blocked_uri.contains("csp-blocked.png")).expect("csp violation");
    assert_eq!(csp.directive, "img-src");
    assert!(snap.browser_issues.iter().any(|i| i.kind == "csp"), "{:?}", snap.browser_issues);
    let unload = snap.browser_issues.iter().find(|i| i.kind == "deprecation").expect("unload handler deprecation");
    assert!(unload.code.as_deref().unwrap_or("").to_lowercase().contains("unload"), "{unload:?}");

    // Metrics.
    let m = &snap.metrics;
    let (ttfb, fcp, lcp) = (m.ttfb_ms.unwrap(), m.fcp_ms.unwrap(), m.lcp_ms.unwrap());
    assert!(ttfb > 0.0 && ttfb <= fcp && fcp <= lcp && lcp < 10_000.0, "ttfb {ttfb} fcp {fcp} lcp {lcp}");
    let lcp_el = m.lcp_element.as_ref().expect("lcp element");
    assert_eq!(lcp_el.selector.as_deref(), Some("#hero"), "{lcp_el:?}");
    assert!(lcp_el.is_image && lcp_el.url.as_deref() == Some(site.url("/img/hero.svg").as_str()));
    assert!(m.cls.unwrap() > 0.01, "the prepended paragraph shifts the page: {:?}", m.cls);
    assert!(!m.layout_shifts.is_empty());
    assert!(m.long_tasks.iter().any(|t| t.duration_ms >= 150.0), "{:?}", m.long_tasks);
    assert!(m.tbt_ms.unwrap() >= 90.0, "tbt {:?}", m.tbt_ms);
    assert!(m.load_ms.unwrap() >= m.dom_content_loaded_ms.unwrap());
    assert!(m.dom_elements > 30 && m.dom_max_depth >= 4);

    // DOM facts.
    let d = &snap.dom;
    assert_eq!(d.title.as_deref(), Some("Fixture shop: rich page"));
    assert_eq!((d.title_count, d.doctype.as_deref(), d.compat_mode.as_str()), (1, Some("html"), "CSS1Compat"));
    assert_eq!((d.html_lang.as_deref(), d.character_set.as_deref()), (Some("en"), Some("UTF-8")));
    assert_eq!(snap.meta_named("description").and_then(|m| m.content.as_deref()), Some("A fixture page with many things to find."));
    assert!(d.metas.iter().any(|m| m.property.as_deref() == Some("og:title")));
    let canonical = d.links.iter().find(|l| l.rel == "canonical").unwrap();
    assert_eq!((canonical.href_raw.as_deref(), canonical.href.as_deref(), canonical.in_head), (Some("/rich"), Some(site.url("/rich").as_str()), true));
    assert!(d.links.iter().any(|l| l.hreflang.as_deref() == Some("de")));
    let levels: Vec<u8> = d.headings.iter().map(|h| h.level).collect();
    assert_eq!(levels, [1, 2, 4]);
    let roles: Vec<&str> = d.landmarks.iter().map(|l| l.role.as_str()).collect();
    assert!(roles.contains(&"main") && roles.contains(&"navigation") && roles.contains(&"banner") && roles.contains(&"contentinfo"), "{roles:?}");
    let about = d.anchors.iter().find(|a| a.text == "About us").unwrap();
    assert_eq!(about.href.as_deref(), Some(site.url("/about").as_str()));
    assert!(about.visible && about.selector.contains("nav"));
    assert_eq!(d.anchors.iter().find(|a| a.text == "JS link").unwrap().href, None);
    assert_eq!(d.anchors.iter().find(|a| a.text == "Top").unwrap().href, None);
    assert_eq!(d.anchors.iter().find(|a| a.text == "Elsewhere").unwrap().href.as_deref(), Some("https://example.invalid/x"));
    let hero = d.images.iter().find(|i| i.selector == "#hero").unwrap();
    assert!(hero.in_first_viewport && hero.has_width_attr && !hero.broken && hero.natural_width == 900 && hero.rendered_width == 900);
    let noalt = d.images.iter().find(|i| i.src_raw.as_deref() == Some("/img/noalt.svg")).unwrap();
    assert_eq!(noalt.alt, None);
    assert!(!noalt.has_width_attr && !noalt.has_css_size);
    assert!(d.images.iter().find(|i| i.src_raw.as_deref() == Some("/missing.png")).unwrap().broken);
    let lazy = d.images.iter().find(|i| i.selector == "#lazy").unwrap();
    assert!(!lazy.in_first_viewport && lazy.top_px > 3000.0 && lazy.loading.as_deref() == Some("lazy"));
    assert_eq!(lazy.natural_width, 300, "scrolling loaded the lazy image");
    let form = &d.forms[0];
    assert_eq!((form.method.as_str(), form.has_submit, form.has_password, form.field_count), ("get", true, true, 5));
    assert_eq!(form.action.as_deref(), Some(site.url("/search").as_str()));
    let q = d.fields.iter().find(|f| f.name.as_deref() == Some("q")).unwrap();
    assert!(q.has_label && q.label_text.as_deref() == Some("Search") && q.form_index == Some(0));
    let email = d.fields.iter().find(|f| f.name.as_deref() == Some("email")).unwrap();
    assert!(!email.has_label && email.placeholder_only);
    assert!(d.fields.iter().find(|f| f.name.as_deref() == Some("pw")).unwrap().has_label);
    assert_eq!(d.json_ld.len(), 1);
    assert!(d.json_ld[0].text.contains("\"Organization\""));
    assert_eq!(d.microdata[0].types, ["https://schema.org/Product"]);
    assert!(d.microdata[0].properties.iter().any(|p| p.name == "sku" && p.value == "W-1"));
    assert_eq!(d.duplicate_ids[0].id, "dup");
    assert_eq!(d.duplicate_ids[0].count, 2);
    assert_eq!(d.deprecated_elements[0].tag, "center");
    assert_eq!(d.clickable_non_interactive.len(), 1);
    assert!(d.clickable_non_interactive[0].snippet.contains("clicky"));
    assert_eq!(d.media[0].tracks[0].kind, "captions");
    assert!(d.media[0].muted && !d.media[0].autoplay);
    assert_eq!((d.viewport_width, d.viewport_height), (1350, 940));
    assert!(d.document_height > 3000);

    // axe-core.
    let axe = snap.axe.as_ref().unwrap();
    assert_eq!(axe.version, sitescan::browser::axe_version());
    let image_alt = axe.violations.iter().find(|v| v.id == "image-alt").expect("image-alt violation");
    assert!(image_alt.nodes.iter().any(|n| n.html.contains("noalt.svg")));
    assert!(image_alt.tags.iter().any(|t| t == "wcag2a"));
    assert!(image_alt.help_url.starts_with("https://dequeuniversity.com/"));
    assert!(axe.violations.iter().any(|v| v.id == "select-name"), "unlabelled select");
    assert!(axe.violations.iter().any(|v| v.id == "heading-order"), "h2 -> h4");

    // Keyboard walk reached the links and fields, with the default (visible) focus ring.
    let k = snap.keyboard.as_ref().unwrap();
    assert!(k.focusable_count >= 7, "{}", k.focusable_count);
    assert!(k.steps.len() >= 5, "{:?}", k.steps);
    assert!(k.steps.iter().all(|s| s.visible_change), "{:?}", k.steps);
    assert_eq!(k.trapped_at, None);

    // Screenshot of the first viewport.
    let png = snap.screenshot_png_base64.as_deref().unwrap();
    assert!(png.starts_with("iVBORw0KGgo"), "PNG magic in base64");
}

#[tokio::test]
async fn keyboard_walk_sees_invisible_focus_and_traps() {
    init_test_log();
    let site = FixtureSite::start().await;
    let links = "<a href='/a'>One</a> <a href='/b'>Two</a> <button>Three</button> <input aria-label='Four'>";
    site.route("/default", Route::html(format!("<!doctype html><title>t</title>{links}")));
    site.route("/hidden", Route::html(format!("<!doctype html><title>t</title><style>*:focus{{outline:none}}</style>{links}")));
    site.route(
        "/trap",
        Route::html("<!doctype html><title>t</title><a href='/a'>One</a> <input id='trap' aria-label='trap' onkeydown=\"if(event.key==='Tab')event.preventDefault()\"> <a href='/b'>Never</a>"),
    );
    let pool = pool(CaptureOptions { axe: false, scroll: false, ..CaptureOptions::default() }).await;
    let session = pool.session().await.unwrap();

    let def = session.capture(&site.url("/default")).await;
    dump("kb-default", &def);
    let k = def.keyboard.expect("walk");
    assert_eq!(k.focusable_count, 4);
    assert_eq!(k.steps.len(), 4, "{:?}", k.steps);
    assert!(k.steps.iter().all(|s| s.visible_change), "{:?}", k.steps);
    assert_eq!(k.steps[0].tag, "a");

    let hidden = session.capture(&site.url("/hidden")).await;
    dump("kb-hidden", &hidden);
    let k = hidden.keyboard.expect("walk");
    assert_eq!(k.steps.len(), 4, "{:?}", k.steps);
    assert!(k.steps.iter().all(|s| !s.visible_change), "outline:none leaves no visible focus: {:?}", k.steps);
    assert!(k.steps.iter().any(|s| s.method == "pixels"));

    let trap = session.capture(&site.url("/trap")).await;
    dump("kb-trap", &trap);
    let k = trap.keyboard.expect("walk");
    assert_eq!(k.trapped_at.as_deref(), Some("#trap"), "{k:?}");
    assert!(k.trapped_snippet.unwrap().contains("onkeydown"));
    session.close().await;
    pool.shutdown().await;
}

/// Where no script listens to keys, the walk computes the Tab order in the page instead of
/// pressing Tab; the same page with a key listener that does nothing is walked by real presses.
/// Both walks must reach the same elements in the same order with the same verdicts: links with
/// and without a ring, a div with tabindex 0, a select, a checkbox, open and closed details,
/// and around them what Tab skips (no href, disabled, a disabled fieldset, hidden, inert,
/// negative tabindex), a link far down the page and one under a fixed header.
#[tokio::test]
async fn computed_tab_order_walks_as_tab_presses_do() {
    init_test_log();
    let site = FixtureSite::start().await;
    let body = "<style>.ring:focus{outline:3px solid red} .none:focus{outline:none} .hide{visibility:hidden}\
        header{position:fixed;top:0;height:60px;width:100%;background:#eee}</style>\
        <header><a href='/h' class='none'>Header</a></header><div style='height:80px'></div>\
        <a>no href</a> <a href='/x' class='ring'>ring</a> <a href='/y' class='none'>none</a>\
        <button disabled>disabled</button><fieldset disabled><button>in a disabled fieldset</button></fieldset>\
        <select aria-label='s'><option>1</option><option>2</option></select> <input type='checkbox' aria-label='c'>\
        <details><summary>Closed</summary><a href='/closed'>in closed details</a></details>\
        <details open><summary>Open</summary><a href='/open'>in open details</a></details>\
        <div tabindex='0' class='ring'>div</div><div tabindex='-1'>minus one</div>\
        <a href='/hidden' class='hide'>hidden</a><a href='/gone' style='display:none'>gone</a>\
        <div inert><a href='/inert'>inert</a></div><div style='height:1500px'></div>\
        <a href='/far' class='none'>far down</a><button>last</button>";
    site.route("/computed", Route::html(format!("<!doctype html><title>t</title>{body}")));
    let listener = "<script>document.addEventListener('keydown', () => {});</script>";
    site.route("/pressed", Route::html(format!("<!doctype html><title>t</title>{body}{listener}")));
    // Focus handlers that move focus on or back: such pages are walked by presses.
    let handler = "<a href='/a' id='a'>a</a><a href='/b' id='b'>b</a><a href='/c' id='c'>c</a>\
        <script>document.getElementById('b').addEventListener('focus', () => document.getElementById('c').focus());</script>";
    site.route("/handler", Route::html(format!("<!doctype html><title>t</title>{handler}")));
    // One that sends focus back where it came from: Tab never gets past #b, nor is it skipped.
    let bounce = "<a href='/a' id='a'>a</a><a href='/b' id='b'>b</a><a href='/c' id='c'>c</a>\
        <script>document.getElementById('b').addEventListener('focus', (e) => e.relatedTarget && e.relatedTarget.focus());</script>";
    site.route("/bounce", Route::html(format!("<!doctype html><title>t</title>{bounce}")));
    let pool = pool(CaptureOptions { axe: false, scroll: false, ..CaptureOptions::default() }).await;
    let session = pool.session().await.unwrap();
    let walk = |snap: &PageSnapshot| {
        let k = snap.keyboard.as_ref().expect("walk");
        k.steps.iter().map(|s| (s.selector.clone(), s.visible_change, s.method.clone())).collect::<Vec<_>>()
    };
    let computed = session.capture(&site.url("/computed")).await;
    dump("kb-computed", &computed);
    let pressed = session.capture(&site.url("/pressed")).await;
    dump("kb-pressed", &pressed);
    let (computed, pressed) = (walk(&computed), walk(&pressed));
    assert_eq!(computed, pressed);
    let selectors: Vec<&str> = computed.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(selectors.len(), 11, "{computed:?}");
    assert!(!selectors.iter().any(|s| s.contains("fieldset")), "{selectors:?}");
    // The ringless links are judged in pixels, the rest by their styles.
    assert!(computed.iter().any(|s| !s.1 && s.2 == "pixels"), "{computed:?}");
    assert!(computed.iter().filter(|s| s.1).count() >= 6, "{computed:?}");

    let handled = session.capture(&site.url("/handler")).await;
    dump("kb-handler", &handled);
    let selectors: Vec<String> = walk(&handled).into_iter().map(|s| s.0).collect();
    assert_eq!(selectors, ["#a", "#c"], "Tab from #a lands on #b, whose handler moves focus to #c; Tab from #c leaves");
    let bounced = session.capture(&site.url("/bounce")).await;
    dump("kb-bounce", &bounced);
    let k = bounced.keyboard.as_ref().expect("walk");
    let selectors: Vec<&str> = k.steps.iter().map(|s| s.selector.as_str()).collect();
    assert_eq!(selectors, ["#a"], "Tab from #a lands on #b, which sends focus back to #a: #c is never reached");
    assert_eq!(k.trapped_at, None, "Shift+Tab leaves #a: not a trap");
    session.close().await;
    pool.shutdown().await;
}

/// The page never sees itself hidden while it is read: a browser whose minimized windows hide
/// the document (the headless shell) keeps them drawn, so a page's `visibilitychange` handlers
/// (analytics beacons, paused media) do not run for a visitor that never left.
#[tokio::test]
async fn a_page_is_never_hidden_while_it_is_read() {
    init_test_log();
    let site = FixtureSite::start().await;
    site.route("/seen", Route::typed("application/json", "{}"));
    let page = "<!doctype html><title>t</title><a href='/a'>One</a> <button>Two</button>\
        <script>document.addEventListener('visibilitychange', () => fetch('/seen?' + document.visibilityState));</script>";
    site.route("/one", Route::html(page));
    site.route("/two", Route::html(page));
    let pool = pool(CaptureOptions::default()).await;
    let session = pool.session().await.unwrap();
    for path in ["/one", "/two"] {
        let snap = session.capture(&site.url(path)).await;
        dump("never-hidden", &snap);
        assert!(snap.rendered(), "{path}: {:?}", snap.error);
        assert_eq!(snap.keyboard.as_ref().map(|k| k.steps.len()), Some(2), "{path}: the walk ran");
        assert!(snap.axe.is_some(), "{path}: axe ran");
        let seen: Vec<&str> = snap.requests.iter().map(|r| r.url.as_str()).filter(|u| u.contains("/seen")).collect();
        assert!(seen.is_empty(), "{path}: the page saw its visibility change while it was read: {seen:?}");
    }
    session.close().await;
    pool.shutdown().await;
}

/// CLS and TBT count what a busy page does a moment after it loaded, as Lighthouse counts it: a
/// page that shifted 300 ms after `load` is watched until it has been still for 500 ms, so the
/// second banner and the long task 700 ms after `load` (after the network went quiet) are in the
/// metrics; the capture's own long tasks (axe, the keyboard walk) are not. (A page that does
/// nothing at all until long after the network went quiet is read before it acts: see
/// `capture::SETTLE_QUIET`.)
#[tokio::test]
async fn shifts_and_long_tasks_a_moment_after_load_are_counted() {
    init_test_log();
    let site = FixtureSite::start().await;
    let filler: String = (0..8).map(|i| format!("<p>Paragraph {i} of steady text that fills the first viewport.</p>")).collect();
    let late = format!(
        "<!doctype html><html lang='en'><title>Late</title><style>.banner{{height:200px;background:#fde68a}}</style>\
         <main><h1>Late work</h1>{filler}</main>\
         <script>const banner = () => {{\
           const d = document.createElement('div'); d.className = 'banner'; d.textContent = 'Late banner';\
           document.querySelector('main').prepend(d);\
         }};\
         addEventListener('load', () => {{\
           setTimeout(banner, 300);\
           setTimeout(() => {{ banner(); const end = performance.now() + 300; while (performance.now() < end) {{}} }}, 700);\
         }});</script></html>"
    );
    site.route("/late", Route::html(&late));
    site.route("/calm", Route::html(format!("<!doctype html><html lang='en'><title>Calm</title><main><h1>Calm</h1>{filler}</main></html>")));
    let pool = pool(CaptureOptions::default()).await;
    let session = pool.session().await.unwrap();
    let snap = session.capture(&site.url("/late")).await;
    dump("late-work", &snap);
    assert!(snap.rendered(), "{:?}", snap.error);
    let m = &snap.metrics;
    assert_eq!(m.layout_shifts.len(), 2, "both banners shift the page: {:?}", m.layout_shifts);
    let both: f64 = m.layout_shifts.iter().map(|s| s.value).sum();
    assert!(m.cls.unwrap_or(0.0) > 0.05 && (m.cls.unwrap() - both).abs() < 1e-9, "one session window of both shifts: cls {:?}, shifts {:?}", m.cls, m.layout_shifts);
    assert!(m.long_tasks.iter().any(|t| t.duration_ms >= 250.0), "the late task is seen: {:?}", m.long_tasks);
    let tbt = m.tbt_ms.unwrap();
    assert!((200.0..600.0).contains(&tbt), "TBT counts the page's 300 ms task (250 ms beyond 50), not axe's: {tbt}");
    // A page that replaces the clock gets no say in how long the capture waits.
    let hostile = format!("<!doctype html><html lang='en'><title>Clock</title><main><h1>Clock</h1>{filler}</main>\
        <script>performance.now = () => Infinity; Date.now = () => NaN;\
        addEventListener('load', () => setTimeout(() => document.querySelector('main').prepend(document.createElement('hr')), 50));</script></html>");
    site.route("/clock", Route::html(&hostile));
    let clock = session.capture(&site.url("/clock")).await;
    assert!(clock.rendered() && clock.axe.is_some(), "{:?}", clock.error);
    let calm = session.capture(&site.url("/calm")).await;
    assert!(calm.rendered(), "{:?}", calm.error);
    assert_eq!(calm.metrics.cls, Some(0.0), "{:?}", calm.metrics.layout_shifts);
    assert_eq!(calm.metrics.tbt_ms, Some(0.0), "the capture's own tasks are not the page's: {:?}", calm.metrics.long_tasks);
    session.close().await;
    pool.shutdown().await;
}

/// Lazy content loads either way: native `loading=lazy` images without scrolling the page (their
/// attribute stays as written), a script's intersection-observer loader by scrolling to it.
#[tokio::test]
async fn lazy_content_loads_natively_and_through_script_observers() {
    init_test_log();
    let site = FixtureSite::start().await;
    site.route("/img/native.svg", Route::typed("image/svg+xml", svg(300, 200, "#c33")));
    site.route("/img/observed.svg", Route::typed("image/svg+xml", svg(320, 200, "#3c3")));
    // Slower than the network quiet that follows an eager load: awaited in the page itself.
    site.route("/img/slow.svg", Route::typed("image/svg+xml", svg(310, 200, "#cc3")).delay(Duration::from_millis(1200)));
    site.route("/after-load.json", Route::typed("application/json", "{}"));
    let spacer = "<div style='height: 4000px'>tall</div>";
    site.route(
        "/native",
        Route::html(format!(
            "<!doctype html><title>t</title>{spacer}<img id='native' src='/img/native.svg' alt='n' loading='lazy' width='300' height='200'>\
             <img id='slow' src='/img/slow.svg' alt='s' loading='lazy' width='310' height='200' onload=\"fetch('/after-load.json')\">"
        )),
    );
    site.route(
        "/observed",
        Route::html(format!(
            "<!doctype html><title>t</title>{spacer}<img id='observed' data-src='/img/observed.svg' alt='o' width='320' height='200'>\
             <script>new IntersectionObserver((entries, observer) => entries.forEach((e) => {{ if (e.isIntersecting) {{ e.target.src = e.target.dataset.src; observer.unobserve(e.target); }} }})).observe(document.getElementById('observed'));</script>"
        )),
    );
    let pool = pool(CaptureOptions { axe: false, keyboard_walk: false, ..CaptureOptions::default() }).await;
    let session = pool.session().await.unwrap();

    let native = session.capture(&site.url("/native")).await;
    dump("lazy-native", &native);
    let image = native.dom.images.iter().find(|i| i.selector == "#native").expect("the lazy image");
    assert_eq!(image.natural_width, 300, "the native lazy image loaded: {image:?}");
    assert_eq!(image.loading.as_deref(), Some("lazy"), "the attribute is as the page wrote it");
    assert!(native.requests.iter().any(|r| r.url.ends_with("/img/native.svg")));
    let slow = native.dom.images.iter().find(|i| i.selector == "#slow").expect("the slow lazy image");
    assert_eq!(slow.natural_width, 310, "the slow lazy image was awaited: {slow:?}");
    let followed = native.requests.iter().find(|r| r.url.ends_with("/after-load.json")).expect("what its load handler fetched");
    assert_eq!(followed.status, Some(200), "{followed:?}");

    let observed = session.capture(&site.url("/observed")).await;
    dump("lazy-observed", &observed);
    let image = observed.dom.images.iter().find(|i| i.selector == "#observed").expect("the observed image");
    assert_eq!(image.natural_width, 320, "scrolling brought the image into view and its loader ran: {image:?}");
    assert!(observed.requests.iter().any(|r| r.url.ends_with("/img/observed.svg")));
    session.close().await;
    pool.shutdown().await;
}

#[tokio::test]
async fn redirects_statuses_and_navigation_errors() {
    init_test_log();
    let site = FixtureSite::start().await;
    site.route("/start", Route::redirect(301, "/middle"));
    site.route("/middle", Route::redirect(302, &site.url("/final")));
    site.route("/final", Route::html("<!doctype html><title>Final</title><p>done"));
    site.route("/loop", Route::redirect(302, "/loop"));
    site.route("/teapot", Route::html("<!doctype html><title>Gone</title>").status(410));
    site.route("/empty500", Route::new(500));
    let pool = pool(CaptureOptions::bare()).await;
    let session = pool.session().await.unwrap();

    let s = session.capture(&site.url("/start")).await;
    assert_eq!((s.status, s.error.clone()), (Some(200), None));
    assert_eq!(s.final_url, site.url("/final"));
    assert_eq!(s.redirects.len(), 2);
    assert_eq!((s.redirects[0].url.as_str(), s.redirects[0].status, s.redirects[0].location.as_deref()), (site.url("/start").as_str(), 301, Some("/middle")));
    assert_eq!((s.redirects[1].url.as_str(), s.redirects[1].status), (site.url("/middle").as_str(), 302));
    let hops: Vec<Option<u16>> = s.requests.iter().filter(|r| r.is_navigation).map(|r| r.status).collect();
    assert_eq!(hops, [Some(301), Some(302), Some(200)]);
    assert_eq!(s.dom.title.as_deref(), Some("Final"), "bare capture still collects DOM facts");

    let s = session.capture(&site.url("/loop")).await;
    assert_eq!(s.error.as_ref().map(|e| e.kind.as_str()), Some("redirect_loop"), "{:?}", s.error);
    assert!(s.redirects.len() >= 10);

    let s = session.capture(&site.url("/teapot")).await;
    assert_eq!((s.status, s.error.clone()), (Some(410), None));
    assert_eq!(s.dom.title.as_deref(), Some("Gone"));

    let s = session.capture(&site.url("/empty500")).await;
    assert_eq!((s.status, s.error.clone()), (Some(500), None));

    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let s = session.capture(&format!("http://127.0.0.1:{port}/")).await;
    assert_eq!(s.status, None);
    let e = s.error.expect("navigation error");
    assert_eq!(e.kind, "navigation");
    assert!(e.message.starts_with("net::ERR_"), "{}", e.message);
    session.close().await;
    pool.shutdown().await;
}

#[tokio::test]
async fn slow_and_hung_pages_time_out_and_the_pool_goes_on() {
    init_test_log();
    let site = FixtureSite::start().await;
    site.route("/slow", Route::html("late").delay(Duration::from_secs(6)));
    site.route("/busy", Route::html("<!doctype html><title>busy</title><script>addEventListener('load', () => setTimeout(() => { for(;;){} }, 50))</script>"));
    site.route("/ok", Route::html("<!doctype html><title>fine</title><script>alert('hi'); document.title = 'fine:' + confirm('sure?')</script>"));
    let options = BrowserOptions {
        navigation_timeout: Duration::from_secs(2),
        page_timeout: Duration::from_secs(6),
        pages_per_browser: 2,
        capture: CaptureOptions { keyboard_walk: false, ..CaptureOptions::default() },
        ..BrowserOptions::default()
    };
    let pool = BrowserPool::start(options, guard()).await.unwrap();
    let session = pool.session().await.unwrap();

    let t = std::time::Instant::now();
    let s = session.capture(&site.url("/slow")).await;
    assert_eq!(s.error.as_ref().map(|e| e.kind.as_str()), Some("timeout"), "{:?}", s.error);
    assert!(t.elapsed() < Duration::from_secs(8), "{:?}", t.elapsed());

    let t = std::time::Instant::now();
    let s = session.capture(&site.url("/busy")).await;
    assert!(t.elapsed() < Duration::from_secs(14), "{:?}", t.elapsed());
    assert!(s.error.is_some() || !s.gather_errors.is_empty(), "a hung page cannot be fully gathered");
    assert_eq!(s.status, Some(200));

    // Dialogs are dismissed (confirm answers false) instead of blocking the page.
    let s = session.capture(&site.url("/ok")).await;
    assert_eq!((s.error.clone(), s.dom.title.as_deref()), (None, Some("fine:false")), "{:?}", s.gather_errors);
    session.close().await;
    pool.shutdown().await;
}

#[tokio::test]
async fn sessions_are_isolated() {
    init_test_log();
    let site = FixtureSite::start().await;
    site.route("/set", Route::html("<!doctype html><title>set</title>").header("set-cookie", "visitor=42; Path=/"));
    site.route("/show", Route::html("<!doctype html><title>x</title><script>document.title = 'cookies:' + document.cookie</script>"));
    let pool = pool(CaptureOptions::bare()).await;
    let a = pool.session().await.unwrap();
    let b = pool.session().await.unwrap();
    a.capture(&site.url("/set")).await;
    assert_eq!(a.capture(&site.url("/show")).await.dom.title.as_deref(), Some("cookies:visitor=42"));
    assert_eq!(b.capture(&site.url("/show")).await.dom.title.as_deref(), Some("cookies:"));
    a.close().await;
    b.close().await;
    pool.shutdown().await;
}

#[tokio::test]
async fn a_page_reused_for_the_next_url_reports_only_its_own_document() {
    init_test_log();
    let site = FixtureSite::start().await;
    site.route("/poll", Route::typed("application/json", "{}"));
    site.route("/beacon", Route::typed("text/plain", ""));
    // A page that keeps talking: a console line and a request every few milliseconds, a beacon
    // as it goes, session storage and a window name left behind.
    site.route(
        "/noisy",
        Route::html(
            "<!doctype html><title>noisy</title><p>noise</p><script>\
             sessionStorage.setItem('left', 'behind'); window.name = 'noisy';\
             setInterval(() => console.log('from-noisy'), 5);\
             setInterval(() => fetch('/poll?from=noisy'), 7);\
             addEventListener('pagehide', () => { console.log('from-noisy-pagehide'); navigator.sendBeacon('/beacon'); });\
             addEventListener('pagehide', () => { throw new Error('from-noisy-pagehide'); });\
             addEventListener('unload', () => console.error('from-noisy-unload'));\
             </script>",
        ),
    );
    site.route(
        "/quiet",
        Route::html(
            "<!doctype html><title>quiet</title><p>quiet</p>\
             <script>document.title = 'storage:' + sessionStorage.length + ' name:' + window.name; console.log('from-quiet');</script>",
        ),
    );
    // One page at a time: the second capture gets the first one's window.
    let options = BrowserOptions { capture: CaptureOptions { axe: false, keyboard_walk: false, ..CaptureOptions::default() }, pages_per_browser: 1, ..BrowserOptions::default() };
    let pool = BrowserPool::start(options, guard()).await.expect("start pool");
    let session = pool.session().await.unwrap();
    let noisy = session.capture(&site.url("/noisy")).await;
    assert!(noisy.error.is_none(), "{:?}", noisy.error);
    assert!(noisy.console.iter().any(|m| m.text == "from-noisy"), "{:?}", noisy.console);
    for _ in 0..3 {
        let quiet = session.capture(&site.url("/quiet")).await;
        dump("reused-quiet", &quiet);
        assert!(quiet.error.is_none(), "{:?}", quiet.error);
        assert_eq!(quiet.dom.title.as_deref(), Some("storage:0 name:"), "the previous page's session storage and name are gone");
        let texts: Vec<&str> = quiet.console.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(texts, vec!["from-quiet"], "only the page's own console");
        assert!(quiet.js_errors.is_empty(), "only the page's own errors: {:?}", quiet.js_errors);
        let urls: Vec<&str> = quiet.requests.iter().map(|r| r.url.as_str()).collect();
        assert_eq!(urls, vec![site.url("/quiet").as_str()], "only the page's own requests");
        assert_eq!(quiet.final_url, site.url("/quiet"));
        // The parked window was emptied and redrawn before this URL: this page painted.
        assert!(quiet.metrics.fcp_ms.is_some_and(|ms| ms > 0.0), "{:?}", quiet.metrics);
        assert!(quiet.metrics.lcp_ms.is_some(), "{:?}", quiet.metrics);
    }
    session.close().await;
    pool.shutdown().await;
}
