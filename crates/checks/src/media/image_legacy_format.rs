use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::image_request::without_fragment;
use crate::{declare_check, evidence};

declare_check! {
    /// A heavy JPEG, PNG or GIF that a modern format would shrink.
    ///
    /// Judged per image response (one finding per URL, whichever elements show it): a 2xx
    /// response served as `image/jpeg`, `image/png` or `image/gif` (by its MIME type) whose body is
    /// over `image_heavy_bytes` (100 KiB). The element showing it is named when the DOM has one
    /// with that URL. Whether WebP/AVIF would really be smaller for this file is not measured
    /// (that needs re-encoding); for photos and screenshots of this size it nearly always is.
    pub struct ImageLegacyFormat {
        id: "media.image-legacy-format",
        severity: Low,
        title: "Heavy image in a legacy format",
        fires_when: "a JPEG, PNG or GIF response (by MIME type) over 100 KB is loaded where WebP or AVIF would serve (threshold image_heavy_bytes)",
        description: "WebP and AVIF encode the same picture in typically 25-50% fewer bytes than JPEG and PNG (and far fewer than GIF animations), and every current browser supports them; large legacy-format images slow the page and cost visitors data.",
        remediation: "Serve WebP or AVIF, keeping the old format as a fallback: convert at build time or let your image CDN negotiate by the Accept header, or use `<picture><source type=\"image/avif\" srcset=\"photo.avif\"><source type=\"image/webp\" srcset=\"photo.webp\"><img src=\"photo.jpg\" alt=\"...\"></picture>`. Replace GIF animations with a muted looping `<video>`.",
        cwe: None,
        evidence: ["url", "resource", "value", "limit", "mime", "selector", "snippet"],
        help_url: Some("https://developer.chrome.com/docs/lighthouse/performance/uses-webp-images"),
        requires: [Dom, Network],
    }
}

/// The legacy raster MIME types (and their common aliases).
const LEGACY_MIMES: &[&str] = &["image/jpeg", "image/jpg", "image/pjpeg", "image/png", "image/x-png", "image/gif"];

impl Check for ImageLegacyFormat {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let mut seen: Vec<&str> = Vec::new();
        for request in page.requests() {
            if !request.status.is_some_and(|s| (200..300).contains(&s)) || request.failure.is_some() {
                continue;
            }
            let mime =
                request.mime_type.as_deref().unwrap_or("").split(';').next().unwrap_or("").trim().to_ascii_lowercase();
            if !LEGACY_MIMES.contains(&mime.as_str()) {
                continue;
            }
            let Some(bytes) = request.decoded_bytes.filter(|b| *b > 0).or(request.encoded_bytes) else {
                continue;
            };
            if bytes <= thresholds.image_heavy_bytes {
                continue;
            }
            let url = without_fragment(&request.url);
            if seen.contains(&url) {
                continue;
            }
            seen.push(url);
            let element = page.dom().images.iter().find(|i| i.url.as_deref().is_some_and(|u| without_fragment(u) == url));
            out.report(evidence! {
                "url" => page.final_url,
                "resource" => request.url,
                "value" => bytes,
                "limit" => thresholds.image_heavy_bytes,
                "mime" => mime,
                "selector" => element.map(|e| e.selector.as_str()),
                "snippet" => element.map(|e| e.snippet.as_str()),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{image_response, img, page, run};
    use super::*;

    #[test]
    fn fires_once_per_heavy_legacy_image() {
        let p = page(
            vec![img("#hero", "https://example.com/hero.jpg")],
            vec![
                image_response("https://example.com/hero.jpg", "image/jpeg", 480_000),
                // The same file requested again (memory cache): one finding.
                image_response("https://example.com/hero.jpg", "image/jpeg", 480_000),
                image_response("https://example.com/anim.gif", "image/gif", 2_000_000),
            ],
        );
        let f = run(&ImageLegacyFormat, &p);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].evidence["selector"], "#hero");
        assert_eq!(f[0].evidence["mime"], "image/jpeg");
        assert_eq!(f[0].evidence["value"], 480_000);
        assert!(f[1].evidence["selector"].is_null(), "a CSS background has no img element");
    }

    #[test]
    fn quiet_for_modern_formats_small_files_and_failures() {
        let mut failed = image_response("https://example.com/gone.png", "image/png", 300_000);
        failed.status = Some(404);
        let p = page(
            vec![],
            vec![
                image_response("https://example.com/hero.webp", "image/webp", 480_000),
                image_response("https://example.com/hero.avif", "image/avif", 480_000),
                image_response("https://example.com/icon.png", "image/png", 40_000),
                failed,
            ],
        );
        assert!(run(&ImageLegacyFormat, &p).is_empty());
    }
}
