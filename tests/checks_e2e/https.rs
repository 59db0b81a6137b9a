//! End to end over https: the checks that judge https pages only (forms.insecure-action,
//! runtime.mixed-content, runtime.insecure-cookie's Secure flag, runtime.missing-security-header's
//! HSTS) on the `secure` fixture site, served on http://127.0.0.N/ and https://127.0.0.N/ (ports
//! 80 and 443 of a loopback address of its own, TLS by socat with a certificate made for the test,
//! accepted by Chromium through a launcher that adds --ignore-certificate-errors).
//!
//! Needs root, socat and openssl (tests/support/tls_front.rs); the test fails, it does not skip,
//! when they are missing.

use crate::fixture_dir;
use crate::fixture_site;
use crate::scan_harness;
use crate::tls_front;

use fixture_site::FixtureSite;
use scan_harness::{Engine, Expect};
use serde_json::json;
use sitescan::model::Severity::{High, Low, Medium};
use tls_front::TlsFront;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn https_only_checks_fire_on_https_pages_and_not_on_near_misses() {
    let site = FixtureSite::start().await;
    let front = TlsFront::start(site.port())
        .await
        .unwrap_or_else(|e| panic!("https fixture needs root, socat and openssl: {e}"));
    fixture_dir::serve(
        &site,
        "secure",
        "http://127.0.0.2:9",
        &[("plain", front.http("")), ("secure", front.https(""))],
    );
    let engine = Engine::start_with(4, Some(front.chromium_wrapper())).await;
    let scan = engine.scan(front.http("/")).await;
    engine.shutdown().await;
    scan.dump();
    let s = |p: &str| front.https(p);
    let mut e = Expect::default();

    scan.fires(&mut e, "forms.insecure-action", &s("/secure/form.html"), High, Some("#newsletter"));
    e.check(
        scan.of("forms.insecure-action", &s("/secure/form.html"))
            .all(|f| f.cwe_id.as_deref() == Some("CWE-319") && f.help_url.as_deref().is_some_and(|h| h.starts_with("https://developer.mozilla.org/"))),
        || "forms.insecure-action carries CWE-319 and its check's reference".into(),
    );
    scan.quiet(&mut e, "forms.insecure-action", &s("/secure/form-good.html"));

    scan.fires_with(
        &mut e,
        "runtime.mixed-content",
        &s("/secure/mixed.html"),
        High,
        None,
        "resource",
        front.http("/secure/app.js").into(),
    );
    scan.fires_with(
        &mut e,
        "runtime.mixed-content",
        &s("/secure/mixed.html"),
        High,
        None,
        "resource",
        front.http("/img/photo.svg").into(),
    );
    scan.quiet(&mut e, "runtime.mixed-content", &s("/secure/https-only.html"));

    scan.fires_with(
        &mut e,
        "runtime.insecure-cookie",
        &s("/secure/cookie.html"),
        Medium,
        None,
        "flag",
        json!("secure"),
    );
    e.check(
        scan.of("runtime.insecure-cookie", &s("/secure/cookie.html")).all(|f| f.cwe_id.as_deref() == Some("CWE-614")),
        || "the Secure flag finding carries CWE-614".into(),
    );
    scan.quiet(&mut e, "runtime.insecure-cookie", &s("/secure/cookie-good.html"));

    scan.fires_with(
        &mut e,
        "runtime.missing-security-header",
        &s("/secure/cookie.html"),
        Low,
        None,
        "header",
        json!("strict-transport-security"),
    );
    scan.quiet(&mut e, "runtime.missing-security-header", &s("/secure/hsts.html"));
    // HSTS is an https header: the http start page is not asked for it.
    scan.quiet_with(
        &mut e,
        "runtime.missing-security-header",
        &front.http("/"),
        "header",
        json!("strict-transport-security"),
    );

    scan.quiet(&mut e, "forms.password-over-http", &s("/secure/login.html"));

    eprintln!("https scan: {} pages in {:?}", scan.pages.len(), scan.took);
    e.finish();
}
