//! Whether an image is worth reading for text, decided from its own pixels before Tesseract
//! runs: text drawn in an image is glyph edges of strong contrast, close together, on few
//! colours (a banner, a button, a logo's words) or over a photo in a colour of its own. A photo
//! without words has softer edges spread over many colours; a flat picture has no edges at all.
//!
//! Pure: PNG bytes in, a [`Look`] and a verdict out; unit-tested on images drawn here. The
//! thresholds were set on the images of the ACT rules' test assets, the GDS audit pages and the
//! saved real pages, each read in full (`--ocr`, `bench/ocr/looks.py`): no image there in which
//! Tesseract reads real words is passed over, and most photographs and blank or flat pictures
//! are (bench/RESULTS.md has the counts).

use super::pixel_contrast::DecodedImage;

/// Most samples taken of one image (a grid over it).
const SAMPLES: usize = 65_536;
/// A step between two samples whose luminance differs by this much (0-255) is a strong edge.
const STRONG_EDGE: i32 = 96;
/// Colours are counted in 4 bits a channel.
const BUCKETS: usize = 4096;

/// What an image's pixels look like.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Look {
    /// Share of horizontal steps between neighbouring samples that are strong edges.
    pub strong_edges: f64,
    /// Share of the samples in the two most frequent colours.
    pub top_two: f64,
    /// Colours holding at least 0.2 % of the samples.
    pub colours: usize,
}

impl Look {
    /// Looks at a PNG; `None` when it does not decode (the image is then read, never skipped).
    pub fn of_png(png: &[u8], scale: f64) -> Option<Look> {
        DecodedImage::from_png(png).ok().map(|img| Look::of(&img, scale))
    }

    /// Looks at an image captured at `scale` device pixels a CSS pixel: neighbours are compared a
    /// CSS pixel apart, so that an image scaled up (and so blurred) shows its edges as sharp as
    /// it was drawn.
    pub fn of(img: &DecodedImage, scale: f64) -> Look {
        let (w, h) = (img.width, img.height);
        if w < 2 || h < 1 {
            return Look::default();
        }
        let step = (((w * h) as f64 / SAMPLES as f64).sqrt().ceil() as usize).max(1);
        let gap = (scale.round() as usize).clamp(1, w - 1);
        let lum = |x: usize, y: usize| {
            let i = (y * w + x) * 4;
            let p = &img.rgba[i..i + 4];
            // Over white, as the page behind a transparent image usually is.
            let a = i32::from(p[3]);
            let over = |c: u8| (i32::from(c) * a + 255 * (255 - a)) / 255;
            (over(p[0]) * 54 + over(p[1]) * 183 + over(p[2]) * 19) >> 8
        };
        let mut counts = vec![0u32; BUCKETS];
        let (mut samples, mut steps, mut strong) = (0u32, 0u32, 0u32);
        for y in (0..h).step_by(step) {
            for x in (0..w).step_by(step) {
                let i = (y * w + x) * 4;
                let p = &img.rgba[i..i + 4];
                let bucket = if p[3] < 128 { BUCKETS - 1 } else { (usize::from(p[0] >> 4) << 8) | (usize::from(p[1] >> 4) << 4) | usize::from(p[2] >> 4) };
                counts[bucket] += 1;
                samples += 1;
                if x + gap < w {
                    steps += 1;
                    if (lum(x, y) - lum(x + gap, y)).abs() >= STRONG_EDGE {
                        strong += 1;
                    }
                }
            }
        }
        let min = (f64::from(samples) * 0.002).max(1.0);
        let colours = counts.iter().filter(|&&c| f64::from(c) >= min).count();
        counts.sort_unstable_by(|a, b| b.cmp(a));
        Look {
            strong_edges: if steps == 0 { 0.0 } else { f64::from(strong) / f64::from(steps) },
            top_two: f64::from(counts[0] + counts[1]) / f64::from(samples.max(1)),
            colours,
        }
    }
}

/// An image whose two main colours cover this share is drawn on a plain ground (a logo, a
/// banner, a paragraph set as a picture): a few glyph edges are words.
const PLAIN: f64 = 0.9;
/// Below this share, and in many colours, it is a photograph.
const PHOTO: f64 = 0.2;
const PHOTO_COLOURS: usize = 40;
/// The strong edges (a share of the steps) it takes to read each: a plain drawing with a line of
/// small text has few; a photograph has some anyway, and words laid over it add many.
const EDGES_PLAIN: f64 = 0.003;
const EDGES_DRAWN: f64 = 0.005;
const EDGES_PHOTO: f64 = 0.02;

