//! Storage: every query of the service (organisations, users, sessions, invites, the sign-in
//! throttle, tokens, sites, scans, findings, pages, schedules, monitors, webhooks), keyset
//! pagination and the job lease. The same code serves SQLite and PostgreSQL. A crate of its own:
//! it depends on the model and the migrations, and nothing of the engine or the checks reaches it.

use sitescan_model as model;

pub mod changes;
pub mod clock;
pub mod crawl;
mod crawl_store;
pub mod cursor;
pub mod db;
// The tables as sea-orm sees them: private, so that callers speak in the model's records.
mod entity;
pub mod error;
pub mod expiry;
pub mod findings;
pub mod history;
pub mod invites;
pub mod jobs;
pub mod key_file;
pub mod live;
pub mod monitors;
pub mod orgs;
pub mod paging;
pub mod region_verdicts;
pub mod reports;
pub mod retention;
pub mod scans;
pub mod schedules;
pub mod screenshots;
pub mod secret_box;
pub mod sessions;
pub mod sites;
pub mod throttle;
pub mod tokens;
pub mod users;
pub mod webhooks;

/// Stored timestamps (microseconds, UTC) are the model's.
pub use crate::model::time;
pub use clock::{Clock, ManualClock, SystemClock};
pub use cursor::{BadCursor, CursorCodec, CursorKind, Position};
pub use db::{DEFAULT_DATABASE_URL, Store, migrate};
pub use error::{StoreError, StoreResult};
pub use findings::{FindingFilter, PageRow, StoredFinding};
pub use live::{LATEST_FINDINGS, LiveScan};
pub use orgs::{DEFAULT_MONTHLY_SCAN_QUOTA, Organisation};
pub use paging::Page;
pub use region_verdicts::{VerdictBounds, VerdictSite};
pub use scans::{CreateOutcome, NewAttestation, QuotaExceeded, ScanExtras, ScanRow};
pub use monitors::{MonitorCaps, MonitorRow};
pub use schedules::{NewSchedule, ScheduleRow};
pub use screenshots::ScreenshotRow;
pub use secret_box::{LEGACY_PREFIX, SECRET_KEY_ENV, SealedAt, SecretBox, SecretError};
pub use sites::{AttestationRow, JourneyRow, SiteRow, StoredSecret};
pub use webhooks::{DeliveryRow, OutboxRow, WebhookRow};
pub use tokens::{ALL_SCOPES, ApiToken, DEFAULT_SCOPES, SCOPE_ACTIVE, SCOPE_READ, SCOPE_WRITE, TOKEN_PREFIX, hash_token, looks_like_token};

/// One row of a raw query as `T`, each field read from the column of its name (the row types
/// derive `sea_orm::FromQueryResult`).
pub(crate) fn decode<T: sea_orm::FromQueryResult>(row: &sea_orm::QueryResult) -> StoreResult<T> {
    Ok(T::from_query_result(row, "")?)
}
