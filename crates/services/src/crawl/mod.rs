//! The scan jobs: the worker loop that claims scans from the store and runs each through the
//! engine's crawl (`sitescan_engine::crawl`), its lease and progress, and what a scan's end
//! sets off (the comparison with its baseline, the site's budget verdict, webhooks).

pub mod lease;
pub mod recorder;
pub mod site_budget;
pub mod worker;

pub use sitescan_engine::crawl::*;
pub use worker::{Outcome, WorkerConfig, Workers, run_claimed};
