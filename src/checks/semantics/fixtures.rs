//! Test helpers: hand-built pages and the findings one check produces for them.

use crate::checks::{Thresholds, run_page_checks};
use crate::model::{DomFacts, ElementRef, Finding, PageSnapshot};

pub const URL: &str = "https://example.com/page";

/// A rendered 200 HTML page with these DOM facts.
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

/// The findings check `id` reports for `page` (through the registry, so registration is tested).
pub fn findings(page: &PageSnapshot, id: &str) -> Vec<Finding> {
    run_page_checks(page, &Thresholds::default()).findings
        .into_iter()
        .filter(|f| f.check_id == id)
        .collect()
}

pub fn element(tag: &str, selector: &str, snippet: &str) -> ElementRef {
    ElementRef {
        tag: tag.into(),
        selector: selector.into(),
        snippet: snippet.into(),
    }
}
