//! The accounts layer's error type.

use crate::store::StoreError;

/// What can go wrong managing accounts. `Invalid` carries a message fit for the person at the form.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Invalid(String),
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("password hashing failed: {0}")]
    Hash(String),
}

impl From<sea_orm::DbErr> for AccountError {
    fn from(e: sea_orm::DbErr) -> Self {
        AccountError::Store(StoreError::Db(e))
    }
}

pub type AccountResult<T> = Result<T, AccountError>;

impl From<crate::model::UnknownRole> for AccountError {
    fn from(e: crate::model::UnknownRole) -> Self {
        AccountError::Invalid(e.to_string())
    }
}
