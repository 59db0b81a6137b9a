//! Region verdicts across scans of a site: a re-scan gives back what axe-core found in every
//! region whose fingerprint is unchanged (the page's `main` included), so an unchanged page is
//! not judged again and a changed one only where it changed, exactly as within one scan
//! (`browser/axe_share.js`); an unchanged page's other in-page facts (barriers, keyboard walk,
//! layout, dialogs) are given back too (`browser/unchanged.rs`). Every page is still rendered and
//! measured afresh (network, console, cookies, metrics).
//!
//! Kept in the store per organisation and origin, tagged with the generation that judged them
//! (`browser::region_generation`: sitescan, axe-core, the in-page scripts and the viewport), bounded
//! per site (`BOUNDS`) and dropped when unused for `BOUNDS.expiry_us`.

use crate::browser::{BrowserSession, VIEWPORT_HEIGHT, VIEWPORT_WIDTH, region_generation};
use crate::model::crawl_store::{RegionVerdictStore, VerdictBounds, VerdictSite};
use std::sync::Arc;
use std::sync::LazyLock;
use url::Url;

/// Per site: the 20,000 most recently used regions and 16 MiB of findings and facts at most (as stored: compressed), each dropped
/// 30 days after it was last given back.
pub const BOUNDS: VerdictBounds = VerdictBounds { max_entries: 20_000, max_bytes: 16 << 20, expiry_us: 30 * 24 * 3_600 * 1_000_000 };

static GENERATION: LazyLock<String> = LazyLock::new(|| region_generation((VIEWPORT_WIDTH, VIEWPORT_HEIGHT)));

/// Where a scan's region verdicts are kept (`ScanOptions::region_cache`): the store, and once a
/// scan is claimed, the site they belong to.
#[derive(Debug, Clone)]
pub struct RegionCache {
    store: Arc<dyn RegionVerdictStore>,
    site: Option<(String, String)>,
}

impl RegionCache {
    /// Verdicts kept in `store` (the service's own database, or the CLI's `--cache` file).
    pub fn new(store: Arc<dyn RegionVerdictStore>) -> Self {
        RegionCache { store, site: None }
    }

    /// The same cache, for the scans of `org_id` starting at `start` (by origin).
    pub fn for_site(&self, org_id: &str, start: &Url) -> Self {
        RegionCache { store: self.store.clone(), site: Some((org_id.to_string(), start.origin().ascii_serialization())) }
    }

    /// Closes the store: a `--cache` file is then whole, its write-ahead log folded in and
    /// removed, ready to be copied or measured.
    pub async fn close(self) {
        self.store.close().await;
    }

    fn site(&self) -> Option<VerdictSite<'_>> {
        self.site.as_ref().map(|(org_id, origin)| VerdictSite { org_id, origin, generation: &GENERATION })
    }

    /// Starts `session` with what earlier scans of the site found. A store error only costs the
    /// reuse: the scan then judges everything.
    pub async fn seed(&self, session: &BrowserSession) {
        let Some(site) = self.site() else { return };
        match self.store.region_verdicts(site, BOUNDS, crate::model::time::now_us()).await {
            Ok(entries) => {
                tracing::debug!(regions = entries.len(), "region verdicts of earlier scans");
                session.seed_regions(entries);
            }
            Err(e) => tracing::warn!(error = %e, "region verdicts of earlier scans unreadable; judging every page in full"),
        }
    }

    /// Keeps what `session` judged for the next scan of the site.
    pub async fn save(&self, session: &BrowserSession) {
        let Some(site) = self.site() else { return };
        let verdicts = session.region_verdicts();
        let now = crate::model::time::now_us();
        if let Err(e) = self.store.save_region_verdicts(site, &verdicts.fresh, &verdicts.used, BOUNDS, now).await {
            tracing::warn!(error = %e, "region verdicts not kept for the next scan");
        }
    }
}
