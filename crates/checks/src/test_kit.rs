//! The one test kit for checks: hand-built pages, digests and sites, and the findings one check
//! (or the whole registry, filtered by id) reports.

use super::check::{Check, CheckMeta, Findings, Thresholds};
use super::page_view::PageView;
use super::run::{run_page_checks, run_site_checks};
use crate::model::{
    DomFacts, ElementRef, Finding, JsonLdBlock, MetaTag, MicrodataItem, MicrodataProperty, PageDigest, PageSnapshot, RobotsTxt,
    SiteSnapshot,
};

/// The page the page checks' tests judge.
pub const URL: &str = "https://example.com/page";
/// The start of the site the site checks' tests judge.
pub const START: &str = "https://e.com/";

/// A rendered 200 `text/html` page at `url`, everything else empty.
pub fn html_page(url: &str) -> PageSnapshot {
    PageSnapshot {
        requested_url: url.into(),
        final_url: url.into(),
        status: Some(200),
        mime_type: Some("text/html".into()),
        ..Default::default()
    }
}

/// A 200 page digest at `url`.
pub fn digest(url: &str) -> PageDigest {
    PageDigest { url: url.into(), final_url: url.into(), status: Some(200), ..Default::default() }
}

/// What `check` reports for `page` with these thresholds (the check alone, no registry).
pub fn run_with(check: &dyn Check, page: &PageSnapshot, thresholds: &Thresholds) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut sink = Findings::new(check.meta(), &mut out);
    check.page(&PageView::new(page, check.meta()), thresholds, &mut sink);
    drop(sink);
    out
}

/// What `check` reports for `page` with default thresholds.
pub fn run(check: &dyn Check, page: &PageSnapshot) -> Vec<Finding> {
    run_with(check, page, &Thresholds::default())
}

/// The findings of check `id` when the whole registry judges `page` (as a scan does: artifacts
/// that failed skip their checks).
pub fn findings(page: &PageSnapshot, id: &str) -> Vec<Finding> {
    run_page_checks(page, &Thresholds::default()).findings.into_iter().filter(|f| f.check_id == id).collect()
}

/// The findings of check `id` when the whole registry judges `site`.
pub fn site_findings(site: &SiteSnapshot, id: &str) -> Vec<Finding> {
    run_site_checks(site, &Thresholds::default()).findings.into_iter().filter(|f| f.check_id == id).collect()
}

/// A check that declares every artifact: the view unit tests give helpers several checks share.
static READS_EVERYTHING: CheckMeta = CheckMeta {
    id: "test.reads-everything",
    severity: crate::model::Severity::Info,
    title: "t",
    fires_when: "f",
    description: "d",
    remediation: "r",
    cwe_id: None,
    evidence_keys: &[],
    help_url: None,
    requires: &crate::model::Artifact::ALL,
    site_requires: &crate::model::SiteArtifact::ALL,
    act_ids: &[],
    level: None,
    wcag: &[],
};

/// `page` as a helper shared by several checks reads it (every artifact declared).
pub fn view(page: &PageSnapshot) -> PageView<'_> {
    PageView::new(page, &READS_EVERYTHING)
}

/// A rendered 200 HTML page at `URL` with these DOM facts.
pub fn page(dom: DomFacts) -> PageSnapshot {
    page_at(URL, dom)
}

/// A rendered 200 HTML page at `url` with these DOM facts.
pub fn page_at(url: &str, dom: DomFacts) -> PageSnapshot {
    PageSnapshot { dom, ..html_page(url) }
}

/// `<meta name=... content=...>`
pub fn meta_name(name: &str, content: &str) -> MetaTag {
    MetaTag { name: Some(name.into()), content: Some(content.into()), selector: format!("meta[name={name}]"), ..Default::default() }
}

/// `<meta property=... content=...>`
pub fn meta_property(property: &str, content: &str) -> MetaTag {
    MetaTag { property: Some(property.into()), content: Some(content.into()), selector: format!("meta[property=\"{property}\"]"), ..Default::default() }
}

/// An element as the DOM gatherer refers to one.
pub fn element(tag: &str, selector: &str, snippet: &str) -> ElementRef {
    ElementRef { tag: tag.into(), selector: selector.into(), snippet: snippet.into() }
}

/// A rendered 200 HTML page at `URL` with these JSON-LD blocks.
pub fn json_ld_page(blocks: &[&str]) -> PageSnapshot {
    let json_ld = blocks
        .iter()
        .enumerate()
        .map(|(i, t)| JsonLdBlock { text: (*t).into(), selector: format!("script:nth-of-type({})", i + 1), length: None })
        .collect();
    page(DomFacts { json_ld, ..Default::default() })
}

/// A microdata item of `itemtype` with (name, value) properties.
pub fn microdata(itemtype: &str, properties: &[(&str, &str)], nested: bool) -> MicrodataItem {
    MicrodataItem {
        types: vec![itemtype.into()],
        properties: properties.iter().map(|(n, v)| MicrodataProperty { name: (*n).into(), value: (*v).into() }).collect(),
        nested,
        selector: format!("[itemtype=\"{itemtype}\"]"),
    }
}

/// A site at `START` whose robots.txt answered 200 with `body`.
pub fn site_with_robots(body: &str) -> SiteSnapshot {
    SiteSnapshot {
        start_url: START.into(),
        robots: Some(RobotsTxt { url: format!("{START}robots.txt"), status: Some(200), body: Some(body.into()), ..Default::default() }),
        ..Default::default()
    }
}
