//! Image text gatherer: `browser/image_text.js` lists the page's images (bounded in count and
//! size); the page's own text is hidden, each image's box is captured (`Page.captureScreenshot`
//! clipped to it, scaled up so small text is legible), the text is shown again, and Tesseract
//! (`ocr`) reads the captures: every one (`OcrMode::All`), or by default those whose pixels look
//! like they hold text (`image_look`) and that this process has not read before (the same
//! capture, byte for byte: a site's logo on every page is read once). Fails, so that its checks
//! are reported as not run, when Tesseract is not installed.
//!
//! By default the pixels are first looked at cheaply, at one device pixel a CSS pixel, and only
//! the images that look like they may hold text are captured, scaled up, for Tesseract. The
//! first look of an `img` shown as it is (no fitting, border, filter...: `drawable` in the
//! script) over one colour takes its own decoded pixels, drawn in the page onto a canvas of its
//! box's size over that colour: no capture, no layout, no raster. The others (images of another
//! origin, CSS backgrounds, SVG, canvases) are captured together, in bands down the page. A
//! capture of a box outside the viewport makes Chromium lay the whole page out twice and
//! record it; a page whose images all look like pictures needs no capture at all.

use crate::model::{ImageReading, ImageText, OcrWord};
use base64::Engine as _;
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::emulation::{ClearDeviceMetricsOverrideParams, SetDeviceMetricsOverrideParams};
use chromiumoxide::cdp::browser_protocol::page::{CaptureScreenshotFormat, CaptureScreenshotParams, Viewport};
use serde::Deserialize;
use std::time::{Duration, Instant};

use super::ocr::{self, Layout};
use crate::browser::image_look::Look;
use crate::browser::pixel_contrast::DecodedImage;
use crate::browser::options::OcrMode;
use sha2::{Digest, Sha256};
use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, OnceLock};
use crate::browser::cdp::{Deadline, STEP_TIMEOUT, eval_string, run};
use crate::browser::cores;
use crate::browser::error::BrowserError;
use crate::browser::instance::Instance;
use crate::browser::events::{EventLog, RawEvent};
use crate::browser::scripts::{IMAGE_TEXT_HIDE, IMAGE_TEXT_LIST, IMAGE_TEXT_RESTORE, image_text_looks};
use super::response_memo::{self, Reusable, ResponseMemo, response_for};

/// A scan's first looks of the images it drew, by response and drawing (`None`: the image could
/// not be drawn, or drew an implausible look, and is captured instead).
pub(crate) type ImageLooks = ResponseMemo<Option<Look>>;

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
/// A first-look band is at most this high (CSS px)...
const BAND_HEIGHT: f64 = 3000.0;
/// ...and holds at most this many device pixels (a band larger than that alone is captured at
/// less than one device pixel a CSS pixel).
const BAND_PIXELS: f64 = 3_000_000.0;
/// The tallest viewport the first look emulates (CSS px); a band further down is captured alone.
const MAX_TALL_VIEWPORT: f64 = 12_000.0;

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Listed {
    candidates: Vec<Candidate>,
    omitted: usize,
    /// The layout viewport, CSS px.
    viewport: [f64; 2],
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
    /// How its own pixels are drawn onto a canvas as the page shows them (`looks`); none when
    /// they cannot be.
    draw: Option<Draw>,
}

/// A canvas an image's first look is drawn on: its box's size, CSS px, over its backdrop.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Draw {
    width: u32,
    height: u32,
    /// The colour behind the image (`rgb(r, g, b)`).
    backdrop: String,
}

impl Candidate {
    /// The key of this candidate's first look among the scan's (`ImageLooks`): its response's,
    /// with how it is drawn; none when the response may not be reused (or is not in `events`).
    fn look_key(&self, events: &[RawEvent]) -> Option<Reusable> {
        let (draw, url) = (self.draw.as_ref()?, self.url.as_deref()?);
        let response = if url.starts_with("data:") {
            Reusable::of_data_url(url)
        } else {
            response_memo::reusable(events, &response_for(events, url, f64::INFINITY)?)?
        };
        Some(response.with(format!("{}x{} {}", draw.width, draw.height, draw.backdrop).as_bytes()))
    }
}

