//! What a scan may do: page budget, depth, link checks, politeness, thresholds.

use crate::checks::Thresholds;
use std::sync::Arc;
use std::time::Duration;

/// Pages rendered per scan unless configured.
pub const DEFAULT_MAX_PAGES: usize = 50;
pub use crate::model::MAX_PAGES_LIMIT;
/// Link depth from the start page.
pub const DEFAULT_MAX_DEPTH: u32 = 5;
/// Internal links whose status is checked without rendering them, per scan.
pub const DEFAULT_LINK_CHECK_BUDGET: usize = 200;
/// Sitemap-listed URLs whose status is checked, per scan.
pub const DEFAULT_SITEMAP_URL_BUDGET: usize = 100;
/// Requests in flight to the target host at once (fetcher requests; pages count too).
pub const DEFAULT_HOST_CONCURRENCY: usize = 4;
/// Minimum interval between requests to the host, unless robots.txt asks for more.
pub const DEFAULT_MIN_INTERVAL_MS: u64 = 0;
/// The longest crawl-delay honoured (a site asking for more gets this).
pub const MAX_CRAWL_DELAY: Duration = Duration::from_secs(5);
/// Lease length default, seconds.
pub const DEFAULT_LEASE_SECONDS: u64 = 60;
/// Idle worker poll interval default, milliseconds.
pub const DEFAULT_POLL_MS: u64 = 500;
/// Scans of one organisation running at once across the fleet (0: no cap, the default). Claims
/// are fair across organisations whatever the cap (the store's fair claim): another
/// organisation's scan takes the next free worker however long the first one's backlog. A cap
/// also keeps workers in reserve for the others, at the price of idle workers while one
/// organisation is alone, so it is the operator's choice (e.g. half the fleet's loops).
pub const DEFAULT_MAX_RUNNING_PER_ORG: usize = 0;

/// Options of one scan.
#[derive(Debug, Clone)]
pub struct ScanOptions {
    pub max_pages: usize,
    pub max_depth: u32,
    pub link_check_budget: usize,
    pub sitemap_url_budget: usize,
    pub host_concurrency: usize,
    pub min_interval: Duration,
    pub thresholds: Thresholds,
    /// Pages rendered at once for this scan (the pool bounds the total across scans).
    pub page_concurrency: usize,
    /// An active scan: also runs the repository probes. The engine does not check ownership:
    /// whoever sets this must have proved it (`sites::Verifier`) right before the scan.
    pub active: bool,
    /// Requests the repository probes may make per site (calibration included).
    pub probe_budget: usize,
    /// Active scans only: the journeys to run after the crawl, each with its secrets (from
    /// `--journey`/`--secret`, or a stored site's journeys and decrypted secrets).
    pub journeys: Vec<crate::model::JourneySpec>,
    /// Active scans: the site's host held to the addresses its ownership was proved at (the
    /// repository probes and the journeys connect there only), and how to prove it again right
    /// before the probes.
    pub pin: Option<OwnershipPin>,
    /// Where the region verdicts of earlier scans of the site are kept, if anywhere: the scan
    /// gives them back where a region is unchanged and leaves its own for the next scan.
    pub region_cache: Option<super::RegionCache>,
    /// Site gatherers made to fail after the crawl, as if their source broke
    /// (`SiteSnapshot::fail_gatherer`): the seam the tests use to prove that a failed gatherer's
    /// checks are reported as not run, never as findings. Empty in every real scan.
    pub fail_site_gatherers: Vec<crate::model::SiteArtifact>,
}

/// An active scan's hold on its site (see `ScanOptions::pin`).
#[derive(Clone)]
pub struct OwnershipPin {
    /// The site's host name (or IP literal).
    pub host: String,
    /// The addresses the proof resolved and connected to.
    pub addrs: Vec<std::net::IpAddr>,
    /// Proves ownership again at those addresses.
    pub recheck: Arc<dyn OwnershipRecheck>,
}

impl std::fmt::Debug for OwnershipPin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OwnershipPin").field("host", &self.host).field("addrs", &self.addrs).finish_non_exhaustive()
    }
}

/// Proves ownership of a scan's site again, connecting only to `addrs`. `Err` says why not.
#[async_trait::async_trait]
pub trait OwnershipRecheck: Send + Sync {
    async fn recheck(&self, addrs: &[std::net::IpAddr]) -> Result<(), String>;
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            max_pages: DEFAULT_MAX_PAGES,
            max_depth: DEFAULT_MAX_DEPTH,
            link_check_budget: DEFAULT_LINK_CHECK_BUDGET,
            sitemap_url_budget: DEFAULT_SITEMAP_URL_BUDGET,
            host_concurrency: DEFAULT_HOST_CONCURRENCY,
            min_interval: Duration::from_millis(DEFAULT_MIN_INTERVAL_MS),
            thresholds: Thresholds::default(),
            page_concurrency: 4,
            active: false,
            probe_budget: super::probes::DEFAULT_PROBE_BUDGET,
            journeys: Vec::new(),
            pin: None,
            region_cache: None,
            fail_site_gatherers: Vec::new(),
        }
    }
}
