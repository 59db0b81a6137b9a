//! Why a scan could not run (it becomes `report.summary.error`). Trouble on one page is a finding,
//! never this.

/// A scan that could not run.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    /// DNS, connect or TLS failure on the start URL.
    #[error("the target cannot be reached: {0}")]
    TargetUnreachable(String),
    /// The egress guard refused the target's address.
    #[error("the target is not allowed: {0}")]
    TargetBlocked(String),
    #[error("the target did not answer in time: {0}")]
    TargetTimeout(String),
    /// The browser could not be started or used.
    #[error("the browser failed: {0}")]
    Browser(String),
    /// An active scan whose site did not prove ownership (file, meta tag or DNS TXT): nothing
    /// was scanned.
    #[error("{0}")]
    OwnershipUnverified(String),
    #[error("storage failed: {0}")]
    Store(#[from] crate::model::crawl_store::StorageError),
    /// Shutdown or a lost lease stopped the scan; it is not failed (another worker resumes it).
    #[error("the scan was interrupted")]
    Interrupted,
}

impl ScanError {
    /// The `summary.error.code`.
    pub fn code(&self) -> &'static str {
        match self {
            ScanError::TargetUnreachable(_) => "target_unreachable",
            ScanError::TargetBlocked(_) => "target_blocked",
            ScanError::TargetTimeout(_) => "target_timeout",
            ScanError::OwnershipUnverified(_) => "ownership_unverified",
            ScanError::Browser(_) | ScanError::Store(_) | ScanError::Interrupted => "internal",
        }
    }
}
