//! `BrowserOptions` and `CaptureOptions`: how the pool launches browsers and what a capture
//! gathers. Defaults are `pub const` so the CLI help and config read the same values.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Chromium processes launched by default.
pub const DEFAULT_BROWSERS: usize = 1;
/// Concurrent pages per browser by default.
pub const DEFAULT_PAGES_PER_BROWSER: usize = 4;
/// Time for a navigation to answer and fire `load`.
pub const DEFAULT_NAVIGATION_TIMEOUT: Duration = Duration::from_secs(30);
/// Deadline for a whole page capture (navigation and every gatherer).
pub const DEFAULT_PAGE_TIMEOUT: Duration = Duration::from_secs(60);
/// Pages a browser renders before it is replaced by a fresh process (bounds memory).
pub const DEFAULT_RECYCLE_AFTER_PAGES: usize = 200;
/// The viewport every page is rendered in (Lighthouse's desktop size).
pub const VIEWPORT_WIDTH: u32 = 1350;
pub const VIEWPORT_HEIGHT: u32 = 940;
/// Where the egress proxy listens by default (any free port on loopback).
pub const DEFAULT_PROXY_LISTEN: &str = "127.0.0.1:0";

/// What a capture gathers beyond the always-on artifacts (network, console, errors, cookies,
/// metrics, DOM facts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CaptureOptions {
    /// Run axe-core.
    pub axe: bool,
    /// Tab through the page (focus visibility, keyboard traps).
    pub keyboard_walk: bool,
    /// Measure reading and layout last (`gather/layout.rs`: reflow at 320 px, text at 200% and
    /// with WCAG spacing, reading measures, image animations).
    pub layout: bool,
    /// Keep a PNG of the first viewport.
    pub screenshot: bool,
    /// Which of the page's images are read for text (Tesseract: image of text, image names that
    /// contradict the image).
    pub ocr: OcrMode,
    /// Scroll to the bottom and back once after load (lazy content, layout shifts).
    pub scroll: bool,
    /// Judge a region the site's pages repeat (header, navigation, footer) once per scan and give
    /// its findings back on the other pages that show it unchanged; off, every page is judged in
    /// full (the findings are the same either way).
    pub share: bool,
}

/// Which images a page's text recognition reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OcrMode {
    /// None: the image text checks do not run (`--no-ocr`).
    Off,
    /// Those whose pixels look like they hold text (`image_look`), and each image once a process
    /// (the default).
    #[default]
    Likely,
    /// Every candidate image (`--ocr`).
    All,
}

impl Default for CaptureOptions {
    fn default() -> Self {
        CaptureOptions { axe: true, keyboard_walk: true, layout: true, screenshot: false, ocr: OcrMode::Likely, scroll: true, share: true }
    }
}

impl CaptureOptions {
    /// Navigation, network, console and metrics only: no scrolling, axe, keyboard, screenshot or
    /// text recognition.
    pub fn bare() -> Self {
        CaptureOptions { axe: false, keyboard_walk: false, layout: false, screenshot: false, ocr: OcrMode::Off, scroll: false, share: false }
    }
}

/// How the pool runs Chromium.
#[derive(Debug, Clone, PartialEq)]
pub struct BrowserOptions {
    /// The Chromium binary; `None` searches `SITESCAN_CHROMIUM`, `chromium-headless-shell`,
    /// `/usr/bin/chromium` and `google-chrome`.
    pub chromium: Option<PathBuf>,
    /// Remote DevTools endpoints (`ws://...` or `http://host:port`) to use instead of launching.
    pub cdp_endpoints: Vec<String>,
    pub browsers: usize,
    pub pages_per_browser: usize,
    pub navigation_timeout: Duration,
    pub page_timeout: Duration,
    pub recycle_after_pages: usize,
    pub capture: CaptureOptions,
    /// Where the egress proxy listens. Remote browsers must be able to reach this address.
    pub proxy_listen: SocketAddr,
    /// Start Chromium with `--no-sandbox` (always so as root): inside a container that is the
    /// sandbox and does not allow the user namespaces Chromium's own needs.
    pub no_sandbox: bool,
}

impl Default for BrowserOptions {
    fn default() -> Self {
        BrowserOptions {
            chromium: None,
            cdp_endpoints: Vec::new(),
            browsers: DEFAULT_BROWSERS,
            pages_per_browser: DEFAULT_PAGES_PER_BROWSER,
            navigation_timeout: DEFAULT_NAVIGATION_TIMEOUT,
            page_timeout: DEFAULT_PAGE_TIMEOUT,
            recycle_after_pages: DEFAULT_RECYCLE_AFTER_PAGES,
            capture: CaptureOptions::default(),
            proxy_listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            no_sandbox: false,
        }
    }
}

impl BrowserOptions {
    /// The number of browser slots: one per remote endpoint, else `browsers`.
    pub fn slot_count(&self) -> usize {
        if self.cdp_endpoints.is_empty() { self.browsers.max(1) } else { self.cdp_endpoints.len() }
    }

    /// Concurrent pages across the pool.
    pub fn page_permits(&self) -> usize {
        self.slot_count() * self.pages_per_browser.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_documented_values() {
        let o = BrowserOptions::default();
        assert_eq!((o.browsers, o.pages_per_browser, o.recycle_after_pages), (1, 4, 200));
        assert_eq!((o.navigation_timeout.as_secs(), o.page_timeout.as_secs()), (30, 60));
        assert!(o.capture.axe && o.capture.keyboard_walk && o.capture.scroll && !o.capture.screenshot);
        assert_eq!(o.proxy_listen.to_string(), DEFAULT_PROXY_LISTEN);
        assert_eq!(o.page_permits(), 4);
        let remote = BrowserOptions { cdp_endpoints: vec!["ws://a".into(), "ws://b".into()], browsers: 5, ..o };
        assert_eq!(remote.page_permits(), 8);
    }
}
