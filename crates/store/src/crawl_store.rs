//! The store as the engine sees it: `CrawlStore` (a running scan's shared crawl) and
//! `RegionVerdictStore` (what earlier scans of a site judged), each method the store's own.

use super::Store;
use crate::model::crawl_store::{Admission, ClaimCursor, ClaimedPage, CrawlCounts, CrawlStore, RegionVerdictStore, StorageResult, VerdictBounds, VerdictSite};
use crate::model::{Change, Finding, ReportPage};
use std::time::Duration;
use uuid::Uuid;

#[async_trait::async_trait]
impl CrawlStore for Store {
    async fn open_crawl(&self, scan_id: Uuid, context: &str) -> StorageResult<bool> {
        Ok(Store::open_crawl(self, scan_id, context).await?)
    }

    async fn crawl_context(&self, scan_id: Uuid) -> StorageResult<Option<(String, Option<i64>)>> {
        Ok(Store::crawl_context(self, scan_id).await?)
    }

    async fn set_crawl_context(&self, scan_id: Uuid, context: &str) -> StorageResult<()> {
        Ok(Store::set_crawl_context(self, scan_id, context).await?)
    }

    async fn begin_site_phase(&self, scan_id: Uuid) -> StorageResult<i64> {
        Ok(Store::begin_site_phase(self, scan_id).await?)
    }

    async fn undo_site_phase(&self, scan_id: Uuid, since: i64) -> StorageResult<()> {
        Ok(Store::undo_site_phase(self, scan_id, since).await?)
    }

    async fn first_of_target(&self, scan_id: Uuid) -> StorageResult<bool> {
        Ok(match self.scan_any_org(scan_id).await? {
            Some(scan) => self.baseline_scan(&scan).await?.is_none(),
            None => false,
        })
    }

    async fn enqueue_pages(&self, scan_id: Uuid, pages: &[(String, u32)], budget: usize) -> StorageResult<Admission> {
        Ok(Store::enqueue_pages(self, scan_id, pages, budget).await?)
    }

    async fn mark_reached(&self, scan_id: Uuid, url: &str, depth: u32) -> StorageResult<()> {
        Ok(Store::mark_reached(self, scan_id, url, depth).await?)
    }

    async fn claim_pages_from(&self, scan_id: Uuid, holder: &str, lease: Duration, max: usize, cursor: &mut ClaimCursor) -> StorageResult<Vec<ClaimedPage>> {
        Ok(Store::claim_pages_from(self, scan_id, holder, lease, max, cursor).await?)
    }

    async fn renew_pages(&self, scan_id: Uuid, holder: &str, lease: Duration, urls: &[String]) -> StorageResult<u64> {
        Ok(Store::renew_pages(self, scan_id, holder, lease, urls).await?)
    }

    async fn release_pages(&self, scan_id: Uuid, holder: &str) -> StorageResult<u64> {
        Ok(Store::release_pages(self, scan_id, holder).await?)
    }

    async fn complete_page(
        &self,
        scan_id: Uuid,
        org: &str,
        url: &str,
        holder: &str,
        facts: &str,
        page: &ReportPage,
        findings: &[Finding],
        change: Option<Change>,
    ) -> StorageResult<bool> {
        Ok(Store::complete_page(self, scan_id, org, url, holder, facts, page, findings, change).await?)
    }

    async fn crawl_page_done(&self, scan_id: Uuid, url: &str) -> StorageResult<bool> {
        Ok(Store::crawl_page_done(self, scan_id, url).await?)
    }

    async fn crawl_counts(&self, scan_id: Uuid) -> StorageResult<CrawlCounts> {
        Ok(Store::crawl_counts(self, scan_id).await?)
    }

    async fn crawl_facts(&self, scan_id: Uuid) -> StorageResult<Vec<(String, String)>> {
        Ok(Store::crawl_facts(self, scan_id).await?)
    }

    async fn scan_findings_stored(&self, scan_id: Uuid) -> StorageResult<u64> {
        Ok(Store::scan_findings_stored(self, scan_id).await?)
    }

    async fn scan_waits_beside(&self, org: &str, cap: i64) -> StorageResult<bool> {
        Ok(Store::scan_waits_beside(self, org, cap).await?)
    }

    async fn enter_host_slot(&self, host: &str, slots: usize, holder: &str, lease: Duration) -> StorageResult<Option<i32>> {
        Ok(Store::enter_host_slot(self, host, slots, holder, lease).await?)
    }

    async fn leave_host_slot(&self, host: &str, slot: i32, holder: &str) -> StorageResult<()> {
        Ok(Store::leave_host_slot(self, host, slot, holder).await?)
    }

    async fn reserve_host_start(&self, host: &str, interval: Duration) -> StorageResult<i64> {
        Ok(Store::reserve_host_start(self, host, interval).await?)
    }
}

#[async_trait::async_trait]
impl RegionVerdictStore for Store {
    async fn region_verdicts(&self, site: VerdictSite<'_>, bounds: VerdictBounds, now: i64) -> StorageResult<Vec<(String, String)>> {
        Ok(Store::region_verdicts(self, site, bounds, now).await?)
    }

    async fn save_region_verdicts(&self, site: VerdictSite<'_>, fresh: &[(String, String)], used: &[String], bounds: VerdictBounds, now: i64) -> StorageResult<()> {
        Ok(Store::save_region_verdicts(self, site, fresh, used, bounds, now).await?)
    }

    async fn close(&self) {
        Store::close(self.clone()).await;
    }
}
