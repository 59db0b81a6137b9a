//! End to end: the accessibility (axe-core rules and our own keyboard and zoom checks), forms and
//! runtime checks on the `interact` fixture site (`tests/fixtures/sites/interact/`), rendered by
//! real Chromium through the scan engine.

use crate::fixture_dir;
use crate::fixture_site;
use crate::scan_harness;
use crate::media_gen;

use fixture_site::{FixtureSite, Route};
use scan_harness::{Engine, Expect};
use sitescan::model::Severity::{Critical, High, Low, Medium};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn interaction_checks_fire_on_their_fixtures_and_not_on_near_misses() {
    let site = FixtureSite::start().await;
    fixture_dir::serve(&site, "interact", "http://127.0.0.2:9", &[]);
    site.route("/gen/tone.wav", Route::typed("audio/wav", media_gen::wav(2.0)));
    let engine = Engine::start(4).await;
    // At AAA: the AAA checks of the fixtures fire too (the default AA leaves them out).
    let scan = engine.scan_at(site.url("/"), sitescan::model::Level::AAA).await;
    engine.shutdown().await;
    scan.dump();
    let u = |p: &str| site.url(p);
    let mut e = Expect::default();

    // accessibility: axe-core rules, severity from impact, selector from axe's target.
    let bad = u("/a11y/axe-bad.html");
    let good = u("/a11y/axe-good.html");
    scan.fires(&mut e, "accessibility.image-alt", &bad, Critical, Some("#no-alt"));
    scan.fires(&mut e, "accessibility.color-contrast", &bad, High, Some("#low-contrast"));
    scan.fires(&mut e, "accessibility.label", &bad, Critical, Some("#unlabelled"));
    scan.fires(&mut e, "accessibility.button-name", &bad, Critical, Some("#icon-button"));
    scan.fires(&mut e, "accessibility.link-name", &bad, High, Some("#empty-link"));
    scan.fires(&mut e, "accessibility.aria-valid-attr-value", &bad, Critical, Some("#bad-aria"));
    for check in [
        "accessibility.image-alt",
        "accessibility.color-contrast",
        "accessibility.label",
        "accessibility.button-name",
        "accessibility.link-name",
        "accessibility.aria-valid-attr-value",
        "accessibility.html-has-lang",
        "accessibility.document-title",
    ] {
        scan.quiet(&mut e, check, &good);
    }
    let untitled = u("/a11y/untitled.html");
    scan.fires(&mut e, "accessibility.html-has-lang", &untitled, High, Some("html"));
    scan.fires(&mut e, "accessibility.document-title", &untitled, High, Some("html"));
    // Every axe finding carries the WCAG tags and the help URL.
    let axe = scan.of("accessibility.image-alt", &bad).next();
    e.check(
        axe.is_some_and(|f| {
            f.evidence["help_url"].as_str().is_some_and(|h| h.contains("dequeuniversity"))
                && f.help_url.as_deref() == f.evidence["help_url"].as_str()
                && f.evidence["wcag"].as_array().is_some_and(|w| !w.is_empty())
        }),
        || format!("axe evidence has help_url and wcag: {axe:?}"),
    );

    // accessibility: our own checks.
    scan.fires(&mut e, "accessibility.focus-not-visible", &u("/a11y/focus-bad.html"), High, Some("#no-ring"));
    scan.quiet_selector(&mut e, "accessibility.focus-not-visible", &u("/a11y/focus-bad.html"), "#default-ring");
    scan.quiet(&mut e, "accessibility.focus-not-visible", &u("/a11y/focus-good.html"));
    scan.fires(&mut e, "accessibility.keyboard-trap", &u("/a11y/trap.html"), Critical, Some("#trap"));
    scan.quiet(&mut e, "accessibility.keyboard-trap", &u("/a11y/roving.html"));
    scan.quiet(&mut e, "accessibility.keyboard-trap", &u("/a11y/focus-good.html"));
    // A trap is focus that neither Tab nor Shift+Tab can take out: here two buttons send both
    // keys to each other.
    scan.fires(&mut e, "accessibility.keyboard-trap", &u("/a11y/trap-cycle.html"), Critical, Some("#trap-first"));
    // Near misses: widgets whose focus moves inside them while document.activeElement stays the
    // same (date and time fields, media controls, a frame's document, a web component's shadow
    // root). Each page ends with a link without a focus ring: its finding proves the walk got
    // past the widgets rather than stopping before them.
    for (page, last) in [
        ("/a11y/trap-dates.html", "#after-dates"),
        ("/a11y/trap-media.html", "#after-media"),
        ("/a11y/trap-frame.html", "#after-frame"),
        // Not a widget: the page hides its key-ups from the walk's log, which then walks one
        // press at a time.
        ("/a11y/keys-swallowed.html", "#swallowed-last"),
    ] {
        scan.quiet(&mut e, "accessibility.keyboard-trap", &u(page));
        scan.fires(&mut e, "accessibility.focus-not-visible", &u(page), High, Some(last));
    }
    for widget in ["#arrive", "#at", "#slot", "#month"] {
        scan.quiet_selector(&mut e, "accessibility.focus-not-visible", &u("/a11y/trap-dates.html"), widget);
    }
    // Web components: focus is judged on the focused element inside the open shadow root.
    scan.quiet(&mut e, "accessibility.keyboard-trap", &u("/a11y/component.html"));
    scan.quiet(&mut e, "accessibility.focus-not-visible", &u("/a11y/component.html"));
    let bare = u("/a11y/component-bad.html");
    scan.quiet(&mut e, "accessibility.keyboard-trap", &bare);
    for button in 1..=3 {
        let selector = format!("#bare-toolbar >>> button:nth-of-type({button})");
        scan.fires(&mut e, "accessibility.focus-not-visible", &bare, High, Some(&selector));
    }
    scan.quiet_selector(&mut e, "accessibility.focus-not-visible", &bare, "#after-toolbar");
    scan.fires(&mut e, "accessibility.zoom-disabled", &u("/a11y/zoom-bad.html"), High, Some("#vp"));
    // axe's meta-viewport is the same defect: one finding, not two.
    scan.quiet(&mut e, "accessibility.meta-viewport", &u("/a11y/zoom-bad.html"));
    scan.quiet(&mut e, "accessibility.zoom-disabled", &u("/a11y/zoom-good.html"));
    scan.fires(&mut e, "accessibility.zoom-disabled", &u("/a11y/zoom-keyword.html"), High, Some("#vp"));
    // axe rules run beyond the AA tags (issue 18): AAA contrast at low, the orientation lock.
    let aaa = u("/a11y/contrast-aaa.html");
    // The AAA verdicts are judged from the AA rule's run (browser/axe_contrast.js): normal and
    // large text, a ratio just short of 7:1, and text with a shadow (which axe's own check judges).
    for selector in ["#aa-grey", "#near-aaa", "#large-grey", "#shadow-grey"] {
        scan.fires(&mut e, "accessibility.color-contrast-enhanced", &aaa, Low, Some(selector));
    }
    scan.quiet(&mut e, "accessibility.color-contrast", &aaa);
    // 7.005:1 (reported as 7.00, so settled by axe's check) and large text at 4.54:1 pass.
    let aaa_good = u("/a11y/contrast-aaa-good.html");
    scan.quiet(&mut e, "accessibility.color-contrast-enhanced", &aaa_good);
    scan.quiet(&mut e, "accessibility.color-contrast", &aaa_good);
    // Text over gradients and images, which axe leaves for review, judged from rendered pixels:
    // low contrast is reported by AA, AA-but-not-AAA by AAA, dark bands and covered text are not.
    let pixels = u("/a11y/contrast-pixels.html");
    scan.fires(&mut e, "accessibility.color-contrast", &pixels, High, Some("#hero-low"));
    scan.fires(&mut e, "accessibility.color-contrast", &pixels, High, Some("#photo-low"));
    scan.fires(&mut e, "accessibility.color-contrast-enhanced", &pixels, Low, Some("#aaa-gradient"));
    for quiet in ["#banner-ok", "#covered", "#aaa-gradient"] {
        scan.quiet_selector(&mut e, "accessibility.color-contrast", &pixels, quiet);
    }
    for quiet in ["#banner-ok", "#covered", "#hero-low", "#photo-low"] {
        scan.quiet_selector(&mut e, "accessibility.color-contrast-enhanced", &pixels, quiet);
    }
    scan.fires(&mut e, "accessibility.css-orientation-lock", &u("/a11y/orientation-lock.html"), High, None);
    scan.quiet(&mut e, "accessibility.css-orientation-lock", &u("/a11y/orientation-free.html"));
    scan.quiet(&mut e, "accessibility.meta-viewport-large", &u("/a11y/zoom-good.html"));
    // aria-hidden content with an open modal dialog (axe: incomplete), resolved by focusing it: a
    // link that keeps focus is a violation, a sentinel that sends focus back into the dialog is not.
    scan.fires(&mut e, "accessibility.aria-hidden-focus", &u("/a11y/hidden-focus-bad.html"), High, Some("#help-links"));
    scan.quiet(&mut e, "accessibility.aria-hidden-focus", &u("/a11y/hidden-focus-good.html"));
    // Same-origin frames out of the tab order: one that shows a link is reported; a frame made
    // inert, one too small to show anything and one without focusable content are not.
    scan.fires(&mut e, "accessibility.frame-focusable-content", &u("/a11y/frame-untabbable.html"), High, Some("#help-frame"));
    for quiet in ["#inert-frame", "#pixel-frame", "#text-frame"] {
        scan.quiet_selector(&mut e, "accessibility.frame-focusable-content", &u("/a11y/frame-untabbable.html"), quiet);
    }

    // forms
    scan.fires(&mut e, "forms.password-in-get", &u("/forms/login-get.html"), High, Some("#login"));
    scan.quiet(&mut e, "forms.password-in-get", &u("/forms/login-post.html"));
    scan.fires(&mut e, "forms.password-over-http", &u("/forms/login-get.html"), Critical, Some("#pw"));
    scan.fires(&mut e, "forms.password-over-http", &u("/forms/login-post.html"), Critical, Some("#pw"));
    scan.quiet(&mut e, "forms.password-over-http", &u("/forms/hint.html"));
    let contact_bad = u("/forms/contact-bad.html");
    let contact_good = u("/forms/contact-good.html");
    scan.fires(&mut e, "forms.input-type-mismatch", &contact_bad, Low, Some("#email-text"));
    scan.quiet(&mut e, "forms.input-type-mismatch", &contact_good);
    scan.fires(&mut e, "forms.autocomplete-missing", &contact_bad, Low, Some("#email-text"));
    scan.fires(&mut e, "forms.autocomplete-missing", &contact_bad, Low, Some("#full-name"));
    scan.quiet(&mut e, "forms.autocomplete-missing", &contact_good);
    // Merged with axe-core's `label` (critical) on the same field: one finding.
    scan.fires(&mut e, "forms.label-missing", &contact_bad, Critical, Some("#order-ref"));
    // A placeholder is the field's accessible name (HTML-AAM): not a missing label.
    scan.quiet_selector(&mut e, "forms.label-missing", &contact_bad, "#q");
    scan.quiet(&mut e, "forms.label-missing", &contact_good);
    scan.fires(&mut e, "forms.submit-missing", &contact_bad, Medium, Some("#no-submit"));
    scan.quiet(&mut e, "forms.submit-missing", &contact_good);
    // forms.insecure-action judges https pages only: an http page posting to http is not it.
    scan.quiet(&mut e, "forms.insecure-action", &contact_good);

    // runtime
    let errors = u("/runtime/errors.html");
    let calm = u("/runtime/calm.html");
    scan.fires(&mut e, "runtime.uncaught-exception", &errors, High, None);
    scan.quiet(&mut e, "runtime.uncaught-exception", &calm);
    scan.fires(&mut e, "runtime.unhandled-rejection", &errors, Medium, None);
    scan.quiet(&mut e, "runtime.unhandled-rejection", &calm);
    scan.fires_with(
        &mut e,
        "runtime.console-error",
        &errors,
        Medium,
        None,
        "message",
        "Checkout failed to initialise".into(),
    );
    scan.quiet(&mut e, "runtime.console-error", &calm);
    scan.quiet(&mut e, "runtime.console-error", &u("/runtime/missing-image.html"));
    scan.fires_with(&mut e, "runtime.failed-request", &errors, High, None, "resource", u("/runtime/missing.js").into());
    scan.fires_with(
        &mut e,
        "runtime.failed-request",
        &u("/runtime/missing-image.html"),
        Medium,
        None,
        "resource",
        u("/runtime/missing.png").into(),
    );
    // The browser's own /favicon.ico request 404s on every page here: not the page's request.
    scan.quiet(&mut e, "runtime.failed-request", &calm);
    scan.fires(&mut e, "runtime.deprecated-api", &u("/runtime/deprecated.html"), Low, None);
    scan.quiet(&mut e, "runtime.deprecated-api", &u("/runtime/modern.html"));
    scan.fires(&mut e, "runtime.csp-violation", &u("/runtime/csp.html"), Medium, None);
    scan.fires(&mut e, "runtime.csp-violation", &u("/runtime/csp-report-only.html"), Low, None);
    scan.quiet(&mut e, "runtime.csp-violation", &u("/runtime/csp-nonce.html"));
    for header in ["content-security-policy", "x-content-type-options", "x-frame-options"] {
        scan.fires_with(&mut e, "runtime.missing-security-header", &errors, Low, None, "header", header.into());
    }
    scan.quiet(&mut e, "runtime.missing-security-header", &u("/runtime/headers.html"));
    scan.fires_with(
        &mut e,
        "runtime.insecure-cookie",
        &u("/runtime/cookies.html"),
        Medium,
        None,
        "cookie",
        "sessionid".into(),
    );
    e.check(
        scan.of("runtime.insecure-cookie", &u("/runtime/cookies.html"))
            .all(|f| f.evidence["cookie"] == "sessionid" && f.cwe_id.as_deref() == Some("CWE-1004")),
        || "only the session cookie, for HttpOnly (CWE-1004)".into(),
    );
    scan.quiet(&mut e, "runtime.insecure-cookie", &u("/runtime/cookies-good.html"));
    // runtime.mixed-content judges https pages only: http subresources of an http page are not it.
    scan.quiet(&mut e, "runtime.mixed-content", &errors);

    eprintln!("interact scan: {} pages in {:?}", scan.pages.len(), scan.took);
    e.finish();
}
