use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::page_view::PageView;
use crate::model::{ImageReading, OcrWord};
use crate::{declare_check, evidence};

declare_check! {
    /// An image shows text that could have been real text (ACT rule 0va7u6).
    ///
    /// Judged from the text Tesseract recognised in each image's pixels (`ImageText`: `img`,
    /// decorative ones included, `input type=image`, role=img, named canvas, and elements
    /// without text of their own whose CSS background is an image, captured with the page's own
    /// text hidden). An image fires when the words read with confidence (70 or more, two
    /// letters or digits or more, mostly letters) hold at least 5 letters and one word of 4 or
    /// more: `Press me!` on a button image, a paragraph in a PNG. Single letters (`A` buttons),
    /// short marks (`W3C`) and the unsure fragments photos give do not. Left out, as the
    /// success criterion's exceptions: logos (`logo` in the name, the file name, the element's
    /// or a close ancestor's id or class, or an image in a link to the start page) and images
    /// whose name describes the lettering itself (`letters`, `font`, `typeface`, `calligraphy`)
    /// or says it is a screenshot (the presentation is the point), and images where most of what was recognised is unsure
    /// (a photo whose book spines or signs hold a few legible words). A heuristic:
    /// `needs_review: true`.
    pub struct ImageOfText {
        id: "accessibility.image-of-text",
        severity: Medium,
        title: "Image shows text that could be real text",
        fires_when: "text recognised in an image (OCR) holds words, and the image is neither a logo nor a sample of lettering (heuristic: needs review)",
        description: "Text in an image cannot be resized without blurring, restyled (colours, spacing, fonts) or reflowed, and is lost to translation and search. WCAG 2.2 success criterion 1.4.5 (Images of Text) asks for real text wherever the technology can present it, logos and essential presentation excepted.",
        remediation: "Set the text as HTML text styled with CSS (web fonts, colours, backgrounds, shadows) instead of an image; for a button, a <button> with text. Where the image must stay, its alternative text must carry the same words.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "kind", "recognised_text", "name", "needs_review", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Understanding/images-of-text.html"),
        requires: [ImageText],
        act_ids: ["0va7u6"],
        level: AA,
        wcag: ["1.4.5"],
    }
}

/// A word counts when read with at least this confidence.
pub const MIN_CONFIDENCE: f32 = 70.0;
/// Letters (and digits) an image's counted words must hold together...
pub const MIN_LETTERS: usize = 5;
/// ...with one word at least this long.
pub const MIN_LONGEST_WORD: usize = 4;

/// At least this share of the tokens recognised (with a letter or digit) must be counted words:
/// a photo's incidental text (book spines, signs) comes with many unsure fragments, an image of
/// text with few.
pub const MIN_SURE_SHARE: f64 = 0.5;

/// Words of a name that say the presentation itself is shown (essential presentation): the
/// lettering, or a screen as it looked (a screenshot's text is the screen's, not the author's).
const LETTERING: &[&str] = &[
    "letter", "letters", "lettering", "font", "fonts", "typeface", "typefaces", "typography", "calligraphy", "handwriting", "handwritten",
    "glyph", "glyphs", "wordmark", "logotype", "screenshot", "screenshots", "screengrab", "screencap",
];

/// The words an image holds, read with confidence (letters and digits only).
pub fn confident_words(words: &[OcrWord]) -> Vec<String> {
    words
        .iter()
        .filter(|w| w.confidence >= MIN_CONFIDENCE)
        .map(|w| w.text.chars().filter(|c| c.is_alphanumeric()).collect::<String>())
        .filter(|w| {
            let letters = w.chars().filter(|c| c.is_alphabetic()).count();
            w.chars().count() >= 2 && letters * 2 >= w.chars().count()
        })
        .collect()
}

/// True when the image holds text enough to be an image of text, and little else read.
fn holds_text(words: &[String], all: &[OcrWord]) -> bool {
    let letters: usize = words.iter().map(|w| w.chars().count()).sum();
    let tokens = all.iter().filter(|w| w.text.chars().any(char::is_alphanumeric)).count();
    letters >= MIN_LETTERS
        && words.iter().any(|w| w.chars().count() >= MIN_LONGEST_WORD)
        && words.len() as f64 >= MIN_SURE_SHARE * tokens as f64
}

