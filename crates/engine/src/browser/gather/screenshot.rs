//! Screenshot gatherer: a PNG of the first viewport, base64 as CDP returns it.

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::page::{CaptureScreenshotFormat, CaptureScreenshotParams, Viewport};

use crate::browser::cdp::{Deadline, STEP_TIMEOUT, run};
use crate::browser::error::BrowserError;
use crate::browser::instance::Instance;

pub(crate) async fn viewport_png(instance: &Instance, page: &Page, budget: &Deadline) -> Result<String, BrowserError> {
    let params = CaptureScreenshotParams { format: Some(CaptureScreenshotFormat::Png), from_surface: Some(true), ..CaptureScreenshotParams::default() };
    let shot = run(instance, page, "Page.captureScreenshot", budget.cap(STEP_TIMEOUT), params).await?;
    Ok(shot.data.into())
}

/// A PNG of `clip` (document coordinates, CSS pixels), base64.
pub(crate) async fn clip_png(instance: &Instance, page: &Page, budget: &Deadline, clip: Viewport) -> Result<String, BrowserError> {
    let params = CaptureScreenshotParams {
        format: Some(CaptureScreenshotFormat::Png),
        from_surface: Some(true),
        clip: Some(clip),
        // Compared for equality, never stored: the fastest encoding will do.
        optimize_for_speed: Some(true),
        ..CaptureScreenshotParams::default()
    };
    let shot = run(instance, page, "Page.captureScreenshot", budget.cap(STEP_TIMEOUT), params).await?;
    Ok(shot.data.into())
}
