use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::{NetworkRequest, header};
use crate::{declare_check, evidence};

declare_check! {
    /// A text resource is served without compression.
    ///
    /// For each 2xx response with a text MIME type (`text/*` except event streams, JavaScript,
    /// JSON and `+json`, XML and `+xml`, SVG; binary formats such as fonts are not judged) whose decoded body
    /// is over `uncompressed_min_bytes` (1,400 bytes, one TCP packet) and that carries no
    /// `Content-Encoding` other than `identity`. Skipped: 304s and responses from the memory
    /// cache or a service worker, failed and HEAD requests. When the snapshot lost the header but
    /// the bytes on the wire are clearly fewer than the decoded body, the response counts as
    /// compressed. One finding per URL.
    pub struct UncompressedText {
        id: "performance.uncompressed-text",
        severity: Medium,
        title: "Text resource served without compression",
        fires_when: "a text resource (HTML, CSS, JavaScript, JSON, XML, SVG) over 1.4 KB is served without gzip, br or zstd Content-Encoding (threshold uncompressed_min_bytes)",
        description: "Text compresses to a fraction of its size (typically 60-80% smaller with gzip, more with Brotli); sending it raw wastes bandwidth and delays everything that waits for it, above all render-blocking CSS and JavaScript.",
        remediation: "Enable Brotli (br) and gzip for text types in the web server or CDN, e.g. nginx `gzip on; gzip_types text/css application/javascript application/json image/svg+xml;` (plus `brotli on;` with its module), or pre-compress static files at build time.",
        cwe: None,
        evidence: ["url", "resource", "mime", "value", "limit"],
        help_url: Some("https://developer.chrome.com/docs/lighthouse/performance/uses-text-compression"),
        requires: [Network],
    }
}

/// The MIME type without parameters, lowercased.
fn essence(mime: &str) -> String {
    mime.split(';').next().unwrap_or("").trim().to_ascii_lowercase()
}

/// True for text formats worth compressing.
pub fn is_text_mime(mime: &str) -> bool {
    let m = essence(mime);
    (m.starts_with("text/") && m != "text/event-stream")
        || m.ends_with("+json")
        || m.ends_with("+xml")
        || matches!(
            m.as_str(),
            "application/javascript"
                | "application/x-javascript"
                | "application/ecmascript"
                | "application/json"
                | "application/xml"
                | "application/manifest+json"
                | "image/svg+xml"
        )
}

fn is_compressed(request: &NetworkRequest, decoded: u64) -> bool {
    let encoding = request
        .content_encoding
        .as_deref()
        .or_else(|| header(&request.response_headers, "content-encoding"))
        .map(|e| e.trim().to_ascii_lowercase());
    match encoding.as_deref() {
        Some("") | Some("identity") => false,
        Some(_) => true,
        // Header not captured: fewer bytes on the wire (headers included) than in the body means
        // the body was compressed.
        None => request.encoded_bytes.is_some_and(|wire| (wire as f64) < decoded as f64 * 0.9),
    }
}

impl Check for UncompressedText {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let mut seen: Vec<&str> = Vec::new();
        for request in page.requests() {
            let ok = request.status.is_some_and(|s| (200..300).contains(&s) && s != 204 && s != 206);
            if !ok || request.failure.is_some() || request.from_cache || request.from_service_worker {
                continue;
            }
            if request.method.eq_ignore_ascii_case("HEAD") || request.resource_type == "websocket" {
                continue;
            }
            let Some(mime) = request.mime_type.as_deref().filter(|m| is_text_mime(m)) else {
                continue;
            };
            let Some(decoded) = request.decoded_bytes.or(request.encoded_bytes) else {
                continue;
            };
            if decoded <= thresholds.uncompressed_min_bytes || is_compressed(request, decoded) {
                continue;
            }
            if seen.contains(&request.url.as_str()) {
                continue;
            }
            seen.push(&request.url);
            out.report(evidence! {
                "url" => page.final_url,
                "resource" => request.url,
                "mime" => essence(mime),
                "value" => decoded,
                "limit" => thresholds.uncompressed_min_bytes,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{page, response, run};
    use super::*;
    use crate::model::PageMetrics;

    #[test]
    fn fires_for_raw_text_over_the_limit() {
        let mut doc = response(super::super::test_support::URL, "document", "text/html; charset=utf-8", 30_000, &[]);
        doc.is_navigation = true;
        let p = page(
            PageMetrics::default(),
            vec![
                doc,
                response(
                    "https://example.com/app.js",
                    "script",
                    "application/javascript",
                    90_000,
                    &[("Content-Encoding", "identity")],
                ),
                response("https://example.com/logo.svg", "image", "image/svg+xml", 8_000, &[]),
                response("https://example.com/api/items", "fetch", "application/vnd.api+json", 4_000, &[]),
            ],
        );
        let f = run(&UncompressedText, &p);
        let resources: Vec<_> = f.iter().map(|f| f.evidence["resource"].as_str().unwrap_or("")).collect();
        assert_eq!(
            resources,
            vec![
                super::super::test_support::URL,
                "https://example.com/app.js",
                "https://example.com/logo.svg",
                "https://example.com/api/items"
            ]
        );
        assert_eq!(f[0].evidence["mime"], "text/html");
        assert_eq!(f[1].evidence["value"], 90_000);
    }

    #[test]
    fn quiet_for_compressed_small_binary_cached_or_not_modified() {
        let mut not_modified = response("https://example.com/old.css", "stylesheet", "text/css", 9_000, &[]);
        not_modified.status = Some(304);
        let mut cached = response("https://example.com/cached.js", "script", "text/javascript", 9_000, &[]);
        cached.from_cache = true;
        // Content-Encoding not captured, but 2 KB on the wire for a 9 KB body: compressed.
        let mut lost_header = response("https://example.com/lost.js", "script", "text/javascript", 9_000, &[]);
        lost_header.encoded_bytes = Some(2_000);
        let p = page(
            PageMetrics::default(),
            vec![
                response(
                    "https://example.com/app.js",
                    "script",
                    "text/javascript",
                    90_000,
                    &[("content-encoding", "br")],
                ),
                response(
                    "https://example.com/site.css",
                    "stylesheet",
                    "text/css",
                    40_000,
                    &[("content-encoding", "gzip")],
                ),
                response("https://example.com/tiny.json", "fetch", "application/json", 1_400, &[]),
                response("https://example.com/photo.jpg", "image", "image/jpeg", 400_000, &[]),
                response("https://example.com/font.woff2", "font", "font/woff2", 40_000, &[]),
                not_modified,
                cached,
                lost_header,
            ],
        );
        assert!(run(&UncompressedText, &p).is_empty());
    }
}
