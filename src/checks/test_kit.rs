//! The one test kit for checks: a rendered page, a page digest, and the findings one check (or
//! the whole registry, filtered by id) reports. Category kits add only their own builders.

use super::check::{Check, CheckMeta, Findings, Thresholds};
use super::page_view::PageView;
use super::run::{run_page_checks, run_site_checks};
use crate::model::{Finding, PageDigest, PageSnapshot, SiteSnapshot};

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
};

/// `page` as a helper shared by several checks reads it (every artifact declared).
pub fn view(page: &PageSnapshot) -> PageView<'_> {
    PageView::new(page, &READS_EVERYTHING)
}
