//! Layout and reading facts (`PageSnapshot::layout`): what `browser/layout.js` measured at the
//! page's own viewport (reading facts, text lost at 200% text size and with WCAG text spacing),
//! at a 320 CSS px wide viewport (text cut at the edge: reflow), and the animations of the page's
//! images, read from their bytes (`browser/gather/animation.rs`). Every list is bounded
//! (`MAX_LAYOUT_ENTRIES`).

use serde::{Deserialize, Serialize};

/// At most this many entries per list (the in-page script stops at 40; the rest is cut here).
pub const MAX_LAYOUT_ENTRIES: usize = 40;

/// An element the layout gatherer points at, with what it measured there.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TextRun {
    pub selector: String,
    pub snippet: String,
    /// The start of its text (at most 80 characters).
    pub text: String,
    /// Characters of text whose nearest block is this element.
    pub chars: usize,
    /// Line boxes (the block's content height over its line height).
    pub lines: usize,
    pub chars_per_line: usize,
    pub font_size_px: f64,
    /// Sentence ends (`.`, `!`, `?` before a space or the end).
    pub sentences: usize,
    /// Letters, for capitals.
    pub letters: usize,
    /// For capitals: `text-transform` (CSS uppercase) or `literal` (typed in capitals).
    pub how: String,
    pub width_px: f64,
}

/// Text a box no longer shows once the text grew (`how`: `text-200` or `text-spacing`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ClippedText {
    pub selector: String,
    pub snippet: String,
    pub text: String,
    pub how: String,
    /// `vertical` or `horizontal`.
    pub axis: String,
    /// How far the text reaches beyond the box's padding box, in CSS px.
    pub lost_px: f64,
    /// The box's inner size on that axis, in CSS px.
    pub box_px: f64,
}

/// One text-growth experiment: the boxes whose text it cut, or why it did not run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ClipTest {
    pub clipped: Vec<ClippedText>,
    /// Why the experiment did not run (`no box clips its content`, too many elements).
    pub skipped: Option<String>,
    /// Boxes that clip their content and hold text (the ones watched).
    pub boxes: usize,
}

/// An element whose text is cut at the right edge of a 320 CSS px wide viewport.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Overflow {
    pub selector: String,
    pub snippet: String,
    pub text: String,
    /// Where its text ends, in CSS px from the viewport's left edge.
    pub text_right_px: f64,
    pub width_px: f64,
}

/// The page at 320 x 256 CSS px (WCAG 1.4.10).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Reflow {
    pub viewport_width: u32,
    /// The document's scroll width there.
    pub scroll_width: u32,
    pub overflowing: Vec<Overflow>,
}

/// Reading facts at the page's own viewport.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Reading {
    /// Text runs of 20 characters or more set below 10 px.
    pub small_text: Vec<TextRun>,
    /// Blocks of two lines or more averaging over 80 characters a line.
    pub long_lines: Vec<TextRun>,
    /// Blocks of two lines or more set `text-align: justify`.
    pub justified: Vec<TextRun>,
    /// Blocks of 60 letters or more, 90% of them capitals.
    pub all_caps: Vec<TextRun>,
    /// Blocks of two lines or more, 80% of their text italic.
    pub italic: Vec<TextRun>,
}

/// An image's animation, read from its bytes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AnimatedImage {
    pub url: String,
    pub selector: String,
    pub snippet: String,
    /// `gif`, `apng` or `webp`.
    pub format: String,
    pub frames: u32,
    /// One pass through the frames, in ms (frame delays as Chromium shows them).
    pub loop_ms: u64,
    /// Plays in all; `None` loops forever.
    pub plays: Option<u32>,
    pub rendered_width: u32,
    pub rendered_height: u32,
    /// A control near the image whose name says pause or stop.
    pub pause_control: bool,
    /// The image sits in a `<picture>` with a `prefers-reduced-motion` source.
    pub reduced_motion_alternative: bool,
}

impl AnimatedImage {
    /// How long it runs, in ms; `None` when it loops forever.
    pub fn runs_ms(&self) -> Option<u64> {
        self.plays.map(|p| self.loop_ms.saturating_mul(u64::from(p)))
    }
}

/// Everything the layout gatherer measured on a page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LayoutFacts {
    pub reading: Reading,
    pub text_resize: ClipTest,
    pub text_spacing: ClipTest,
    /// `None` when the 320 px viewport could not be emulated.
    pub reflow: Option<Reflow>,
    /// Images that animate (more than one frame); still images are left out.
    pub animations: Vec<AnimatedImage>,
    /// Images that could not be read (no body in the network record, too large, unknown format).
    pub images_unread: usize,
    /// More elements than the gatherer reads: the page was read in part.
    pub truncated: bool,
    /// How much of the page was read when it was read in part (`truncated`).
    pub sampled: Option<super::Sample>,
    /// Time spent in the page, in ms.
    pub ms: u64,
}

impl LayoutFacts {
    /// Cuts every list to `MAX_LAYOUT_ENTRIES`.
    pub fn bound(&mut self) {
        let r = &mut self.reading;
        for list in [&mut r.small_text, &mut r.long_lines, &mut r.justified, &mut r.all_caps, &mut r.italic] {
            list.truncate(MAX_LAYOUT_ENTRIES);
        }
        self.text_resize.clipped.truncate(MAX_LAYOUT_ENTRIES);
        self.text_spacing.clipped.truncate(MAX_LAYOUT_ENTRIES);
        if let Some(reflow) = &mut self.reflow {
            reflow.overflowing.truncate(MAX_LAYOUT_ENTRIES);
        }
        self.animations.truncate(MAX_LAYOUT_ENTRIES);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_script_output_and_bounds_it() {
        let json = r##"{"reading":{"small_text":[{"selector":"#a","font_size_px":8,"text":"tiny","chars":30}]},
            "text_resize":{"clipped":[],"skipped":"no box clips its content","boxes":0},"extra":1}"##;
        let mut facts: LayoutFacts = serde_json::from_str(json).unwrap();
        assert_eq!(facts.reading.small_text[0].font_size_px, 8.0);
        assert_eq!(facts.text_resize.skipped.as_deref(), Some("no box clips its content"));
        facts.reading.long_lines = vec![TextRun::default(); 100];
        facts.bound();
        assert_eq!(facts.reading.long_lines.len(), MAX_LAYOUT_ENTRIES);
    }

    #[test]
    fn an_endless_animation_has_no_end() {
        let a = AnimatedImage { loop_ms: 1200, plays: Some(3), ..Default::default() };
        assert_eq!(a.runs_ms(), Some(3600));
        assert_eq!(AnimatedImage { plays: None, ..a }.runs_ms(), None);
    }
}
