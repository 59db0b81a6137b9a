//! The checks_e2e tests: one binary, a module per former suite, the shared support once.
use sitescan_test_support::{app, fixture_dir, fixture_site, media_gen, scan_harness, sink, tls_front};

mod act_three;
mod artifacts;
mod barriers;
mod clean;
mod content;
mod crawl;
mod https;
mod interact;
mod journeys;
mod perf;
mod reading;
mod real_web;
mod repository;
