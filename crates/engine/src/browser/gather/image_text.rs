//! Image text gatherer: `browser/image_text.js` lists the page's images (bounded in count and
//! size) and hides the page's own text; each image's box is captured (`Page.captureScreenshot`
//! clipped to it, scaled up so small text is legible), the text is shown again, and Tesseract
//! (`ocr`) reads the captures: every one (`OcrMode::All`), or by default those whose pixels look
//! like they hold text (`image_look`) and that this process has not read before (the same
//! capture, byte for byte: a site's logo on every page is read once). Fails, so that its checks
//! are reported as not run, when Tesseract is not installed.

use crate::model::{ImageReading, ImageText, OcrWord};
use base64::Engine as _;
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::page::{CaptureScreenshotFormat, CaptureScreenshotParams, Viewport};
use serde::Deserialize;
use std::time::{Duration, Instant};

use super::ocr::{self, Layout};
use crate::browser::image_look::Look;
use crate::browser::options::OcrMode;
use sha2::{Digest, Sha256};
use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, OnceLock};
use crate::browser::cdp::{Deadline, STEP_TIMEOUT, eval_string, run};
use crate::browser::cores;
use crate::browser::error::BrowserError;
use crate::browser::instance::Instance;
use crate::browser::scripts::{IMAGE_TEXT_LIST, IMAGE_TEXT_RESTORE};

/// Longest a page's recognitions may take together; images left over are counted as omitted.
pub const OCR_PAGE_BUDGET: Duration = Duration::from_secs(6);
/// A capture's longest side, in device pixels.
pub const MAX_CAPTURE_SIDE: f64 = 2000.0;
/// Captures are scaled so that their shorter side reaches this (small images, small text)...
const TARGET_SHORT_SIDE: f64 = 150.0;
/// ...by at least 3 (text in an image is often 10 to 14 px high; Tesseract reads 30 px and
/// more best, and decorative fonts only larger) and at most 4.
const MIN_SCALE: f64 = 3.0;
const MAX_SCALE: f64 = 4.0;
/// A one-line second reading for images at least this many times wider than high.
const LINE_ASPECT: f64 = 2.5;
/// A word read with this confidence and at least three letters or digits counts as read.
const SURE: f32 = 70.0;

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Listed {
    candidates: Vec<Candidate>,
    omitted: usize,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Candidate {
    kind: String,
    selector: String,
    snippet: String,
    url: Option<String>,
    name: String,
    decorative: bool,
    logo_hint: Option<String>,
    x: f64,
    y: f64,
    width: f64,
    height: f64,
    in_view: bool,
}

/// The scale of a capture of a `width` x `height` CSS px box.
fn scale_for(width: f64, height: f64) -> f64 {
    let short = width.min(height).max(1.0);
    let long = width.max(height).max(1.0);
    (TARGET_SHORT_SIDE / short).clamp(MIN_SCALE, MAX_SCALE).min(MAX_CAPTURE_SIDE / long)
}

/// True when the words hold one read with confidence (three letters or digits or more).
fn sure(words: &[OcrWord]) -> usize {
    words.iter().filter(|w| w.confidence >= SURE && w.text.chars().filter(|c| c.is_alphanumeric()).count() >= 3).map(|w| w.text.len()).sum()
}

/// Captures whose words this process keeps (each a few words: well under a megabyte).
const REMEMBERED: usize = 2048;

/// The words read in captures this process has seen, by the capture's SHA-256, oldest first out.
#[derive(Default)]
struct Remembered {
    words: HashMap<[u8; 32], Vec<OcrWord>>,
    order: VecDeque<[u8; 32]>,
}

fn remembered() -> &'static Mutex<Remembered> {
    static R: OnceLock<Mutex<Remembered>> = OnceLock::new();
    R.get_or_init(Mutex::default)
}

fn recall(key: &[u8; 32]) -> Option<Vec<OcrWord>> {
    remembered().lock().unwrap_or_else(|e| e.into_inner()).words.get(key).cloned()
}

fn remember(key: [u8; 32], words: &[OcrWord]) {
    let mut r = remembered().lock().unwrap_or_else(|e| e.into_inner());
    if r.words.insert(key, words.to_vec()).is_none() {
        r.order.push_back(key);
        while r.order.len() > REMEMBERED {
            if let Some(old) = r.order.pop_front() {
                r.words.remove(&old);
            }
        }
    }
}

/// Reads one capture: the sparse layout, then one line for a wide image where that read
/// nothing sure.
async fn read(binary: &str, png: &[u8], c: &Candidate, deadline: Instant) -> Result<Vec<OcrWord>, BrowserError> {
    let mut words = ocr::recognise(binary, png, Layout::Sparse).await?;
    if c.width >= LINE_ASPECT * c.height && sure(&words) == 0 && Instant::now() < deadline {
        let line = ocr::recognise(binary, png, Layout::Line).await?;
        if sure(&line) > 0 {
            words = line;
        }
    }
    Ok(words)
}

async fn capture(instance: &Instance, page: &Page, budget: &Deadline, c: &Candidate) -> Result<Vec<u8>, BrowserError> {
    let clip = Viewport { x: c.x.max(0.0), y: c.y.max(0.0), width: c.width, height: c.height, scale: scale_for(c.width, c.height) };
    let params = CaptureScreenshotParams {
        format: Some(CaptureScreenshotFormat::Png),
        from_surface: Some(true),
        clip: Some(clip),
        capture_beyond_viewport: Some(!c.in_view),
        optimize_for_speed: Some(true),
        ..CaptureScreenshotParams::default()
    };
    let shot = run(instance, page, "Page.captureScreenshot", budget.cap(STEP_TIMEOUT), params).await?;
    let data: String = shot.data.into();
    base64::engine::general_purpose::STANDARD.decode(data.as_bytes()).map_err(|e| BrowserError::Cdp { what: "Page.captureScreenshot", message: e.to_string() })
}

