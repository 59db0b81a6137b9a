//! Builders for the repository checks' tests: a site whose probes answered.

use crate::test_kit;
use crate::model::{Finding, ProbeAnswer, ProbeKind, SiteSnapshot};

/// A site whose one probe (`kind` at `path` on https://shop.test) answered 200 with `body`.
pub fn site_with(kind: ProbeKind, path: &str, body: Vec<u8>) -> SiteSnapshot {
    SiteSnapshot {
        start_url: "https://shop.test/".into(),
        repository_probes: vec![ProbeAnswer { kind, url: format!("https://shop.test{path}"), status: 200, body, ..Default::default() }],
        ..Default::default()
    }
}

/// The findings of check `id` when the whole registry judges `site`.
pub fn findings(site: &SiteSnapshot, id: &str) -> Vec<Finding> {
    test_kit::site_findings(site, id)
}
