//! The scan tests: one binary, a module per former suite, the shared support once.

#[path = "../support/app.rs"]
mod app;
#[path = "../support/fixture_site.rs"]
mod fixture_site;
mod axe_contrast;
mod browser_capture;
mod browser_egress;
mod browser_pool;
mod e2e;
mod net_egress;
mod net_fetcher;
mod ownership;
