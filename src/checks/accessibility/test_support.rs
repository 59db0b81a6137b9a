//! Test helpers: a rendered page and one check's findings for it.

use crate::model::{DomFacts, PageSnapshot};
pub use crate::checks::test_kit::{run};
use crate::checks::test_kit::html_page;

pub const URL: &str = "https://example.com/page";

/// A rendered 200 HTML page at `URL` with these DOM facts.
pub fn page(dom: DomFacts) -> PageSnapshot {
    PageSnapshot {
        dom,
        ..html_page(URL)
    }
}


/// A rendered page at `URL` with these barrier facts.
pub fn barrier_page(facts: crate::model::BarrierFacts) -> PageSnapshot {
    PageSnapshot { barriers: Some(facts), ..page(DomFacts::default()) }
}
