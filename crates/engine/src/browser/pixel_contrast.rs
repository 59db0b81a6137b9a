//! Contrast of text measured from rendered pixels: two screenshots of the same box, one as the
//! page draws it and one with the text made transparent (everything behind it, and its shadows,
//! still drawn). Where they differ are the glyphs; the background is the second image, read only
//! in a thin ring around the glyphs (not under them, where anti-aliasing would blend the two, nor
//! far from them, where it does not matter to the reader). Each ring pixel is compared with the
//! text colour drawn over it (its alpha, element opacity folded in, blended with that pixel), and
//! the contrast is the 10th percentile of those ratios: the worst the text meets, with a tenth of
//! the ring allowed for stray pixels (a photo's speck, the edge of a neighbouring box).
//!
//! Pure: PNG bytes in, numbers out (`measure`), unit-tested on images drawn here.

/// A decoded image, 8-bit RGBA, row-major.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedImage {
    pub width: usize,
    pub height: usize,
    pub rgba: Vec<u8>,
}

impl DecodedImage {
    /// Decodes a PNG (any colour type and bit depth the `png` crate reads) into 8-bit RGBA.
    pub fn from_png(bytes: &[u8]) -> Result<DecodedImage, String> {
        // A screenshot of at most `MAX_PIXELS` (the largest clip at a device scale of 2, as
        // RGBA): anything larger is refused before it is decoded.
        let mut decoder = png::Decoder::new_with_limits(std::io::Cursor::new(bytes), png::Limits { bytes: MAX_PIXELS * 4 });
        decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16 | png::Transformations::ALPHA);
        let mut reader = decoder.read_info().map_err(|e| e.to_string())?;
        let size = reader.output_buffer_size().ok_or("the image is too large")?;
        let mut buf = vec![0; size];
        let info = reader.next_frame(&mut buf).map_err(|e| e.to_string())?;
        let (width, height) = (info.width as usize, info.height as usize);
        let rgba = match info.color_type {
            png::ColorType::Rgba => buf[..width * height * 4].to_vec(),
            png::ColorType::GrayscaleAlpha => buf[..width * height * 2].chunks_exact(2).flat_map(|p| [p[0], p[0], p[0], p[1]]).collect(),
            other => return Err(format!("unexpected colour type {other:?}")),
        };
        Ok(DecodedImage { width, height, rgba })
    }

    fn rgb(&self, i: usize) -> [u8; 3] {
        [self.rgba[i * 4], self.rgba[i * 4 + 1], self.rgba[i * 4 + 2]]
    }

    /// The part of the image `width` x `height` pixels from (`x`, `y`), clamped to the image.
    pub fn crop(&self, x: usize, y: usize, width: usize, height: usize) -> DecodedImage {
        let (x, y) = (x.min(self.width), y.min(self.height));
        let (width, height) = (width.min(self.width - x), height.min(self.height - y));
        let mut rgba = Vec::with_capacity(width * height * 4);
        for row in y..y + height {
            let start = (row * self.width + x) * 4;
            rgba.extend_from_slice(&self.rgba[start..start + width * 4]);
        }
        DecodedImage { width, height, rgba }
    }
}

/// The most pixels a decoded capture may hold.
pub const MAX_PIXELS: usize = 1608 * 608 * 4;

/// The text's colour: sRGB channels 0-255 and its alpha (with the opacity of the element and its
/// ancestors folded in).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextColour {
    pub rgb: [f64; 3],
    pub alpha: f64,
}

/// What the pixels say about one run of text.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// The contrast the text meets around its glyphs (10th percentile of the ring's ratios).
    pub ratio: f64,
    /// The text colour as drawn over the background pixel at that percentile.
    pub foreground: [u8; 3],
    /// That background pixel.
    pub background: [u8; 3],
    /// Pixels where the glyphs were drawn.
    pub glyph_pixels: usize,
}

