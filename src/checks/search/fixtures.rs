//! Test helpers: hand-built pages and sites, and the findings one check produces for them.

use crate::model::{DomFacts, MetaTag, PageSnapshot};
pub use crate::checks::test_kit::{findings, site_findings, digest};
use crate::checks::test_kit::html_page;

pub const URL: &str = "https://example.com/page";

/// A rendered 200 HTML page at `URL` with these DOM facts.
pub fn page(dom: DomFacts) -> PageSnapshot {
    PageSnapshot {
        dom,
        ..html_page(URL)
    }
}

pub fn meta_name(name: &str, content: &str) -> MetaTag {
    MetaTag {
        name: Some(name.into()),
        content: Some(content.into()),
        selector: format!("meta[name={name}]"),
        ..Default::default()
    }
}

pub fn meta_property(property: &str, content: &str) -> MetaTag {
    MetaTag {
        property: Some(property.into()),
        content: Some(content.into()),
        selector: format!("meta[property=\"{property}\"]"),
        ..Default::default()
    }
}

