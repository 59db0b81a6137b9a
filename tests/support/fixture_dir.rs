//! Serves a fixture site from a directory of plain files, `tests/fixtures/sites/<name>/`, on a
//! `FixtureSite`.
//!
//! Every file is served at its path (`blog/post.html` at `/blog/post.html`); an `index.html` is
//! also served at its directory (`/`, `/blog/`). The content type follows the extension. Text files
//! may use `{{origin}}` (this site, `http://127.0.0.1:PORT`), `{{other}}` (a second fixture server,
//! another origin) and any variable the test passes; they are replaced before serving.
//!
//! What a file alone cannot say (status, headers, delay, compression, redirects, per-method
//! answers) is declared per path in the site's `_site.yaml`:
//!
//! ```yaml
//! defaults:
//!   gzip_text: true                       # gzip text responses (html, css, js, json, xml, svg, txt)
//!   static_cache: public, max-age=604800  # Cache-Control of css, js, images, fonts, media
//!   html_headers:                         # extra headers on every HTML response
//!     - [x-content-type-options, nosniff]
//! routes:
//!   /old: { status: 301, location: /new }
//!   /slow.html: { delay_ms: 1200 }
//!   /plain.html: { gzip: false, content_type: text/html }
//!   /hidden.html: { headers: [[x-robots-tag, noindex]] }
//!   /gone: { status: 404, body: "<h1>Gone</h1>" }
//!   /doc.pdf: { head_status: 405 }       # HEAD answers 405, GET the file
//! ```
//!
//! A route entry without `file` or `body` serves the file at the same path when there is one.

#![allow(dead_code)]

use crate::fixture_site::{FixtureSite, Route};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The manifest `_site.yaml`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Manifest {
    pub defaults: Defaults,
    pub routes: BTreeMap<String, RouteSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Defaults {
    pub gzip_text: bool,
    pub static_cache: Option<String>,
    pub html_headers: Vec<(String, String)>,
}

impl Default for Defaults {
    fn default() -> Self {
        Defaults { gzip_text: true, static_cache: None, html_headers: Vec::new() }
    }
}

/// One path's behaviour.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RouteSpec {
    pub file: Option<String>,
    pub body: Option<String>,
    pub status: Option<u16>,
    pub location: Option<String>,
    pub content_type: Option<String>,
    pub headers: Vec<(String, String)>,
    pub gzip: Option<bool>,
    pub delay_ms: Option<u64>,
    pub head_status: Option<u16>,
    /// Leave out the default headers for this path (`html_headers`, `static_cache`).
    pub no_default_headers: bool,
}

/// The directory of fixture site `name`.
pub fn site_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/sites").join(name)
}

fn content_type(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "xml" => "application/xml",
        "txt" => "text/plain; charset=utf-8",
        "vtt" => "text/vtt; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "gif" => "image/gif",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "wav" => "audio/wav",
        "woff2" => "font/woff2",
        "pdf" => "application/pdf",
        _ => "application/octet-stream",
    }
}

fn is_text(content_type: &str) -> bool {
    let ct = content_type.to_ascii_lowercase();
    ct.starts_with("text/") || ct.contains("json") || ct.contains("xml") || ct.contains("javascript")
}

fn is_static(content_type: &str) -> bool {
    let ct = content_type.to_ascii_lowercase();
    ct.starts_with("text/css")
        || ct.contains("javascript")
        || ct.starts_with("image/")
        || ct.starts_with("font/")
        || ct.starts_with("audio/")
        || ct.starts_with("video/")
        || ct.starts_with("text/vtt")
}

fn walk(dir: &Path, base: &Path, out: &mut Vec<(String, PathBuf)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("read fixture dir").flatten().collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, base, out);
        } else {
            let rel = path.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/");
            if rel != "_site.yaml" {
                out.push((format!("/{rel}"), path));
            }
        }
    }
}

/// Replaces `{{name}}` by its value.
pub fn expand(text: &str, vars: &[(&str, String)]) -> String {
    let mut out = text.to_string();
    for (name, value) in vars {
        out = out.replace(&format!("{{{{{name}}}}}"), value);
    }
    out
}