pub(crate) async fn gather(instance: &Instance, page: &Page, budget: &Deadline, mode: OcrMode) -> Result<ImageText, BrowserError> {
    let started = Instant::now();
    let binary = ocr::available().await?;
    let listed = eval_string(instance, page, "image-text", &IMAGE_TEXT_LIST, budget.cap(Duration::from_secs(10))).await;
    let listed: Listed = match listed {
        Ok(text) => crate::browser::lenient::from_json(&text).map_err(|e| BrowserError::Script { name: "image-text", message: e.to_string() }),
        Err(e) => Err(e),
    }
    .inspect_err(|_| tracing::debug!("image-text listing failed"))?;
    let list_ms = started.elapsed().as_millis() as u64;
    let mut shots = Vec::with_capacity(listed.candidates.len());
    let mut failure = None;
    for c in &listed.candidates {
        match capture(instance, page, budget, c).await {
            Ok(png) => shots.push(png),
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    let captured = Instant::now();
    // The page's text is shown again whatever happened.
    let restored = eval_string(instance, page, "image-text restore", IMAGE_TEXT_RESTORE, budget.cap(STEP_TIMEOUT)).await;
    if let Some(e) = failure {
        return Err(e);
    }
    restored?;
    let restored_at = Instant::now();
    let listed_count = listed.candidates.len();
    let (beyond, bytes) = (listed.candidates.iter().filter(|c| !c.in_view).count(), shots.iter().map(Vec::len).sum::<usize>());
    let mut out = ImageText { omitted: listed.omitted, ..ImageText::default() };
    let _core = cores::core().await;
    let cored = Instant::now();
    let mut ocr_time = Duration::ZERO;
    let deadline = Instant::now() + budget.cap(OCR_PAGE_BUDGET);
    for (c, png) in listed.candidates.into_iter().zip(shots) {
        let key: [u8; 32] = Sha256::digest(&png).into();
        let look = Look::of_png(&png, scale_for(c.width, c.height));
        let likely = look.is_none_or(|l| l.may_hold_text());
        let known = if mode == OcrMode::All { None } else { recall(&key) };
        let words = match known {
            Some(words) => {
                out.recalled += 1;
                words
            }
            None if mode == OcrMode::Likely && !likely => {
                out.passed_over += 1;
                tracing::debug!(target: "sitescan::image_look", selector = %c.selector, worth_reading = false, look = ?look, "image looked at");
                continue;
            }
            None if Instant::now() >= deadline => {
                out.omitted += 1;
                continue;
            }
            None => {
                let began = Instant::now();
                let words = read(&binary, &png, &c, deadline).await?;
                ocr_time += began.elapsed();
                remember(key, &words);
                words
            }
        };
        tracing::debug!(
            target: "sitescan::image_look",
            selector = %c.selector,
            worth_reading = likely,
            sure = sure(&words),
            look = ?look,
            words = ?words.iter().map(|w| format!("{}:{:.0}", w.text, w.confidence)).collect::<Vec<_>>(),
            "image looked at"
        );
        out.images.push(ImageReading {
            kind: c.kind,
            selector: c.selector,
            snippet: c.snippet,
            url: c.url,
            name: c.name,
            decorative: c.decorative,
            logo_hint: c.logo_hint,
            width: c.width.round().max(0.0) as u32,
            height: c.height.round().max(0.0) as u32,
            words,
        });
    }
    out.ocr_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let ms = |d: Duration| d.as_millis() as u64;
    // Where the time went: listing (and hiding the text), the captures, showing the text again,
    // waiting for a core, and Tesseract; the rest is decoding and looking at the captures.
    tracing::debug!(
        images = out.images.len(),
        passed_over = out.passed_over,
        recalled = out.recalled,
        omitted = out.omitted,
        ms = out.ocr_ms,
        list_ms,
        capture_ms = ms(captured.duration_since(started)).saturating_sub(list_ms),
        captures = listed_count,
        beyond_viewport = beyond,
        capture_kib = bytes / 1024,
        restore_ms = ms(restored_at.duration_since(captured)),
        core_wait_ms = ms(cored.duration_since(restored_at)),
        tesseract_ms = ms(ocr_time),
        "images read"
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_images_are_scaled_up_and_large_ones_bounded() {
        assert_eq!(scale_for(72.0, 48.0), 150.0 / 48.0);
        assert_eq!(scale_for(80.0, 20.0), MAX_SCALE);
        assert_eq!(scale_for(527.0, 263.0), MIN_SCALE);
        assert_eq!(scale_for(451.0, 126.0), MIN_SCALE);
        assert_eq!(scale_for(2500.0, 600.0), MAX_CAPTURE_SIDE / 2500.0);
    }

    #[test]
    fn a_sure_word_has_three_letters_and_confidence() {
        let w = |t: &str, c: f32| OcrWord { text: t.into(), confidence: c };
        assert_eq!(sure(&[w("ic", 90.0), w("Panas", 50.0)]), 0);
        assert_eq!(sure(&[w("W3C", 85.0)]), 3);
    }
}
