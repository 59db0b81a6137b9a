//! Test helpers: hand-built pages and sites, and the findings one check produces for them.

use crate::checks::{Thresholds, run_page_checks, run_site_checks};
use crate::model::{DomFacts, Finding, PageSnapshot, SiteSnapshot};

pub const URL: &str = "https://example.com/page";

/// A rendered 200 HTML page at `URL`.
pub fn page(dom: DomFacts) -> PageSnapshot {
    PageSnapshot {
        requested_url: URL.into(),
        final_url: URL.into(),
        status: Some(200),
        mime_type: Some("text/html".into()),
        dom,
        ..Default::default()
    }
}

pub fn findings(page: &PageSnapshot, id: &str) -> Vec<Finding> {
    run_page_checks(page, &Thresholds::default()).findings
        .into_iter()
        .filter(|f| f.check_id == id)
        .collect()
}

pub fn site_findings(site: &SiteSnapshot, id: &str) -> Vec<Finding> {
    run_site_checks(site, &Thresholds::default()).findings
        .into_iter()
        .filter(|f| f.check_id == id)
        .collect()
}
