//! Recurring scans, end to end through the real server: changes between two scans of a site.
//!
//! One test binary for the recurring/events features (each binary links the whole crate).

#[path = "../support/app.rs"]
mod app;
#[path = "../support/fixture_site.rs"]
mod fixture_site;
#[path = "../support/procs.rs"]
mod procs;

mod changes;
mod watch;
mod cli;
mod webhooks;
mod schedules;
mod monitors;
mod retention;
