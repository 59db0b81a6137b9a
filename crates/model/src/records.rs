//! What the store hands out about scans, their findings and pages, and API tokens: plain data,
//! read from the database by the store and returned by the services. No database type reaches
//! past the store: its table entities are converted into these at its edge.

use super::{ScanMode, ScanStatus, TriggeredBy};
use uuid::Uuid;

/// A scan as stored (`scans`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScanRow {
    pub id: Uuid,
    pub org_id: String,
    pub target_url: String,
    pub target_hostname: String,
    pub mode: ScanMode,
    pub status: ScanStatus,
    pub triggered_by: TriggeredBy,
    pub created_at: i64,
    pub started_at: Option<i64>,
    pub completed_at: Option<i64>,
    /// Severity counts, JSON.
    pub findings_count: Option<String>,
    /// The report stored when the scan ended, JSON.
    pub report: Option<String>,
    pub max_pages: Option<i32>,
    pub lease_owner: Option<String>,
    pub lease_expires_at: Option<i64>,
    pub attempts: i32,
    pub site_id: Option<Uuid>,
    /// What started it (a schedule or monitor), JSON.
    pub trigger: Option<String>,
    /// The worker's progress while it runs, JSON.
    pub progress: Option<String>,
    /// The WCAG conformance level it judges against; `None`: the default (AA).
    pub level: Option<super::Level>,
}

impl ScanRow {
    /// The progress its worker recorded, while it runs (none before its first word).
    pub fn progress(&self) -> Option<super::ScanProgressState> {
        self.progress.as_deref().and_then(|p| serde_json::from_str(p).ok())
    }
}

/// A scanned page as stored (`scan_pages`), numbered in the order pages were written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageRow {
    pub id: Uuid,
    pub scan_id: Uuid,
    pub seq: i32,
    pub url: String,
    pub final_url: Option<String>,
    pub status: Option<i32>,
    pub title: Option<String>,
    /// The page's metrics, JSON.
    pub metrics: Option<String>,
    pub error: Option<String>,
    /// Checks not run on the page and why, JSON.
    pub checks_not_run: Option<String>,
    pub created_at: i64,
}

/// An API token as stored (`api_tokens`): never its plaintext, only its hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiToken {
    pub id: Uuid,
    pub org_id: String,
    pub name: Option<String>,
    pub token_hash: String,
    /// Space-separated scopes.
    pub scopes: String,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
    pub revoked_at: Option<i64>,
    pub created_by: Option<String>,
    pub expires_at: Option<i64>,
}

impl ApiToken {
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.scopes.split_whitespace()
    }

    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes().any(|s| s == scope)
    }
}

/// An organisation (a tenant) and its monthly scan quota.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Organisation {
    pub id: String,
    /// Scans it may create per calendar month (UTC).
    pub monthly_scan_quota: i64,
    /// Microseconds since the epoch.
    pub created_at: i64,
}
