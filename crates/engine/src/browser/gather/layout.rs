//! Layout gatherer: `browser/layout.js` in three steps, the last gatherer of a capture (after the
//! keyboard walk and the contrast pixels, so that nothing it does shows in another artifact).
//!
//! 1. At the page's own viewport: the reading facts, then two experiments that each grow the
//!    text, measure which clipping boxes (`overflow: hidden | clip`) now cut text that fitted
//!    before, and undo their change (the `style` attributes as they were; the style sheet removed):
//!    200% text size (every element's computed font size doubled, inline and `!important`, as a
//!    browser's text-only zoom scales all text while px lengths stay) and the WCAG 1.4.12 spacing
//!    (line height 1.5, paragraph spacing 2em, letter spacing 0.12em, word spacing 0.16em, the
//!    bookmarklet's style sheet). A page with no clipping box skips both.
//! 2. At 320 x 256 CSS px (`Emulation.setDeviceMetricsOverride`, not mobile: the width 1280 px at
//!    400% zoom gives, WCAG 1.4.10): the text cut at the viewport's right edge. The override is
//!    cleared whatever happened (a capture sets no device metrics of its own, so clearing gives
//!    the window's back), and the scroll position put back. A page whose document does not
//!    scroll sideways there and clips nothing at its root is read no further. What the page's
//!    own scripts do meanwhile (requests of a narrow media query, console messages of a resize
//!    handler) is left out of the event-based artifacts (`capture::before_layout`).
//! 3. The visible `<img>`s that may animate (GIF, PNG, WebP, `data:` URLs): their bytes from the
//!    network record (`Network.getResponseBody`, no new request) and their animation read from
//!    them (`animation.rs`).

use base64::Engine;
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::emulation::{ClearDeviceMetricsOverrideParams, SetDeviceMetricsOverrideParams};
use chromiumoxide::cdp::browser_protocol::network::GetResponseBodyParams;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

use super::animation::{self, Animation, MAX_ANIMATION_BYTES};
use super::animation::ImageAnimations;
use super::response_memo::{self, response_for};
use crate::browser::cdp::{Deadline, STEP_TIMEOUT, eval_string, run};
use crate::browser::error::BrowserError;
use crate::browser::events::{EventLog, RawEvent};
use crate::browser::instance::Instance;
use crate::browser::scripts::layout_script;
use crate::model::{AnimatedImage, ClipTest, LayoutFacts, Reading, Reflow};

/// The emulated viewport of the reflow step (WCAG 1.4.10: 320 CSS px wide; 256 high).
pub const REFLOW_WIDTH: u32 = 320;
pub const REFLOW_HEIGHT: u32 = 256;
/// Images whose bytes are read per page.
pub const MAX_IMAGES_READ: usize = 12;
/// Clearing the emulation gets this long even when the page's budget is spent: the page must not
/// stay 320 px wide.
const RESTORE_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Desktop {
    reading: Reading,
    text_resize: ClipTest,
    text_spacing: ClipTest,
    images: Vec<Candidate>,
    scroll: [f64; 2],
    truncated: bool,
    sampled: Option<crate::model::Sample>,
    ms: u64,
}

/// A visible image that may animate: its animation is read from its bytes (step 3), afresh even
/// when the page's other facts are given back (`unchanged.rs`), since its bytes may change under
/// the same markup.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Candidate {
    url: String,
    selector: String,
    snippet: String,
    rendered_width: u32,
    rendered_height: u32,
    pause_control: bool,
    reduced_motion_alternative: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Measured {
    #[serde(flatten)]
    reflow: Reflow,
    ms: u64,
}

fn parse<T: for<'de> Deserialize<'de>>(text: &str) -> Result<T, BrowserError> {
    crate::browser::lenient::from_json(text).map_err(|e| BrowserError::Script { name: "layout", message: e.to_string() })
}

/// Steps 1 to 3; the layout facts and the images of step 3.
pub(crate) async fn gather(instance: &Instance, page: &Page, budget: &Deadline, log: Option<&EventLog>, memo: Option<&ImageAnimations>) -> Result<(LayoutFacts, Vec<Candidate>), BrowserError> {
    let started = Instant::now();
    let desktop: Desktop = parse(&eval_string(instance, page, "layout", &layout_script("'desktop'"), budget.cap(Duration::from_secs(15))).await?)?;
    let mut facts = LayoutFacts {
        reading: desktop.reading,
        text_resize: desktop.text_resize,
        text_spacing: desktop.text_spacing,
        truncated: desktop.truncated,
        sampled: desktop.sampled.map(crate::model::Sample::bounded),
        ..LayoutFacts::default()
    };
    let mut in_page = desktop.ms;
    match reflow(instance, page, budget, desktop.scroll).await {
        Ok(m) => {
            in_page += m.ms;
            facts.reflow = Some(m.reflow);
        }
        Err(e) => tracing::debug!(error = %e, "reflow not measured"),
    }
    facts.ms = in_page;
    animations(instance, page, budget, log, memo, &desktop.images, &mut facts).await;
    tracing::debug!(in_page_ms = in_page, total_ms = started.elapsed().as_millis() as u64, "layout gathered");
    Ok((facts, desktop.images))
}

