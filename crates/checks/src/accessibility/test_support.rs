//! Test helpers of the accessibility checks: the kit's page, and a page with barrier facts (at the kit's `URL`).

use crate::model::{DomFacts, PageSnapshot};
pub use crate::test_kit::{page, run};

/// A rendered page at `URL` with these barrier facts.
pub fn barrier_page(facts: crate::model::BarrierFacts) -> PageSnapshot {
    PageSnapshot { barriers: Some(facts), ..page(DomFacts::default()) }
}
