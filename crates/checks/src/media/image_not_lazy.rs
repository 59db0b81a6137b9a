use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::image_request::is_inline_url;
use crate::{declare_check, evidence};

declare_check! {
    /// An image far below the first viewport is loaded eagerly.
    ///
    /// For each visible `<img>` (larger than 1x1 CSS px, not a `data:` URL) without
    /// `loading="lazy"` whose top is more than `lazy_viewports` (2) viewport heights down the
    /// document. Images just below the fold are left alone: lazy-loading them can make them late
    /// when the visitor scrolls.
    pub struct ImageNotLazy {
        id: "media.image-not-lazy",
        severity: Low,
        title: "Offscreen image is not lazy-loaded",
        fires_when: "an img more than 2 viewport heights below the top of the page is loaded eagerly (no loading=lazy; threshold lazy_viewports)",
        description: "Images far down the page compete for bandwidth with what the visitor sees first, delaying the first render and the Largest Contentful Paint, and are downloaded even by visitors who never scroll that far.",
        remediation: "Add `loading=\"lazy\"` (with width and height) to images well below the first screen: `<img src=\"gallery-12.jpg\" loading=\"lazy\" width=\"600\" height=\"400\" alt=\"...\">`. Keep the first screen's images, above all the LCP image, eager.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "resource", "value", "limit"],
        help_url: Some("https://developer.chrome.com/docs/lighthouse/performance/offscreen-images"),
        requires: [Dom],
    }
}

impl Check for ImageNotLazy {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() || page.dom().viewport_height == 0 {
            return;
        }
        let limit = thresholds.lazy_viewports * f64::from(page.dom().viewport_height);
        for image in page.dom().images.iter().filter(|i| i.kind == "img" && i.visible && !i.in_first_viewport) {
            let lazy = image.loading.as_deref().is_some_and(|l| l.trim().eq_ignore_ascii_case("lazy"));
            if lazy || image.top_px <= limit || image.rendered_width <= 1 || image.rendered_height <= 1 {
                continue;
            }
            let Some(url) = image.url.as_deref() else {
                continue;
            };
            if is_inline_url(url) {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => image.selector,
                "snippet" => image.snippet,
                "resource" => url,
                "value" => image.top_px.round(),
                "limit" => limit,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{img, page, run};
    use super::*;
    use crate::model::Image;

    fn at(selector: &str, top: f64, loading: Option<&str>) -> Image {
        Image {
            top_px: top,
            in_first_viewport: top < 800.0,
            loading: loading.map(str::to_string),
            ..img(selector, &format!("https://example.com/{}.jpg", selector.trim_start_matches('#')))
        }
    }

    #[test]
    fn fires_on_eager_image_far_below_the_fold() {
        let f = run(&ImageNotLazy, &page(vec![at("#far", 4000.0, None), at("#eager", 2500.0, Some("eager"))], vec![]));
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].evidence["value"], 4000.0);
        assert_eq!(f[0].evidence["limit"], 1600.0);
    }

    #[test]
    fn quiet_for_lazy_near_fold_and_inline_images() {
        let inline = Image { url: Some("data:image/png;base64,AAAA".into()), ..at("#inline", 5000.0, None) };
        let p = page(
            vec![at("#lazy", 5000.0, Some("LAZY")), at("#near", 1200.0, None), at("#top", 0.0, None), inline],
            vec![],
        );
        assert!(run(&ImageNotLazy, &p).is_empty());
    }
}
