//! Recurring scans, end to end through the real server: changes between two scans of a site.
//!
//! One test binary for the recurring/events features (each binary links the whole crate).
use sitescan_test_support::{app, fixture_site, process};


mod changes;
mod watch;
mod cli;
mod webhooks;
mod schedules;
mod monitors;
mod retention;
