//! The checks_e2e tests: one binary, a module per former suite, the shared support once.

#[path = "../support/app.rs"]
mod app;
#[path = "../support/fixture_dir.rs"]
mod fixture_dir;
#[path = "../support/fixture_site.rs"]
mod fixture_site;
#[path = "../support/media_gen.rs"]
mod media_gen;
#[path = "../support/scan_harness.rs"]
mod scan_harness;
#[path = "../support/tls_front.rs"]
mod tls_front;
mod artifacts;
mod clean;
mod content;
mod crawl;
mod https;
mod interact;
mod journeys;
mod perf;
mod repository;
