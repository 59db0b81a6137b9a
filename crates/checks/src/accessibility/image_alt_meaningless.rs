use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::BarrierImage;
use crate::{declare_check, evidence};

declare_check! {
    /// An image's alt text is a file name or a word that says nothing.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`): a visible `<img>` named by its alt
    /// (no aria-label or aria-labelledby, no role of none or presentation) whose alt text is a
    /// file name (a word with an image extension such as `photo.png`, the image file's own name
    /// with or without extension, a camera name like `IMG_0234` or `DSC01234`, or a word joined
    /// by underscores like `banner_final-2`) or only a generic word (`image`, `picture`,
    /// `photo`, `graphic`, `icon`, `spacer`, `placeholder`, `untitled`, in a few languages).
    /// `logo` alone is not judged: it does say what the image is. axe-core's `image-alt`
    /// accepts any non-empty alt; its `image-redundant-alt` compares the alt with the text of
    /// the surrounding link or button only.
    pub struct ImageAltMeaningless {
        id: "accessibility.image-alt-meaningless",
        severity: Medium,
        title: "Image alt text is a file name or a generic word",
        fires_when: "a visible image's alt text is a file name (IMG_0234.jpg, banner_final-2, the image's own file name) or only a word such as image, picture, photo, graphic or spacer",
        description: "Screen-reader users hear the alt text instead of seeing the image: \"IMG underscore 0234 dot jpg\" or \"image\" tells them nothing about what sighted visitors see (a decorative spacer should be silent instead): WCAG 2.2 success criterion 1.1.1 (Non-text Content).",
        remediation: "Write what the image shows or does in context (`alt=\"Volunteers planting trees in the city park\"`); give decorative images an empty alt (`alt=\"\"`).",
        cwe: None,
        evidence: ["url", "selector", "snippet", "alt", "reason", "wcag"],
        help_url: Some("https://www.w3.org/WAI/tutorials/images/"),
        requires: [Barriers],
        level: A,
        wcag: ["1.1.1"],
    }
}

const IMAGE_EXTENSIONS: &[&str] = &["jpg", "jpeg", "png", "gif", "webp", "avif", "svg", "bmp", "tif", "tiff", "heic", "ico"];
const GENERIC: &[&str] = &[
    "image", "images", "img", "picture", "pic", "photo", "photograph", "graphic", "graphics", "icon", "spacer", "placeholder", "untitled", "alt",
    "alt text", "image description", "bild", "foto", "grafik", "imagen", "imagem", "immagine", "afbeelding",
];

/// Why the alt says nothing: `file-name` or `generic-word`.
pub fn meaningless(image: &BarrierImage) -> Option<&'static str> {
    let alt = image.alt.as_deref()?.trim();
    if alt.is_empty() {
        return None;
    }
    let lower = alt.to_lowercase();
    let plain: String = lower.chars().filter(|c| !matches!(c, '.' | ':' | '!' | '[' | ']' | '(' | ')')).collect();
    if GENERIC.contains(&plain.trim()) {
        return Some("generic-word");
    }
    if lower.contains(char::is_whitespace) {
        return None;
    }
    let has_ext = lower.rsplit_once('.').is_some_and(|(stem, ext)| !stem.is_empty() && IMAGE_EXTENSIONS.contains(&ext));
    let file = image.file.to_lowercase();
    let stem = file.rsplit_once('.').map_or(file.as_str(), |(s, _)| s);
    let own_file = !file.is_empty() && (lower == file || (lower == stem && stem.len() >= 4 && stem.chars().any(|c| c.is_ascii_digit() || c == '_' || c == '-')));
    let camera = ["img_", "img-", "dsc", "dscn", "pxl_", "screenshot", "scan"].iter().any(|p| {
        lower.strip_prefix(p).is_some_and(|rest| rest.trim_start_matches(['_', '-']).chars().next().is_some_and(|c| c.is_ascii_digit()))
    });
    let underscored = lower.contains('_') && lower.chars().any(|c| c.is_alphabetic());
    (has_ext || own_file || camera || underscored).then_some("file-name")
}

/// True when the alt is what names the image (no aria name, not presentational).
pub fn named_by_alt(image: &BarrierImage) -> bool {
    !image.aria_name && !image.role.as_deref().is_some_and(|r| matches!(r.trim().to_ascii_lowercase().as_str(), "none" | "presentation"))
}

impl Check for ImageAltMeaningless {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        for image in facts.images.iter().filter(|i| named_by_alt(i)) {
            let Some(reason) = meaningless(image) else { continue };
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => image.selector,
                "snippet" => image.snippet,
                "alt" => image.alt,
                "reason" => reason,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_page, run};
    use super::*;
    use crate::model::BarrierFacts;

    fn img(alt: &str, file: &str) -> BarrierImage {
        BarrierImage { selector: format!("img[alt='{alt}']"), alt: Some(alt.into()), file: file.into(), ..Default::default() }
    }

    #[test]
    fn file_names_and_generic_words_say_nothing() {
        for (alt, file, reason) in [
            ("IMG_0234.jpg", "a.jpg", "file-name"),
            ("photo.png", "x.png", "file-name"),
            ("banner_final-2", "b.jpg", "file-name"),
            ("DSC01234", "c.jpg", "file-name"),
            ("hero-2026", "hero-2026.webp", "file-name"),
            ("Image", "d.jpg", "generic-word"),
            ("spacer", "spacer.gif", "generic-word"),
            ("[picture]", "e.jpg", "generic-word"),
        ] {
            assert_eq!(meaningless(&img(alt, file)), Some(reason), "{alt}");
        }
        for alt in ["", "Logo", "Volunteers planting trees", "ACME", "Sunset.", "3D-printer"] {
            assert_eq!(meaningless(&img(alt, "sunset.jpg")), None, "{alt}");
        }
    }

    #[test]
    fn fires_only_on_images_named_by_their_alt() {
        let mut aria = img("image", "a.png");
        aria.aria_name = true;
        let mut decorative = img("spacer", "s.gif");
        decorative.role = Some("presentation".into());
        let facts = BarrierFacts { images: vec![img("IMG_0234.jpg", "IMG_0234.jpg"), aria, decorative], ..Default::default() };
        let f = run(&ImageAltMeaningless, &barrier_page(facts));
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].evidence["alt"].as_str(), f[0].evidence["reason"].as_str()), (Some("IMG_0234.jpg"), Some("file-name")));
    }
}
