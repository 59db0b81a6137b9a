//! The text recognised in a page's images (`browser/image_text.js` lists them, a clipped CDP
//! screenshot of each is read by Tesseract): what the image checks compare with the image's
//! accessible name.

use serde::{Deserialize, Serialize};

/// One word Tesseract recognised.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OcrWord {
    pub text: String,
    /// Tesseract's confidence, 0 to 100.
    pub confidence: f32,
}

/// One image that was read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ImageReading {
    /// `img`, `input-image`, `role-img` (an element with role=img, an `svg` among them),
    /// `canvas` (with a name), `css-background` (an element without text of its own whose CSS
    /// background is an image).
    pub kind: String,
    pub selector: String,
    pub snippet: String,
    /// The image's URL when it has one (`currentSrc`, the background's `url()`).
    pub url: Option<String>,
    /// The accessible name (alt, aria-label, aria-labelledby, title); empty when none.
    pub name: String,
    /// Marked decorative: `alt=""`, role=presentation or none.
    pub decorative: bool,
    /// Why the image may be a logo (`name`, `file`, `attribute`, `home-link`), when it may.
    pub logo_hint: Option<String>,
    /// Rendered size in CSS pixels.
    pub width: u32,
    pub height: u32,
    /// The words recognised, in reading order.
    pub words: Vec<OcrWord>,
}

/// The images of a page that were read, bounded in count and size.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ImageText {
    pub images: Vec<ImageReading>,
    /// Candidates beyond the per-page cap or the time budget, not read.
    pub omitted: usize,
    /// Candidates not read because their pixels do not look like text (the default; `--ocr`
    /// reads them too).
    pub passed_over: usize,
    /// Images whose words were remembered from an identical capture read before.
    pub recalled: usize,
    /// Time spent in screenshots and recognition, in ms.
    pub ocr_ms: u64,
}
