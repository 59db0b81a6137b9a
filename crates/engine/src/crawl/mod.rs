//! The crawl: the frontier, politeness, each page's work, the scan itself in this process
//! (`Scanner::run`) or shared with the fleet through storage (`shared_crawl`, over the model's
//! `CrawlStore`), the site checks' facts. No database: storage is a trait the store implements.

pub mod ceiling;
pub mod digest;
pub mod error;
pub mod frontier;
pub mod in_flight;
pub mod options;
pub mod page_work;
pub mod politeness;
pub mod probes;
pub mod region_cache;
pub mod scanner;
pub mod shared_crawl;
pub mod site_gather;
pub mod sitemap_parse;

pub use error::ScanError;
pub use options::{
    DEFAULT_HOST_CONCURRENCY, DEFAULT_LEASE_SECONDS, DEFAULT_MAX_RUNNING_PER_ORG, DEFAULT_MAX_DEPTH, DEFAULT_MAX_PAGES, DEFAULT_POLL_MS, MAX_PAGES_LIMIT, OwnershipPin,
    OwnershipRecheck, ScanOptions,
};
pub use region_cache::RegionCache;
pub use scanner::{Progress, ProgressFn, ScanSink, ScanStats, Scanner, SiteScanner};
