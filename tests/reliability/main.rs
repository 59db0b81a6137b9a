//! The reliability tests: one binary, a module per former suite, the shared support once.
use sitescan_test_support::{app, engine, fixture_site, hostile_site, process};

mod fair_share;
mod faults;
mod fleet;
mod hostile_pages;
mod load;
mod pg_outage;
mod signals;
mod target_budgets;
mod worker_process;
