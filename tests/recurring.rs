//! Recurring scans, end to end through the real server: changes between two scans of a site.
//!
//! One test binary for the recurring/events features (each binary links the whole crate).

#[path = "support/app.rs"]
mod app;
#[path = "support/fixture_site.rs"]
mod fixture_site;

#[path = "recurring/changes.rs"]
mod changes;
#[path = "recurring/watch.rs"]
mod watch;
#[path = "recurring/cli.rs"]
mod cli;
#[path = "recurring/webhooks.rs"]
mod webhooks;
