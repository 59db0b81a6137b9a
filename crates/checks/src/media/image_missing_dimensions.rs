use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

declare_check! {
    /// An `<img>` reserves no space before it loads.
    ///
    /// For each visible `<img>` rendered larger than 1x1 CSS px (tracking pixels are skipped) that
    /// lacks a `width` or a `height` attribute and has no CSS size (`aspect-ratio` other than auto,
    /// or both CSS width and height fixed; `Image::has_css_size`). Gap: the snapshot does not say
    /// whether the image is absolutely positioned (which cannot shift layout), so such images are
    /// reported too.
    pub struct ImageMissingDimensions {
        id: "media.image-missing-dimensions",
        severity: Medium,
        title: "Image has no width and height",
        fires_when: "a visible img has no width/height attributes and no CSS size or aspect-ratio, so its box is unknown until it loads",
        description: "Until an image without declared dimensions has loaded, the browser gives it no height; when it arrives, everything below jumps down. These layout shifts make people lose their place or click the wrong thing, and count toward Cumulative Layout Shift, a Core Web Vital.",
        remediation: "Add the image's intrinsic `width` and `height` attributes (`<img src=\"team.jpg\" width=\"1200\" height=\"800\" alt=\"...\">`) and keep CSS `height: auto` with a max-width: the browser derives the aspect ratio from them. For responsive boxes, CSS `aspect-ratio` works as well.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "resource", "missing"],
        help_url: Some("https://web.dev/articles/optimize-cls#images-without-dimensions"),
        requires: [Dom],
    }
}

impl Check for ImageMissingDimensions {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        for image in page.dom().images.iter().filter(|i| i.kind == "img" && i.visible) {
            if image.rendered_width <= 1 || image.rendered_height <= 1 {
                continue;
            }
            if (image.has_width_attr && image.has_height_attr) || image.has_css_size {
                continue;
            }
            let missing: Vec<&str> = [("width", image.has_width_attr), ("height", image.has_height_attr)]
                .into_iter()
                .filter(|(_, has)| !has)
                .map(|(name, _)| name)
                .collect();
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => image.selector,
                "snippet" => image.snippet,
                "resource" => image.url,
                "missing" => missing,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{img, page, run};
    use super::*;
    use crate::model::Image;

    #[test]
    fn fires_when_an_attribute_is_missing_and_no_css_size() {
        let only_width = Image { has_height_attr: false, ..img("#a", "https://example.com/a.jpg") };
        let neither = Image { has_width_attr: false, has_height_attr: false, ..img("#b", "https://example.com/b.jpg") };
        let f = run(&ImageMissingDimensions, &page(vec![only_width, neither], vec![]));
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].evidence["missing"], serde_json::json!(["height"]));
        assert_eq!(f[1].evidence["missing"], serde_json::json!(["width", "height"]));
    }

    #[test]
    fn quiet_for_sized_css_sized_hidden_and_tracking_pixels() {
        let sized = img("#sized", "https://example.com/a.jpg");
        let css = Image {
            has_width_attr: false,
            has_height_attr: false,
            has_css_size: true,
            ..img("#css", "https://example.com/b.jpg")
        };
        let hidden = Image {
            has_width_attr: false,
            has_height_attr: false,
            visible: false,
            ..img("#hidden", "https://example.com/c.jpg")
        };
        let pixel = Image {
            has_width_attr: false,
            has_height_attr: false,
            rendered_width: 1,
            rendered_height: 1,
            ..img("#pixel", "https://tracker.test/p.gif")
        };
        let bg = Image {
            kind: "css-background".into(),
            has_width_attr: false,
            has_height_attr: false,
            ..img(".bg", "https://example.com/bg.jpg")
        };
        assert!(run(&ImageMissingDimensions, &page(vec![sized, css, hidden, pixel, bg], vec![])).is_empty());
    }
}
