//! The store layer's error type.

/// What can go wrong talking to the database.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Db(#[from] sea_orm::DbErr),
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("{0}")]
    Invalid(String),
}

impl StoreError {
    /// True when the database could not be reached (connection refused, pool timed out), as
    /// opposed to a query that failed: the API answers 503 for these.
    pub fn is_unavailable(&self) -> bool {
        match self {
            StoreError::Db(err) => {
                let text = err.to_string().to_ascii_lowercase();
                matches!(err, sea_orm::DbErr::ConnectionAcquire(_) | sea_orm::DbErr::Conn(_))
                    || text.contains("connection refused")
                    || text.contains("pool timed out")
                    || text.contains("broken pipe")
                    || text.contains("connection reset")
                    || text.contains("terminating connection")
                    || text.contains("the database system is")
            }
            _ => false,
        }
    }
}

pub type StoreResult<T> = Result<T, StoreError>;

impl From<StoreError> for crate::model::crawl_store::StorageError {
    fn from(error: StoreError) -> Self {
        crate::model::crawl_store::StorageError::new(error)
    }
}
