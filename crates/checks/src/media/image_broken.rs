use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::image_request::{is_inline_url, request_failed, response_for, without_fragment};
use crate::model::{Image, Severity};
use crate::{declare_check, evidence};

declare_check! {
    /// An image on the page failed to load.
    ///
    /// - `img`, `input type=image` and SVG `<image>`: the browser flagged it broken (`complete` with
    ///   `naturalWidth == 0`). An `<img>` without any `src`/`srcset` is skipped: it never tried to
    ///   load (script lazy-loaders keep the real URL in `data-src` until the image nears the
    ///   viewport).
    /// - `<picture><source>`: its URL's request failed (4xx/5xx or a network error), unless the
    ///   `<img>` of the same URL is already reported.
    /// - CSS background images in the first viewport: their request failed (the browser keeps no
    ///   broken flag for backgrounds); backgrounds further down are not judged.
    ///
    /// High for a visible element, medium for one that is not rendered (hidden carousel slide).
    /// Failed image requests that no element shows are `runtime.failed-request`'s.
    pub struct ImageBroken {
        id: "media.image-broken",
        severity: High,
        title: "Image fails to load",
        fires_when: "an image (img, picture source, input type=image, CSS background in the first viewport) fails to load: the browser marks it broken, or its request answers 4xx/5xx or fails",
        description: "A broken image shows an empty box or a broken-image icon instead of content; product photos, diagrams and hero images that fail make the page look abandoned and hide information visitors came for.",
        remediation: "Fix the image URL (typo, moved or deleted file, wrong case on a case-sensitive server) or restore the file at that path; check the status in the evidence: 404 means the file is missing, 403 a permission or hotlink rule, 5xx a failing image server or CDN.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "resource", "status", "failure", "kind"],
        help_url: Some("https://developer.mozilla.org/en-US/docs/Web/HTML/Element/img"),
        requires: [Dom, Network],
    }
}

/// The failed request for the image's URL, when there is one.
fn failed_request<'a>(page: &PageView<'a>, image: &Image) -> Option<&'a crate::model::NetworkRequest> {
    let url = image.url.as_deref()?;
    if is_inline_url(url) {
        return None;
    }
    response_for(page, url).filter(|r| request_failed(r))
}

fn has_source(image: &Image) -> bool {
    image.src_raw.is_some() || image.srcset.as_deref().is_some_and(|s| !s.trim().is_empty())
}

impl Check for ImageBroken {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let mut reported_urls: Vec<&str> = Vec::new();
        // Element images first, so a <picture><source> of a reported <img> is not reported again.
        let mut ordered: Vec<&Image> = page.dom().images.iter().filter(|i| i.kind != "picture-source").collect();
        ordered.extend(page.dom().images.iter().filter(|i| i.kind == "picture-source"));
        for image in ordered {
            let failed = failed_request(page, image);
            let broken = match image.kind.as_str() {
                "img" | "input-image" | "svg-image" => has_source(image) && (image.broken || failed.is_some()),
                "picture-source" => {
                    failed.is_some()
                        && !image.url.as_deref().is_some_and(|u| reported_urls.contains(&without_fragment(u)))
                }
                "css-background" => image.in_first_viewport && (image.broken || failed.is_some()),
                _ => image.broken,
            };
            // A broken flag on an <img> whose request answered 200 still means the file did not
            // decode (wrong format, truncated): that is reported too.
            if !broken {
                continue;
            }
            if let Some(url) = image.url.as_deref() {
                reported_urls.push(without_fragment(url));
            }
            let severity = if image.visible { Severity::High } else { Severity::Medium };
            out.report_with(
                severity,
                evidence! {
                    "url" => page.final_url,
                    "selector" => image.selector,
                    "snippet" => image.snippet,
                    "resource" => image.url.as_deref().or(image.src_raw.as_deref()),
                    "status" => failed.and_then(|r| r.status),
                    "failure" => failed.and_then(|r| r.failure.as_deref()),
                    "kind" => image.kind,
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{image_response, img, page, run};
    use super::*;
    use crate::model::NetworkRequest;

    fn failed(url: &str, status: Option<u16>, failure: Option<&str>) -> NetworkRequest {
        NetworkRequest {
            url: url.into(),
            resource_type: "image".into(),
            status,
            failure: failure.map(str::to_string),
            ..Default::default()
        }
    }

    #[test]
    fn fires_on_broken_img_with_its_status() {
        let mut broken = img("#hero", "https://example.com/hero.jpg");
        broken.broken = true;
        broken.natural_width = 0;
        broken.natural_height = 0;
        let p = page(vec![broken], vec![failed("https://example.com/hero.jpg", Some(404), None)]);
        let f = run(&ImageBroken, &p);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].severity, Severity::High);
        assert_eq!(f[0].evidence["selector"], "#hero");
        assert_eq!(f[0].evidence["status"], 404);
        assert_eq!(f[0].evidence["resource"], "https://example.com/hero.jpg");
    }

    #[test]
    fn fires_on_failed_background_in_first_viewport_only() {
        let bg = |sel: &str, url: &str, first: bool| Image {
            kind: "css-background".into(),
            url: Some(url.into()),
            in_first_viewport: first,
            visible: true,
            selector: sel.into(),
            ..Default::default()
        };
        let p = page(
            vec![bg(".banner", "https://cdn.test/banner.webp", true), bg("footer", "https://cdn.test/f.webp", false)],
            vec![
                failed("https://cdn.test/banner.webp", None, Some("net::ERR_NAME_NOT_RESOLVED")),
                failed("https://cdn.test/f.webp", Some(500), None),
            ],
        );
        let f = run(&ImageBroken, &p);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["selector"], ".banner");
        assert_eq!(f[0].evidence["failure"], "net::ERR_NAME_NOT_RESOLVED");
    }

    #[test]
    fn picture_source_and_img_of_the_same_url_report_once_and_hidden_is_medium() {
        let url = "https://example.com/a.avif";
        let mut image = img("picture > img", url);
        image.broken = true;
        image.visible = false;
        let source = Image {
            kind: "picture-source".into(),
            url: Some(url.into()),
            selector: "picture > source".into(),
            ..Default::default()
        };
        let p = page(vec![source, image], vec![failed(url, Some(404), None)]);
        let f = run(&ImageBroken, &p);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["selector"], "picture > img");
        assert_eq!(f[0].severity, Severity::Medium);
    }

    #[test]
    fn quiet_on_loaded_lazy_placeholder_and_unloaded_images() {
        // Loaded fine.
        let ok = img("#ok", "https://example.com/ok.png");
        // A script lazy-loader's <img data-src> has no src yet: the browser marks it broken-ish
        // (complete, naturalWidth 0) although it never tried to load anything.
        let placeholder = Image { src_raw: None, url: None, broken: true, natural_width: 0, ..img("#lazy", "") };
        // A below-the-fold background whose request failed is outside the catalogue's scope.
        let p = page(vec![ok, placeholder], vec![image_response("https://example.com/ok.png", "image/png", 2000)]);
        assert!(run(&ImageBroken, &p).is_empty());
    }
}