/// A pixel belongs to a glyph when hiding the text changed one of its channels by more than this
/// (anti-aliasing fringes change less and belong to neither glyph nor ring)...
const GLYPH_CHANGE: u8 = 40;
/// ...or, for text whose colour is near its background's, by more than half of what the text's
/// colour over that pixel's background would change it, and at least this (noise).
const GLYPH_CHANGE_MIN: f64 = 8.0;
/// A ring pixel must be unchanged by hiding the text (up to this much noise).
const UNCHANGED: u8 = 3;
/// How far from a glyph pixel the ring reaches (pixels, in any direction).
const RING: usize = 2;
/// Fewer glyph pixels than this: nothing was drawn to judge.
const MIN_GLYPH_PIXELS: usize = 6;

/// WCAG's relative luminance of an sRGB colour (channels 0-255).
pub fn luminance(rgb: [f64; 3]) -> f64 {
    let c = |v: f64| {
        let s = v / 255.0;
        if s <= 0.04045 { s / 12.92 } else { ((s + 0.055) / 1.055).powf(2.4) }
    };
    0.2126 * c(rgb[0]) + 0.7152 * c(rgb[1]) + 0.0722 * c(rgb[2])
}

/// WCAG's contrast ratio of two colours (1 to 21).
pub fn contrast(a: [f64; 3], b: [f64; 3]) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

fn change(a: &DecodedImage, b: &DecodedImage, i: usize) -> u8 {
    (0..3).map(|c| a.rgba[i * 4 + c].abs_diff(b.rgba[i * 4 + c])).max().unwrap_or(0)
}

/// Measures the text drawn in `shown` (the page as drawn) against `hidden` (the same box with
/// the text transparent). `None` when the two differ in size or no glyph was drawn (the text is
/// covered, clipped away, or already invisible).
pub fn measure(shown: &DecodedImage, hidden: &DecodedImage, text: TextColour) -> Option<Measured> {
    if shown.width != hidden.width || shown.height != hidden.height || shown.width == 0 || shown.height == 0 {
        return None;
    }
    let (w, h) = (shown.width, shown.height);
    let alpha = text.alpha.clamp(0.0, 1.0);
    let changes: Vec<u8> = (0..w * h).map(|i| change(shown, hidden, i)).collect();
    // How much a glyph pixel changes at least: text barely unlike its background (the worst
    // contrast) changes its pixels by less than `GLYPH_CHANGE`.
    let glyph: Vec<bool> = (0..w * h)
        .map(|i| {
            let bg = hidden.rgb(i);
            let full = (0..3).map(|c| (alpha * (text.rgb[c] - f64::from(bg[c]))).abs()).fold(0.0, f64::max);
            f64::from(changes[i]) > (full / 2.0).clamp(GLYPH_CHANGE_MIN, f64::from(GLYPH_CHANGE))
        })
        .collect();
    let glyph_pixels = glyph.iter().filter(|&&g| g).count();
    if glyph_pixels < MIN_GLYPH_PIXELS {
        return None;
    }
    // Distance to the nearest glyph pixel, capped: a ring pixel is within RING of one.
    let mut near = vec![false; w * h];
    for y in 0..h {
        for x in 0..w {
            if !glyph[y * w + x] {
                continue;
            }
            for ny in y.saturating_sub(RING)..(y + RING + 1).min(h) {
                for nx in x.saturating_sub(RING)..(x + RING + 1).min(w) {
                    near[ny * w + nx] = true;
                }
            }
        }
    }
    let mut ratios: Vec<(f64, [u8; 3], [u8; 3])> = (0..w * h)
        .filter(|&i| near[i] && changes[i] <= UNCHANGED)
        .map(|i| {
            let bg = hidden.rgb(i);
            let fg = [0, 1, 2].map(|c| text.rgb[c] * alpha + f64::from(bg[c]) * (1.0 - alpha));
            (contrast(fg, bg.map(f64::from)), fg.map(|v| v.round().clamp(0.0, 255.0) as u8), bg)
        })
        .collect();
    if ratios.is_empty() {
        return None;
    }
    ratios.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (ratio, foreground, background) = ratios[ratios.len() / 10];
    Some(Measured { ratio, foreground, background, glyph_pixels })
}

