//! A page that follows every runtime rule produces no runtime finding. (The catalogue contract for
//! every category is `checks::contract_tests`.)

/// A hardened https page: security headers, Secure+HttpOnly session cookie, only https
/// subresources that loaded, warnings but no errors in the console.
#[test]
fn clean_page_is_quiet() {
    use super::test_support::{page, request};
    use crate::{Thresholds, run_page_checks};
    use crate::model::{ConsoleMessage, CookieSet, Header};

    let mut p = page();
    for (name, value) in [
        ("strict-transport-security", "max-age=63072000; includeSubDomains"),
        ("content-security-policy", "default-src 'self'; frame-ancestors 'self'"),
        ("x-content-type-options", "nosniff"),
    ] {
        p.response_headers.push(Header { name: name.into(), value: value.into() });
    }
    p.requests = vec![
        request("https://example.com/app.js", "script", Some(200)),
        request("https://example.com/logo.svg", "image", Some(200)),
        request("https://example.com/favicon.ico", "other", Some(404)),
    ];
    p.cookies = vec![
        CookieSet {
            name: "__Host-session".into(),
            set_by: "https://example.com/page".into(),
            secure: true,
            http_only: true,
            set_over_https: true,
            ..Default::default()
        },
        CookieSet { name: "theme".into(), secure: true, set_over_https: true, ..Default::default() },
    ];
    p.console = vec![ConsoleMessage {
        level: "warning".into(),
        source: "console".into(),
        text: "Slow network is detected.".into(),
        url: None,
        line: None,
    }];
    let findings: Vec<_> =
        run_page_checks(&p, &Thresholds::default()).findings.into_iter().filter(|f| f.category() == "runtime").collect();
    assert!(findings.is_empty(), "{findings:#?}");
}
