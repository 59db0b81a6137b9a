//! Errors of schedules and monitors.

use crate::store::StoreError;

/// Why a schedule or monitor could not be added, found or run.
#[derive(Debug, thiserror::Error)]
pub enum RecurringError {
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Bad input: the message says which (`cron: ...`, `unknown time zone ...`, `every: ...`).
    #[error("{0}")]
    Invalid(String),
    /// No such site, schedule or monitor in the organisation.
    #[error("{0}")]
    NotFound(String),
    /// The site's ownership is not proved, and the feature needs it (monitors).
    #[error("{0}")]
    Unverified(String),
    /// A cap is reached (monitors per site or per organisation): the message says which.
    #[error("{0}")]
    TooMany(String),
}