/// The first look of each drawable candidate, from its own pixels as the page drew them
/// (`imageLook`), or as the scan's `memo` remembers the same response drawn alike; `None` where
/// they could not be read (another origin's image, one gone since it was listed): that image is
/// captured instead. Also how many were drawn here.
async fn drawn_looks(instance: &Instance, page: &Page, budget: &Deadline, candidates: &[Candidate], events: &[RawEvent], memo: Option<&ImageLooks>) -> (Vec<Option<Look>>, usize) {
    let mut looks = vec![None; candidates.len()];
    let keys: Vec<Option<Reusable>> = candidates.iter().map(|c| memo.and_then(|_| c.look_key(events))).collect();
    let mut wanted = Vec::new();
    for (i, c) in candidates.iter().enumerate() {
        match (memo, keys[i]) {
            _ if c.draw.is_none() => {}
            (Some(memo), Some(key)) => match memo.get(&key.key) {
                Some(known) => looks[i] = known,
                None => wanted.push(i),
            },
            _ => wanted.push(i),
        }
    }
    if wanted.is_empty() {
        return (looks, 0);
    }
    let Ok(text) = eval_string(instance, page, "image-text looks", &image_text_looks(&wanted), budget.cap(STEP_TIMEOUT)).await else { return (looks, 0) };
    let drawn: Vec<Option<Look>> = serde_json::from_str(&text).unwrap_or_default();
    for (&i, look) in wanted.iter().zip(drawn) {
        let look = look.filter(Look::is_plausible);
        if let (Some(memo), Some(key)) = (memo, keys[i]) {
            memo.keep(key, look);
        }
        looks[i] = look;
    }
    (looks, wanted.len())
}

/// A box in the document, CSS px.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Rect {
    x: f64,
    y: f64,
    width: f64,
    height: f64,
}

impl Rect {
    fn of(c: &Candidate) -> Rect {
        Rect { x: c.x.max(0.0), y: c.y.max(0.0), width: c.width, height: c.height }
    }

    fn union(self, o: Rect) -> Rect {
        let (x, y) = (self.x.min(o.x), self.y.min(o.y));
        Rect { x, y, width: (self.x + self.width).max(o.x + o.width) - x, height: (self.y + self.height).max(o.y + o.height) - y }
    }

    fn fits_a_band(&self) -> bool {
        self.height <= BAND_HEIGHT && self.width * self.height <= BAND_PIXELS
    }
}

/// The first look's bands of the candidates `pending` (indices): taken top to bottom, each band
/// the box around as many as fit (`BAND_HEIGHT`, `BAND_PIXELS`); a candidate larger than a band
/// is a band of its own.
fn bands(candidates: &[Candidate], pending: &[usize]) -> Vec<(Vec<usize>, Rect)> {
    let mut order = pending.to_vec();
    order.sort_by(|&a, &b| candidates[a].y.total_cmp(&candidates[b].y));
    let mut out: Vec<(Vec<usize>, Rect)> = Vec::new();
    for i in order {
        let r = Rect::of(&candidates[i]);
        match out.last_mut() {
            Some((members, band)) if band.union(r).fits_a_band() => {
                members.push(i);
                *band = band.union(r);
            }
            _ => out.push((vec![i], r)),
        }
    }
    out
}

/// The scale of a band's capture: one device pixel a CSS pixel, less for a band over
/// `BAND_PIXELS`.
fn band_scale(band: &Rect) -> f64 {
    (BAND_PIXELS / (band.width * band.height).max(1.0)).sqrt().min(1.0)
}

