//! sitescan: scans live websites for quality problems in a real headless Chromium.
//!
//! The library is the engine; `main.rs` is a thin CLI over it. Imports flow one way:
//! `api`, `cli` -> `scan` -> `checks`, `browser`, `net`, `store` -> `model`.

pub mod accounts;
pub mod api;
pub mod browser;
pub mod checks;
pub mod cli;
pub mod metrics;
pub mod model;
pub mod net;
pub mod proto;
pub mod report;
pub mod scan;
pub mod store;
pub mod telemetry;
pub mod web;

/// The crate version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
