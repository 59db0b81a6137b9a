//! The generated fixture site: N pages of 20-60 KB markup with images of varied sizes, CSS, JS,
//! JSON-LD, forms and links among them, plus robots.txt and a sitemap. Deterministic: the same N
//! gives byte-identical pages (only the origin in absolute URLs differs between runs).

use crate::fixture_site::{FixtureSite, Route};
use std::io::Write;

/// Images in the shared pool (pages reference several each).
const IMAGE_POOL: usize = 36;
/// Section stylesheets (each page links the shared one and one of these).
const SECTION_CSS: usize = 6;
const SECTIONS: [&str; 6] = ["guides", "products", "news", "docs", "blog", "support"];

/// A small deterministic generator (xorshift64*).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03 | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// In `lo..hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo).max(1) as u64) as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.range(0, items.len())]
    }
}

const WORDS: &[&str] = &[
    "quality", "render", "browser", "network", "layout", "content", "search", "index", "crawler", "metric",
    "paint", "image", "font", "script", "style", "server", "response", "header", "cache", "request",
    "accessible", "contrast", "label", "button", "form", "field", "input", "heading", "landmark", "region",
    "structured", "data", "schema", "article", "product", "offer", "review", "rating", "author", "publisher",
    "the", "a", "of", "and", "to", "in", "for", "with", "on", "by", "from", "as", "is", "are", "was", "that",
    "this", "these", "when", "where", "which", "while", "every", "each", "many", "some", "most", "few",
    "fast", "slow", "large", "small", "visible", "hidden", "stable", "shifting", "blocking", "lazy", "eager",
    "team", "project", "release", "feature", "customer", "support", "pricing", "guide", "tutorial", "example",
    "performance", "security", "privacy", "policy", "cookie", "session", "token", "account", "profile",
    "dashboard", "report", "finding", "severity", "remediation", "evidence", "selector", "snippet", "page",
    "website", "document", "section", "paragraph", "table", "list", "figure", "caption", "video", "audio",
    "mobile", "desktop", "viewport", "zoom", "keyboard", "focus", "navigation", "menu", "footer", "sidebar",
];

fn sentence(rng: &mut Rng, words: usize) -> String {
    let mut s = String::new();
    for i in 0..words {
        let w = rng.pick(WORDS);
        if i == 0 {
            let mut c = w.chars();
            if let Some(f) = c.next() {
                s.extend(f.to_uppercase());
                s.push_str(c.as_str());
            }
        } else {
            s.push(' ');
            s.push_str(w);
        }
    }
    s.push('.');
    s
}

fn paragraph(rng: &mut Rng) -> String {
    let n = rng.range(3, 7);
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let words = rng.range(8, 20);
        out.push(sentence(rng, words));
    }
    out.join(" ")
}

fn title(rng: &mut Rng) -> String {
    let n = rng.range(3, 7);
    let s = sentence(rng, n);
    s.trim_end_matches('.').to_string()
}

/// The path of page `i` (0 is the home page).
pub fn page_path(i: usize) -> String {
    if i == 0 { "/".to_string() } else { format!("/{}/{}-item-{i}", SECTIONS[i % SECTIONS.len()], WORDS[i % WORDS.len()]) }
}

/// One image of the pool: (path, width, height, noise).
fn image_spec(k: usize) -> (String, u32, u32, u32) {
    const SIZES: [(u32, u32); 6] = [(160, 120), (320, 240), (480, 320), (640, 400), (960, 540), (1200, 630)];
    let (w, h) = SIZES[k % SIZES.len()];
    let noise = [2, 8, 24, 48][(k / SIZES.len()) % 4];
    (format!("/img/photo-{k}.png"), w, h, noise)
}

