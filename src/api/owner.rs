//! `sitescan.v1.OwnerService`: the owner's side over gRPC (sites, ownership, journeys, secrets,
//! active scans). Internal: no REST route. Every call needs a token with `scans:active`, whose
//! issuer must still be an enabled owner of the organisation.

use super::auth::Admitted;
use super::convert::scan_to_proto;
use crate::proto::from_model::timestamp;
use super::error::ApiError;
use super::state::AppState;
use crate::model::{Attestation, Attester, Confirmation, TriggeredBy};
use crate::proto::v1 as pb;
use crate::proto::v1::owner_service_server::OwnerService;
use crate::sites::{ScheduleRequest, SiteError, SiteService, StartActive, attestation_statement};
use crate::sites::{JourneyRow, MonitorRow, ScheduleRow, SiteRow};
use std::net::SocketAddr;
use std::sync::Arc;
use tonic::{Code, Request, Response, Status};

/// The service.
#[derive(Debug, Clone)]
pub struct OwnerApi {
    state: Arc<AppState>,
}

impl OwnerApi {
    pub fn new(state: Arc<AppState>) -> Self {
        OwnerApi { state }
    }

    fn sites(&self) -> &SiteService {
        self.state.sites()
    }

    /// Admits the caller to `rpc` by the one scope table (`scans:active` for every method here),
    /// then requires that an owner issued the token (a token whose issuer was since demoted,
    /// disabled or removed opens nothing here).
    async fn admit<T>(&self, req: &Request<T>, rpc: &str) -> Result<Admitted, Status> {
        let auth = req.metadata().get("authorization").and_then(|v| v.to_str().ok());
        let rpc = format!("sitescan.v1.OwnerService/{rpc}");
        let who = self.state.admit_for(auth, &rpc).await.map_err(ApiError::into_status)?;
        if let Some(user_id) = &who.token.created_by {
            let user = self.state.accounts().member(who.org(), user_id).await.map_err(|e| ApiError::from(e).into_status())?;
            let still_owner = user.is_some_and(|u| u.is_owner() && u.disabled_at.is_none());
            if !still_owner {
                return Err(Status::permission_denied("the token's issuer is no longer an owner of the organisation"));
            }
        }
        Ok(who)
    }

    async fn site(&self, who: &Admitted, key: &str) -> Result<SiteRow, Status> {
        if key.trim().is_empty() {
            return Err(Status::invalid_argument("site: give a site id or a URL on the site"));
        }
        self.sites().find(who.org(), key).await.map_err(site_status)
    }
}

/// Who is calling, for attestations: the token and, when a person issued it, that person.
impl OwnerApi {
    /// The attestation rule, the statement typed out by the caller.
    fn attestation<T>(&self, who: &Admitted, req: &Request<T>, site: &SiteRow, typed: &str) -> Result<Attestation, Status> {
        let attester = Attester { actor: actor_of(who), client_addr: client_addr(req) };
        Attestation::confirm(&site.origin, Confirmation::Typed(typed), attester).map_err(|e| site_status(e.into()))
    }
}

fn actor_of(who: &Admitted) -> String {
    match &who.token.created_by {
        Some(user) => format!("user:{user} (token:{})", who.token.id),
        None => format!("token:{}", who.token.id),
    }
}

/// The client's address: the one `crate::client_addr` resolved (the peer, or the client a
/// trusted proxy names), else the connection's peer.
fn client_addr<T>(req: &Request<T>) -> Option<String> {
    if let Some(c) = req.extensions().get::<crate::client_addr::Client>() {
        return Some(c.ip.to_string());
    }
    req.remote_addr()
        .or_else(|| req.extensions().get::<axum::extract::ConnectInfo<SocketAddr>>().map(|c| c.0))
        .map(|a| a.ip().to_string())
}

fn site_status(e: SiteError) -> Status {
    match e {
        SiteError::NotFound => Status::not_found("no such site in the organisation"),
        SiteError::Invalid(m) => Status::invalid_argument(m),
        SiteError::InvalidBudget(errors) => {
            ApiError::InvalidInput(errors.into_iter().map(|e| super::error::Issue::new("budget", e)).collect()).into_status()
        }
        SiteError::Attestation(e) => Status::invalid_argument(format!("attestation: {e}")),
        SiteError::Duplicate(origin) => Status::already_exists(format!("the organisation already has the site {origin}")),
        SiteError::OwnershipUnverified(m) => {
            Status::with_details(Code::FailedPrecondition, format!("ownership_unverified: {m}"), bytes::Bytes::new())
        }
        SiteError::QuotaExceeded(q) => ApiError::QuotaExceeded(q).into_status(),
        SiteError::Secrets(e) => Status::failed_precondition(e.to_string()),
        SiteError::Store(e) => ApiError::data(e.is_unavailable(), e).into_status(),
    }
}

