//! sitescan's scan engine: what reads the web. No database: Cargo keeps the store out.
//!
//! | module | job |
//! |---|---|
//! | `net` | the egress guard (SSRF policy with checked connects), Chromium's forward proxy, the HTTP fetcher: the only HTTP client |
//! | `browser` | the Chromium pool over CDP, page capture and the gatherers: the only CDP code |
//! | `metrics` | the process's Prometheus registry, written by the engine and the API alike |

pub mod browser;
pub mod crawl;
pub mod metrics;
pub mod net;

use sitescan_checks as checks;
use sitescan_model as model;

/// The version of sitescan (one for the whole workspace), named in the browser's user agent.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
