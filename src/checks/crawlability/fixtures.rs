//! Test helpers: hand-built pages and sites, and the findings one check produces for them.

use crate::model::{DomFacts, PageSnapshot, RobotsTxt, SiteSnapshot};
pub use crate::checks::test_kit::{findings, site_findings, digest};
use crate::checks::test_kit::html_page;

pub const START: &str = "https://e.com/";

/// A rendered 200 HTML page at `url`.
pub fn page(url: &str, dom: DomFacts) -> PageSnapshot {
    PageSnapshot {
        dom,
        ..html_page(url)
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