fn site_to_proto(s: &SiteRow) -> pb::Site {
    pb::Site {
        id: s.id.to_string(),
        origin: s.origin.clone(),
        verified: s.verified(),
        verification_token: s.verification_token.clone(),
        verified_method: s.verified_method.clone().unwrap_or_default(),
        verified_at: s.verified_at.map(timestamp),
        last_checked_at: s.last_checked_at.map(timestamp),
        last_error: s.last_error.clone().unwrap_or_default(),
        created_at: Some(timestamp(s.created_at)),
        attestation_statement: attestation_statement(&s.origin),
        budget: s.budget.clone(),
        level: s.level().map(|l| l.as_str().to_string()),
    }
}

fn recurring_status(e: crate::recurring::RecurringError) -> Status {
    use crate::recurring::RecurringError;
    match e {
        RecurringError::Invalid(m) => Status::invalid_argument(m),
        RecurringError::NotFound(m) => Status::not_found(m),
        RecurringError::Unverified(m) => Status::failed_precondition(format!("ownership_unverified: {m}")),
        RecurringError::TooMany(m) => Status::resource_exhausted(m),
        other => ApiError::Internal(other.to_string()).into_status(),
    }
}

fn schedule_to_proto(s: &ScheduleRow) -> pb::Schedule {
    pb::Schedule {
        id: s.id.to_string(),
        site_id: s.site_id.to_string(),
        cron: s.cron.clone(),
        timezone: s.timezone.clone(),
        mode: s.mode.parse().map_or(pb::ScanMode::Unspecified, crate::proto::from_model::mode_to_proto) as i32,
        next_run_at: Some(timestamp(s.next_due_at)),
        last_run_at: s.last_due_at.map(timestamp),
        created_at: Some(timestamp(s.created_at)),
    }
}

fn monitor_to_proto(m: &MonitorRow) -> pb::Monitor {
    pb::Monitor {
        id: m.id.to_string(),
        site_id: m.site_id.to_string(),
        every_seconds: m.every_seconds,
        next_check_at: Some(timestamp(m.next_check_at)),
        last_checked_at: m.last_checked_at.map(timestamp),
        last_change: m.last_change.clone().unwrap_or_default(),
        created_at: Some(timestamp(m.created_at)),
    }
}

fn parse_id(id: &str) -> Result<uuid::Uuid, Status> {
    uuid::Uuid::parse_str(id.trim()).map_err(|_| Status::invalid_argument("id: not a schedule or monitor id"))
}

fn journey_to_proto(j: &JourneyRow) -> pb::Journey {
    pb::Journey {
        id: j.id.to_string(),
        site_id: j.site_id.to_string(),
        name: j.name.clone(),
        definition: j.definition.clone(),
        created_at: Some(timestamp(j.created_at)),
    }
}

#[tonic::async_trait]
impl OwnerService for OwnerApi {
    async fn list_sites(&self, req: Request<pb::ListSitesRequest>) -> Result<Response<pb::ListSitesResponse>, Status> {
        let who = self.admit(&req, "ListSites").await?;
        let sites = self.sites().list(who.org()).await.map_err(site_status)?;
        Ok(Response::new(pb::ListSitesResponse { sites: sites.iter().map(site_to_proto).collect() }))
    }

    async fn add_site(&self, req: Request<pb::AddSiteRequest>) -> Result<Response<pb::Site>, Status> {
        let who = self.admit(&req, "AddSite").await?;
        let actor = format!("token:{}", who.token.id);
        let site = self.sites().add(who.org(), &req.get_ref().url, &actor).await.map_err(site_status)?;
        Ok(Response::new(site_to_proto(&site)))
    }

