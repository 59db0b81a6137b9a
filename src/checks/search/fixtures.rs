//! Test helpers: hand-built pages and sites, and the findings one check produces for them.

use crate::checks::{Thresholds, run_page_checks, run_site_checks};
use crate::model::{DomFacts, Finding, MetaTag, PageDigest, PageSnapshot, SiteSnapshot};

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

/// A 200 page digest.
pub fn digest(url: &str) -> PageDigest {
    PageDigest {
        url: url.into(),
        final_url: url.into(),
        status: Some(200),
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
