//! Whether an image is worth reading for text, decided from its own pixels before Tesseract
//! runs: text drawn in an image is glyph edges of strong contrast, close together, on few
//! colours (a banner, a button, a logo's words) or over a photo in a colour of its own. A photo
//! without words has softer edges spread over many colours; a flat picture has no edges at all.
//!
//! Pure: PNG bytes in, a [`Look`] and a verdict out; unit-tested on images drawn here. The page
//! computes the same numbers from an image's own pixels (`browser/image_look.js`, for the first
//! look of an `img`); a test here runs it under Node on the same images and requires equality. The
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
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Deserialize)]
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
    /// True for numbers a look can have (shares between 0 and 1, at most every colour bucket):
    /// what the page answered is checked before it is believed.
    pub fn is_plausible(&self) -> bool {
        let share = |v: f64| (0.0..=1.0).contains(&v);
        share(self.strong_edges) && share(self.top_two) && self.colours <= BUCKETS
    }

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

    /// `browser/image_look.js`, run by Node on `images`: its look of each.
    fn looks_in_node(images: &[DecodedImage]) -> Vec<Look> {
        use base64::Engine as _;
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../browser/image_look.js");
        let input: Vec<serde_json::Value> = images
            .iter()
            .map(|i| serde_json::json!({"w": i.width, "h": i.height, "rgba": base64::engine::general_purpose::STANDARD.encode(&i.rgba)}))
            .collect();
        let dir = std::env::temp_dir().join(format!("sitescan-look-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let data = dir.join("images.json");
        std::fs::write(&data, serde_json::to_vec(&input).unwrap()).unwrap();
        let program = format!(
            "const fs = require('fs'); eval(fs.readFileSync({script:?}, 'utf8') + '; globalThis.imageLook = imageLook;');\n\
             const images = JSON.parse(fs.readFileSync({data:?}, 'utf8'));\n\
             console.log(JSON.stringify(images.map((i) => imageLook(new Uint8ClampedArray(Buffer.from(i.rgba, 'base64')), i.w, i.h))));"
        );
        let out = std::process::Command::new("node").arg("-e").arg(program).output().expect("node runs (Node.js is required to build sitescan)");
        let _ = std::fs::remove_dir_all(&dir);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    }

    #[test]
    fn the_page_computes_the_same_look() {
        let mut images = vec![
            image(600, 120, banner),
            image(300, 200, |_, _| [30, 120, 200]),
            image(400, 300, photo),
            image(600, 300, patches),
            // Large enough to be sampled on a grid (steps of 3), and odd sizes.
            image(701, 333, |x, y| if (x / 7 + y / 5) % 3 == 0 { [250, 250, 250] } else { photo(x, y) }),
            image(2, 1, |x, _| if x == 0 { [0, 0, 0] } else { [255, 255, 255] }),
            image(1, 5, |_, _| [0, 0, 0]),
        ];
        // Translucent pixels: compared over white, bucketed apart below half opacity.
        let mut translucent = image(120, 40, banner);
        for (i, px) in translucent.rgba.chunks_exact_mut(4).enumerate() {
            px[3] = (i * 37 % 256) as u8;
        }
        images.push(translucent);
        let in_node = looks_in_node(&images);
        for (img, node) in images.iter().zip(in_node) {
            let here = Look::of(img, 1.0);
            // The same integers divided alike; JSON's text of a double may come back an ulp apart.
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-12;
            assert!(close(node.strong_edges, here.strong_edges) && close(node.top_two, here.top_two) && node.colours == here.colours, "{}x{}: {node:?} against {here:?}", img.width, img.height);
            assert!(node.is_plausible());
        }
    }

    #[test]
    fn an_image_that_does_not_decode_has_no_look() {
        assert_eq!(Look::of_png(b"not a png", 1.0), None);
        assert_eq!(Look::of(&DecodedImage { width: 1, height: 1, rgba: vec![0, 0, 0, 255] }, 1.0), Look::default());
    }
}