    async fn verify_site(&self, req: Request<pb::VerifySiteRequest>) -> Result<Response<pb::VerifySiteResponse>, Status> {
        let who = self.admit(&req, "VerifySite").await?;
        let site = self.site(&who, &req.get_ref().site).await?;
        let (site, outcome) = self.sites().verify(who.org(), site.id).await.map_err(site_status)?;
        Ok(Response::new(pb::VerifySiteResponse {
            site: Some(site_to_proto(&site)),
            verified: outcome.is_ok(),
            error: outcome.err().map(|e| e.to_string()).unwrap_or_default(),
        }))
    }

    async fn start_active_scan(&self, req: Request<pb::StartActiveScanRequest>) -> Result<Response<pb::Scan>, Status> {
        let who = self.admit(&req, "StartActiveScan").await?;
        let site = self.site(&who, &req.get_ref().site).await?;
        let body = req.get_ref();
        let attestation = self.attestation(&who, &req, &site, &body.attestation)?;
        let scan = self
            .sites()
            .start_active_scan(StartActive {
                org: who.org(),
                site_id: site.id,
                attestation,
                triggered_by: TriggeredBy::Api,
                max_pages: (body.max_pages != 0).then_some(body.max_pages),
            })
            .await
            .map_err(site_status)?;
        Ok(Response::new(scan_to_proto(&scan)))
    }

    async fn put_journey(&self, req: Request<pb::PutJourneyRequest>) -> Result<Response<pb::Journey>, Status> {
        let who = self.admit(&req, "PutJourney").await?;
        let site = self.site(&who, &req.get_ref().site).await?;
        let journey = self.sites().put_journey(who.org(), site.id, &req.get_ref().definition).await.map_err(site_status)?;
        Ok(Response::new(journey_to_proto(&journey)))
    }

    async fn list_journeys(&self, req: Request<pb::SiteRef>) -> Result<Response<pb::ListJourneysResponse>, Status> {
        let who = self.admit(&req, "ListJourneys").await?;
        let site = self.site(&who, &req.get_ref().site).await?;
        let rows = self.sites().list_journeys(who.org(), site.id).await.map_err(site_status)?;
        Ok(Response::new(pb::ListJourneysResponse { journeys: rows.iter().map(journey_to_proto).collect() }))
    }

    async fn remove_journey(&self, req: Request<pb::RemoveJourneyRequest>) -> Result<Response<pb::Removed>, Status> {
        let who = self.admit(&req, "RemoveJourney").await?;
        let site = self.site(&who, &req.get_ref().site).await?;
        let removed = self.sites().remove_journey(who.org(), site.id, &req.get_ref().name).await.map_err(site_status)?;
        Ok(Response::new(pb::Removed { removed }))
    }

    async fn put_secret(&self, req: Request<pb::PutSecretRequest>) -> Result<Response<pb::Secret>, Status> {
        let who = self.admit(&req, "PutSecret").await?;
        let site = self.site(&who, &req.get_ref().site).await?;
        let body = req.get_ref();
        let stored = self.sites().put_secret(who.org(), site.id, &body.name, &body.value).await.map_err(site_status)?;
        Ok(Response::new(pb::Secret { name: stored.name, created_at: Some(timestamp(stored.created_at)) }))
    }

    async fn list_secrets(&self, req: Request<pb::SiteRef>) -> Result<Response<pb::ListSecretsResponse>, Status> {
        let who = self.admit(&req, "ListSecrets").await?;
        let site = self.site(&who, &req.get_ref().site).await?;
        let names = self.sites().list_secrets(who.org(), site.id).await.map_err(site_status)?;
        Ok(Response::new(pb::ListSecretsResponse {
            secrets: names.into_iter().map(|n| pb::Secret { name: n.name, created_at: Some(timestamp(n.created_at)) }).collect(),
        }))
    }

    async fn remove_secret(&self, req: Request<pb::RemoveSecretRequest>) -> Result<Response<pb::Removed>, Status> {
        let who = self.admit(&req, "RemoveSecret").await?;
        let site = self.site(&who, &req.get_ref().site).await?;
        let removed = self.sites().remove_secret(who.org(), site.id, &req.get_ref().name).await.map_err(site_status)?;
        Ok(Response::new(pb::Removed { removed }))
    }

