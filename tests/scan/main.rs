//! The scan tests: one binary, a module per former suite, the shared support once.
use sitescan_test_support::{app, fixture_site};

mod axe_contrast;
mod browser_capture;
mod browser_egress;
mod browser_pool;
mod e2e;
mod image_animations;
mod net_dns;
mod net_egress;
mod net_fetcher;
mod ownership;
mod rescan;
mod shared_crawl;
mod shared_regions;
mod site_gatherers;
