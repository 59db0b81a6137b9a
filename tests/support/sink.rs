//! The one in-memory scan sink: what a scan run in the test's own process stored.

use sitescan::model::{Finding, ReportPage};
use sitescan::crawl::{ScanError, ScanSink};

/// Keeps every page record and finding a scan hands over, in order.
#[derive(Default)]
pub struct Collect {
    pub pages: Vec<ReportPage>,
    pub findings: Vec<Finding>,
}

#[async_trait::async_trait]
impl ScanSink for Collect {
    async fn page(&mut self, record: ReportPage, findings: Vec<Finding>) -> Result<(), ScanError> {
        self.pages.push(record);
        self.findings.extend(findings);
        Ok(())
    }

    async fn site(&mut self, findings: Vec<Finding>) -> Result<(), ScanError> {
        self.findings.extend(findings);
        Ok(())
    }
}
