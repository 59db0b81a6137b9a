//! The media ids of CHECKS.md are registered, spelled exactly, with their default severities
//! (and CWE ids), in CHECKS.md order, and every media check is documented.

use crate::checks::{catalogue, find};
use crate::model::Severity;

/// CHECKS.md, media table: id and default severity (the first of a two-level pair).
const CONTRACT: &[(&str, Severity)] = &[
    ("media.image-broken", Severity::High),
    ("media.image-oversized", Severity::Medium),
    ("media.image-legacy-format", Severity::Low),
    ("media.image-missing-dimensions", Severity::Medium),
    ("media.image-not-lazy", Severity::Low),
    ("media.lcp-image-lazy", Severity::Medium),
    ("media.video-no-captions", Severity::High),
    ("media.autoplay-audio", Severity::Medium),
];

/// CWE ids CHECKS.md gives for this category.
const CWES: &[(&str, &str)] = &[];

#[test]
fn contract_ids_are_registered_with_their_default_severity() {
    for (id, severity) in CONTRACT {
        let meta = find(id).unwrap_or_else(|| panic!("{id} is not registered"));
        assert_eq!(meta.severity, *severity, "{id}");
    }
    for (id, cwe) in CWES {
        assert_eq!(find(id).and_then(|m| m.cwe_id), Some(*cwe), "{id}");
    }
}

#[test]
fn contract_ids_come_in_checks_md_order() {
    let registered: Vec<&str> = catalogue().map(|m| m.id).filter(|id| CONTRACT.iter().any(|(c, _)| c == id)).collect();
    let expected: Vec<&str> = CONTRACT.iter().map(|(id, _)| *id).collect();
    assert_eq!(registered, expected);
}

#[test]
fn every_media_check_is_documented() {
    let metas: Vec<_> = catalogue().filter(|m| m.category() == "media").collect();
    assert!(metas.len() >= CONTRACT.len());
    for meta in &metas {
        assert!(!meta.title.trim().is_empty() && meta.title.len() <= 80, "{}", meta.id);
        assert!(meta.fires_when.len() > 20, "{}", meta.id);
        assert!(meta.description.len() > 60, "{}", meta.id);
        assert!(meta.remediation.len() > 60, "{}", meta.id);
        assert!(meta.evidence_keys.first() == Some(&"url"), "{}: url comes first", meta.id);
        if let Some(cwe) = meta.cwe_id {
            assert!(cwe.strip_prefix("CWE-").is_some_and(|n| n.parse::<u32>().is_ok()), "{}", meta.id);
        }
        if let Some(url) = meta.help_url {
            assert!(url.starts_with("https://"), "{}", meta.id);
        }
        let name = &meta.id["media.".len()..];
        assert!(name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'), "{}", meta.id);
    }
}

/// A page that follows every media rule: sized images, lazy below the fold, an eager LCP image in
/// a modern format, a captioned video and a muted background loop.
#[test]
fn clean_page_is_quiet() {
    use super::test_support::{image_response, img, page};
    use crate::checks::{Thresholds, run_page_checks};
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
        run_page_checks(&p, &Thresholds::default()).into_iter().filter(|f| f.category() == "media").collect();
    assert!(findings.is_empty(), "{findings:#?}");
}
