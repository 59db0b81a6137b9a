//! Scan-time SSRF: a page on an allowed address (127.0.0.1) tries every way a page can make the
//! scanner reach a blocked address: redirects, meta refresh, JS navigation, form posts, popups,
//! subresources, fetch/XHR/beacon/EventSource, iframes, WebSockets, odd IP spellings, IPv6
//! loopback, `0.0.0.0`, a hostname the guard's host overrides resolve to a blocked address, and
//! (through the fetcher) robots.txt sitemaps, sitemap entries, og:image and canonical URLs.
//!
//! Listeners ("traps") bound on the blocked addresses count every TCP connection: the tests
//! assert that none ever arrives, and that the egress proxy recorded a refusal per vector.

use crate::engine;
use crate::fixture_site;
use crate::trap;

use engine::{Collect, EngineSpec, scan_options};
use fixture_site::{FixtureSite, Route};
use sitescan::crawl::ScanError;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use trap::Trap;

struct Traps {
    /// 127.0.0.2: direct IP vectors.
    ip: Trap,
    /// 127.0.0.3: reached by name (`evil.test`, a host override).
    named: Trap,
    /// 127.0.0.4: WebSockets only (CONNECT through the proxy).
    ws: Trap,
    /// [::1].
    v6: Trap,
    /// 127.0.0.1 on a port only `0.0.0.0` links point at (Linux routes 0.0.0.0 to loopback).
    zero: Trap,
}

impl Traps {
    async fn start() -> Traps {
        Traps {
            ip: Trap::start("127.0.0.2").await,
            named: Trap::start("127.0.0.3").await,
            ws: Trap::start("127.0.0.4").await,
            v6: Trap::start("::1").await,
            zero: Trap::start("127.0.0.1").await,
        }
    }

    fn assert_untouched(&self) {
        for (name, t) in [("127.0.0.2", &self.ip), ("evil.test", &self.named), ("ws", &self.ws), ("::1", &self.v6), ("0.0.0.0", &self.zero)] {
            assert_eq!(t.connections(), 0, "the {name} trap was reached: {:?}", t.requests());
        }
    }

    fn total(&self) -> usize {
        [&self.ip, &self.named, &self.ws, &self.v6, &self.zero].iter().map(|t| t.connections()).sum()
    }
}

fn spec() -> EngineSpec {
    EngineSpec { overrides: vec![("evil.test", "127.0.0.3")], ..EngineSpec::default() }
}

fn page(title: &str, head: &str, body: &str) -> Route {
    Route::html(format!(
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>{title}</title>{head}</head><body><main><h1>{title}</h1>{body}</main></body></html>"
    ))
}

