use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::page_view::PageView;
use super::name_quality::{is_file_name, is_generic_image_name, similar_token, words};
use crate::model::{ImageReading, OcrWord};
use crate::{declare_check, evidence};

declare_check! {
    /// An image's accessible name does not describe the image (after ACT rule qt1vmo).
    ///
    /// Not mapped to qt1vmo: its failed cases are logos of 72x48 px named for another logo, and
    /// Tesseract's reading of so small a logo changes with the capture's scale (`W3C` at 85
    /// confidence, `WSC` at 52, or nothing), so the rule's verdicts would depend on chance.
    ///
    /// Judged over the named, non-decorative images of `ImageText` (`img`, `input type=image`,
    /// role=img including `svg`, named canvas, rendered and not aria-hidden), one finding per
    /// image, for the first of these reasons:
    /// - `file-name`: the name is a file name or a camera's default (`IMG_2041.JPG`);
    /// - `generic`: the name is only generic words (`image`, `photo`, `icon`, `logo 2`);
    /// - `contradicts-image-text`: the image shows words (read by Tesseract with confidence 80
    ///   or more, three letters or digits or more) and a short name (5 words at most, as a logo's
    ///   or a button's is) shares none of them, allowing one letter of recognition error: the
    ///   W3C logo named `ERCIM logo`, the HTML5 logo named `W3C`;
    /// - `repeated`: an `img` carries the same name as an earlier `img` of the page showing
    ///   another file.
    ///
    /// Heuristics: `needs_review: true`. Images whose name is empty are `accessibility.image-alt`'s.
    pub struct ImageNameNotDescriptive {
        id: "accessibility.image-name-not-descriptive",
        severity: Medium,
        title: "Image name does not describe the image",
        fires_when: "an image's accessible name is a file name, only generic words, repeats another image's name, or names other words than the image shows (OCR) (heuristic: needs review)",
        description: "A screen reader reads an image's name in place of the image. A file name, a word such as \"image\", a name copied onto different images, or a name that contradicts the text the image shows gives blind users nothing or the wrong thing: WCAG 2.2 success criterion 1.1.1 (Non-text Content).",
        remediation: "Name each image for what it shows or does in its context: the words of a logo or button (`alt=\"W3C\"` on the W3C logo), the content of a photo. Mark purely decorative images with `alt=\"\"` instead of a placeholder name.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "name", "reason", "recognised_text", "same_as", "needs_review", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/non-text-content.html"),
        requires: [ImageText],
        level: A,
        wcag: ["1.1.1"],
    }
}

/// A recognised word counts when read with at least this confidence...
pub const MIN_CONFIDENCE: f32 = 80.0;
/// ...and holds at least this many letters or digits (two of them letters).
pub const MIN_WORD_CHARS: usize = 3;
/// Names longer than this many words are descriptions: they are not compared with the text
/// an image shows (a photo's name need not spell the sign in it).
pub const MAX_COMPARED_NAME_WORDS: usize = 5;

/// The words an image shows, read with confidence, lowercased.
fn shown_words(words: &[OcrWord]) -> Vec<String> {
    words
        .iter()
        .filter(|w| w.confidence >= MIN_CONFIDENCE)
        .map(|w| w.text.chars().filter(|c| c.is_alphanumeric()).collect::<String>().to_lowercase())
        .filter(|w| w.chars().count() >= MIN_WORD_CHARS && w.chars().filter(|c| c.is_alphabetic()).count() >= 2)
        .collect()
}

/// True when a shown word is in the name: as a word, or inside the name written without spaces
/// (`HTML5` in `HTML 5 logo`), or the other way round (`W3C` in `W3Corp`).
fn named(shown: &str, name_words: &[String], joined: &str) -> bool {
    joined.contains(shown) || name_words.iter().any(|n| similar_token(shown, n) || (n.chars().count() >= 3 && shown.contains(n.as_str())))
}

/// Why an image's name does not describe it, with the recognised text when that is why.
fn judge(image: &ImageReading, earlier: &[&ImageReading]) -> Option<(&'static str, Option<String>, Option<String>)> {
    let name = image.name.trim();
    if is_file_name(name) {
        return Some(("file-name", None, None));
    }
    if is_generic_image_name(name) {
        return Some(("generic", None, None));
    }
    let name_words = words(name);
    let shown = shown_words(&image.words);
    if !shown.is_empty() && name_words.len() <= MAX_COMPARED_NAME_WORDS {
        let joined = name_words.concat();
        if !shown.iter().any(|s| named(s, &name_words, &joined)) {
            return Some(("contradicts-image-text", Some(shown.join(" ")), None));
        }
    }
    if image.kind == "img" {
        let url = image.url.as_deref().filter(|u| !u.is_empty())?;
        let same_name: Vec<&&ImageReading> = earlier.iter().filter(|e| e.kind == "img" && e.name.trim().eq_ignore_ascii_case(name)).collect();
        // A file shown again under its name was judged where it first appeared.
        if same_name.iter().any(|e| e.url.as_deref() == Some(url)) {
            return None;
        }
        let same = same_name.into_iter().find(|e| e.url.as_deref().is_some_and(|u| !u.is_empty()))?;
        return Some(("repeated", None, Some(same.selector.clone())));
    }
    None
}