/// `#rrggbb`.
pub fn hex(rgb: [u8; 3]) -> String {
    format!("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An image of `bg` with, when `glyph` is given, a 6x10 block of it at (7, 5) standing for a
    /// glyph, and each pixel passed through `shade` (x, y, colour) for shadows and gradients.
    fn draw(w: usize, h: usize, bg: [u8; 3], glyph: Option<[u8; 3]>, shade: &dyn Fn(usize, usize, [u8; 3]) -> [u8; 3]) -> DecodedImage {
        let mut rgba = Vec::with_capacity(w * h * 4);
        for y in 0..h {
            for x in 0..w {
                let mut c = shade(x, y, bg);
                if let Some(g) = glyph
                    && (7..13).contains(&x)
                    && (5..15).contains(&y)
                {
                    c = g;
                }
                rgba.extend_from_slice(&[c[0], c[1], c[2], 255]);
            }
        }
        DecodedImage { width: w, height: h, rgba }
    }

    fn flat(_: usize, _: usize, c: [u8; 3]) -> [u8; 3] {
        c
    }

    fn grey(v: u8) -> [u8; 3] {
        [v, v, v]
    }

    #[test]
    fn a_crop_takes_the_rows_of_its_box_and_stops_at_the_edges() {
        let img = draw(20, 20, grey(255), Some(grey(0)), &flat);
        let glyph = img.crop(7, 5, 6, 10);
        assert_eq!((glyph.width, glyph.height), (6, 10));
        assert!(glyph.rgba.chunks_exact(4).all(|p| p == [0, 0, 0, 255]));
        let corner = img.crop(15, 18, 10, 10);
        assert_eq!((corner.width, corner.height, corner.rgba.len()), (5, 2, 40));
        assert_eq!(img.crop(30, 0, 5, 5).rgba.len(), 0);
    }

    #[test]
    fn wcag_contrast_of_known_pairs() {
        assert!((contrast([0.0; 3], [255.0; 3]) - 21.0).abs() < 1e-9);
        assert!((contrast([170.0; 3], [255.0; 3]) - 2.32).abs() < 0.01, "#aaa on white");
        assert!((contrast([51.0; 3], [255.0; 3]) - 12.63).abs() < 0.01, "#333 on white");
    }

    #[test]
    fn flat_text_measures_its_own_contrast() {
        let shown = draw(20, 20, grey(255), Some(grey(0xaa)), &flat);
        let hidden = draw(20, 20, grey(255), None, &flat);
        let m = measure(&shown, &hidden, TextColour { rgb: [170.0; 3], alpha: 1.0 }).expect("measured");
        assert!((m.ratio - 2.32).abs() < 0.01, "{m:?}");
        assert_eq!((m.foreground, m.background), (grey(0xaa), grey(255)));
        assert_eq!(m.glyph_pixels, 60);
    }

    #[test]
    fn text_barely_unlike_its_background_is_measured() {
        // #555 on #333 (1.7:1) and #333 on #444 (1.3:1): each channel changes by less than
        // `GLYPH_CHANGE`, and these are the worst failures.
        for (text, bg, below) in [(0x55u8, 0x33u8, 1.8), (0x33, 0x44, 1.4)] {
            let shown = draw(20, 20, grey(bg), Some(grey(text)), &flat);
            let hidden = draw(20, 20, grey(bg), None, &flat);
            let m = measure(&shown, &hidden, TextColour { rgb: [f64::from(text); 3], alpha: 1.0 }).expect("measured");
            assert!(m.ratio < below && m.ratio > 1.0, "{text:x} on {bg:x}: {m:?}");
            assert_eq!(m.glyph_pixels, 60);
        }
        // Text of its background's very colour draws nothing to judge.
        let same = draw(20, 20, grey(0x33), Some(grey(0x33)), &flat);
        assert!(measure(&same, &same, TextColour { rgb: [51.0; 3], alpha: 1.0 }).is_none());
    }

    #[test]
    fn transparent_text_is_blended_with_what_is_behind() {
        // rgba(0,0,0,.3) over white draws #b3b3b3: 2.1:1.
        let shown = draw(20, 20, grey(255), Some(grey(0xb3)), &flat);
        let hidden = draw(20, 20, grey(255), None, &flat);
        let m = measure(&shown, &hidden, TextColour { rgb: [0.0; 3], alpha: 0.3 }).expect("measured");
        assert_eq!(m.foreground, grey(0xb3));
        assert!(m.ratio < 2.2 && m.ratio > 2.0, "{m:?}");
    }

    #[test]
    fn the_background_near_the_glyphs_counts_not_the_rest_of_the_box() {
        // White around the text, black far to the right (a gradient or image beyond the words).
        let far_black = |x: usize, _: usize, c: [u8; 3]| if x >= 30 { grey(0) } else { c };
        let shown = draw(60, 20, grey(255), Some(grey(0x33)), &far_black);
        let hidden = draw(60, 20, grey(255), None, &far_black);
        let m = measure(&shown, &hidden, TextColour { rgb: [51.0; 3], alpha: 1.0 }).expect("measured");
        assert!(m.ratio > 12.0, "{m:?}");
    }

    #[test]
    fn a_shadow_around_the_glyphs_is_the_background_they_meet() {
        // #666 text on white with a light grey glow hugging the glyph: 2.9:1 against #bbb.
        let glow = |x: usize, y: usize, c: [u8; 3]| if (5..15).contains(&x) && (3..17).contains(&y) { grey(0xbb) } else { c };
        let shown = draw(20, 20, grey(255), Some(grey(0x66)), &glow);
        let hidden = draw(20, 20, grey(255), None, &glow);
        let m = measure(&shown, &hidden, TextColour { rgb: [102.0; 3], alpha: 1.0 }).expect("measured");
        assert_eq!(m.background, grey(0xbb));
        assert!(m.ratio < 3.0, "{m:?}");
        // Black text on #737373 (4.4:1 alone) with a white glow passes.
        let white = |x: usize, y: usize, c: [u8; 3]| if (5..15).contains(&x) && (3..17).contains(&y) { grey(0xd0) } else { c };
        let shown = draw(20, 20, grey(0x73), Some(grey(0)), &white);
        let hidden = draw(20, 20, grey(0x73), None, &white);
        assert!(measure(&shown, &hidden, TextColour { rgb: [0.0; 3], alpha: 1.0 }).expect("measured").ratio > 7.0);
    }

    #[test]
    fn a_few_stray_pixels_do_not_decide() {
        // One bright speck next to a glyph on a dark background: the 10th percentile ignores it.
        let speck = |x: usize, y: usize, c: [u8; 3]| if (x, y) == (6, 10) { grey(255) } else { c };
        let shown = draw(20, 20, grey(0), Some(grey(0xee)), &speck);
        let hidden = draw(20, 20, grey(0), None, &speck);
        assert!(measure(&shown, &hidden, TextColour { rgb: [238.0; 3], alpha: 1.0 }).expect("measured").ratio > 15.0);
    }

    #[test]
    fn nothing_drawn_or_mismatched_images_are_not_measured() {
        let blank = draw(20, 20, grey(255), None, &flat);
        assert_eq!(measure(&blank, &blank, TextColour { rgb: [0.0; 3], alpha: 1.0 }), None, "no glyph");
        let other = draw(21, 20, grey(255), None, &flat);
        assert_eq!(measure(&blank, &other, TextColour { rgb: [0.0; 3], alpha: 1.0 }), None, "sizes differ");
    }

    #[test]
    fn pngs_decode_to_rgba() {
        let mut bytes = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut bytes, 2, 1);
            enc.set_color(png::ColorType::Rgb);
            enc.set_depth(png::BitDepth::Eight);
            enc.write_header().unwrap().write_image_data(&[255, 0, 0, 0, 0, 255]).unwrap();
        }
        let img = DecodedImage::from_png(&bytes).unwrap();
        assert_eq!((img.width, img.height), (2, 1));
        assert_eq!(img.rgba, vec![255, 0, 0, 255, 0, 0, 255, 255]);
        assert!(DecodedImage::from_png(b"not a png").is_err());
        // A PNG claiming more pixels than a capture can hold is refused, not allocated.
        let mut huge = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut huge, 20_000, 20_000);
            enc.set_color(png::ColorType::Grayscale);
            let mut w = enc.write_header().unwrap();
            let _ = w.write_image_data(&[]);
        }
        assert!(DecodedImage::from_png(&huge).is_err());
    }
}
