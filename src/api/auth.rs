//! Bearer-token authentication and the rate limit, applied once per request (REST or gRPC).

use super::error::ApiError;
use super::limits::RateLimitInfo;
use super::state::AppState;
use crate::accounts::tokens::{SCOPE_ACTIVE, SCOPE_READ, SCOPE_WRITE};
use crate::model::ApiToken;

/// The one table of what each call needs: every RPC of the proto (REST routes are these RPCs
/// transcoded) and the scope its token must carry. Checked once per call, in [`AppState::admit_for`].
pub const RPC_SCOPES: &[(&str, &str)] = &[
    ("sitescan.v1.ScanService/CreateScan", SCOPE_WRITE),
    ("sitescan.v1.ScanService/ListScans", SCOPE_READ),
    ("sitescan.v1.ScanService/GetScan", SCOPE_READ),
    ("sitescan.v1.ScanService/ListFindings", SCOPE_READ),
    ("sitescan.v1.ScanService/GetScanReport", SCOPE_READ),
    ("sitescan.v1.ScanService/WatchScan", SCOPE_READ),
    ("sitescan.v1.ScanService/ListScanHistory", SCOPE_READ),
    ("sitescan.v1.ScanService/CompareScans", SCOPE_READ),
    ("sitescan.v1.OwnerService/ListSites", SCOPE_ACTIVE),
    ("sitescan.v1.OwnerService/AddSite", SCOPE_ACTIVE),
    ("sitescan.v1.OwnerService/VerifySite", SCOPE_ACTIVE),
    ("sitescan.v1.OwnerService/StartActiveScan", SCOPE_ACTIVE),
    ("sitescan.v1.OwnerService/PutJourney", SCOPE_ACTIVE),
    ("sitescan.v1.OwnerService/ListJourneys", SCOPE_ACTIVE),
    ("sitescan.v1.OwnerService/RemoveJourney", SCOPE_ACTIVE),
    ("sitescan.v1.OwnerService/PutSecret", SCOPE_ACTIVE),
    ("sitescan.v1.OwnerService/ListSecrets", SCOPE_ACTIVE),
    ("sitescan.v1.OwnerService/RemoveSecret", SCOPE_ACTIVE),
    ("sitescan.v1.OwnerService/AddSchedule", SCOPE_ACTIVE),
    ("sitescan.v1.OwnerService/ListSchedules", SCOPE_ACTIVE),
    ("sitescan.v1.OwnerService/RemoveSchedule", SCOPE_ACTIVE),
    ("sitescan.v1.OwnerService/AddMonitor", SCOPE_ACTIVE),
    ("sitescan.v1.OwnerService/ListMonitors", SCOPE_ACTIVE),
    ("sitescan.v1.OwnerService/RemoveMonitor", SCOPE_ACTIVE),
    ("sitescan.v1.OwnerService/SetBudget", SCOPE_ACTIVE),
    ("sitescan.v1.OwnerService/SetLevel", SCOPE_ACTIVE),
];

/// The scope an RPC (`package.Service/Method`) needs; `None` for a name not in the table.
pub fn scope_of(rpc: &str) -> Option<&'static str> {
    RPC_SCOPES.iter().find(|(name, _)| *name == rpc).map(|(_, scope)| *scope)
}

/// A request that passed authentication and the rate limit.
#[derive(Debug, Clone)]
pub struct Admitted {
    pub token: ApiToken,
    pub rate: RateLimitInfo,
}

impl Admitted {
    /// The organisation the token acts for.
    pub fn org(&self) -> crate::model::OrgId<'_> {
        crate::model::OrgId::new(&self.token.org_id)
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
    /// Admits a caller to one RPC: authentication, the rate limit, then the scope the table
    /// names for it. REST handlers and gRPC methods both come through here, once per call.
    pub async fn admit_for(&self, authorization: Option<&str>, rpc: &str) -> Result<Admitted, ApiError> {
        let who = self.admit(authorization).await?;
        let scope = scope_of(rpc).ok_or_else(|| ApiError::Internal(format!("{rpc} has no scope in RPC_SCOPES")))?;
        who.require(scope)?;
        Ok(who)
    }

    /// Authenticates (a hash lookup on every request, so revocation is immediate everywhere) and
    /// applies the token's rate limit.
    pub async fn admit(&self, authorization: Option<&str>) -> Result<Admitted, ApiError> {
        let token = bearer(authorization).ok_or(ApiError::InvalidToken)?;
        let row = self.accounts().authenticate(token).await?.ok_or(ApiError::InvalidToken)?;
        let rate = self.limiter.check(&row.token_hash).await.map_err(|info| {
            crate::metrics::metrics().rate_limited.inc();
            ApiError::RateLimited(info)
        })?;
        Ok(Admitted { token: row, rate })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rpc_of_the_proto_has_exactly_one_scope() {
        use prost::Message;
        let set = prost_types::FileDescriptorSet::decode(crate::proto::FILE_DESCRIPTOR_SET).expect("descriptor set");
        let mut rpcs = Vec::new();
        for file in set.file.iter().filter(|f| f.package() == "sitescan.v1") {
            for service in &file.service {
                for method in &service.method {
                    rpcs.push(format!("sitescan.v1.{}/{}", service.name(), method.name()));
                }
            }
        }
        assert!(rpcs.len() >= 16, "{rpcs:?}");
        for rpc in &rpcs {
            assert_eq!(RPC_SCOPES.iter().filter(|(n, _)| n == rpc).count(), 1, "{rpc} needs exactly one entry in RPC_SCOPES");
        }
        for (name, _) in RPC_SCOPES {
            assert!(rpcs.iter().any(|r| r == name), "{name} is in RPC_SCOPES but not in the proto");
        }
    }

    #[test]
    fn parses_bearer_values() {
        assert_eq!(bearer(Some("Bearer abc")), Some("abc"));
        assert_eq!(bearer(Some("bearer  abc ")), Some("abc"));
        assert_eq!(bearer(Some("Basic abc")), None);
        assert_eq!(bearer(Some("Bearer")), None);
        assert_eq!(bearer(None), None);
    }
}