impl Look {
    /// Whether Tesseract may find words here: enough strong edges for what the image is.
    pub fn may_hold_text(&self) -> bool {
        let needed = if self.top_two >= PLAIN {
            EDGES_PLAIN
        } else if self.top_two < PHOTO && self.colours >= PHOTO_COLOURS {
            EDGES_PHOTO
        } else {
            EDGES_DRAWN
        };
        self.strong_edges >= needed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(width: usize, height: usize, pixel: impl Fn(usize, usize) -> [u8; 3]) -> DecodedImage {
        let mut rgba = Vec::with_capacity(width * height * 4);
        for y in 0..height {
            for x in 0..width {
                let [r, g, b] = pixel(x, y);
                rgba.extend_from_slice(&[r, g, b, 255]);
            }
        }
        DecodedImage { width, height, rgba }
    }

    /// Dark strokes two pixels wide, three apart, in lines of "glyphs" on white: text as a
    /// banner draws it.
    fn banner(x: usize, y: usize) -> [u8; 3] {
        let in_line = (y % 40) >= 10 && (y % 40) < 30;
        let in_word = (x % 60) < 48;
        if in_line && in_word && x % 5 < 2 { [20, 20, 20] } else { [255, 255, 255] }
    }

    /// A smooth photograph-like field: gradients and a soft wave in many colours.
    fn photo(x: usize, y: usize) -> [u8; 3] {
        let v = ((x as f64 / 9.0).sin() * 40.0 + (y as f64 / 13.0).cos() * 40.0 + 128.0) as u8;
        [v, (x % 256) as u8, (y % 256) as u8]
    }

    #[test]
    fn a_banner_of_text_may_hold_text() {
        let look = Look::of(&image(600, 120, banner), 1.0);
        assert!(look.strong_edges > 0.1 && look.top_two > 0.9, "{look:?}");
        assert!(look.may_hold_text());
    }

    #[test]
    fn a_flat_picture_and_a_smooth_photo_do_not() {
        let flat = Look::of(&image(300, 200, |_, _| [30, 120, 200]), 1.0);
        assert_eq!(flat.strong_edges, 0.0);
        assert!(!flat.may_hold_text(), "{flat:?}");
        let smooth = Look::of(&image(400, 300, photo), 1.0);
        assert!(smooth.top_two < 0.1, "{smooth:?}");
        assert!(!smooth.may_hold_text(), "{smooth:?}");
    }

    /// A photograph as the look sees it: patches in a hundred colours, of middling brightness, so
    /// that neighbouring patches differ but never as glyph and ground do.
    fn patches(x: usize, y: usize) -> [u8; 3] {
        let i = ((x / 8) * 7919 + (y / 8) * 104_729) % 100;
        [16 + (i % 10) as u8 * 16, 100, 16 + (i / 10) as u8 * 16]
    }

    #[test]
    fn a_photograph_alone_does_not_but_white_words_over_it_may() {
        let photo = Look::of(&image(600, 300, patches), 1.0);
        assert!(photo.top_two < PHOTO && photo.colours >= PHOTO_COLOURS && photo.strong_edges == 0.0, "{photo:?}");
        assert!(!photo.may_hold_text());
        let overlaid = |x: usize, y: usize| {
            let in_band = (70..150).contains(&y) && (40..560).contains(&x);
            if in_band && x % 5 < 2 && (x % 60) < 48 { [255, 255, 255] } else { patches(x, y) }
        };
        let look = Look::of(&image(600, 300, overlaid), 1.0);
        assert!(look.top_two < PHOTO && look.colours >= PHOTO_COLOURS && look.strong_edges >= EDGES_PHOTO, "{look:?}");
        assert!(look.may_hold_text());
    }

    #[test]
    fn an_image_scaled_up_is_compared_a_css_pixel_apart() {
        // The banner drawn at 3 device pixels a CSS pixel, each stroke edge blurred over them.
        let scaled = image(1800, 360, |x, y| banner(x / 3, y / 3));
        let look = Look::of(&scaled, 3.0);
        assert!(look.may_hold_text(), "{look:?}");
    }

    #[test]
    fn an_image_that_does_not_decode_has_no_look() {
        assert_eq!(Look::of_png(b"not a png", 1.0), None);
        assert_eq!(Look::of(&DecodedImage { width: 1, height: 1, rgba: vec![0, 0, 0, 255] }, 1.0), Look::default());
    }
}