/// Serves fixture site `name` on `site`. `other` is the origin `{{other}}` stands for; `vars` are
/// further `{{name}}` replacements. Returns the paths served (files and declared routes).
pub fn serve(site: &FixtureSite, name: &str, other: &str, vars: &[(&str, String)]) -> Vec<String> {
    let dir = site_dir(name);
    let mut all_vars: Vec<(&str, String)> = vec![("origin", site.origin()), ("other", other.to_string())];
    all_vars.extend(vars.iter().cloned());
    let manifest: Manifest = match std::fs::read_to_string(dir.join("_site.yaml")) {
        Ok(text) => serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{name}/_site.yaml: {e}")),
        Err(_) => Manifest::default(),
    };
    let mut files = Vec::new();
    walk(&dir, &dir, &mut files);
    let read = |path: &Path, ct: &str| -> Vec<u8> {
        let bytes = std::fs::read(path).expect("read fixture file");
        if is_text(ct) || ct.starts_with("image/svg") {
            expand(&String::from_utf8(bytes).expect("fixture text is UTF-8"), &all_vars).into_bytes()
        } else {
            bytes
        }
    };
    let mut served = Vec::new();
    let build = |path: &str, spec: &RouteSpec, file: Option<&Path>| -> Route {
        if let Some(location) = &spec.location {
            let mut r = Route::redirect(spec.status.unwrap_or(301), &expand(location, &all_vars));
            for (k, v) in &spec.headers {
                r = r.header(k, &expand(v, &all_vars));
            }
            return r;
        }
        let ct = spec.content_type.clone().unwrap_or_else(|| {
            let by_name = content_type(spec.file.as_deref().unwrap_or(path));
            // A declared route with no file and no known extension is an HTML page.
            if by_name == "application/octet-stream" && file.is_none() && spec.file.is_none() {
                content_type("x.html").to_string()
            } else {
                by_name.to_string()
            }
        });
        let body: Vec<u8> = match (&spec.body, &spec.file, file) {
            (Some(b), _, _) => expand(b, &all_vars).into_bytes(),
            (None, Some(f), _) => read(&dir.join(f.trim_start_matches('/')), &ct),
            (None, None, Some(p)) => read(p, &ct),
            (None, None, None) => Vec::new(),
        };
        let mut r = Route::new(spec.status.unwrap_or(200)).content_type(&ct).body(body);
        let html = ct.to_ascii_lowercase().starts_with("text/html");
        if html && !spec.no_default_headers {
            for (k, v) in &manifest.defaults.html_headers {
                if !spec.headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(k)) {
                    r = r.header(k, &expand(v, &all_vars));
                }
            }
        }
        if is_static(&ct)
            && !spec.no_default_headers
            && let Some(cc) = &manifest.defaults.static_cache
            && !spec.headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("cache-control"))
        {
            r = r.header("cache-control", cc);
        }
        for (k, v) in &spec.headers {
            r = r.header(k, &expand(v, &all_vars));
        }
        let gzip = spec.gzip.unwrap_or(manifest.defaults.gzip_text && (is_text(&ct) || ct.starts_with("image/svg")));
        r = r.gzip(gzip);
        if let Some(ms) = spec.delay_ms {
            r = r.delay(Duration::from_millis(ms));
        }
        r
    };
    for (path, file) in &files {
        let spec = manifest.routes.get(path).cloned().unwrap_or_default();
        let route = build(path, &spec, Some(file));
        if let Some(head) = spec.head_status {
            site.route_method("HEAD", path, Route::new(head));
        }
        site.route(path, route.clone());
        served.push(path.clone());
        if let Some(dir_path) = path.strip_suffix("index.html")
            && !manifest.routes.contains_key(dir_path)
        {
            site.route(dir_path, route);
            served.push(dir_path.to_string());
        }
    }
    for (path, spec) in &manifest.routes {
        if files.iter().any(|(p, _)| p == path) {
            continue;
        }
        let route = build(path, spec, None);
        if let Some(head) = spec.head_status {
            site.route_method("HEAD", path, Route::new(head));
        }
        site.route(path, route);
        served.push(path.clone());
    }
    served
}
