//! Runs every registered check over snapshots.

use super::check::{Findings, Thresholds};
use super::registry::CHECKS;
use crate::model::{Finding, PageSnapshot, SiteSnapshot, sort_findings};

/// Runs every page check over one page; findings come out sorted.
pub fn run_page_checks(page: &PageSnapshot, thresholds: &Thresholds) -> Vec<Finding> {
    let mut out = Vec::new();
    for check in CHECKS {
        let mut sink = Findings::new(check.meta(), &mut out);
        check.page(page, thresholds, &mut sink);
    }
    sort_findings(&mut out);
    out
}

/// Runs every site check once the crawl has ended; findings come out sorted.
pub fn run_site_checks(site: &SiteSnapshot, thresholds: &Thresholds) -> Vec<Finding> {
    let mut out = Vec::new();
    for check in CHECKS {
        let mut sink = Findings::new(check.meta(), &mut out);
        check.site(site, thresholds, &mut sink);
    }
    sort_findings(&mut out);
    out
}
