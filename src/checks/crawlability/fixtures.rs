//! Test helpers: hand-built pages and sites, and the findings one check produces for them.

use crate::checks::{Thresholds, run_page_checks, run_site_checks};
use crate::model::{DomFacts, Finding, PageDigest, PageSnapshot, RobotsTxt, SiteSnapshot};

pub const START: &str = "https://e.com/";

/// A rendered 200 HTML page at `url`.
pub fn page(url: &str, dom: DomFacts) -> PageSnapshot {
    PageSnapshot {
        requested_url: url.into(),
        final_url: url.into(),
        status: Some(200),
        mime_type: Some("text/html".into()),
        dom,
        ..Default::default()
    }
}

/// A 200 page digest.
pub fn digest(url: &str) -> PageDigest {
    PageDigest {
        url: url.into(),
        final_url: url.into(),
        status: Some(200),
        ..Default::default()
    }
}

/// A site whose robots.txt answered 200 with `body`.
pub fn site_with_robots(body: &str) -> SiteSnapshot {
    SiteSnapshot {
        start_url: START.into(),
        robots: Some(RobotsTxt {
            url: "https://e.com/robots.txt".into(),
            status: Some(200),
            body: Some(body.into()),
            ..Default::default()
        }),
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
