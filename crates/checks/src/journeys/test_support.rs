//! Builders for the journeys checks' tests: a site whose one journey ran.

use crate::test_kit;
use crate::model::journey::{JourneyOutcome, StepResult, StepStatus};
use crate::model::{Finding, SiteSnapshot};

/// A step that went fine, at `url`.
pub fn ok_step(index: usize, summary: &str, url: &str) -> StepResult {
    StepResult {
        index,
        action: summary.split(' ').next().unwrap_or_default().to_string(),
        summary: summary.into(),
        status: StepStatus::Ok,
        url_after: Some(url.into()),
        elapsed_ms: 40,
        ..Default::default()
    }
}

/// A journey "shop" that ran `steps` from https://shop.test/.
pub fn journey(steps: Vec<StepResult>) -> JourneyOutcome {
    JourneyOutcome { name: "shop".into(), start_url: "https://shop.test/".into(), steps, ..Default::default() }
}

/// A site whose journeys are `journeys`.
pub fn site_with(journeys: Vec<JourneyOutcome>) -> SiteSnapshot {
    SiteSnapshot { start_url: "https://shop.test/".into(), journeys, ..Default::default() }
}

/// The findings of check `id` when the whole registry judges `site`.
pub fn findings(site: &SiteSnapshot, id: &str) -> Vec<Finding> {
    test_kit::site_findings(site, id)
}
