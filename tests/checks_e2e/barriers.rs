//! End to end: the barrier checks of issue 46 (`browser/barriers.js`: text styled as headings,
//! visual lists, links, images, form labels, groups and hints) on the `barriers` fixture site
//! (`tests/fixtures/sites/barriers/`), rendered by real Chromium through the scan engine: each
//! fires on its failing page and stays quiet on the passing twin, and no accessibility check at
//! all fires on the accessible WAI-ARIA widget patterns.

use crate::fixture_dir;
use crate::fixture_site;
use crate::scan_harness;

use fixture_site::FixtureSite;
use scan_harness::{Engine, Expect};
use sitescan::model::Severity::{High, Low, Medium};

/// Our checks of issue 46 (all of them stay quiet on the passing twins).
const BARRIER_CHECKS: &[&str] = &[
    "accessibility.heading-not-marked-up",
    "accessibility.list-not-marked-up",
    "accessibility.link-does-nothing",
    "accessibility.link-text-ambiguous",
    "accessibility.link-adjacent-duplicate",
    "accessibility.link-new-window-unannounced",
    "accessibility.link-file-format-unstated",
    "accessibility.link-text-generic",
    "accessibility.accesskey-used",
    "accessibility.css-generated-content",
    "accessibility.focus-stop-idle",
    "accessibility.reading-order-mismatch",
    "media.transcript-missing",
    "accessibility.image-alt-meaningless",
    "accessibility.image-alt-repeats-caption",
    "accessibility.image-title-without-alt",
    "accessibility.control-not-focusable",
    "accessibility.control-keys-ignored",
    "accessibility.hover-only-content",
    "accessibility.dialog-focus-not-moved",
    "accessibility.dialog-focus-not-contained",
    "accessibility.dialog-escape-not-closing",
    "accessibility.table-header-missing",
    "accessibility.layout-table-structure",
    "accessibility.table-nested",
    "accessibility.table-headers-only",
    "forms.label-placeholder-only",
    "forms.label-multiple",
    "forms.label-duplicate-text",
    "forms.hint-not-described",
    "forms.choice-group-unnamed",
    "forms.fieldset-legend-missing",
    "i18n.lang-part-missing",
    "i18n.text-direction-wrong",
    "i18n.lang-wrong",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn barrier_checks_fire_on_their_fixtures_and_not_on_twins_or_widgets() {
    let site = FixtureSite::start().await;
    fixture_dir::serve(&site, "barriers", "http://127.0.0.2:9", &[]);
    let engine = Engine::start(4).await;
    let started = std::time::Instant::now();
    // At AAA: the AAA checks of the fixtures fire too (the default AA leaves them out).
    let scan = engine.scan_at(site.url("/"), sitescan::model::Level::AAA).await;
    let took = started.elapsed();
    engine.shutdown().await;
    scan.dump();
    let u = |p: &str| site.url(p);
    let mut e = Expect::default();

    let structure = u("/structure-bad.html");
    scan.fires_with(&mut e, "accessibility.heading-not-marked-up", &structure, Medium, Some("#fake-heading"), "needs_review", true.into());
    scan.fires_with(&mut e, "accessibility.list-not-marked-up", &structure, Medium, Some("#first-bullet"), "items", 3.into());
    scan.fires_with(&mut e, "accessibility.list-not-marked-up", &structure, Medium, Some("#fake-list-br"), "marker", "1.".into());

    scan.fires_with(&mut e, "accessibility.reading-order-mismatch", &structure, Low, Some("#steps-floated"), "cause", "float: right".into());
    scan.fires_with(&mut e, "accessibility.reading-order-mismatch", &structure, Medium, Some("#links-reordered"), "cause", "flex-direction: row-reverse".into());

    let links = u("/links-bad.html");
    scan.fires(&mut e, "accessibility.link-does-nothing", &links, Medium, Some("#dead-hash"));
    scan.fires(&mut e, "accessibility.link-does-nothing", &links, Medium, Some("#dead-void"));
    scan.fires_with(&mut e, "accessibility.link-text-ambiguous", &links, Low, Some("#more-two"), "count", 2.into());
    scan.fires_with(&mut e, "accessibility.link-adjacent-duplicate", &links, Low, Some("#product-name"), "previous_selector", "#product-image".into());
    scan.fires(&mut e, "accessibility.link-new-window-unannounced", &links, Low, Some("#new-window"));
    scan.fires_with(&mut e, "accessibility.link-file-format-unstated", &links, Low, Some("#pdf-silent"), "format", "pdf".into());
    scan.fires_with(&mut e, "accessibility.link-text-generic", &links, Low, Some("#more-one"), "also_reported_as", serde_json::json!(["search.link-text-generic"]));
    scan.fires_with(&mut e, "accessibility.link-text-generic", &links, Medium, Some("#only-dot"), "needs_review", false.into());
    scan.fires_with(&mut e, "accessibility.link-text-generic", &links, Low, Some("#click-here"), "needs_review", true.into());
    scan.fires_with(&mut e, "media.transcript-missing", &links, Medium, Some("#interview"), "kind", "audio".into());
    scan.fires_with(&mut e, "accessibility.accesskey-used", &links, Low, Some("#shortcut"), "value", "h".into());
    scan.fires_with(&mut e, "accessibility.css-generated-content", &links, Low, Some("#favourite-food"), "value", "Pizza".into());

    let images = u("/images-bad.html");
    scan.fires_with(&mut e, "accessibility.image-alt-meaningless", &images, Medium, Some("#alt-file"), "reason", "file-name".into());
    scan.fires_with(&mut e, "accessibility.image-alt-meaningless", &images, Medium, Some("#alt-generic"), "reason", "generic-word".into());
    scan.fires(&mut e, "accessibility.image-alt-repeats-caption", &images, Low, Some("#alt-caption"));
    scan.fires_with(&mut e, "accessibility.image-title-without-alt", &images, Low, Some("#title-only"), "title", "Map of the campus".into());
    scan.fires_with(&mut e, "accessibility.image-title-without-alt", &images, Low, Some("#empty-alt-title"), "reason", "empty-alt".into());

    let keyboard = u("/keyboard-bad.html");
    scan.fires_with(&mut e, "accessibility.control-not-focusable", &keyboard, Medium, Some("#div-button"), "name", "Save basket".into());
    scan.fires_with(&mut e, "accessibility.control-keys-ignored", &keyboard, High, Some("#role-button"), "role", "button".into());
    scan.quiet_selector(&mut e, "accessibility.control-not-focusable", &keyboard, "#role-button");
    scan.fires_with(&mut e, "accessibility.hover-only-content", &keyboard, Medium, Some("#menu-shop"), "revealed_text", "Shoes Boots".into());
    scan.fires_with(&mut e, "accessibility.hover-only-content", &keyboard, Low, Some("#tip"), "needs_review", false.into());
    scan.fires(&mut e, "accessibility.focus-stop-idle", &keyboard, Low, Some("#idle-stop"));

    let dialogs = u("/dialogs-bad.html");
    scan.fires_with(&mut e, "accessibility.dialog-focus-not-contained", &dialogs, Medium, Some("#leaky"), "left_to", "#open-leaky".into());
    scan.fires_with(&mut e, "accessibility.dialog-focus-not-moved", &dialogs, Medium, Some("#stuck"), "trigger", "#open-stuck".into());
    scan.fires_with(&mut e, "accessibility.dialog-escape-not-closing", &dialogs, Low, Some("#stuck"), "trigger", "#open-stuck".into());
    scan.quiet_selector(&mut e, "accessibility.dialog-focus-not-moved", &dialogs, "#leaky");
    scan.quiet_selector(&mut e, "accessibility.dialog-escape-not-closing", &dialogs, "#leaky");
    // A passive scan submits no form, even one whose button says it opens a dialog.
    e.check(site.hit_count("/subscribed.html") == 0, || "the dialog probe submitted a form".to_string());

    let tables = u("/tables-bad.html");
    scan.fires_with(&mut e, "accessibility.table-header-missing", &tables, Medium, Some("#styled-head-row"), "signal", "first-row-set-apart".into());
    scan.fires_with(&mut e, "accessibility.table-header-missing", &tables, Medium, Some("#ruled-prices"), "needs_review", true.into());
    scan.fires_with(&mut e, "accessibility.layout-table-structure", &tables, Low, Some("#layout-with-headers"), "layout", "holds-a-table".into());
    scan.fires_with(&mut e, "accessibility.layout-table-structure", &tables, Medium, Some("#presentation-with-th"), "needs_review", false.into());
    scan.fires_with(&mut e, "accessibility.table-headers-only", &tables, Low, Some("#headers-only"), "header_cells", 4.into());
    scan.fires_with(&mut e, "accessibility.table-nested", &tables, Medium, Some("#costs-nested"), "nested_selector", "#holiday-items".into());
    // A table of data holding a table of data is nested data, not page layout.
    scan.quiet_selector(&mut e, "accessibility.layout-table-structure", &tables, "#costs-nested");
    // The menu table inside the layout table is neither data nor data markup.
    scan.quiet_selector(&mut e, "accessibility.table-header-missing", &tables, "#layout-with-headers");

    let forms = u("/forms-bad.html");
    scan.fires_with(&mut e, "forms.choice-group-unnamed", &forms, Medium, Some("#news-yes"), "type", "radio".into());
    scan.fires_with(&mut e, "forms.choice-group-unnamed", &forms, Medium, Some("#topic-hiking"), "type", "checkbox".into());
    scan.fires_with(&mut e, "forms.label-placeholder-only", &forms, Medium, Some("#email-ph"), "placeholder", "Email address".into());
    scan.fires(&mut e, "forms.label-multiple", &forms, Low, Some("#phone"));
    scan.fires_with(&mut e, "forms.label-duplicate-text", &forms, Medium, Some("#contact-2"), "other_selector", "#contact-1".into());
    scan.fires_with(&mut e, "forms.hint-not-described", &forms, Low, Some("#password"), "hint_selector", "#password-hint".into());
    scan.fires_with(&mut e, "forms.hint-not-described", &forms, Low, Some("#ni-number"), "hint_selector", "#ni-hint".into());
    scan.fires_with(&mut e, "forms.fieldset-legend-missing", &forms, Medium, Some("#address-unnamed"), "reason", "empty-legend".into());

    let language = u("/language-bad.html");
    scan.fires_with(&mut e, "i18n.lang-part-missing", &language, Medium, Some("#arabic-no-lang"), "script", "Arab".into());
    scan.fires_with(&mut e, "i18n.lang-part-missing", &language, Medium, Some("#greek-as-spanish"), "lang_declared_here", true.into());
    scan.fires_with(&mut e, "i18n.lang-part-missing", &language, Low, Some("#switch-ja"), "needs_review", true.into());
    scan.fires_with(&mut e, "i18n.text-direction-wrong", &language, Medium, Some("#arabic-ltr"), "expected", "rtl".into());
    scan.fires_with(&mut e, "i18n.text-direction-wrong", &language, Medium, Some("#english-rtl"), "expected", "ltr".into());
    scan.quiet_selector(&mut e, "i18n.text-direction-wrong", &language, "#arabic-no-lang");
    scan.fires_with(&mut e, "i18n.lang-wrong", &u("/language-page-bad.html"), Medium, Some("html"), "detected", "de".into());

    // The passing twins: the same content, marked up and said.
    for page in ["/structure-good.html", "/links-good.html", "/images-good.html", "/forms-good.html", "/tables-good.html", "/keyboard-good.html", "/dialogs-good.html", "/language-good.html", "/language-page-good.html", "/widgets.html", "/"] {
        for check in BARRIER_CHECKS {
            scan.quiet(&mut e, check, &u(page));
        }
    }
    // On the failing pages, each check fires only where it should.
    scan.quiet_selector(&mut e, "accessibility.heading-not-marked-up", &structure, "#first-bullet");
    scan.quiet_selector(&mut e, "accessibility.link-text-ambiguous", &links, "#product-name");

    // The accessible WAI-ARIA widget patterns: no accessibility finding at all.
    let widgets = u("/widgets.html");
    if scan.rendered(&mut e, &widgets) {
        let found: Vec<String> = scan
            .findings
            .iter()
            .filter(|f| f.url() == Some(widgets.as_str()) && (f.check_id.starts_with("accessibility.") || BARRIER_CHECKS.contains(&f.check_id.as_str())))
            .map(|f| format!("{} {:?}", f.check_id, f.selector()))
            .collect();
        e.check(found.is_empty(), || format!("accessibility findings on the widget patterns:\n{}", found.join("\n")));
    }
    // The gatherer ran on every page (a failure would skip the checks: `checks_not_run`).
    for page in &scan.pages {
        let skipped: Vec<&str> = page.checks_not_run.iter().map(|c| c.check_id.as_str()).filter(|id| BARRIER_CHECKS.contains(id)).collect();
        e.check(skipped.is_empty(), || format!("barrier checks not run on {}: {skipped:?} ({:?})", page.url, page.checks_not_run));
    }
    eprintln!("barriers scan of {} pages took {took:?}", scan.pages.len());
    e.finish();
}
