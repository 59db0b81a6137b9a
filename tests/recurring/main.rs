//! Recurring scans, end to end through the real server: changes between two scans of a site.
//!
//! One test binary for the recurring/events features (each binary links the whole crate).
use sitescan_test_support::{app, engine, fixture_site, process};


mod changes;
mod chat;
mod chat_receivers;
mod watch;
mod cli;
mod webhooks;
mod schedules;
mod monitors;
mod retention;
mod embedded_key;