/// Step 3: the animations of `candidates` (the first `MAX_IMAGES_READ`), into `facts`; an image
/// whose response `memo` holds is not read again.
pub(crate) async fn animations(
    instance: &Instance,
    page: &Page,
    budget: &Deadline,
    log: Option<&EventLog>,
    memo: Option<&ImageAnimations>,
    candidates: &[Candidate],
    facts: &mut LayoutFacts,
) {
    facts.animations.clear();
    facts.images_unread = 0;
    let events = log.map(EventLog::snapshot).unwrap_or_default();
    // The bodies are asked for all at once: each is a round trip to the browser.
    let read = candidates.iter().take(MAX_IMAGES_READ).map(|c| animation_of(instance, page, budget, &events, memo, &c.url));
    let read = futures::future::join_all(read).await;
    for (candidate, animation) in candidates.iter().zip(read) {
        match animation {
            Some(Some(a)) => {
                facts.animations.push(AnimatedImage {
                    url: if candidate.url.starts_with("data:") { format!("{}…", candidate.url.chars().take(40).collect::<String>()) } else { candidate.url.clone() },
                    selector: candidate.selector.clone(),
                    snippet: candidate.snippet.clone(),
                    format: a.format.to_string(),
                    frames: a.frames,
                    loop_ms: a.loop_ms,
                    plays: a.plays,
                    rendered_width: candidate.rendered_width,
                    rendered_height: candidate.rendered_height,
                    pause_control: candidate.pause_control,
                    reduced_motion_alternative: candidate.reduced_motion_alternative,
                });
            }
            Some(None) => {}
            None => facts.images_unread += 1,
        }
    }
    facts.bound();
}

/// The animation of the image at `url` (`Some(None)`: a still image), from `memo` or its bytes;
/// `None` when its bytes could not be read.
async fn animation_of(instance: &Instance, page: &Page, budget: &Deadline, events: &[RawEvent], memo: Option<&ImageAnimations>, url: &str) -> Option<Option<Animation>> {
    if url.starts_with("data:") {
        return data_url_bytes(url).map(|bytes| animation::parse(&bytes));
    }
    let request_id = response_for(events, url, MAX_ANIMATION_BYTES as f64)?;
    let reusable = memo.and(response_memo::reusable(events, &request_id));
    if let (Some(memo), Some(r)) = (memo, reusable)
        && let Some(known) = memo.get(&r.key) {
            return Some(known);
        }
    let bytes = response_bytes(instance, page, budget, &request_id).await?;
    let found = animation::parse(&bytes);
    if let (Some(memo), Some(r)) = (memo, reusable) {
        memo.keep(r, found);
    }
    Some(found)
}

/// Emulates the 320 px viewport, measures, and clears the emulation whatever happened.
async fn reflow(instance: &Instance, page: &Page, budget: &Deadline, scroll: [f64; 2]) -> Result<Measured, BrowserError> {
    let narrow = SetDeviceMetricsOverrideParams::new(REFLOW_WIDTH, REFLOW_HEIGHT, 0.0, false);
    run(instance, page, "Emulation.setDeviceMetricsOverride", budget.cap(STEP_TIMEOUT), narrow).await?;
    let measured = eval_string(instance, page, "layout", &layout_script("'reflow'"), budget.cap(Duration::from_secs(10))).await;
    let cleared = run(instance, page, "Emulation.clearDeviceMetricsOverride", RESTORE_TIMEOUT, ClearDeviceMetricsOverrideParams::default()).await;
    let back = format!("const SCROLL = [{}, {}];", scroll[0], scroll[1]);
    if let Err(e) = eval_string(instance, page, "layout", &layout_script(&format!("'restore'; {back}")), RESTORE_TIMEOUT).await {
        tracing::debug!(error = %e, "scroll position not restored");
    }
    cleared?;
    parse(&measured?)
}

/// The bytes of a `data:` URL in base64 that fits `MAX_ANIMATION_BYTES`.
fn data_url_bytes(url: &str) -> Option<Vec<u8>> {
    let (meta, payload) = url.strip_prefix("data:")?.split_once(',')?;
    if !meta.ends_with(";base64") || payload.len() > MAX_ANIMATION_BYTES * 4 / 3 + 4 {
        return None;
    }
    base64::engine::general_purpose::STANDARD.decode(payload.trim()).ok()
}

/// The body of the page's own finished response `request_id` (none when it is too large).
async fn response_bytes(instance: &Instance, page: &Page, budget: &Deadline, request_id: &str) -> Option<Vec<u8>> {
    let body = run(instance, page, "Network.getResponseBody", budget.cap(STEP_TIMEOUT), GetResponseBodyParams::new(request_id.to_string())).await.ok()?;
    if body.body.len() > MAX_ANIMATION_BYTES * 4 / 3 + 4 {
        return None;
    }
    if body.base64_encoded { base64::engine::general_purpose::STANDARD.decode(body.body.as_bytes()).ok() } else { Some(body.body.into_bytes()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_scripts_answers() {
        let d: Desktop = parse(r##"{"reading":{"justified":[{"selector":"p","lines":4}]},"images":[{"url":"u","pause_control":true}],"scroll":[0,120],"ms":12}"##).unwrap();
        assert_eq!((d.reading.justified[0].lines, d.images[0].pause_control, d.scroll[1], d.ms), (4, true, 120.0, 12));
        let m: Measured = parse(r##"{"viewport_width":320,"scroll_width":900,"overflowing":[{"selector":"#w","text_right_px":880}],"ms":3}"##).unwrap();
        assert_eq!((m.reflow.scroll_width, m.reflow.overflowing[0].text_right_px, m.ms), (900, 880.0, 3));
    }
}