impl Check for ImageNameNotDescriptive {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(read) = page.image_text() else { return };
        let named: Vec<&ImageReading> = read.images.iter().filter(|i| !i.decorative && !i.name.trim().is_empty()).collect();
        for (i, image) in named.iter().enumerate() {
            let Some((reason, recognised, same_as)) = judge(image, &named[..i]) else { continue };
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => image.selector,
                "snippet" => image.snippet,
                "name" => image.name,
                "reason" => reason,
                "recognised_text" => recognised,
                "same_as" => same_as,
                "needs_review" => true,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{page, run};
    use super::*;
    use crate::model::{DomFacts, ImageText, PageSnapshot};

    fn image(selector: &str, kind: &str, name: &str, url: &str, shown: &[(&str, f32)]) -> ImageReading {
        ImageReading {
            kind: kind.into(),
            selector: selector.into(),
            snippet: format!("<{kind}>"),
            url: (!url.is_empty()).then(|| url.to_string()),
            name: name.into(),
            width: 72,
            height: 48,
            words: shown.iter().map(|(t, c)| OcrWord { text: (*t).into(), confidence: *c }).collect(),
            ..Default::default()
        }
    }

    fn read(images: Vec<ImageReading>) -> PageSnapshot {
        let mut p = page(DomFacts::default());
        p.image_text = Some(ImageText { images, ..Default::default() });
        p
    }

    fn reasons(p: &PageSnapshot) -> Vec<(String, String)> {
        run(&ImageNameNotDescriptive, p)
            .iter()
            .map(|f| {
                assert_eq!(f.evidence["needs_review"], true);
                (f.evidence["selector"].as_str().unwrap_or_default().into(), f.evidence["reason"].as_str().unwrap_or_default().into())
            })
            .collect()
    }

    #[test]
    fn act_qt1vmo_cases() {
        let logo = "https://act.test/w3c-logo.png";
        // Passed: the name says what the image shows.
        let passed = read(vec![
            image("#p1", "img", "W3C logo", logo, &[("W3C", 85.0)]),
            image("#p2", "role-img", "HTML 5 logo", "", &[("HTML", 88.0), ("5", 60.0)]),
            image("#p3", "canvas", "W3C logo", "", &[("W3C", 84.0)]),
        ]);
        assert!(reasons(&passed).is_empty());
        // Failed: the name names another logo.
        let failed = read(vec![
            image("#f1", "img", "ERCIM logo", logo, &[("W3C", 85.0)]),
            image("#f2", "role-img", "W3C", "", &[("HTML", 88.0)]),
            image("#f3", "canvas", "HTML 5 logo", "", &[("W3C", 84.0)]),
        ]);
        let r = reasons(&failed);
        assert_eq!(r.len(), 3, "{r:?}");
        assert!(r.iter().all(|(_, why)| why == "contradicts-image-text"));
        assert_eq!(run(&ImageNameNotDescriptive, &failed)[0].evidence["recognised_text"], "w3c");
    }

    #[test]
    fn file_names_generic_words_and_repeated_names() {
        let p = read(vec![
            image("#a", "img", "IMG_2041.JPG", "https://a.test/1.jpg", &[]),
            image("#b", "img", "image", "https://a.test/2.jpg", &[]),
            image("#c", "img", "Red running shoe", "https://a.test/3.jpg", &[]),
            image("#d", "img", "Red running shoe", "https://a.test/4.jpg", &[]),
            // The same file shown twice may carry the same name.
            image("#e", "img", "Red running shoe", "https://a.test/3.jpg", &[]),
        ]);
        let r = reasons(&p);
        let expect = [("#a", "file-name"), ("#b", "generic"), ("#d", "repeated")];
        assert_eq!(r, expect.map(|(s, w)| (s.to_string(), w.to_string())));
        assert_eq!(run(&ImageNameNotDescriptive, &p)[2].evidence["same_as"], "#c");
    }

    #[test]
    fn quiet_on_decorative_unnamed_described_and_unsure_images() {
        let mut decorative = image("#deco", "img", "", "https://a.test/fireworks.jpg", &[("STOP", 95.0)]);
        decorative.decorative = true;
        let p = read(vec![
            decorative,
            image("#unnamed", "img", "", "https://a.test/x.jpg", &[("Sale", 95.0)]),
            // A long description is not compared with a sign in the photo.
            image("#photo", "img", "Cyclists wait at a crossing on a rainy morning in Ghent", "https://a.test/c.jpg", &[("STOP", 95.0)]),
            // Unsure or too short readings.
            image("#unsure", "img", "Fireworks over Paris", "https://a.test/f.jpg", &[("Panas", 55.0), ("ic", 90.0)]),
            // One letter of recognition error is forgiven.
            image("#misread", "img", "W3C logo", "https://a.test/w.png", &[("WSC", 85.0)]),
        ]);
        assert!(reasons(&p).is_empty(), "{:?}", reasons(&p));
    }
}
