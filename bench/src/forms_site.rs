//! A third generated site, unlike the other two: long pages (58 to 90 KB of markup for 60 pages),
//! each with five to seven forms of many fields and 21 to 30 images, and little shared markup
//! (a one-line header and footer; every page's layout, classes and colours drawn on its own). It
//! has defects a checker should find on every page (an unlabelled field, an image without `alt`,
//! a low-contrast hint, a table without headers) and plenty it should pass. Deterministic for a
//! given N.

use crate::fixture_site::{FixtureSite, Route};
use crate::site::Rng;

const WORDS: &[&str] = &[
    "order", "account", "delivery", "address", "invoice", "payment", "return", "warranty", "product", "service", "the", "a",
    "of", "and", "to", "in", "for", "with", "your", "each", "before", "after", "within", "days", "number", "details", "contact",
    "request", "form", "please", "required", "optional", "field", "reference", "customer", "support",
];
const FIELDS: [(&str, &str); 10] = [
    ("text", "Full name"),
    ("email", "Email address"),
    ("tel", "Phone number"),
    ("text", "Street and number"),
    ("text", "Postal code"),
    ("text", "City"),
    ("date", "Preferred date"),
    ("number", "Quantity"),
    ("url", "Website"),
    ("password", "Password"),
];
const COLOURS: [&str; 6] = ["#1b4332", "#3a0ca3", "#7f1d1d", "#0b3d91", "#5b3a29", "#264653"];

fn words(rng: &mut Rng, n: usize) -> String {
    (0..n).map(|_| *rng.pick(WORDS)).collect::<Vec<_>>().join(" ")
}

fn path(i: usize) -> String {
    if i == 0 { "/".to_string() } else { format!("/f/{i}") }
}

fn image(i: usize, k: usize) -> String {
    format!("/f/img/{}.png", (i * 7 + k) % 24)
}

/// One form of `fields` fields; the page's `k`th form. The first form of every page has one
/// field with no label (a placeholder only) and its hint in low contrast.
fn form(rng: &mut Rng, i: usize, k: usize, fields: usize, class: &str) -> String {
    let mut f = format!("<form class=\"{class}-form\" action=\"/f/{i}/submit/{k}\" method=\"post\"><fieldset><legend>{}</legend>", words(rng, 4));
    for n in 0..fields {
        let (kind, label) = FIELDS[(k + n) % FIELDS.len()];
        let id = format!("f{k}-{n}");
        if k == 0 && n == 1 {
            f.push_str(&format!("<p><input type=\"{kind}\" name=\"{id}\" placeholder=\"{label}\"> <small class=\"faint\">{}</small></p>", words(rng, 6)));
        } else {
            let required = if n % 3 == 0 { " required aria-required=\"true\"" } else { "" };
            f.push_str(&format!("<p><label for=\"{id}\">{label}</label> <input type=\"{kind}\" id=\"{id}\" name=\"{id}\" autocomplete=\"off\"{required}></p>"));
        }
    }
    f.push_str(&format!(
        "<p><label for=\"s{k}\">Topic</label> <select id=\"s{k}\" name=\"s{k}\"><option>{}</option><option>{}</option><option>{}</option></select></p>",
        words(rng, 2),
        words(rng, 2),
        words(rng, 2)
    ));
    f.push_str(&format!("<p><label for=\"t{k}\">Message</label><textarea id=\"t{k}\" name=\"t{k}\" rows=\"4\"></textarea></p>"));
    f.push_str("<p><input type=\"checkbox\" id=\"c{k}\" name=\"consent\"> <label for=\"c{k}\">I agree to the terms</label></p>".replace("{k}", &k.to_string()).as_str());
    f.push_str("<button type=\"submit\">Send</button></fieldset></form>");
    f
}

