//! A page that follows every media rule produces no media finding. (The catalogue contract for
//! every category is `checks::contract_tests`.)

/// A page that follows every media rule: sized images, lazy below the fold, an eager LCP image in
/// a modern format, a captioned video and a muted background loop.
#[test]
fn clean_page_is_quiet() {
    use super::test_support::{image_response, img, page};
    use crate::{Thresholds, run_page_checks};
    use crate::model::{Image, LcpElement, MediaElement, MediaTrack};

    let hero = Image { fetchpriority: Some("high".into()), ..img("#hero", "https://example.com/hero.avif") };
    let below = Image {
        loading: Some("lazy".into()),
        in_first_viewport: false,
        top_px: 4000.0,
        ..img("#gallery-1", "https://example.com/g1.webp")
    };
    let mut p = page(
        vec![hero, below],
        vec![
            image_response("https://example.com/hero.avif", "image/avif", 90_000),
            image_response("https://example.com/g1.webp", "image/webp", 40_000),
        ],
    );
    p.metrics.lcp_element = Some(LcpElement {
        selector: Some("#hero".into()),
        url: Some("https://example.com/hero.avif".into()),
        is_image: true,
        ..Default::default()
    });
    p.dom.media = vec![
        MediaElement {
            tag: "video".into(),
            controls: true,
            has_audio: Some(true),
            tracks: vec![MediaTrack { kind: "captions".into(), src: Some("en.vtt".into()), ..Default::default() }],
            selector: "#talk".into(),
            ..Default::default()
        },
        MediaElement {
            tag: "video".into(),
            autoplay: true,
            muted: true,
            loop_: true,
            selector: "#bg".into(),
            ..Default::default()
        },
    ];
    let findings: Vec<_> =
        run_page_checks(&p, &Thresholds::default()).findings.into_iter().filter(|f| f.category() == "media").collect();
    assert!(findings.is_empty(), "{findings:#?}");
}
