//! The reliability tests: one binary, a module per former suite, the shared support once.

#[path = "../support/app.rs"]
mod app;
#[path = "../support/engine.rs"]
mod engine;
#[path = "../support/fixture_site.rs"]
mod fixture_site;
#[path = "../support/hostile_site.rs"]
mod hostile_site;
#[path = "../support/process.rs"]
mod process;
#[path = "../support/procs.rs"]
mod procs;
mod faults;
mod fleet;
mod hostile_pages;
mod load;
mod pg_outage;
