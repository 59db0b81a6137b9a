use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::image_request::without_fragment;
use crate::{declare_check, evidence};

declare_check! {
    /// The Largest Contentful Paint image is lazy-loaded.
    ///
    /// From `metrics.lcp_element`: an image LCP whose `loading` is `lazy`. When the LCP entry does
    /// not carry `loading`, the `<img>` of the DOM with the same selector (else the same URL) is
    /// consulted.
    pub struct LcpImageLazy {
        id: "media.lcp-image-lazy",
        severity: Medium,
        title: "LCP image is lazy-loaded",
        fires_when: "the element of the Largest Contentful Paint is an image with loading=lazy",
        description: "A lazy image is only requested once layout shows it is in the viewport, so the largest image of the first screen starts downloading late and the Largest Contentful Paint, a Core Web Vital, is delayed, typically by hundreds of milliseconds.",
        remediation: "Remove `loading=\"lazy\"` from the hero/LCP image (set `loading=\"eager\"` if a component adds it) and consider `fetchpriority=\"high\"`: `<img src=\"hero.webp\" fetchpriority=\"high\" width=\"1200\" height=\"600\" alt=\"...\">`.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "resource", "value"],
        help_url: Some("https://web.dev/articles/lcp-lazy-loading"),
        requires: [Dom, Metrics],
    }
}

impl Check for LcpImageLazy {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(lcp) = page.metrics().lcp_element.as_ref().filter(|l| l.is_image) else {
            return;
        };
        let element = page
            .dom()
            .images
            .iter()
            .filter(|i| i.kind == "img")
            .find(|i| lcp.selector.as_deref().is_some_and(|s| s == i.selector))
            .or_else(|| {
                let url = without_fragment(lcp.url.as_deref()?);
                page.dom()
                    .images
                    .iter()
                    .find(|i| i.kind == "img" && i.url.as_deref().is_some_and(|u| without_fragment(u) == url))
            });
        let loading = lcp.loading.as_deref().or(element.and_then(|e| e.loading.as_deref()));
        if !loading.is_some_and(|l| l.trim().eq_ignore_ascii_case("lazy")) {
            return;
        }
        out.report(evidence! {
            "url" => page.final_url,
            "selector" => lcp.selector.as_deref().or(element.map(|e| e.selector.as_str())),
            "snippet" => lcp.snippet.as_deref().or(element.map(|e| e.snippet.as_str())),
            "resource" => lcp.url.as_deref().or(element.and_then(|e| e.url.as_deref())),
            "value" => page.metrics().lcp_ms,
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::model::PageSnapshot;
    use super::super::test_support::{img, page, run};
    use super::*;
    use crate::model::{Image, LcpElement};

    fn with_lcp(lcp: LcpElement, images: Vec<Image>) -> PageSnapshot {
        let mut p = page(images, vec![]);
        p.metrics.lcp_ms = Some(3100.0);
        p.metrics.lcp_element = Some(lcp);
        p
    }

    fn lcp_img(loading: Option<&str>) -> LcpElement {
        LcpElement {
            selector: Some("#hero".into()),
            snippet: Some("<img id=\"hero\" loading=\"lazy\">".into()),
            tag: Some("img".into()),
            url: Some("https://example.com/hero.jpg".into()),
            is_image: true,
            loading: loading.map(str::to_string),
        }
    }

    #[test]
    fn fires_on_lazy_lcp_image() {
        let f = run(&LcpImageLazy, &with_lcp(lcp_img(Some("lazy")), vec![]));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["selector"], "#hero");
        assert_eq!(f[0].evidence["value"], 3100.0);
        // The loading attribute known only from the DOM's img.
        let dom_img = Image { loading: Some("lazy".into()), ..img("#hero", "https://example.com/hero.jpg") };
        assert_eq!(run(&LcpImageLazy, &with_lcp(lcp_img(None), vec![dom_img])).len(), 1);
    }

    #[test]
    fn quiet_for_eager_lcp_image_or_text_lcp() {
        assert!(run(&LcpImageLazy, &with_lcp(lcp_img(Some("eager")), vec![])).is_empty());
        assert!(
            run(&LcpImageLazy, &with_lcp(lcp_img(None), vec![img("#hero", "https://example.com/hero.jpg")])).is_empty()
        );
        // A heading as LCP; a lazy image elsewhere on the page is not the LCP.
        let text =
            LcpElement { selector: Some("h1".into()), tag: Some("h1".into()), is_image: false, ..Default::default() };
        let lazy_elsewhere = Image { loading: Some("lazy".into()), ..img("#other", "https://example.com/o.jpg") };
        assert!(run(&LcpImageLazy, &with_lcp(text, vec![lazy_elsewhere])).is_empty());
    }
}