/// The hostile site; returns the browser vectors (a unique path each) that must be refused.
fn hostile(site: &FixtureSite, t: &Traps) -> Vec<&'static str> {
    let ip = |p: &str| t.ip.url(p);
    let p2 = t.ip.port();
    let named = format!("http://evil.test:{}", t.named.port());
    let home_body = format!(
        r#"<a href="/redirect">r</a> <a href="/meta">m</a> <a href="/jsnav">j</a> <a href="/form">f</a> <a href="/popup">p</a>
        <img src="{img}" alt=""> <iframe src="{iframe}"></iframe> <video src="{video}"></video>
        <img src="{named}/named-img" alt="">
        <script src="{script}"></script>
        <script>
          const go = (u, o) => fetch(u, o).catch(() => {{}});
          go("{fetch}"); go("{named}/named-fetch");
          go("http://[::1]:{p6}/v6"); go("http://[::ffff:127.0.0.2]:{p2}/mapped"); go("http://[::ffff:7f00:2]:{p2}/mapped-hex");
          go("http://2130706434:{p2}/decimal"); go("http://0x7f.0.0.2:{p2}/hex"); go("http://0177.0.0.2:{p2}/octal");
          go("http://127.2:{p2}/short"); go("http://0.0.0.0:{pz}/zero"); go("http://0:{pz}/zero-short");
          go("{post}", {{method: "POST", body: "x=1", mode: "no-cors"}});
          try {{ const x = new XMLHttpRequest(); x.open("GET", "{xhr}"); x.send(); }} catch (e) {{}}
          try {{ navigator.sendBeacon("{beacon}", "b"); }} catch (e) {{}}
          try {{ new EventSource("{sse}"); }} catch (e) {{}}
          try {{ new WebSocket("ws://127.0.0.4:{pws}/ws"); }} catch (e) {{}}
          try {{ new WebSocket("wss://127.0.0.4:{pws}/wss"); }} catch (e) {{}}
          const i = new Image(); i.src = "{jsimg}";
        </script>"#,
        img = ip("/img"),
        iframe = ip("/iframe"),
        video = ip("/video"),
        script = ip("/script.js"),
        fetch = ip("/fetch"),
        post = ip("/post"),
        xhr = ip("/xhr"),
        beacon = ip("/beacon"),
        sse = ip("/sse"),
        jsimg = ip("/js-img"),
        p6 = t.v6.port(),
        pz = t.zero.port(),
        pws = t.ws.port(),
    );
    let head = format!(
        r#"<link rel="stylesheet" href="{css}"><link rel="icon" href="{icon}"><meta property="og:image" content="{og}">
           <link rel="canonical" href="{named}/canonical"><style>@import url("{import}"); body {{ background: url("{bg}") }}</style>"#,
        css = ip("/css"),
        icon = ip("/icon"),
        og = ip("/og.png"),
        import = ip("/import"),
        bg = ip("/bg"),
    );
    site.route("/", page("Home", &head, &home_body));
    site.route("/redirect", Route::redirect(302, &ip("/redirect")));
    site.route("/meta", page("Meta", &format!(r#"<meta http-equiv="refresh" content="0;url={}">"#, ip("/meta")), ""));
    site.route("/jsnav", page("JS", "", &format!(r#"<script>location.href = "{}";</script>"#, ip("/jsnav"))));
    site.route(
        "/form",
        page("Form", "", &format!(r#"<form id=f method=post action="{}"><input name=a value=1></form><script>document.getElementById("f").submit()</script>"#, ip("/form"))),
    );
    // Chromium's popup blocker stops `window.open` without a user gesture before any request:
    // not a required vector, but the traps prove nothing got through either way.
    site.route("/popup", page("Popup", "", &format!(r#"<script>window.open("{}"); window.open("{named}/named-popup");</script>"#, ip("/popup"))));
    site.route(
        "/robots.txt",
        Route::typed("text/plain", format!("User-agent: *\nAllow: /\nSitemap: {}\nSitemap: {}\n", site.url("/sitemap.xml"), ip("/robots-sitemap.xml"))),
    );
    site.route(
        "/sitemap.xml",
        Route::typed(
            "application/xml",
            format!(
                r#"<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{}</loc></url><url><loc>{}</loc></url><url><loc>{named}/sitemap-named</loc></url><url><loc>{}</loc></url></urlset>"#,
                site.url("/"),
                ip("/sitemap-loc"),
                site.url("/sitemap-redirect"),
            ),
        ),
    );
    site.route("/sitemap-redirect", Route::redirect(301, &ip("/sitemap-redirect")));
    let _ = p2;
    vec![
        "/img", "/iframe", "/script.js", "/css", "/fetch", "/post", "/xhr", "/js-img", "/named-img", "/named-fetch", "/v6", "/mapped",
        "/mapped-hex", "/decimal", "/hex", "/octal", "/short", "/zero", "/zero-short", "/redirect", "/meta", "/jsnav", "/form",
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_hostile_page_reaches_no_blocked_address() {
    let traps = Traps::start().await;
    let site = FixtureSite::start().await;
    let vectors = hostile(&site, &traps);
    let scanner = spec().scanner().await;
    let start = url::Url::parse(&site.url("/")).unwrap();
    let mut sink = Collect::default();
    let began = Instant::now();
    let stats = scanner.run(&start, &scan_options(10), &mut sink, None, CancellationToken::new()).await.expect("the scan runs");
    // Late requests (beacons, popups) get a moment to show up.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let blocked = scanner.pool().proxy().blocked();
    scanner.pool().shutdown().await;

    traps.assert_untouched();
    assert!(stats.pages >= 6, "the crawl rendered the hostile pages: {:?}", sink.pages.iter().map(|p| &p.url).collect::<Vec<_>>());
    // Every browser vector was refused by the egress proxy (so it did try: the test can fail).
    let targets: Vec<&str> = blocked.iter().map(|b| b.target.as_str()).collect();
    let mut missing = Vec::new();
    for v in &vectors {
        if !targets.iter().any(|t| t.ends_with(v) || t.contains(&format!("{v}?"))) {
            missing.push(*v);
        }
    }
    assert!(missing.is_empty(), "vectors not seen (and refused) by the egress proxy: {missing:?}\nrefused: {targets:#?}");
    let ws = format!("127.0.0.4:{}", traps.ws.port());
    assert!(targets.iter().any(|t| *t == ws), "the WebSocket CONNECT was refused: {targets:#?}");
    for b in &blocked {
        assert!(b.reason.contains("refused by the egress policy"), "{b:?}");
    }
    // The redirect page reports why it has no content.
    let redirect = sink.pages.iter().find(|p| p.url == site.url("/redirect")).expect("the /redirect page");
    let error = redirect.error.as_ref().expect("the blocked redirect is a page error");
    assert_eq!(error["kind"], "blocked", "{error}");
    // The fetcher's side (sitemaps, their entries, og:image, canonical) was refused too: the
    // site never saw a second request for the redirecting sitemap entry, and the traps nothing.
    assert!(site.hit_count("/sitemap-redirect") >= 1, "the sitemap entry was status-checked");
    let evidence = serde_json::to_string(&sink.findings.iter().map(|f| &f.evidence).collect::<Vec<_>>()).unwrap();
    assert!(evidence.contains("refused by the egress policy"), "findings say the egress guard refused: {evidence}");
    eprintln!(
        "ssrf: {} vectors refused by the proxy ({} refusals), {} connections reached the 5 blocked listeners, scan {:?}",
        vectors.len() + 1,
        blocked.len(),
        traps.total(),
        began.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn targets_that_lead_to_blocked_addresses_fail_as_target_blocked() {
    let traps = Traps::start().await;
    let site = FixtureSite::start().await;
    site.route("/to-blocked", Route::redirect(302, &traps.ip.url("/start-redirect")));
    site.route("/to-named", Route::redirect(307, &format!("http://evil.test:{}/start", traps.named.port())));
    site.route("/to-zero", Route::redirect(308, &format!("http://0.0.0.0:{}/", traps.zero.port())));
    let scanner = spec().scanner().await;
    let starts = [
        site.url("/to-blocked"),
        site.url("/to-named"),
        site.url("/to-zero"),
        format!("http://evil.test:{}/", traps.named.port()),
        format!("http://EVIL.test.:{}/", traps.named.port()),
        format!("http://[::1]:{}/", traps.v6.port()),
        format!("http://[::ffff:127.0.0.2]:{}/", traps.ip.port()),
    ];
    for start in &starts {
        let url = url::Url::parse(start).unwrap();
        let mut sink = Collect::default();
        let result = scanner.run(&url, &scan_options(3), &mut sink, None, CancellationToken::new()).await;
        match result {
            Err(ScanError::TargetBlocked(why)) => assert!(why.contains("refused by the egress policy"), "{start}: {why}"),
            other => panic!("{start} must fail as target_blocked, got {other:?}"),
        }
        assert!(sink.pages.is_empty(), "{start}: nothing was rendered");
    }
    scanner.pool().shutdown().await;
    traps.assert_untouched();
    eprintln!("ssrf: {} blocked start targets failed as target_blocked", starts.len());
}
