//! The security tests: one binary, a module per former suite, the shared support once.

#[path = "../support/app.rs"]
mod app;
#[path = "../dashboard/client.rs"]
mod client;
#[path = "../support/engine.rs"]
mod engine;
#[path = "../support/fixture_site.rs"]
mod fixture_site;
#[path = "../support/fuzz_harness.rs"]
mod fuzz_harness;
#[path = "../support/process.rs"]
mod process;
#[path = "../support/trap.rs"]
mod trap;
mod at_rest;
mod flood;
mod fuzz;
mod journeys;
mod live;
mod login;
mod ownership;
mod page_scripts;
mod proxy;
mod roles;
mod secrets;
mod ssrf;
mod targets;
