//! A site's budget judged when a scan of its origin completes: the one place that reads what
//! the judge needs (the site's budget, the scan's findings with their verdict against the
//! baseline, its pages' metrics) and that tells the organisation (`scan.budget_failed`) when
//! the verdict failed. The judge itself, [`crate::model::Budget::judge`], stays pure.
//!
//! The site is the organisation's site on the scan's target origin; scans of other origins or of
//! other organisations are never judged by it.

use crate::model::{BudgetResult, ReportPage};
use crate::store::{ScanRow, Store, StoreResult};
use uuid::Uuid;

/// The event an organisation's webhooks hear when a scan failed its site's budget.
pub const BUDGET_FAILED_EVENT: &str = "scan.budget_failed";

/// A scan's site and the verdict of the site's budget.
#[derive(Debug, Clone, PartialEq)]
pub struct SiteVerdict {
    pub site_id: Uuid,
    pub result: BudgetResult,
}

/// Judges the budget of the scan's site, if its organisation has a site on the scan's origin
/// with a budget. Run once the comparison with the baseline is stored (new findings are those
/// it did not find persisting).
pub async fn judge_site_budget(store: &Store, scan: &ScanRow) -> StoreResult<Option<SiteVerdict>> {
    let Ok(target) = url::Url::parse(&scan.target_url) else { return Ok(None) };
    let Some(site) = store.site_by_origin(&scan.org_id, &target.origin().ascii_serialization()).await? else { return Ok(None) };
    let Some(budget) = crate::sites::stored_budget(&site) else { return Ok(None) };
    let findings = store.scan_findings(scan.id).await?;
    let pages: Vec<ReportPage> = store.scan_pages(scan.id).await?.iter().map(ReportPage::from).collect();
    let result = budget.judge(&findings, &pages);
    tracing::info!(site_id = %site.id, passed = result.passed, failed = result.failed().count(), "site budget judged");
    Ok(Some(SiteVerdict { site_id: site.id, result }))
}

/// The `scan.budget_failed` event: small, the failing `error` assertions and where to look.
pub fn budget_failed_event(now: i64, scan_id: Uuid, target_url: &str, verdict: &SiteVerdict) -> crate::proto::v1::BudgetFailedEvent {
    let failed: Vec<_> = verdict.result.failed().collect();
    crate::events::payloads::budget_failed(now, scan_id, target_url, verdict.site_id, &failed)
}

/// Tells the organisation's webhooks that the completed scan failed its site's budget (nothing
/// when it passed). Returns how many messages were queued.
pub async fn announce_verdict(store: &Store, scan: &ScanRow, verdict: &SiteVerdict, now: i64) -> Result<usize, crate::events::WebhookError> {
    if verdict.result.passed {
        return Ok(0);
    }
    crate::events::webhooks::org_event(store, &scan.org_id, BUDGET_FAILED_EVENT, &budget_failed_event(now, scan.id, &scan.target_url, verdict), now).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::budget::{AssertionResult, AssertionLevel};

    #[test]
    fn the_payload_names_only_the_failing_error_assertions() {
        let a = |name: &str, level, passed| AssertionResult {
            assertion: name.into(),
            level,
            max: 0.0,
            min_severity: None,
            actual: Some(1.0),
            passed,
            message: format!("{name}: 1 findings, over the limit of 0"),
        };
        let result = BudgetResult {
            passed: false,
            assertions: vec![a("findings", AssertionLevel::Error, false), a("categories:search", AssertionLevel::Warn, false), a("new-findings", AssertionLevel::Error, true)],
        };
        let event = crate::proto::json::to_value(&budget_failed_event(0, Uuid::nil(), "https://e.com/", &SiteVerdict { site_id: Uuid::nil(), result })).unwrap();
        assert_eq!(event["type"], BUDGET_FAILED_EVENT);
        let data = &event["data"];
        let failed = data["failed_assertions"].as_array().unwrap();
        assert_eq!(failed.len(), 1);
        assert_eq!(failed[0]["assertion"], "findings");
        assert_eq!(failed[0]["level"], "error");
        assert_eq!(data["links"]["scan"], format!("/scans/{}", Uuid::nil()));
    }
}
