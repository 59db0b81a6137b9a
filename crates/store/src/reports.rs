//! The typed scan report (`model::ScanReport`), built from the stored rows: the one place a
//! scan, its stored report, its pages and its findings become the report every edge renders.

use super::Store;
use super::error::{StoreError, StoreResult};
use crate::model::{Report, ReportPage, ScanInfo, ScanReport, StoredReport};
use uuid::Uuid;

impl Store {
    /// The report of scan `id` of organisation `org` (`None`: no such scan there): the summary
    /// once the scan has run and, with `include_findings`, its pages, findings and the findings
    /// fixed since its baseline.
    pub async fn scan_report(&self, org: &str, id: Uuid, include_findings: bool) -> StoreResult<Option<ScanReport>> {
        let Some(row) = self.scan(org, id).await? else { return Ok(None) };
        let report = match row.stored_report().map_err(|e| corrupt(row.id, e))? {
            None => None,
            Some(StoredReport { summary, fixed }) => {
                let mut report = Report { summary, pages: None, findings: None, fixed: None };
                if include_findings {
                    report.pages = Some(self.scan_pages(id).await?.iter().map(ReportPage::from).collect());
                    report.findings = Some(self.scan_findings(id).await?);
                    report.fixed = fixed;
                }
                Some(report)
            }
        };
        Ok(Some(ScanReport { scan: ScanInfo::from(&row), report }))
    }
}

fn corrupt(id: Uuid, e: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(format!("the report of scan {id}: {e}"))
}
