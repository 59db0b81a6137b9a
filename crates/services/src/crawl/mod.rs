//! The scan engine: worker loop, crawl frontier, politeness, the scan itself, report assembly.

pub mod ceiling;
pub mod digest;
pub mod error;
pub mod frontier;
pub mod in_flight;
pub mod lease;
pub mod options;
pub mod page_work;
pub mod politeness;
pub mod probes;
pub mod recorder;
pub mod region_cache;
pub mod scanner;
pub mod shared_crawl;
pub mod site_budget;
pub mod site_gather;
pub mod sitemap_parse;
pub mod worker;

pub use error::ScanError;
pub use options::{
    DEFAULT_HOST_CONCURRENCY, DEFAULT_LEASE_SECONDS, DEFAULT_MAX_RUNNING_PER_ORG, DEFAULT_MAX_DEPTH, DEFAULT_MAX_PAGES, DEFAULT_POLL_MS, MAX_PAGES_LIMIT, OwnershipPin,
    OwnershipRecheck, ScanOptions,
};
pub use region_cache::RegionCache;
pub use scanner::{Progress, ProgressFn, ScanSink, ScanStats, Scanner, SiteScanner};
pub use worker::{Outcome, WorkerConfig, Workers, run_claimed};
