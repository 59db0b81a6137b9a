//! Test helpers: hand-built pages and sites, and the findings one check produces for them.

use crate::model::{DomFacts, PageSnapshot};
pub use crate::checks::test_kit::{findings, site_findings};
use crate::checks::test_kit::html_page;

pub const URL: &str = "https://example.com/page";

/// A rendered 200 HTML page at `URL`.
pub fn page(dom: DomFacts) -> PageSnapshot {
    PageSnapshot {
        dom,
        ..html_page(URL)
    }
}

