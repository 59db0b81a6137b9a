//! A template-heavy generated site: every page is a short article inside the same large header
//! (a mega menu), cookie banner and footer, as most sites built from a CMS theme are. Its shared
//! regions hold defects of their own (unnamed icon links and buttons, low-contrast text, an
//! unlabelled select), so judging them once per scan must give back findings on every page.
//! Deterministic for a given N.

use crate::fixture_site::{FixtureSite, Route};
use crate::site::Rng;

const SECTIONS: [&str; 8] = ["Products", "Solutions", "Pricing", "Docs", "Blog", "Company", "Support", "Partners"];
const WORDS: &[&str] = &[
    "site", "quality", "scan", "page", "report", "team", "release", "customer", "guide", "feature", "the", "a", "of", "and",
    "to", "in", "for", "with", "every", "each", "fast", "clear", "stable", "secure", "accessible", "modern", "simple",
];

fn words(rng: &mut Rng, n: usize) -> String {
    (0..n).map(|_| *rng.pick(WORDS)).collect::<Vec<_>>().join(" ")
}

fn path(i: usize) -> String {
    if i == 0 { "/".to_string() } else { format!("/t/{i}") }
}

const CSS: &str = "body{margin:0;font:16px/1.5 sans-serif;color:#222;background:#fff}\
.skip{position:absolute;left:-999px}.skip:focus{left:8px}\
header{background:#0b2545;color:#fff;padding:8px 16px}header a{color:#d8e1ef}.mega{display:flex;gap:16px;flex-wrap:wrap}\
.mega ul{list-style:none;margin:0;padding:0;font-size:13px}.mega h2{font-size:14px;margin:4px 0;color:#fff}\
.tools{display:flex;gap:8px;align-items:center}.icon{display:inline-block;width:20px;height:20px;background:#8da9c4}\
main{max-width:900px;margin:24px auto;padding:0 16px}.cards{display:grid;grid-template-columns:repeat(3,1fr);gap:12px}\
.card{border:1px solid #ddd;padding:8px}.meta{color:#767676}\
.cookie{position:fixed;left:0;right:0;bottom:0;background:#f3f3f3;color:#999;padding:8px 16px;font-size:13px}\
footer{background:#13315c;color:#c9d6e8;padding:16px;margin-bottom:48px}footer a{color:#c9d6e8}.cols{display:flex;gap:24px}\
footer ul{list-style:none;padding:0}.legal{color:#5c7aa0;font-size:12px}.social a{margin-right:6px}";

fn header(n: usize) -> String {
    let mut h = String::from("<a class=\"skip\" href=\"#main\">Skip to content</a><header><div class=\"tools\"><a href=\"/\" class=\"logo\"><img src=\"/t/logo.png\" width=\"120\" height=\"32\" alt=\"Example\"></a>");
    h.push_str("<form role=\"search\" action=\"/search\"><label for=\"q\">Search</label> <input id=\"q\" name=\"q\" type=\"search\"> <button type=\"submit\">Go</button></form>");
    h.push_str("<select name=\"lang\"><option>English</option><option>Deutsch</option><option>Français</option></select>");
    h.push_str("<button class=\"icon\" type=\"button\"></button><a href=\"/account\" class=\"icon\"></a></div><nav aria-label=\"Main\" class=\"mega\">");
    for (s, name) in SECTIONS.iter().enumerate() {
        h.push_str(&format!("<div><h2>{name}</h2><ul>"));
        for k in 0..12 {
            let j = (s * 12 + k) % n.max(1);
            h.push_str(&format!("<li><a href=\"{}\">{name} item {k}</a></li>", path(j)));
        }
        h.push_str("</ul></div>");
    }
    h.push_str("</nav></header>");
    h
}

fn footer(n: usize) -> String {
    let mut h = String::from("<footer><div class=\"cols\">");
    for c in 0..4 {
        h.push_str(&format!("<div><h2>{}</h2><ul>", SECTIONS[c * 2]));
        for k in 0..10 {
            h.push_str(&format!("<li><a href=\"{}\">Link {c}.{k}</a></li>", path((c * 10 + k + 3) % n.max(1))));
        }
        h.push_str("</ul></div>");
    }
    h.push_str("<form action=\"/subscribe\" method=\"post\"><label for=\"nl\">Newsletter</label> <input id=\"nl\" type=\"email\" name=\"email\"> <button>Subscribe</button></form></div>");
    h.push_str("<p class=\"social\">");
    for s in ["x", "in", "gh", "yt", "rss"] {
        h.push_str(&format!("<a href=\"/social/{s}\" class=\"icon\"></a>"));
    }
    h.push_str("</p><p class=\"legal\">&copy; 2026 Example Company. All rights reserved. Terms apply to every offer on this site.</p></footer>");
    h.push_str("<div class=\"cookie\">We use cookies to improve the site. <a href=\"/privacy\">Privacy</a> <button>Accept</button> <button>Decline</button></div>");
    h
}

fn page(i: usize, n: usize) -> String {
    let mut rng = Rng::new(1000 + i as u64);
    let title = format!("{} {}", words(&mut rng, 3), i);
    let mut main = format!("<main id=\"main\"><h1>{title}</h1><p class=\"meta\">Updated {} days ago</p>", rng.range(1, 90));
    for _ in 0..rng.range(3, 7) {
        main.push_str(&format!("<p>{}.</p>", words(&mut rng, 40)));
    }
    main.push_str("<div class=\"cards\">");
    for c in 0..6 {
        let j = (i + c * 5 + 1) % n.max(1);
        main.push_str(&format!("<div class=\"card\"><h2>{}</h2><p>{}.</p><a href=\"{}\">Read more about {}</a></div>", words(&mut rng, 3), words(&mut rng, 12), path(j), words(&mut rng, 2)));
    }
    main.push_str("</div></main>");
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{title}</title><meta name=\"description\" content=\"{}\"><link rel=\"stylesheet\" href=\"/t/site.css\"></head><body>{}{main}{}</body></html>",
        words(&mut rng, 15),
        header(n),
        footer(n)
    )
}

/// A served template-heavy site of `n` pages.
pub struct TemplateSite {
    pub server: FixtureSite,
    pub pages: usize,
}

impl TemplateSite {
    pub async fn start(n: usize) -> TemplateSite {
        let server = FixtureSite::start().await;
        for i in 0..n {
            server.route(&path(i), Route::html(page(i, n)));
        }
        server.route("/t/site.css", Route::typed("text/css", CSS).header("cache-control", "max-age=3600"));
        server.route("/t/logo.png", Route::typed("image/png", crate::site::png(120, 32, 0, 3)).header("cache-control", "max-age=3600"));
        TemplateSite { server, pages: n }
    }

    pub fn url(&self, i: usize) -> String {
        self.server.url(&path(i))
    }

    /// Serves page `i` edited (a paragraph added to its content) or as generated.
    pub fn edit(&self, i: usize, edited: bool) {
        let html = page(i, self.pages);
        let html = if edited { html.replacen("</main>", "<p>This page was edited since the last scan.</p></main>", 1) } else { html };
        self.server.route(&path(i), Route::html(html));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_share_their_header_and_footer() {
        let (a, b) = (page(1, 60), page(2, 60));
        assert!(a.contains(&header(60)) && b.contains(&header(60)), "the same header on both");
        let end = footer(60) + "</body></html>";
        assert!(a.ends_with(&end) && b.ends_with(&end));
        assert_ne!(a, b);
    }
}
