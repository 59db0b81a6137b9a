//! The browser engine: a pool of Chromium processes (or remote DevTools endpoints) driven over
//! CDP, behind the egress proxy, turning a URL into a `PageSnapshot`. The only CDP code.

mod capture;
mod cdp;
mod cores;
mod devtools_relay;
mod error;
mod events;
mod gather;
mod instance;
mod journey;
mod lenient;
mod launch;
mod options;
mod page_cpu;
pub mod image_look;
pub mod pixel_contrast;
mod pool;
mod scripts;
mod session;
mod shared_regions;
mod unchanged;
mod window;

pub use capture::{NETWORK_QUIET, NETWORK_QUIET_MAX};
pub use error::BrowserError;
pub use events::RawEvent;
pub use launch::{CHROMIUM_ENV, CHROMIUM_FLAGS, find_chromium};
pub use options::{
    BrowserOptions, CaptureOptions, OcrMode, DEFAULT_BROWSERS, DEFAULT_NAVIGATION_TIMEOUT, DEFAULT_PAGE_TIMEOUT,
    DEFAULT_PAGES_PER_BROWSER, DEFAULT_PROXY_LISTEN, DEFAULT_RECYCLE_AFTER_PAGES, VIEWPORT_HEIGHT, VIEWPORT_WIDTH,
};
pub use pool::{BrowserPool, PoolStats};
pub use scripts::{axe_version, region_generation};
pub use journey::JourneyAllowance;
pub use session::BrowserSession;
pub use shared_regions::RegionVerdicts;