/// True when the image is exempt: a logo, or lettering described as such.
fn exempt(image: &ImageReading) -> bool {
    if image.logo_hint.is_some() {
        return true;
    }
    let name = image.name.to_lowercase();
    name.split(|c: char| !c.is_alphanumeric()).any(|w| LETTERING.contains(&w))
        || ["written in", "screen shot", "screen capture"].iter().any(|p| name.contains(p))
}

impl Check for ImageOfText {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(read) = page.image_text() else { return };
        for image in &read.images {
            let words = confident_words(&image.words);
            if exempt(image) || !holds_text(&words, &image.words) {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => image.selector,
                "snippet" => image.snippet,
                "kind" => image.kind,
                "recognised_text" => words.join(" "),
                "name" => image.name,
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

    fn w(text: &str, confidence: f32) -> OcrWord {
        OcrWord { text: text.into(), confidence }
    }

    fn image(selector: &str, name: &str, words: Vec<OcrWord>) -> ImageReading {
        ImageReading { kind: "img".into(), selector: selector.into(), snippet: "<img>".into(), name: name.into(), width: 200, height: 60, words, ..Default::default() }
    }

    fn read(images: Vec<ImageReading>) -> PageSnapshot {
        let mut p = page(DomFacts::default());
        p.image_text = Some(ImageText { images, ..Default::default() });
        p
    }

    #[test]
    fn fires_on_images_of_words() {
        let p = read(vec![
            image("#button", "Press me", vec![w("Press", 94.0), w("me!", 93.0)]),
            image("#decorative", "", vec![w("Welcome", 76.0)]),
            image("#paragraph", "The ACT rules format", vec![w("The", 92.0), w("Accessibility", 79.0), w("Conformance", 96.0)]),
        ]);
        let f = run(&ImageOfText, &p);
        let selectors: Vec<_> = f.iter().map(|f| f.evidence["selector"].as_str().unwrap_or_default()).collect();
        assert_eq!(selectors, ["#button", "#decorative", "#paragraph"]);
        assert_eq!(f[0].evidence["recognised_text"], "Press me");
        assert_eq!(f[0].evidence["needs_review"], true);
        assert_eq!(f[0].severity, crate::model::Severity::Medium);
    }

    #[test]
    fn quiet_on_logos_letters_photos_and_lettering() {
        let mut logo = image("#logo", "W3C", vec![w("World", 90.0), w("Wide", 90.0), w("Web", 90.0)]);
        logo.logo_hint = Some("file".into());
        let p = read(vec![
            logo,
            // Short marks and single letters.
            image("#mark", "W3C", vec![w("W3C", 85.0)]),
            image("#bigger", "Increase text size", vec![w("A", 97.0)]),
            // A photo: unsure fragments, or sure but too short.
            image("#photo", "Book shop", vec![w("Panas", 55.0), w("ic", 80.0), w("=", 84.0), w("Ih", 71.0)]),
            // A photo with some legible titles among many fragments.
            image(
                "#books",
                "",
                ["al", "I", "il", "1OGUN", "Mii", "fi", "ik", "i", "NINJA", "Japanese", "Swords", "y", "RAL", "ee", "Fai", "pee"]
                    .iter()
                    .map(|t| w(t, if ["NINJA", "Japanese", "Swords"].contains(t) { 90.0 } else { 40.0 }))
                    .collect(),
            ),
            // Numbers and symbols are not words.
            image("#chart", "Sales chart", vec![w("2023", 90.0), w("2024", 92.0), w("%%", 90.0)]),
            // The lettering is the point, and the name says so.
            image("#ivanhoe", "The word Ivanhoe written in a style that resembles old medieval letters", vec![w("Ivanhoe", 90.0)]),
            // A screen as it looked: its text is the screen's.
            image("#shot", "Screenshot \"after login\" of the journey \"sign in\", step 5", vec![w("account", 90.0), w("back", 91.0), w("shop", 92.0)]),
            image("#capture", "Screen capture of the checkout", vec![w("Checkout", 90.0), w("total", 91.0)]),
        ]);
        assert!(run(&ImageOfText, &p).is_empty(), "{:?}", run(&ImageOfText, &p));
        // Nothing read (the gatherer did not run): nothing judged.
        assert!(run(&ImageOfText, &page(DomFacts::default())).is_empty());
    }
}
