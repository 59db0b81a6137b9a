//! A region a site repeats (header, navigation, footer) is judged once per scan and its findings
//! given back on the other pages: the findings are exactly those of a scan that judges every
//! page in full (`--no-share`), on a site whose shared regions hold violations and whose pages
//! change what those regions' verdicts depend on from outside them: a label elsewhere on the
//! page, an id the header refers to, page CSS, a wrapper's background, a pseudo-element, an
//! overlay, an open modal dialog, the footer's position.

use crate::fixture_site::{FixtureSite, Route};
use serde_json::Value;
use sitescan_test_support::scan_harness::{Engine, Scan};
use std::collections::BTreeMap;

const PAGES: usize = 14;

pub(crate) fn header() -> String {
    let nav: String = (1..6).map(|j| format!("<a href=\"/p{j}\">Section {j}</a> ")).collect();
    format!(
        "<header class=\"site\"><a href=\"/p0\" class=\"logo\"><img src=\"/logo.png\" width=\"40\" height=\"20\"></a>\
         <nav aria-label=\"Main\">{nav}</nav><button class=\"menu\"></button>\
         <input type=\"search\" aria-labelledby=\"search-label\" aria-describedby=\"hint\">\
         <span class=\"muted\">Free shipping on every order</span><ul class=\"odd\"><li>One</li><div>not a list item</div></ul></header>"
    )
}

pub(crate) fn footer() -> String {
    let links: String = (0..PAGES).map(|j| format!("<a href=\"/p{j}\">Page {j}</a> ")).collect();
    format!(
        "<footer><div class=\"links\">{links}</div><p class=\"muted\">&copy; Example Company, all rights reserved</p>\
         <a href=\"/p0\"> </a><input id=\"foot-email\" type=\"email\"><p id=\"hint\">We never share your address</p>\
         <select><option>English</option><option>Deutsch</option></select><img src=\"/badge.png\" alt=\"badge.png\">\
         <div role=\"button\">Back to top</div>\
         <div role=\"checkbox\" tabindex=\"0\" aria-checked=\"{HOSTILE}\">I agree</div></footer>"
    )
}

/// An attribute value that axe quotes in its failure summary, shaped to break out of the JSON
/// the scan hands back to the next page's script (quotes, a backslash, a line separator, a
/// template literal, a closing script tag), escaped for HTML.
const HOSTILE: &str = "x&quot;);window.pwned=1;//\\\u{2028}`${1}`&lt;/script&gt;";
const HOSTILE_TEXT: &str = "x\");window.pwned=1;//\\\u{2028}`${1}`</script>";

const STYLE: &str = "body{margin:0;font-family:sans-serif;background:#fff;color:#222}header{background:#f6f6f6;padding:8px}\
    nav{position:relative;z-index:0}nav a{color:#999;margin:0 6px}.muted{color:#b0b0b0}footer{background:#eee;padding:12px}footer .links a{color:#aaa}";

/// Page `i`: the shared header and footer around content of its own; some pages change what
/// the regions' verdicts depend on.
fn page(i: usize) -> String {
    let mut head = format!("<style>{STYLE}</style>");
    let mut main = format!("<h1>Page {i}</h1>");
    for k in 0..(3 + (i * 7) % 25) {
        main.push_str(&format!("<p>Paragraph {k} of page {i}, see <a href=\"/p{}\">page {}</a>.</p>", (i + k) % PAGES, (i + k) % PAGES));
    }
    let mut before = String::new();
    let mut wrap = ("", "");
    match i {
        // A dark pseudo-element behind the navigation makes it readable: nothing but the links'
        // `::after` tells this page's header from the others' (a legacy `:after`, in `@media`,
        // after a pseudo-class, in a selector list).
        0 => head.push_str(
            "<style>@media screen{.unused, nav a:not(.open):after{content:\"\";position:absolute;left:0;top:0;width:100%;height:100%;background:#000;z-index:-1}}</style>",
        ),
        // The same box, after an icon font's 150 `::before` rules: more pseudo-element selectors
        // than the fingerprint matches, so it reads every element's pseudo-elements.
        5 => {
            let icons: String = (0..150).map(|k| format!(".icon-{k}::before{{content:\"\\e{k:03}\"}}")).collect();
            head.push_str(&format!(
                "<style>{icons}nav a::after{{content:\"\";position:absolute;left:0;top:0;width:100%;height:100%;background:#000;z-index:-1}}</style>"
            ));
            main.push_str("<p><span class=\"icon-7\"></span> Icons</p>");
        }
        // A label elsewhere names the footer's field.
        6 => main.push_str("<label for=\"foot-email\">Your email</label>"),
        // The header's field is labelled by text in main.
        7 => main.push_str("<span id=\"search-label\">Search the site</span>"),
        // Page CSS makes the navigation readable.
        8 => head.push_str("<style>nav a{color:#222}</style>"),
        // An overlay covers the header.
        9 => before.push_str("<div style=\"position:fixed;top:0;left:0;right:0;height:70px;background:rgba(0,0,0,.8)\"></div>"),
        // A dark wrapper behind the header.
        10 => wrap = ("<div style=\"background:#000\">", "</div>"),
        // An earlier element takes the id the header refers to.
        11 => before.push_str("<p id=\"hint\">Another hint, earlier</p>"),
        // An open modal dialog makes the rest of the page inert.
        12 => main.push_str("<dialog id=\"d\"><p>Modal</p><button>Close</button></dialog><script>document.getElementById('d').showModal()</script>"),
        _ => {}
    }
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Page {i}</title>{head}</head><body>{before}{}{}<main>{main}</main>{}{}</body></html>",
        wrap.0,
        header(),
        wrap.1,
        footer()
    )
}

