//! End to end: the reading and layout checks (reflow at 320 px, text at 200%, WCAG text spacing,
//! reading measures, animated images) on the `reading` fixture site
//! (`tests/fixtures/sites/reading/`), rendered by real Chromium through the scan engine.

use crate::fixture_dir;
use crate::fixture_site;
use crate::media_gen::gif;
use crate::scan_harness;

use fixture_site::{FixtureSite, Route};
use scan_harness::{Engine, Expect};
use sitescan::model::Severity::{Info, Low, Medium};

/// The layout gatherer's checks.
const CHECKS: [&str; 9] = [
    "accessibility.reflow-overflow",
    "accessibility.text-resize-clipped",
    "accessibility.text-spacing-clipped",
    "accessibility.text-too-small",
    "accessibility.line-too-long",
    "accessibility.text-justified",
    "accessibility.all-caps-text",
    "accessibility.italic-text",
    "accessibility.animation-too-long",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reading_and_layout_checks_fire_on_their_fixtures_and_not_on_near_misses() {
    fixture_site::init_test_log();
    let site = FixtureSite::start().await;
    fixture_dir::serve(&site, "reading", "http://127.0.0.2:9", &[]);
    let forever = gif(&[40, 40, 40], Some(0));
    for path in ["/gen/forever.gif", "/gen/forever-control.gif", "/gen/forever-spinner.gif", "/gen/forever-reduced.gif"] {
        site.route(path, Route::typed("image/gif", forever.clone()));
    }
    site.route("/gen/long.gif", Route::typed("image/gif", gif(&[100, 100], Some(2))));
    site.route("/gen/short.gif", Route::typed("image/gif", gif(&[50, 50, 50], None)));
    site.route("/gen/still.gif", Route::typed("image/gif", gif(&[0], None)));
    let engine = Engine::start(4).await;
    let started = std::time::Instant::now();
    // At AAA: the AAA checks of the fixtures fire too (the default AA leaves them out).
    let scan = engine.scan_at(site.url("/"), sitescan::model::Level::AAA).await;
    let took = started.elapsed();
    engine.shutdown().await;
    scan.dump();
    eprintln!("reading scan: {} pages in {took:?}", scan.pages.len());
    let u = |p: &str| site.url(p);
    let mut e = Expect::default();

    // Every page was measured: no check of the layout gatherer skipped a page.
    for page in &scan.pages {
        let skipped: Vec<_> = page.checks_not_run.iter().filter(|c| CHECKS.contains(&c.check_id.as_str())).collect();
        e.check(skipped.is_empty(), || format!("layout checks not run on {}: {skipped:?}", page.url));
    }

    // Reflow (1.4.10): the fixed-width box and the line that does not wrap.
    let reflow_bad = u("/reflow-bad.html");
    scan.fires(&mut e, "accessibility.reflow-overflow", &reflow_bad, Medium, Some("#wide"));
    scan.fires(&mut e, "accessibility.reflow-overflow", &reflow_bad, Medium, Some("#nowrap"));
    // Text spacing (1.4.12) and 200% text (1.4.4).
    scan.fires(&mut e, "accessibility.text-spacing-clipped", &u("/spacing-bad.html"), Medium, Some("#tight"));
    scan.fires_with(&mut e, "accessibility.text-resize-clipped", &u("/resize-bad.html"), Medium, Some("#badge"), "needs_review", true.into());
    scan.quiet(&mut e, "accessibility.text-spacing-clipped", &u("/resize-bad.html"));
    // Reading (1.4.8, advisory).
    let hard = u("/reading-bad.html");
    scan.fires(&mut e, "accessibility.text-too-small", &hard, Low, Some("#fine"));
    scan.fires(&mut e, "accessibility.line-too-long", &hard, Info, Some("#wide-para"));
    scan.fires(&mut e, "accessibility.text-justified", &hard, Info, Some("#justified"));
    scan.fires_with(&mut e, "accessibility.all-caps-text", &hard, Info, Some("#shout"), "needs_review", true.into());
    scan.fires_with(&mut e, "accessibility.italic-text", &hard, Info, Some("#slanted"), "needs_review", true.into());
    // Animations (2.2.2): an endless loop, and three plays of two seconds.
    let anim = u("/anim-bad.html");
    scan.fires_with(&mut e, "accessibility.animation-too-long", &anim, Medium, Some("#forever"), "needs_review", true.into());
    scan.fires(&mut e, "accessibility.animation-too-long", &anim, Medium, Some("#long"));
    let value = scan.of("accessibility.animation-too-long", &anim).find(|f| f.selector() == Some("#long")).map(|f| f.evidence["value"].clone());
    e.check(value.as_ref().and_then(|v| v.as_str()) == Some("2 gif frames of 2000 ms, 3 plays: 6000 ms"), || format!("long.gif measured as {value:?}"));

    // Near misses: every check stays quiet on the passing twins, the widget patterns and the index.
    for page in ["/", "/reflow-good.html", "/spacing-good.html", "/resize-good.html", "/reading-good.html", "/anim-good.html", "/widgets.html"] {
        for check in CHECKS {
            scan.quiet(&mut e, check, &u(page));
        }
    }
    // The bad pages' other elements: only the defect each page shows.
    for check in ["accessibility.reflow-overflow", "accessibility.text-too-small", "accessibility.animation-too-long", "accessibility.line-too-long"] {
        scan.quiet(&mut e, check, &u("/spacing-bad.html"));
    }
    e.finish();
}
