//! The dashboard and account area (issue 14), over real HTTP against the real server on a
//! database of its own (SQLite, or PostgreSQL with `SITESCAN_TEST_DATABASE_URL`), plus one run
//! in a real Chromium (sign in, make a token, see it once, revoke it; sitescan's own checks on
//! every page; screenshots at 1280 and 390 px in `/tmp/dash-shots/`).
//!
//! One test binary with modules under `tests/dashboard/`.
use sitescan_test_support::{app, dashboard_client, fixture_site, process, sink};

mod auth;
mod browser;
mod budget;
mod chat_kinds;
mod cli;
mod forms;
mod level;
mod live;
mod members;
mod pages;
mod sites;
mod tokens;
mod webhooks;

/// The scan engine as `sitescan worker` builds it, allowed to reach loopback.
async fn scan_engine() -> std::sync::Arc<sitescan::crawl::Scanner> {
    let browser = sitescan::cli::args::BrowserArgs {
        browsers: 1,
        pages_per_browser: 2,
        cdp: vec![],
        chromium: None,
        proxy_listen: "127.0.0.1:0".parse().unwrap(),
        no_share: false,
        no_cache: false,
        ocr: false,
        no_ocr: false,
        chromium_no_sandbox: false,
    };
    let policy = sitescan::model::AddressPolicy::new(vec!["127.0.0.0/8".parse().unwrap()]);
    sitescan::cli::engine::scanner(&browser, policy).await.expect("start the browser pool")
}