/// The scan's findings, each as its check id and evidence (page, selector, snippet, summary),
/// counted: the report's order follows the order pages finish in.
pub(crate) fn findings(scan: &Scan) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for f in &scan.findings {
        // Timings differ between any two scans.
        if f.category() == "performance" {
            continue;
        }
        let key = format!("{} {:?} {}", f.check_id, f.severity, Value::Object(f.evidence.clone()));
        *out.entry(key).or_insert(0) += 1;
    }
    out
}

fn with(scan: &Scan, check: &str, page: &str, selector: &str) -> bool {
    scan.findings.iter().any(|f| f.check_id == check && f.url().is_some_and(|u| u.ends_with(page)) && f.selector() == Some(selector))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn findings_are_the_same_whether_shared_regions_are_judged_once_or_on_every_page() {
    let site = FixtureSite::start().await;
    for i in 0..PAGES {
        site.route(&format!("/p{i}"), Route::html(page(i)));
    }
    let start = site.url("/p0");
    let shared = Engine::start(4).await;
    let full = Engine::start_unshared(4).await;
    let a = shared.scan(start.clone()).await;
    let b = full.scan(start.clone()).await;
    let reused = shared.scanner.pool().stats().regions_reused;
    assert_eq!(full.scanner.pool().stats().regions_reused, 0, "--no-share judged every page in full");
    assert!(reused >= 8, "the header and footer were given back on most pages, not judged again ({reused} regions)");
    assert_eq!(a.pages.len(), PAGES);
    assert_eq!(b.pages.len(), PAGES);

    let (fa, fb) = (findings(&a), findings(&b));
    let only_shared: Vec<_> = fa.iter().filter(|(k, n)| fb.get(*k) != Some(n)).map(|(k, n)| format!("{n} x {k}")).collect();
    let only_full: Vec<_> = fb.iter().filter(|(k, n)| fa.get(*k) != Some(n)).map(|(k, n)| format!("{n} x {k}")).collect();
    assert!(only_shared.is_empty() && only_full.is_empty(), "shared:\n{}\nfull:\n{}", only_shared.join("\n"), only_full.join("\n"));

    // The regions' violations are reported on every page, at this page's elements.
    for i in [1, 2, 3, 4, 13] {
        let p = format!("/p{i}");
        assert!(with(&a, "accessibility.button-name", &p, "button"), "button-name on {p}");
        assert!(with(&a, "accessibility.select-name", &p, "select"), "select-name on {p}");
        assert!(with(&a, "accessibility.label", &p, "#foot-email"), "label on {p}");
        assert!(with(&a, "accessibility.link-name", &p, ".logo"), "link-name on {p}");
        assert!(with(&a, "accessibility.color-contrast", &p, "nav > a[href=\"/p2\"]"), "contrast on {p}");
    }
    // Text the page controls comes back verbatim on every page, as data.
    for i in [1, 13] {
        let p = format!("/p{i}");
        let f = a.findings.iter().find(|f| f.check_id == "accessibility.aria-valid-attr-value" && f.url().is_some_and(|u| u.ends_with(&p)));
        let summary = f.and_then(|f| f.evidence.get("failure_summary")).and_then(Value::as_str).unwrap_or_default();
        assert!(summary.contains(HOSTILE_TEXT), "the hostile value on {p}: {summary:?}");
    }
    // ...and what the page around a region changes, changes its verdict there only.
    assert!(!with(&a, "accessibility.label", "/p6", "#foot-email"), "the label in main names the footer's field on /p6");
    let nav = "nav > a[href=\"/p2\"]";
    assert!(!with(&a, "accessibility.color-contrast", "/p8", nav), "page CSS makes the navigation readable on /p8");
    assert!(!with(&a, "accessibility.color-contrast", "/p0", nav), "a pseudo-element makes the navigation readable on /p0");
    assert!(!with(&a, "accessibility.color-contrast", "/p5", nav), "a pseudo-element after an icon font's rules makes the navigation readable on /p5");

    shared.shutdown().await;
    full.shutdown().await;
}
