//! Issuing API tokens: the one code path behind `sitescan token create` and the dashboard's
//! `/account/api-tokens`. Tokens keep their SHA-256-only storage (`store::tokens`).

use super::error::{AccountError, AccountResult};
use crate::store::{ApiToken, Store, StoreError};
pub use crate::store::{ALL_SCOPES, DEFAULT_SCOPES, SCOPE_ACTIVE, SCOPE_READ, SCOPE_WRITE};

/// Longest token name accepted.
pub const MAX_TOKEN_NAME_LEN: usize = 100;

/// What a new token is.
#[derive(Debug, Clone, Default)]
pub struct IssueToken<'a> {
    pub org: &'a str,
    pub name: Option<&'a str>,
    /// Empty: the passive scopes (`scans:read scans:write`).
    pub scopes: Vec<String>,
    /// The dashboard user who asks (None: the CLI).
    pub created_by: Option<&'a str>,
    /// Microseconds since the epoch; None: never expires.
    pub expires_at: Option<i64>,
}

/// Issues a token; returns the plaintext (to show exactly once) and the stored row.
pub async fn issue_token(store: &Store, req: IssueToken<'_>) -> AccountResult<(String, ApiToken)> {
    let name = req.name.map(str::trim).filter(|n| !n.is_empty());
    if let Some(n) = name
        && (n.chars().count() > MAX_TOKEN_NAME_LEN || n.chars().any(char::is_control))
    {
        return Err(AccountError::Invalid(format!("The name must be at most {MAX_TOKEN_NAME_LEN} characters, without control characters.")));
    }
    for scope in &req.scopes {
        if !ALL_SCOPES.contains(&scope.as_str()) {
            return Err(AccountError::Invalid(format!("Unknown scope: expected {}.", ALL_SCOPES.join(", "))));
        }
    }
    store
        .create_token_with(req.org, name, &req.scopes, req.created_by, req.expires_at)
        .await
        .map_err(|e| match e {
            StoreError::Invalid(m) => AccountError::Invalid(m),
            other => other.into(),
        })
}