/// A PNG (8-bit RGB) of a gradient with noise: more noise compresses worse, so the pool ranges
/// from a few KB to several hundred KB.
pub fn png(width: u32, height: u32, noise: u32, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut raw = Vec::with_capacity(((width * 3 + 1) * height) as usize);
    let (r0, g0, b0) = ((seed * 37 % 200) as u32, (seed * 91 % 200) as u32, (seed * 53 % 200) as u32);
    for y in 0..height {
        raw.push(0); // filter: none
        for x in 0..width {
            let n = if noise > 0 { (rng.next() % u64::from(noise)) as u32 } else { 0 };
            raw.push(((r0 + x * 55 / width + n) % 256) as u8);
            raw.push(((g0 + y * 55 / height + n / 2) % 256) as u8);
            raw.push(((b0 + (x + y) * 40 / (width + height) + n) % 256) as u8);
        }
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
    z.write_all(&raw).expect("compress in memory");
    let idat = z.finish().expect("compress in memory");
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend(width.to_be_bytes());
    ihdr.extend(height.to_be_bytes());
    ihdr.extend([8, 2, 0, 0, 0]);
    for (kind, data) in [(b"IHDR", ihdr.as_slice()), (b"IDAT", idat.as_slice()), (b"IEND", &[][..])] {
        out.extend((data.len() as u32).to_be_bytes());
        let mut crc = crc32fast::Hasher::new();
        crc.update(kind);
        crc.update(data);
        out.extend(kind);
        out.extend(data);
        out.extend(crc.finalize().to_be_bytes());
    }
    out
}

pub fn gzip(body: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    enc.write_all(body).expect("compress in memory");
    enc.finish().expect("compress in memory")
}

/// Text served pre-compressed (no per-request compression cost in the fixture server).
pub fn text_route(content_type: &str, body: &str, cache: &str) -> Route {
    Route::new(200)
        .content_type(content_type)
        .header("content-encoding", "gzip")
        .header("vary", "accept-encoding")
        .header("cache-control", cache)
        .header("x-content-type-options", "nosniff")
        .body(gzip(body.as_bytes()))
}

fn site_css() -> String {
    let mut css = String::from(
        ":root{--fg:#1d1d1f;--bg:#fff;--accent:#0b57d0;--muted:#555}*{box-sizing:border-box}\
         body{margin:0;font:16px/1.6 system-ui,sans-serif;color:var(--fg);background:var(--bg)}\
         header,footer{background:#f4f4f6;padding:1rem 2rem}header nav a{margin-right:1rem}\
         main{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,1fr);gap:2rem;max-width:1200px;margin:0 auto;padding:2rem}\
         img{max-width:100%;height:auto;display:block}figure{margin:1.5rem 0}figcaption{color:var(--muted);font-size:.9rem}\
         table{border-collapse:collapse;width:100%}td,th{border:1px solid #ddd;padding:.4rem .6rem;text-align:left}\
         form{display:grid;gap:.6rem;max-width:480px}label{font-weight:600}input,textarea,select{font:inherit;padding:.4rem}\
         .lead{font-size:1.2rem}.breadcrumb{font-size:.9rem}.related li{margin:.3rem 0}.toc{background:#fafafa;padding:1rem}\n",
    );
    for i in 0..260 {
        css.push_str(&format!(
            ".c-{i}{{margin:{}px {}px;padding:{}px;border-radius:{}px;color:#{:06x}}}.c-{i}:hover{{color:var(--accent)}}\
             @media (max-width:{}px){{.c-{i}{{padding:{}px}}}}\n",
            i % 17,
            i % 23,
            i % 11,
            i % 7,
            (i * 2654435761usize) % 0xffffff,
            480 + (i % 5) * 120,
            i % 9
        ));
    }
    css
}

fn section_css(k: usize) -> String {
    let mut css = String::new();
    for i in 0..80 {
        css.push_str(&format!(".s{k}-{i} h2{{font-size:{}rem;letter-spacing:.0{}em}}.s{k}-{i} p{{max-width:{}ch}}\n", 1.2 + (i % 5) as f32 * 0.1, i % 9, 60 + i % 20));
    }
    css
}

fn app_js() -> String {
    let mut js = String::from(
        "'use strict';\n(function(){\n\
         function toc(){var h=document.querySelectorAll('article h2');if(!h.length)return;var ol=document.createElement('ol');\
         h.forEach(function(e,i){e.id=e.id||('s-'+i);var li=document.createElement('li');var a=document.createElement('a');a.href='#'+e.id;\
         a.textContent=e.textContent;li.appendChild(a);ol.appendChild(li);});var box=document.querySelector('.toc');if(box)box.appendChild(ol);}\n\
         function related(){var ul=document.querySelector('.related-dynamic');if(!ul)return;fetch('/data/related.json').then(function(r){return r.json();})\
         .then(function(d){d.items.slice(0,5).forEach(function(it){var li=document.createElement('li');var a=document.createElement('a');\
         a.href=it.href;a.textContent=it.title;li.appendChild(a);ul.appendChild(li);});}).catch(function(){});}\n\
         function forms(){document.querySelectorAll('form[data-validate]').forEach(function(f){f.addEventListener('submit',function(e){\
         if(!f.checkValidity()){e.preventDefault();}});});}\n\
         document.addEventListener('DOMContentLoaded',function(){toc();related();forms();});\n",
    );
    // A realistic bundle carries a lot of code that mostly sits there: parse and compile cost.
    for i in 0..420 {
        js.push_str(&format!(
            "var m{i}={{id:{i},name:'module-{i}',deps:[{}],init:function(ctx){{var s=0;for(var k=0;k<{};k++){{s+=k*{i}%7;}}ctx['m{i}']=s;return s;}}}};\n",
            (0..(i % 4)).map(|d| format!("'m{}'", (i + d) % 97)).collect::<Vec<_>>().join(","),
            10 + i % 30
        ));
    }
    js.push_str("window.__benchModules=[");
    js.push_str(&(0..420).map(|i| format!("m{i}")).collect::<Vec<_>>().join(","));
    js.push_str("];\n})();\n");
    js
}

fn json_ld(i: usize, origin: &str, path: &str, title: &str, image: &str) -> String {
    let url = format!("{origin}{path}");
    let main = if i % 5 == 0 {
        serde_json::json!({
            "@context": "https://schema.org", "@type": "Product", "name": title, "image": format!("{origin}{image}"),
            "description": format!("Product {i} of the benchmark site."), "sku": format!("SKU-{i:05}"),
            "offers": {"@type": "Offer", "price": format!("{}.99", 10 + i % 90), "priceCurrency": "EUR",
                       "availability": "https://schema.org/InStock", "url": url}
        })
    } else {
        serde_json::json!({
            "@context": "https://schema.org", "@type": "Article", "headline": title, "image": [format!("{origin}{image}")],
            "datePublished": format!("2025-{:02}-{:02}T08:00:00+00:00", 1 + i % 12, 1 + i % 28),
            "author": {"@type": "Person", "name": format!("Author {}", i % 9)},
            "publisher": {"@type": "Organization", "name": "Bench Site"}, "mainEntityOfPage": url
        })
    };
    let crumbs = serde_json::json!({
        "@context": "https://schema.org", "@type": "BreadcrumbList",
        "itemListElement": [
            {"@type": "ListItem", "position": 1, "name": "Home", "item": format!("{origin}/")},
            {"@type": "ListItem", "position": 2, "name": SECTIONS[i % SECTIONS.len()], "item": url}
        ]
    });
    format!("<script type=\"application/ld+json\">{main}</script>\n<script type=\"application/ld+json\">{crumbs}</script>\n")
}

/// The markup of page `i` of `n`.
pub fn page_html(i: usize, n: usize, origin: &str) -> String {
    let mut rng = Rng::new(i as u64 + 1);
    let path = page_path(i);
    let target = rng.range(20_000, 58_000);
    let page_title = if i == 0 { "Bench Site: a generated site for benchmarks".to_string() } else { title(&mut rng) };
    let hero = image_spec(rng.range(0, IMAGE_POOL));
    let mut h = String::with_capacity(target + 8_000);
    h.push_str("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    h.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    h.push_str(&format!("<title>{page_title} | Bench Site</title>\n"));
    if i % 11 != 7 {
        h.push_str(&format!("<meta name=\"description\" content=\"{}\">\n", sentence(&mut rng, 18)));
    }
    h.push_str(&format!("<link rel=\"canonical\" href=\"{origin}{path}\">\n"));
    h.push_str(&format!("<meta property=\"og:title\" content=\"{page_title}\">\n<meta property=\"og:type\" content=\"article\">\n"));
    h.push_str(&format!("<meta property=\"og:image\" content=\"{origin}{}\">\n", hero.0));
    h.push_str("<link rel=\"icon\" href=\"/favicon.ico\">\n<link rel=\"stylesheet\" href=\"/assets/site.css\">\n");
    h.push_str(&format!("<link rel=\"stylesheet\" href=\"/assets/section-{}.css\">\n", i % SECTION_CSS));
    h.push_str("<script src=\"/assets/app.js\" defer></script>\n");
    h.push_str(&json_ld(i, origin, &path, &page_title, &hero.0));
    h.push_str("</head>\n<body>\n<header>\n<a href=\"/\" class=\"logo\">Bench Site</a>\n<nav aria-label=\"Main\">\n");
    for (s, name) in SECTIONS.iter().enumerate() {
        let j = (s + 1).min(n.saturating_sub(1));
        h.push_str(&format!("<a href=\"{}\">{name}</a>\n", page_path(j)));
    }
    h.push_str("</nav>\n<form role=\"search\" action=\"/search\" method=\"get\"><label for=\"q\">Search</label> <input id=\"q\" name=\"q\" type=\"search\" autocomplete=\"off\"> <button>Search</button></form>\n</header>\n");
    h.push_str(&format!("<main class=\"s{}-{}\">\n<article>\n", i % SECTION_CSS, i % 80));
    h.push_str(&format!("<nav class=\"breadcrumb\" aria-label=\"Breadcrumb\"><a href=\"/\">Home</a> / <span>{}</span></nav>\n", SECTIONS[i % SECTIONS.len()]));
    h.push_str(&format!("<h1>{page_title}</h1>\n<p class=\"lead\">{}</p>\n", paragraph(&mut rng)));
    h.push_str(&format!(
        "<img src=\"{}\" width=\"{}\" height=\"{}\" alt=\"{}\" fetchpriority=\"high\">\n<div class=\"toc\"><strong>On this page</strong></div>\n",
        hero.0,
        hero.1,
        hero.2,
        sentence(&mut rng, 5)
    ));
    let mut section = 0;
    while h.len() < target {
        section += 1;
        h.push_str(&format!("<section class=\"c-{}\">\n<h2>{}</h2>\n", rng.range(0, 260), title(&mut rng)));
        for _ in 0..rng.range(2, 5) {
            let mut p = paragraph(&mut rng);
            // Links among pages inside the prose.
            let j = rng.range(0, n);
            p.push_str(&format!(" See <a href=\"{}\">{}</a>.", page_path(j), title(&mut rng).to_lowercase()));
            h.push_str(&format!("<p>{p}</p>\n"));
        }
        match section % 4 {
            0 => {
                let img = image_spec(rng.range(0, IMAGE_POOL));
                // Every 7th page forgets an alt text (a realistic defect).
                let alt = if i % 7 == 3 && section == 4 { String::new() } else { format!(" alt=\"{}\"", sentence(&mut rng, 6)) };
                h.push_str(&format!(
                    "<figure><img src=\"{}\" width=\"{}\" height=\"{}\"{alt} loading=\"lazy\"><figcaption>{}</figcaption></figure>\n",
                    img.0,
                    img.1,
                    img.2,
                    sentence(&mut rng, 10)
                ));
            }
            1 => {
                h.push_str("<ul>\n");
                for _ in 0..rng.range(4, 9) {
                    h.push_str(&format!("<li>{}</li>\n", sentence(&mut rng, 9)));
                }
                h.push_str("</ul>\n");
            }
            2 => {
                h.push_str("<table>\n<caption>Figures</caption>\n<thead><tr><th scope=\"col\">Item</th><th scope=\"col\">Value</th><th scope=\"col\">Change</th></tr></thead>\n<tbody>\n");
                for r in 0..rng.range(4, 10) {
                    h.push_str(&format!("<tr><td>{}</td><td>{}</td><td>{}%</td></tr>\n", rng.pick(WORDS), r * 17 + i, rng.range(0, 40)));
                }
                h.push_str("</tbody>\n</table>\n");
            }
            _ => {
                h.push_str(&format!("<blockquote><p>{}</p></blockquote>\n", sentence(&mut rng, 16)));
            }
        }
        h.push_str("</section>\n");
    }
    // Forms: a contact form on every 3rd page, a newsletter sign-up on the others.
    if i % 3 == 0 {
        let unlabeled = i % 9 == 6;
        h.push_str("<section><h2>Contact us</h2>\n<form action=\"/contact\" method=\"post\" data-validate>\n");
        h.push_str("<label for=\"name\">Name</label><input id=\"name\" name=\"name\" autocomplete=\"name\" required>\n");
        h.push_str("<label for=\"email\">Email</label><input id=\"email\" name=\"email\" type=\"email\" autocomplete=\"email\" required>\n");
        if unlabeled {
            h.push_str("<input name=\"phone\" placeholder=\"Phone\">\n");
        } else {
            h.push_str("<label for=\"phone\">Phone</label><input id=\"phone\" name=\"phone\" type=\"tel\" autocomplete=\"tel\">\n");
        }
        h.push_str("<label for=\"topic\">Topic</label><select id=\"topic\" name=\"topic\"><option>Sales</option><option>Support</option></select>\n");
        h.push_str("<label for=\"msg\">Message</label><textarea id=\"msg\" name=\"message\" rows=\"4\"></textarea>\n<button type=\"submit\">Send</button>\n</form>\n</section>\n");
    } else {
        h.push_str("<section><h2>Newsletter</h2>\n<form action=\"/subscribe\" method=\"post\" data-validate>\n<label for=\"nl\">Email address</label><input id=\"nl\" name=\"email\" type=\"email\" autocomplete=\"email\" required>\n<button type=\"submit\">Subscribe</button>\n</form>\n</section>\n");
    }
    h.push_str("</article>\n<aside>\n<h2>Related</h2>\n<ul class=\"related\">\n");
    for d in 1..=6 {
        let j = (i + d * 7) % n.max(1);
        h.push_str(&format!("<li><a href=\"{}\">{}</a></li>\n", page_path(j), title(&mut rng)));
    }
    h.push_str("</ul>\n<ul class=\"related-dynamic\" aria-live=\"polite\"></ul>\n</aside>\n</main>\n<footer>\n<nav aria-label=\"Footer\">\n");
    for d in 0..16 {
        let j = (i + d + 1) % n.max(1);
        h.push_str(&format!("<a href=\"{}\">{}</a>\n", page_path(j), SECTIONS[j % SECTIONS.len()]));
    }
    h.push_str("</nav>\n<p>&copy; 2025 Bench Site. <a href=\"mailto:team@bench.invalid\">Contact</a></p>\n</footer>\n</body>\n</html>\n");
    h
}

/// A generated site served by a fixture server.
pub struct GeneratedSite {
    pub server: FixtureSite,
    pub pages: usize,
    pub html_bytes: Vec<usize>,
    pub image_bytes: Vec<usize>,
}

impl GeneratedSite {
    /// Starts a server on 127.0.0.1 and serves the `n`-page site on it.
    pub async fn start(n: usize) -> GeneratedSite {
        let server = FixtureSite::start().await;
        let origin = server.origin();
        let mut html_bytes = Vec::with_capacity(n);
        for i in 0..n {
            let html = page_html(i, n, &origin);
            html_bytes.push(html.len());
            server.route(&page_path(i), text_route("text/html; charset=utf-8", &html, "no-cache"));
        }
        let immutable = "public, max-age=31536000, immutable";
        server.route("/assets/site.css", text_route("text/css", &site_css(), immutable));
        for k in 0..SECTION_CSS {
            server.route(&format!("/assets/section-{k}.css"), text_route("text/css", &section_css(k), immutable));
        }
        server.route("/assets/app.js", text_route("text/javascript", &app_js(), immutable));
        let related = serde_json::json!({
            "items": (0..n.min(12)).map(|j| serde_json::json!({"href": page_path(j), "title": format!("Related page {j}")})).collect::<Vec<_>>()
        });
        server.route("/data/related.json", text_route("application/json", &related.to_string(), "max-age=300"));
        let images: Vec<(String, Vec<u8>)> = tokio::task::spawn_blocking(|| {
            (0..IMAGE_POOL)
                .map(|k| {
                    let (path, w, h, noise) = image_spec(k);
                    (path, png(w, h, noise, k as u64 + 11))
                })
                .collect()
        })
        .await
        .expect("image generation");
        let mut image_bytes = Vec::new();
        for (path, bytes) in images {
            image_bytes.push(bytes.len());
            server.route(&path, Route::typed("image/png", bytes).header("cache-control", immutable));
        }
        server.route("/favicon.ico", Route::typed("image/png", png(32, 32, 0, 5)).header("cache-control", immutable));
        server.route(
            "/robots.txt",
            Route::typed("text/plain", format!("User-agent: *\nAllow: /\nDisallow: /search\n\nSitemap: {origin}/sitemap.xml\n")),
        );
        let mut sitemap = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
        for i in 0..n {
            sitemap.push_str(&format!("<url><loc>{origin}{}</loc><lastmod>2025-06-01</lastmod></url>\n", page_path(i)));
        }
        sitemap.push_str("</urlset>\n");
        server.route("/sitemap.xml", Route::typed("application/xml", sitemap));
        for (path, status) in [("/contact", 303), ("/subscribe", 303)] {
            server.route(path, Route::redirect(status, "/"));
        }
        GeneratedSite { server, pages: n, html_bytes, image_bytes }
    }

    pub fn url(&self, i: usize) -> String {
        self.server.url(&page_path(i))
    }

    /// Serves page `i` edited (a paragraph added to its content) or as generated.
    pub fn edit(&self, i: usize, edited: bool) {
        let html = page_html(i, self.pages, &self.server.origin());
        let html = if edited { html.replacen("</main>", "<p>This page was edited since the last scan.</p></main>", 1) } else { html };
        self.server.route(&page_path(i), text_route("text/html; charset=utf-8", &html, "no-cache"));
    }

    /// `k` pages spread evenly over the site (always including the home page).
    pub fn sample(&self, k: usize) -> Vec<String> {
        let k = k.clamp(1, self.pages);
        (0..k).map(|s| self.url(s * self.pages / k)).collect()
    }
}
