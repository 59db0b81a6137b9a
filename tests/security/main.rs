//! The security tests: one binary, a module per former suite, the shared support once.
use sitescan_test_support::{app, dashboard_client, engine, fixture_site, fuzz_harness, hostile_site, process, sink, trap};

mod at_rest;
mod egress_errors;
mod flood;
mod fuzz;
mod journeys;
mod live;
mod login;
mod outbound;
mod ownership;
mod page_scripts;
mod proxy;
mod roles;
mod secrets;
mod shared_regions;
mod site_scoping;
mod ssrf;
mod streams;
mod targets;