fn page(i: usize, n: usize) -> String {
    let mut rng = Rng::new(5000 + i as u64);
    let class = format!("p{}", rng.range(100, 999));
    let colour = COLOURS[rng.range(0, COLOURS.len())];
    let title = format!("{} {i}", words(&mut rng, 3));
    let css = format!(
        ".{class}{{max-width:{}px;margin:0 auto;padding:{}px;font:{}px/1.6 Georgia,serif;color:#222}}.{class} h2{{color:{colour};border-bottom:2px solid {colour}}}\
         .{class}-form{{background:#f7f7f7;padding:12px;margin:16px 0}}.{class}-form label{{display:inline-block;min-width:10em}}\
         .{class} figure{{display:inline-block;margin:8px;width:{}px}}.{class} img{{max-width:100%;height:auto}}.faint{{color:#aaa}}\
         .{class} table{{border-collapse:collapse}}.{class} td{{border:1px solid #ccc;padding:4px 8px}}",
        rng.range(760, 1100),
        rng.range(12, 32),
        rng.range(15, 18),
        rng.range(180, 320),
    );
    let mut body = format!("<div class=\"{class}\"><p><a href=\"/\">Home</a></p><main><h1>{title}</h1>");
    let sections = rng.range(14, 20);
    for s in 0..sections {
        body.push_str(&format!("<section><h2>{}</h2>", words(&mut rng, 4)));
        for _ in 0..rng.range(4, 8) {
            let length = rng.range(60, 120);
            body.push_str(&format!("<p>{}.</p>", words(&mut rng, length)));
        }
        if s % 3 == 0 {
            let fields = rng.range(6, 10);
            body.push_str(&form(&mut rng, i, s / 3, fields, &class));
        }
        if s % 2 == 0 {
            for k in 0..3 {
                let src = image(i, s * 3 + k);
                // One image a page has no alt at all.
                let alt = if s == 0 && k == 0 { String::new() } else { format!(" alt=\"{}\"", words(&mut rng, 4)) };
                body.push_str(&format!("<figure><img src=\"{src}\" width=\"320\" height=\"240\" loading=\"lazy\"{alt}><figcaption>{}</figcaption></figure>", words(&mut rng, 6)));
            }
        }
        if s == 4 {
            body.push_str("<table>");
            for r in 0..8 {
                body.push_str(&format!("<tr><td>{}</td><td>{}</td><td>{} days</td></tr>", words(&mut rng, 2), r * 17 + i, rng.range(1, 30)));
            }
            body.push_str("</table>");
        }
        let links: String = (0..4).map(|k| format!("<a href=\"{}\">{}</a> ", path((i * 13 + s * 4 + k + 1) % n.max(1)), words(&mut rng, 3))).collect();
        body.push_str(&format!("<p>See also: {links}</p></section>"));
    }
    body.push_str("</main><p><small>Example Forms Ltd.</small></p></div>");
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{title}</title><meta name=\"description\" content=\"{}\"><style>{css}</style></head><body>{body}</body></html>",
        words(&mut rng, 15)
    )
}

/// A served site of `n` long pages full of forms and images.
pub struct FormsSite {
    pub server: FixtureSite,
    pub pages: usize,
}

impl FormsSite {
    pub async fn start(n: usize) -> FormsSite {
        let server = FixtureSite::start().await;
        for i in 0..n {
            server.route(&path(i), crate::site::text_route("text/html; charset=utf-8", &page(i, n), "no-cache"));
        }
        for k in 0..24 {
            let (w, h) = [(320, 240), (480, 360), (640, 480)][k % 3];
            server.route(&format!("/f/img/{k}.png"), Route::typed("image/png", crate::site::png(w, h, [4, 16, 32][k % 3], 700 + k as u64)).header("cache-control", "max-age=3600"));
        }
        FormsSite { server, pages: n }
    }

    pub fn url(&self, i: usize) -> String {
        self.server.url(&path(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_long_and_share_little() {
        let (a, b) = (page(1, 60), page(2, 60));
        assert!(a.len() > 60_000 && b.len() > 60_000, "{} and {} bytes", a.len(), b.len());
        assert!(a.matches("<form").count() >= 5 && a.matches("<img").count() >= 21);
        let sizes: Vec<usize> = (0..60).map(|i| page(i, 60).len()).collect();
        println!("page sizes {} to {} bytes", sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
        let common = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
        assert!(common < 400, "{common} bytes in common at the start");
    }
}
