//! Five pages with known behaviour, for comparing metrics with Lighthouse's observed values:
//! a plain page, a slow LCP image, layout shifts, long tasks and a slow TTFB.

use crate::fixture_site::{FixtureSite, Route};
use crate::site::{png, text_route};
use std::time::Duration;

/// How long the LCP image takes to arrive.
pub const SLOW_IMAGE: Duration = Duration::from_millis(1500);
/// How long the slow page's server thinks before answering.
pub const SLOW_TTFB: Duration = Duration::from_millis(900);

/// (name, path, what to expect)
pub const PAGES: [(&str, &str, &str); 5] = [
    ("plain", "/", "fast everything; CLS 0, TBT 0"),
    ("slow-lcp", "/slow-lcp", "LCP image arrives after 1.5 s"),
    ("layout-shift", "/layout-shift", "two banners push content down (CLS ~0.3-0.4)"),
    ("long-task", "/long-task", "two long tasks after FCP, 300 and 250 ms (TBT ~450 ms)"),
    ("slow-ttfb", "/slow-ttfb", "the server answers after 900 ms"),
];

fn page(title: &str, head: &str, body: &str) -> String {
    let nav: String = PAGES.iter().map(|(name, path, _)| format!("<a href=\"{path}\">{name}</a> ")).collect();
    let filler: String = (0..6)
        .map(|i| format!("<p>Paragraph {i} of steady text that fills the first viewport so that content moving down is visible and measurable by every tool that looks at it.</p>"))
        .collect();
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title}</title><meta name=\"description\" content=\"Fidelity fixture: {title}.\">\
         <style>body{{margin:0;font:18px/1.5 sans-serif}}main{{padding:16px 32px}}.banner{{height:180px;background:#fde68a}}</style>{head}</head>\
         <body><nav>{nav}</nav><main><h1>{title}</h1>{body}{filler}</main></body></html>"
    )
}

const BUSY: &str = "function busy(ms){var end=Date.now()+ms;while(Date.now()<end){}}";

/// Starts the fidelity site.
pub async fn start() -> FixtureSite {
    let site = FixtureSite::start().await;
    let html = |s: String| text_route("text/html; charset=utf-8", &s, "no-cache");
    site.route("/", html(page("Plain page", "", "<p>A plain page: text and a small image.</p><img src=\"/small.png\" width=\"200\" height=\"120\" alt=\"A small picture\">")));
    site.route(
        "/slow-lcp",
        html(page(
            "Slow LCP image",
            "",
            "<img src=\"/hero-slow.png\" width=\"1200\" height=\"600\" alt=\"A large hero picture that arrives late\" fetchpriority=\"high\">",
        )),
    );
    site.route(
        "/layout-shift",
        html(page(
            "Layout shifts",
            "<script>document.addEventListener('DOMContentLoaded',function(){\
             function banner(){var d=document.createElement('div');d.className='banner';d.textContent='Late banner';\
             var m=document.querySelector('main');m.insertBefore(d,m.firstChild);}\
             setTimeout(banner,250);setTimeout(banner,650);});</script>",
            "<p>Two banners are inserted above this text after the first paint.</p>",
        )),
    );
    site.route(
        "/long-task",
        html(page(
            "Long tasks",
            &format!(
                "<script>{BUSY}document.addEventListener('DOMContentLoaded',function(){{\
                 setTimeout(function(){{busy(300)}},200);setTimeout(function(){{busy(250)}},700);}});</script>"
            ),
            "<p>Two long tasks block the main thread after the first paint.</p>",
        )),
    );
    site.route(
        "/slow-ttfb",
        html(page("Slow TTFB", "", "<p>The server took its time with this one.</p>")).delay(SLOW_TTFB),
    );
    site.route("/small.png", Route::typed("image/png", png(200, 120, 8, 3)));
    site.route("/hero-slow.png", Route::typed("image/png", png(1200, 600, 24, 4)).delay(SLOW_IMAGE));
    site.route("/favicon.ico", Route::typed("image/png", png(32, 32, 0, 5)));
    let origin = site.origin();
    site.route("/robots.txt", Route::typed("text/plain", format!("User-agent: *\nAllow: /\nSitemap: {origin}/sitemap.xml\n")));
    let urls: String = PAGES.iter().map(|(_, p, _)| format!("<url><loc>{origin}{p}</loc></url>")).collect();
    site.route(
        "/sitemap.xml",
        Route::typed("application/xml", format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">{urls}</urlset>")),
    );
    site
}
