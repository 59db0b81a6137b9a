use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::image_request::{image_bytes, is_svg};
use crate::{declare_check, evidence};

declare_check! {
    /// An image is much larger than the box it is shown in, and heavy.
    ///
    /// For each visible, rendered `<img>` (kind `img`, which includes the `<img>` of a `<picture>`):
    /// its intrinsic size is more than `image_oversize_factor` (2) times its rendered size in both
    /// dimensions, and its file is over `image_heavy_bytes` (100 KiB; from the matching response's
    /// decoded body size, after redirects, or a `data:` URL's payload). SVGs are skipped (vector
    /// images have no meaningful intrinsic size). The factor of 2 leaves room for 2x displays.
    pub struct ImageOversized {
        id: "media.image-oversized",
        severity: Medium,
        title: "Image is much larger than displayed",
        fires_when: "an image's intrinsic size is more than 2x its rendered size in both dimensions and its file is over 100 KB (thresholds image_oversize_factor, image_heavy_bytes)",
        description: "Every byte of an image shown at a fraction of its size is downloaded and decoded for nothing: it slows the page (often the Largest Contentful Paint), costs mobile visitors data and memory, and the browser throws the extra pixels away.",
        remediation: "Serve the image at about the size it is shown (twice that for high-density screens at most): resize it at build time or through your image CDN, and offer several widths with `srcset` and `sizes`, e.g. `<img src=\"photo-800.jpg\" srcset=\"photo-400.jpg 400w, photo-800.jpg 800w, photo-1600.jpg 1600w\" sizes=\"(max-width: 600px) 100vw, 400px\">`.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "resource", "value", "limit", "bytes", "natural_width", "natural_height", "rendered_width", "rendered_height"],
        help_url: Some("https://developer.chrome.com/docs/lighthouse/performance/uses-responsive-images"),
        requires: [Dom, Network],
    }
}

impl Check for ImageOversized {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let factor = thresholds.image_oversize_factor;
        for image in page.dom().images.iter().filter(|i| i.kind == "img" && i.visible && !i.broken) {
            let Some(url) = image.url.as_deref() else {
                continue;
            };
            if image.rendered_width == 0 || image.rendered_height == 0 {
                continue;
            }
            let ratio_w = f64::from(image.natural_width) / f64::from(image.rendered_width);
            let ratio_h = f64::from(image.natural_height) / f64::from(image.rendered_height);
            if ratio_w <= factor || ratio_h <= factor {
                continue;
            }
            let Some(bytes) = image_bytes(page, url) else {
                continue;
            };
            if bytes <= thresholds.image_heavy_bytes || is_svg(page, url) {
                continue;
            }
            let ratio = (ratio_w.min(ratio_h) * 100.0).round() / 100.0;
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => image.selector,
                "snippet" => image.snippet,
                "resource" => url,
                "value" => ratio,
                "limit" => factor,
                "bytes" => bytes,
                "natural_width" => image.natural_width,
                "natural_height" => image.natural_height,
                "rendered_width" => image.rendered_width,
                "rendered_height" => image.rendered_height,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{image_response, img, page, run};
    use super::*;
    use crate::model::Image;

    fn shown(natural: (u32, u32), rendered: (u32, u32)) -> Image {
        Image {
            natural_width: natural.0,
            natural_height: natural.1,
            rendered_width: rendered.0,
            rendered_height: rendered.1,
            ..img("#photo", "https://example.com/photo.jpg")
        }
    }

    #[test]
    fn fires_on_big_heavy_image_shown_small() {
        let p = page(
            vec![shown((3000, 2000), (300, 200))],
            vec![image_response("https://example.com/photo.jpg", "image/jpeg", 900_000)],
        );
        let f = run(&ImageOversized, &p);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["value"], 10.0);
        assert_eq!(f[0].evidence["limit"], 2.0);
        assert_eq!(f[0].evidence["bytes"], 900_000);
        assert_eq!(f[0].evidence["resource"], "https://example.com/photo.jpg");
    }

    #[test]
    fn quiet_for_retina_sized_light_svg_or_one_dimension() {
        let heavy = || vec![image_response("https://example.com/photo.jpg", "image/jpeg", 900_000)];
        // Exactly 2x (a 2x-display asset) is fine.
        assert!(run(&ImageOversized, &page(vec![shown((800, 600), (400, 300))], heavy())).is_empty());
        // Only one dimension is oversized (object-fit: cover crop): not both.
        assert!(run(&ImageOversized, &page(vec![shown((3000, 600), (300, 300))], heavy())).is_empty());
        // Oversized but light (a 60 KB file).
        let light = vec![image_response("https://example.com/photo.jpg", "image/jpeg", 60_000)];
        assert!(run(&ImageOversized, &page(vec![shown((3000, 2000), (300, 200))], light)).is_empty());
        // An SVG: its intrinsic size means nothing.
        let svg = vec![image_response("https://example.com/photo.jpg", "image/svg+xml", 200_000)];
        assert!(run(&ImageOversized, &page(vec![shown((3000, 2000), (300, 200))], svg)).is_empty());
        // Not rendered (display: none).
        let hidden = Image { rendered_width: 0, rendered_height: 0, visible: false, ..shown((3000, 2000), (0, 0)) };
        assert!(run(&ImageOversized, &page(vec![hidden], heavy())).is_empty());
    }
}
