//! Test helpers: hand-built pages and the findings one check produces for them.

use crate::model::{DomFacts, ElementRef, PageSnapshot};
pub use crate::checks::test_kit::{findings};
use crate::checks::test_kit::html_page;

pub const URL: &str = "https://example.com/page";

/// A rendered 200 HTML page with these DOM facts.
pub fn page(dom: DomFacts) -> PageSnapshot {
    PageSnapshot {
        dom,
        ..html_page(URL)
    }
}

pub fn element(tag: &str, selector: &str, snippet: &str) -> ElementRef {
    ElementRef {
        tag: tag.into(),
        selector: selector.into(),
        snippet: snippet.into(),
    }
}