/// Looks at each box (document CSS px) in a band's capture; `None` for every box when the
/// capture does not decode (those images are then captured scaled up, as if they looked likely).
fn looks_in_band(png: &[u8], band: &Rect, boxes: &[Rect]) -> Vec<Option<Look>> {
    let Ok(img) = DecodedImage::from_png(png) else { return vec![None; boxes.len()] };
    let ratio = img.width as f64 / band.width.max(1.0);
    let px = |v: f64| (v * ratio).round().max(0.0) as usize;
    boxes
        .iter()
        .map(|b| {
            let crop = img.crop(px(b.x - band.x), px(b.y - band.y), px(b.width).max(1), px(b.height).max(1));
            Some(Look::of(&crop, ratio))
        })
        .collect()
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

/// A PNG of `r` at `scale` device pixels a CSS pixel.
async fn capture(instance: &Instance, page: &Page, budget: &Deadline, r: Rect, scale: f64, in_view: bool) -> Result<Vec<u8>, BrowserError> {
    let clip = Viewport { x: r.x, y: r.y, width: r.width, height: r.height, scale };
    let params = CaptureScreenshotParams {
        format: Some(CaptureScreenshotFormat::Png),
        from_surface: Some(true),
        clip: Some(clip),
        capture_beyond_viewport: Some(!in_view),
        optimize_for_speed: Some(true),
        ..CaptureScreenshotParams::default()
    };
    let shot = run(instance, page, "Page.captureScreenshot", budget.cap(STEP_TIMEOUT), params).await?;
    let data: String = shot.data.into();
    base64::engine::general_purpose::STANDARD.decode(data.as_bytes()).map_err(|e| BrowserError::Cdp { what: "Page.captureScreenshot", message: e.to_string() })
}

/// What is captured while the page's text is hidden.
struct Captures {
    /// Each candidate's first look, where one was taken and decoded (drawn or captured).
    first_looks: Vec<Option<Look>>,
    /// Each candidate's capture scaled up for Tesseract; `None` where the first look passed it over.
    shots: Vec<Option<Vec<u8>>>,
    bands: usize,
    first_look_ms: u64,
}

/// How tall the first look makes the viewport: down to the last band that fits
/// `MAX_TALL_VIEWPORT`, when two bands or more lie outside the viewport (a capture outside it
/// makes Chromium lay the page out at full height and back each time; this does it once), else
/// `None`.
fn tall_viewport(bands: &[(Vec<usize>, Rect)], candidates: &[Candidate], viewport: [f64; 2]) -> Option<f64> {
    let outside = bands.iter().filter(|(members, _)| !members.iter().all(|&i| candidates[i].in_view)).count();
    let bottom = bands.iter().map(|(_, b)| (b.y + b.height).ceil()).filter(|&b| b <= MAX_TALL_VIEWPORT).fold(0.0, f64::max);
    (outside >= 2 && viewport[0] >= 1.0 && bottom > viewport[1]).then_some(bottom)
}

/// Fills the first looks not taken yet with those of the bands.
fn merge(first: &mut [Option<Look>], captured: Vec<Option<Look>>) {
    for (slot, look) in first.iter_mut().zip(captured) {
        if slot.is_none() {
            *slot = look;
        }
    }
}

/// Captures each band at (at most) one device pixel a CSS pixel and looks at each candidate's
/// box in it.
async fn first_looks(instance: &Instance, page: &Page, budget: &Deadline, candidates: &[Candidate], planned: Vec<(Vec<usize>, Rect)>, tall: f64) -> Result<Vec<Option<Look>>, BrowserError> {
    let mut looks = vec![None; candidates.len()];
    for (members, band) in planned {
        let in_view = band.y + band.height <= tall || members.iter().all(|&i| candidates[i].in_view);
        let png = capture(instance, page, budget, band, band_scale(&band), in_view).await?;
        let boxes: Vec<Rect> = members.iter().map(|&i| Rect::of(&candidates[i])).collect();
        let seen = tokio::task::spawn_blocking(move || looks_in_band(&png, &band, &boxes)).await.unwrap_or_else(|_| vec![None; members.len()]);
        for (i, look) in members.into_iter().zip(seen) {
            looks[i] = look;
        }
    }
    Ok(looks)
}

/// True when a candidate needs a capture: a first look the page could not draw, or the
/// scaled-up capture Tesseract reads (every image with `--ocr`, by default one that may hold text).
fn needs_capture(first_look: bool, drawn: Option<&Look>, mode: OcrMode) -> bool {
    match drawn {
        None => first_look || mode == OcrMode::All,
        Some(look) => mode == OcrMode::All || look.may_hold_text(),
    }
}

async fn take_captures(instance: &Instance, page: &Page, budget: &Deadline, listed: &Listed, mode: OcrMode, first_look: bool, drawn: Vec<Option<Look>>) -> Result<Captures, BrowserError> {
    let began = Instant::now();
    let candidates = &listed.candidates;
    let mut first = drawn.clone();
    let mut band_count = 0;
    let pending: Vec<usize> = (0..candidates.len()).filter(|&i| drawn[i].is_none()).collect();
    if first_look && !pending.is_empty() {
        let planned = bands(candidates, &pending);
        band_count = planned.len();
        match tall_viewport(&planned, candidates, listed.viewport) {
            Some(tall) => {
                let params = SetDeviceMetricsOverrideParams::new(listed.viewport[0].round() as u32, tall as u32, 0.0, false);
                run(instance, page, "Emulation.setDeviceMetricsOverride", budget.cap(STEP_TIMEOUT), params).await?;
                let looked = first_looks(instance, page, budget, candidates, planned, tall).await;
                // The viewport is given back whatever happened (the page's scroll position with
                // the text, by `IMAGE_TEXT_RESTORE`).
                run(instance, page, "Emulation.clearDeviceMetricsOverride", budget.cap(STEP_TIMEOUT), ClearDeviceMetricsOverrideParams::default()).await?;
                merge(&mut first, looked?);
            }
            None => merge(&mut first, first_looks(instance, page, budget, candidates, planned, 0.0).await?),
        }
    }
    let first_looks = first;
    let first_look_ms = began.elapsed().as_millis() as u64;
    let mut shots = Vec::with_capacity(candidates.len());
    for (c, first) in candidates.iter().zip(&first_looks) {
        if mode == OcrMode::Likely && first.is_some_and(|l| !l.may_hold_text()) {
            shots.push(None);
            continue;
        }
        shots.push(Some(capture(instance, page, budget, Rect::of(c), scale_for(c.width, c.height), c.in_view).await?));
    }
    Ok(Captures { first_looks, shots, bands: band_count, first_look_ms })
}

/// Lists the page's images, looks at them and reads the text of those that may hold some; `memo`:
/// the scan's first looks by response (with the page's network record in `log`).
pub(crate) async fn gather(instance: &Instance, page: &Page, budget: &Deadline, mode: OcrMode, log: Option<&EventLog>, memo: Option<&ImageLooks>) -> Result<ImageText, BrowserError> {
    let started = Instant::now();
    let binary = ocr::available().await?;
    let listed = eval_string(instance, page, "image-text", &IMAGE_TEXT_LIST, budget.cap(Duration::from_secs(10))).await;
    let listed: Listed = match listed {
        Ok(text) => crate::browser::lenient::from_json(&text).map_err(|e| BrowserError::Script { name: "image-text", message: e.to_string() }),
        Err(e) => Err(e),
    }
    .inspect_err(|_| tracing::debug!("image-text listing failed"))?;
    let list_ms = started.elapsed().as_millis() as u64;
    // The first look: by default, and with `--ocr` when its verdicts are logged (to measure it).
    let first_look = mode == OcrMode::Likely || tracing::enabled!(target: "sitescan::image_look", tracing::Level::DEBUG);
    let (drawn, drawn_count) = if first_look {
        // The network record is read only to key a remembered look: with no memo (a one-page
        // scan) or nothing drawable, no copy of it is taken.
        let keyed = memo.is_some() && listed.candidates.iter().any(|c| c.draw.is_some());
        let events = if keyed { log.map(EventLog::snapshot).unwrap_or_default() } else { Vec::new() };
        drawn_looks(instance, page, budget, &listed.candidates, &events, memo).await
    } else {
        (vec![None; listed.candidates.len()], 0)
    };
    let drawn_ms = started.elapsed().as_millis() as u64 - list_ms;
    let looks_remembered = if first_look { listed.candidates.iter().filter(|c| c.draw.is_some()).count().saturating_sub(drawn_count) } else { 0 };
    let mut restore_ms = 0;
    let Captures { first_looks, shots, bands: band_count, first_look_ms } = if drawn.iter().any(|d| needs_capture(first_look, d.as_ref(), mode)) {
        eval_string(instance, page, "image-text hide", IMAGE_TEXT_HIDE, budget.cap(STEP_TIMEOUT)).await?;
        let captures = take_captures(instance, page, budget, &listed, mode, first_look, drawn).await;
        // The page's text is shown again whatever happened.
        let restoring = Instant::now();
        let restored = eval_string(instance, page, "image-text restore", IMAGE_TEXT_RESTORE, budget.cap(STEP_TIMEOUT)).await;
        restore_ms = restoring.elapsed().as_millis() as u64;
        let captures = captures?;
        restored?;
        captures
    } else {
        // Every image looked like a picture from its own pixels: nothing to capture or hide.
        let n = drawn.len();
        Captures { first_looks: drawn, shots: vec![None; n], bands: 0, first_look_ms: 0 }
    };
    let captured = Instant::now();
    let listed_count = listed.candidates.len();
    let beyond = listed.candidates.iter().zip(&shots).filter(|(c, shot)| !c.in_view && shot.is_some()).count();
    let (scaled, bytes) = (shots.iter().flatten().count(), shots.iter().flatten().map(Vec::len).sum::<usize>());
    let mut out = ImageText { omitted: listed.omitted, ..ImageText::default() };
    // A core is waited for only when Tesseract has something to read.
    let mut core = None;
    let mut core_wait = Duration::ZERO;
    let mut ocr_time = Duration::ZERO;
    let deadline = Instant::now() + budget.cap(OCR_PAGE_BUDGET);
    for ((c, shot), first) in listed.candidates.into_iter().zip(shots).zip(first_looks) {
        let first_likely = first.is_none_or(|l| l.may_hold_text());
        let Some(png) = shot else {
            out.passed_over += 1;
            tracing::debug!(target: "sitescan::image_look", selector = %c.selector, worth_reading = false, first_worth_reading = false, first_look = ?first, "image looked at");
            continue;
        };
        let key: [u8; 32] = Sha256::digest(&png).into();
        let look = Look::of_png(&png, scale_for(c.width, c.height));
        let scaled_likely = look.is_none_or(|l| l.may_hold_text());
        let likely = first_likely && scaled_likely;
        let known = if mode == OcrMode::All { None } else { recall(&key) };
        let words = match known {
            Some(words) => {
                out.recalled += 1;
                words
            }
            None if mode == OcrMode::Likely && !likely => {
                out.passed_over += 1;
                tracing::debug!(target: "sitescan::image_look", selector = %c.selector, worth_reading = false, first_worth_reading = first_likely, scaled_worth_reading = scaled_likely, first_look = ?first, look = ?look, "image looked at");
                continue;
            }
            None if Instant::now() >= deadline => {
                out.omitted += 1;
                continue;
            }
            None => {
                if core.is_none() {
                    let waited = Instant::now();
                    core = Some(cores::core().await);
                    core_wait = waited.elapsed();
                }
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
            first_worth_reading = first_likely,
            scaled_worth_reading = scaled_likely,
            sure = sure(&words),
            first_look = ?first,
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
        capture_ms = ms(captured.duration_since(started)).saturating_sub(list_ms + drawn_ms + restore_ms),
        drawn_ms,
        drawn = drawn_count,
        looks_remembered,
        first_look_ms,
        bands = band_count,
        candidates = listed_count,
        captures = scaled,
        beyond_viewport = beyond,
        capture_kib = bytes / 1024,
        restore_ms,
        core_wait_ms = ms(core_wait),
        tesseract_ms = ms(ocr_time),
        "images read"
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_first_look_is_remembered_by_response_and_drawing() {
        let event = |method: &str, params: serde_json::Value| RawEvent { method: method.into(), params };
        let url = "http://a.test/logo.png";
        let events = [
            event("Network.responseReceived", serde_json::json!({"requestId": "7", "response": {"url": url, "mimeType": "image/png", "headers": {"ETag": "\"v1\""}}})),
            event("Network.loadingFinished", serde_json::json!({"requestId": "7", "encodedDataLength": 900})),
        ];
        let candidate = |url: &str, draw: Option<(u32, &str)>| Candidate {
            url: Some(url.to_string()),
            draw: draw.map(|(side, backdrop)| Draw { width: side, height: side, backdrop: backdrop.to_string() }),
            ..Candidate::default()
        };
        let white = candidate(url, Some((40, "rgb(255, 255, 255)"))).look_key(&events).expect("a response with a validator is remembered");
        assert_eq!(Some(white), candidate(url, Some((40, "rgb(255, 255, 255)"))).look_key(&events));
        assert_ne!(Some(white), candidate(url, Some((41, "rgb(255, 255, 255)"))).look_key(&events));
        assert_ne!(Some(white), candidate(url, Some((40, "rgb(0, 0, 0)"))).look_key(&events));
        // Not drawn, not in the page's network record, or a response no cache may reuse: none.
        assert_eq!(candidate(url, None).look_key(&events), None);
        assert_eq!(candidate("http://a.test/other.png", Some((40, "rgb(255, 255, 255)"))).look_key(&events), None);
        let uncached = [event("Network.responseReceived", serde_json::json!({"requestId": "7", "response": {"url": url, "headers": {"Cache-Control": "no-store"}}})), events[1].clone()];
        assert_eq!(candidate(url, Some((40, "rgb(255, 255, 255)"))).look_key(&uncached), None);
        assert!(candidate("data:image/png;base64,AAAA", Some((40, "rgb(255, 255, 255)"))).look_key(&[]).is_some());
    }

    #[test]
    fn small_images_are_scaled_up_and_large_ones_bounded() {
        assert_eq!(scale_for(72.0, 48.0), 150.0 / 48.0);
        assert_eq!(scale_for(80.0, 20.0), MAX_SCALE);
        assert_eq!(scale_for(527.0, 263.0), MIN_SCALE);
        assert_eq!(scale_for(451.0, 126.0), MIN_SCALE);
        assert_eq!(scale_for(2500.0, 600.0), MAX_CAPTURE_SIDE / 2500.0);
    }

    fn all(page: &[Candidate]) -> Vec<usize> {
        (0..page.len()).collect()
    }

    fn at(x: f64, y: f64, width: f64, height: f64) -> Candidate {
        Candidate { x, y, width, height, ..Candidate::default() }
    }

    #[test]
    fn candidates_are_looked_at_in_bands_down_the_page() {
        let page = [at(0.0, 4000.0, 300.0, 200.0), at(20.0, 100.0, 300.0, 200.0), at(600.0, 900.0, 400.0, 300.0), at(0.0, 9000.0, 2000.0, 2000.0)];
        let planned = bands(&page, &all(&page));
        let members: Vec<&[usize]> = planned.iter().map(|(m, _)| m.as_slice()).collect();
        assert_eq!(members, [&[1, 2][..], &[0], &[3]]);
        assert_eq!(planned[0].1, Rect { x: 20.0, y: 100.0, width: 980.0, height: 1100.0 });
        assert_eq!(band_scale(&planned[0].1), 1.0);
        // An image larger than a band is its own, captured below one device pixel a CSS pixel.
        let big = planned[2].1;
        assert!((big.width * big.height * band_scale(&big).powi(2) - BAND_PIXELS).abs() < 1.0);
        // A tall column of images is cut where a band would be over BAND_HEIGHT.
        let column: Vec<Candidate> = (0..8).map(|i| at(0.0, f64::from(i) * 1000.0, 200.0, 200.0)).collect();
        assert_eq!(bands(&column, &all(&column)).iter().map(|(m, _)| m.len()).collect::<Vec<_>>(), [3, 3, 2]);
    }

    #[test]
    fn the_viewport_is_made_tall_once_for_two_bands_outside_it() {
        let mut page = vec![at(0.0, 100.0, 300.0, 200.0), at(0.0, 4000.0, 300.0, 200.0)];
        page[0].in_view = true;
        // One band outside the viewport: captured alone, as a capture outside it would be.
        assert_eq!(tall_viewport(&bands(&page, &all(&page)), &page, [1280.0, 800.0]), None);
        page.push(at(0.0, 8000.0, 300.0, 250.5));
        assert_eq!(tall_viewport(&bands(&page, &all(&page)), &page, [1280.0, 800.0]), Some(8251.0));
        // A band below MAX_TALL_VIEWPORT is left to a capture of its own.
        page.push(at(0.0, 20_000.0, 300.0, 200.0));
        assert_eq!(tall_viewport(&bands(&page, &all(&page)), &page, [1280.0, 800.0]), Some(8251.0));
    }

    fn png(width: usize, height: usize, pixel: impl Fn(usize, usize) -> [u8; 3]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, width as u32, height as u32);
        encoder.set_color(png::ColorType::Rgba);
        let mut writer = encoder.write_header().unwrap();
        let data: Vec<u8> = (0..height)
            .flat_map(|y| (0..width).map(move |x| (x, y)))
            .flat_map(|(x, y)| {
                let [r, g, b] = pixel(x, y);
                [r, g, b, 255]
            })
            .collect();
        writer.write_image_data(&data).unwrap();
        drop(writer);
        out
    }

    #[test]
    fn each_box_in_a_band_is_looked_at_alone() {
        // A band from (100, 50) CSS px captured at 1: dark strokes in lines at its left (a
        // banner of text) and a flat blue picture at its right.
        let band = Rect { x: 100.0, y: 50.0, width: 800.0, height: 200.0 };
        let shot = png(800, 200, |x, y| {
            if x < 400 {
                let stroke = (y % 40) >= 10 && (y % 40) < 30 && (x % 60) < 48 && x % 5 < 2;
                if stroke { [20, 20, 20] } else { [255, 255, 255] }
            } else {
                [30, 120, 200]
            }
        });
        let boxes = [Rect { x: 100.0, y: 50.0, width: 400.0, height: 200.0 }, Rect { x: 520.0, y: 60.0, width: 300.0, height: 150.0 }];
        let looks = looks_in_band(&shot, &band, &boxes);
        assert!(looks[0].is_some_and(|l| l.may_hold_text()), "{looks:?}");
        assert!(looks[1].is_some_and(|l| !l.may_hold_text() && l.strong_edges == 0.0), "{looks:?}");
        // A capture that does not decode is read scaled up, never passed over.
        assert_eq!(looks_in_band(b"not a png", &band, &boxes), vec![None, None]);
    }

    #[test]
    fn a_sure_word_has_three_letters_and_confidence() {
        let w = |t: &str, c: f32| OcrWord { text: t.into(), confidence: c };
        assert_eq!(sure(&[w("ic", 90.0), w("Panas", 50.0)]), 0);
        assert_eq!(sure(&[w("W3C", 85.0)]), 3);
    }
}
