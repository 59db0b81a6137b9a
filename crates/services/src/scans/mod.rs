//! Scans as every edge sees them: creating a passive scan, listing an organisation's scans,
//! reading one scan's report, listing findings, a site's history and two scans compared (`history`), and watching a scan run (live streams capped per
//! holder, organisation and process, and in time: `streams`). REST, gRPC and the
//! dashboard call [`ScanService`] with the same typed inputs and get the same typed answers and
//! refusals; each edge only reads its own input format and writes its own output.

pub mod history;
pub mod query;
pub mod service;
pub mod streams;

pub use history::{HISTORY_LIMIT, History, HistoryQuery};
pub use query::{FINDINGS_LIMIT, FindingsQuery, Issue, ListQuery, SCANS_LIMIT};
pub use service::{ScanService, ScanServiceError, WatchEnd};
/// What the service hands out: plain data, never a database type.
pub use crate::model::{PageRow, ScanRow, StoredFinding};
pub use crate::store::history::HistoryPoint;
pub use crate::store::{LiveScan, Page, QuotaExceeded, ScreenshotRow};
pub use streams::{StreamCaps, StreamGate, StreamLimits, StreamPermit, StreamRefusal};
