//! End to end: the semantics, structured-data and i18n checks on the `content` fixture site
//! (`tests/fixtures/sites/content/`), rendered by real Chromium through the scan engine. Every
//! check fires on its fixture page with the expected severity, page URL and element, and stays
//! quiet on its near-miss page (correct markup a sloppy check would flag).

use crate::fixture_dir;
use crate::fixture_site;
use crate::scan_harness;

use fixture_site::FixtureSite;
use scan_harness::{Engine, Expect};
use sitescan::model::Severity::{High, Info, Low, Medium};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn content_checks_fire_on_their_fixtures_and_not_on_near_misses() {
    let site = FixtureSite::start().await;
    fixture_dir::serve(&site, "content", "http://127.0.0.2:9", &[]);
    let engine = Engine::start(4).await;
    let scan = engine.scan(site.url("/")).await;
    engine.shutdown().await;
    scan.dump();
    let u = |p: &str| site.url(p);
    let mut e = Expect::default();

    // semantics
    scan.fires(&mut e, "semantics.doctype-missing", &u("/semantics/no-doctype.html"), Medium, None);
    scan.quiet(&mut e, "semantics.doctype-missing", &u("/semantics/legacy-doctype.html"));
    let bad = u("/semantics/outline-bad.html");
    let good = u("/semantics/outline-good.html");
    scan.fires(&mut e, "semantics.h1-missing", &bad, Medium, None);
    scan.quiet(&mut e, "semantics.h1-missing", &good);
    // One barrier, one finding: merged with axe-core's `landmark-one-main` (medium) and
    // `heading-order` (medium), which the finding is reported as.
    scan.fires(&mut e, "semantics.main-missing", &bad, Medium, None);
    scan.quiet(&mut e, "semantics.main-missing", &good);
    scan.fires(&mut e, "semantics.heading-skip", &bad, Medium, Some("#skip"));
    scan.quiet(&mut e, "semantics.heading-skip", &good);
    scan.fires(&mut e, "semantics.deprecated-element", &bad, Low, Some("#old-center"));
    scan.fires(&mut e, "semantics.deprecated-element", &bad, Low, Some("#old-font"));
    scan.quiet(&mut e, "semantics.deprecated-element", &good);
    scan.fires_with(
        &mut e,
        "semantics.duplicate-id",
        &bad,
        Medium,
        Some("#dups > p:nth-of-type(1)"),
        "value",
        "promo".into(),
    );
    scan.quiet(&mut e, "semantics.duplicate-id", &good);
    scan.fires(&mut e, "semantics.clickable-non-interactive", &bad, Medium, Some("#card"));
    scan.fires(&mut e, "semantics.clickable-non-interactive", &bad, Medium, Some("#chip"));
    scan.quiet(&mut e, "semantics.clickable-non-interactive", &good);
    scan.fires(&mut e, "semantics.h1-multiple", &u("/semantics/h1-twice.html"), Low, Some("#second-title"));
    scan.quiet(&mut e, "semantics.h1-multiple", &good);
    scan.fires(&mut e, "semantics.parse-error", &u("/semantics/parse-bad.html"), Low, None);
    scan.quiet(&mut e, "semantics.parse-error", &u("/semantics/parse-good.html"));
    scan.quiet(&mut e, "semantics.parse-error", &good);

    // structured-data
    let broken = u("/data/broken.html");
    let sound = u("/data/good.html");
    scan.fires(&mut e, "structured-data.json-ld-invalid", &broken, High, Some("#ld-syntax"));
    scan.quiet(&mut e, "structured-data.json-ld-invalid", &sound);
    scan.fires(&mut e, "structured-data.missing-context", &broken, Medium, Some("#ld-no-context"));
    scan.fires(&mut e, "structured-data.missing-context", &broken, Medium, Some("#ld-other-context"));
    scan.quiet(&mut e, "structured-data.missing-context", &sound);
    scan.fires_with(
        &mut e,
        "structured-data.unknown-type",
        &broken,
        Medium,
        Some("#ld-bad-type"),
        "value",
        "Prodcut".into(),
    );
    scan.quiet(&mut e, "structured-data.unknown-type", &sound);
    scan.fires(&mut e, "structured-data.unknown-property", &broken, Low, Some("#ld-bad-property"));
    scan.quiet(&mut e, "structured-data.unknown-property", &sound);
    scan.fires_with(
        &mut e,
        "structured-data.required-property-missing",
        &broken,
        High,
        Some("#ld-event-missing"),
        "value",
        "Event".into(),
    );
    scan.quiet(&mut e, "structured-data.required-property-missing", &sound);
    scan.fires_with(
        &mut e,
        "structured-data.invalid-value",
        &broken,
        Medium,
        Some("#ld-bad-values"),
        "property",
        "startDate".into(),
    );
    scan.fires_with(
        &mut e,
        "structured-data.invalid-value",
        &broken,
        Medium,
        Some("#ld-bad-price"),
        "property",
        "price".into(),
    );
    scan.quiet(&mut e, "structured-data.invalid-value", &sound);
    scan.fires(&mut e, "structured-data.none", &u("/data/none.html"), Info, None);
    scan.quiet(&mut e, "structured-data.none", &sound);
    scan.quiet(&mut e, "structured-data.none", &u("/data/microdata.html"));
    scan.quiet(&mut e, "structured-data.none", &u("/data/rdfa.html"));
    for check in [
        "structured-data.unknown-type",
        "structured-data.unknown-property",
        "structured-data.invalid-value",
        "structured-data.required-property-missing",
    ] {
        scan.quiet(&mut e, check, &u("/data/microdata.html"));
    }

    // i18n
    scan.fires(&mut e, "i18n.lang-missing", &u("/i18n/no-lang.html"), High, Some("html"));
    scan.quiet(&mut e, "i18n.lang-missing", &u("/i18n/lang-good.html"));
    scan.fires_with(&mut e, "i18n.lang-invalid", &u("/i18n/bad-lang.html"), Medium, Some("html"), "value", "en_US".into());
    scan.quiet(&mut e, "i18n.lang-invalid", &u("/i18n/lang-good.html"));
    scan.quiet(&mut e, "i18n.lang-invalid", &u("/i18n/de.html"));
    scan.quiet(&mut e, "i18n.lang-invalid", &u("/i18n/es.html"));
    scan.fires(&mut e, "i18n.charset-missing", &u("/i18n/no-charset.html"), Medium, None);
    scan.fires(&mut e, "i18n.charset-missing", &u("/i18n/late-charset.html"), Medium, None);
    scan.quiet(&mut e, "i18n.charset-missing", &u("/i18n/meta-charset.html"));
    scan.fires_with(&mut e, "i18n.charset-not-utf8", &u("/i18n/latin1.html"), Low, None, "value", "iso-8859-1".into());
    scan.quiet(&mut e, "i18n.charset-not-utf8", &u("/i18n/quoted-utf8.html"));
    scan.quiet(&mut e, "i18n.charset-not-utf8", &u("/i18n/meta-charset.html"));
    scan.fires(&mut e, "i18n.hreflang-invalid", &u("/i18n/bad-hreflang.html"), Medium, Some("#uk"));
    scan.quiet(&mut e, "i18n.hreflang-invalid", &u("/i18n/en.html"));
    // hreflang alternates in <body> are ignored by search engines (and Lighthouse).
    scan.quiet(&mut e, "i18n.hreflang-invalid", &u("/i18n/body-hreflang.html"));
    scan.quiet(&mut e, "i18n.hreflang-missing-self", &u("/i18n/body-hreflang.html"));
    scan.quiet(&mut e, "i18n.hreflang-no-return", &u("/i18n/body-hreflang.html"));
    scan.quiet(&mut e, "i18n.hreflang-invalid", &u("/i18n/de.html"));
    scan.fires_with(
        &mut e,
        "i18n.hreflang-no-return",
        &u("/i18n/fr.html"),
        Medium,
        None,
        "resource",
        u("/i18n/es.html").into(),
    );
    scan.quiet(&mut e, "i18n.hreflang-no-return", &u("/i18n/en.html"));
    scan.quiet(&mut e, "i18n.hreflang-no-return", &u("/i18n/de.html"));
    scan.fires(&mut e, "i18n.hreflang-missing-self", &u("/i18n/pt.html"), Low, None);
    scan.quiet(&mut e, "i18n.hreflang-missing-self", &u("/i18n/en.html"));
    scan.quiet(&mut e, "i18n.hreflang-missing-self", &u("/i18n/de.html"));
    scan.fires(&mut e, "i18n.dir-missing", &u("/i18n/ar.html"), Medium, Some("html"));
    scan.quiet(&mut e, "i18n.dir-missing", &u("/i18n/he.html"));

    eprintln!("content scan: {} pages in {:?}", scan.pages.len(), scan.took);
    e.finish();
}