    async fn add_schedule(&self, req: Request<pb::AddScheduleRequest>) -> Result<Response<pb::Schedule>, Status> {
        let who = self.admit(&req, "AddSchedule").await?;
        let site = self.site(&who, &req.get_ref().site).await?;
        let body = req.get_ref();
        let mode = match pb::ScanMode::try_from(body.mode) {
            Ok(pb::ScanMode::Active) => crate::model::ScanMode::Active,
            Ok(pb::ScanMode::Passive | pb::ScanMode::Unspecified) => crate::model::ScanMode::Passive,
            Err(_) => return Err(Status::invalid_argument("mode: SCAN_MODE_PASSIVE or SCAN_MODE_ACTIVE")),
        };
        let attestation = match mode {
            crate::model::ScanMode::Active => Some(self.attestation(&who, &req, &site, &body.attestation)?),
            crate::model::ScanMode::Passive => None,
        };
        let request = ScheduleRequest { cron: &body.cron, timezone: &body.timezone, mode, attestation };
        let row = self.sites().add_schedule(who.org(), &site.id.to_string(), request, crate::model::time::now_us()).await.map_err(recurring_status)?;
        Ok(Response::new(schedule_to_proto(&row)))
    }

    async fn list_schedules(&self, req: Request<pb::SiteRef>) -> Result<Response<pb::ListSchedulesResponse>, Status> {
        let who = self.admit(&req, "ListSchedules").await?;
        let site = self.site(&who, &req.get_ref().site).await?;
        let rows = self.sites().list_schedules(who.org(), Some(&site.id.to_string())).await.map_err(recurring_status)?;
        Ok(Response::new(pb::ListSchedulesResponse { schedules: rows.iter().map(schedule_to_proto).collect() }))
    }

    async fn remove_schedule(&self, req: Request<pb::RemoveByIdRequest>) -> Result<Response<pb::Removed>, Status> {
        let who = self.admit(&req, "RemoveSchedule").await?;
        let id = parse_id(&req.get_ref().id)?;
        self.sites().remove_schedule(who.org(), id, None).await.map_err(recurring_status)?;
        Ok(Response::new(pb::Removed { removed: true }))
    }

    async fn add_monitor(&self, req: Request<pb::AddMonitorRequest>) -> Result<Response<pb::Monitor>, Status> {
        let who = self.admit(&req, "AddMonitor").await?;
        let site = self.site(&who, &req.get_ref().site).await?;
        let now = crate::model::time::now_us();
        let row = self.sites().add_monitor(who.org(), &site.id.to_string(), &req.get_ref().every, now).await.map_err(recurring_status)?;
        Ok(Response::new(monitor_to_proto(&row)))
    }

    async fn list_monitors(&self, req: Request<pb::SiteRef>) -> Result<Response<pb::ListMonitorsResponse>, Status> {
        let who = self.admit(&req, "ListMonitors").await?;
        let site = self.site(&who, &req.get_ref().site).await?;
        let rows = self.sites().list_monitors(who.org(), Some(&site.id.to_string())).await.map_err(recurring_status)?;
        Ok(Response::new(pb::ListMonitorsResponse { monitors: rows.iter().map(monitor_to_proto).collect() }))
    }

    async fn remove_monitor(&self, req: Request<pb::RemoveByIdRequest>) -> Result<Response<pb::Removed>, Status> {
        let who = self.admit(&req, "RemoveMonitor").await?;
        let id = parse_id(&req.get_ref().id)?;
        self.sites().remove_monitor(who.org(), id, None).await.map_err(recurring_status)?;
        Ok(Response::new(pb::Removed { removed: true }))
    }

    async fn set_budget(&self, req: Request<pb::SetBudgetRequest>) -> Result<Response<pb::Site>, Status> {
        let who = self.admit(&req, "SetBudget").await?;
        let site = self.site(&who, &req.get_ref().site_id).await?;
        let site = self.sites().set_budget(who.org(), site.id, &req.get_ref().budget).await.map_err(site_status)?;
        Ok(Response::new(site_to_proto(&site)))
    }

    async fn set_level(&self, req: Request<pb::SetLevelRequest>) -> Result<Response<pb::Site>, Status> {
        let who = self.admit(&req, "SetLevel").await?;
        let site = self.site(&who, &req.get_ref().site_id).await?;
        let site = self.sites().set_level(who.org(), site.id, &req.get_ref().level).await.map_err(site_status)?;
        Ok(Response::new(site_to_proto(&site)))
    }
}
