//! Bearer-token authentication and the rate limit, applied once per request (REST or gRPC).

use super::error::ApiError;
use super::limits::RateLimitInfo;
use super::state::AppState;
use crate::store::{ApiToken, hash_token, looks_like_token};

/// A request that passed authentication and the rate limit.
#[derive(Debug, Clone)]
pub struct Admitted {
    pub token: ApiToken,
    pub rate: RateLimitInfo,
}

impl Admitted {
    pub fn org(&self) -> &str {
        &self.token.org_id
    }

    /// 403 unless the token carries `scope`.
    pub fn require(&self, scope: &str) -> Result<(), ApiError> {
        if self.token.has_scope(scope) {
            Ok(())
        } else {
            Err(ApiError::Forbidden(format!("the token lacks the {scope} scope")))
        }
    }
}

/// The token of an `Authorization: Bearer <token>` value, if it has that shape.
pub fn bearer(authorization: Option<&str>) -> Option<&str> {
    let value = authorization?.trim();
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

impl AppState {
    /// Authenticates (a hash lookup on every request, so revocation is immediate everywhere) and
    /// applies the token's rate limit.
    pub async fn admit(&self, authorization: Option<&str>) -> Result<Admitted, ApiError> {
        let token = bearer(authorization).filter(|t| looks_like_token(t)).ok_or(ApiError::InvalidToken)?;
        let hash = hash_token(token);
        let row = self.store.token_by_hash(&hash).await?.ok_or(ApiError::InvalidToken)?;
        let rate = self.limiter.check(&hash).await.map_err(|info| {
            crate::metrics::metrics().rate_limited.inc();
            ApiError::RateLimited(info)
        })?;
        let store = self.store.clone();
        let touched = row.clone();
        tokio::spawn(async move {
            if let Err(err) = store.touch_token(&touched).await {
                tracing::warn!(error = %err, "could not record token use");
            }
        });
        Ok(Admitted { token: row, rate })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_bearer_values() {
        assert_eq!(bearer(Some("Bearer abc")), Some("abc"));
        assert_eq!(bearer(Some("bearer  abc ")), Some("abc"));
        assert_eq!(bearer(Some("Basic abc")), None);
        assert_eq!(bearer(Some("Bearer")), None);
        assert_eq!(bearer(None), None);
    }
}
