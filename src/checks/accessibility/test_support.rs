//! Test helpers: a rendered page and one check's findings for it.

use crate::checks::{Check, Findings, Thresholds};
use crate::model::{DomFacts, Finding, PageSnapshot};

pub const URL: &str = "https://example.com/page";

/// A rendered 200 HTML page at `URL` with these DOM facts.
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

/// The findings `check` reports for `page` with default thresholds.
pub fn run(check: &dyn Check, page: &PageSnapshot) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut sink = Findings::new(check.meta(), &mut out);
    check.page(page, &Thresholds::default(), &mut sink);
    drop(sink);
    out
}
