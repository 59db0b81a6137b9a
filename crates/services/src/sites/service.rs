//! The owner's side of sites, one code path for the dashboard, `OwnerService` and the CLI:
//! adding a site, proving ownership, storing journeys and secrets, and starting an active scan
//! (ownership re-proved right before, the attestation recorded with the scan).

use super::verify::{Verified, VerifyError, Verifier};
use crate::model::{AddressPolicy, Attestation, AttestationRefused, OrgId, ScanMode, SecretName, Target, TriggeredBy};
use crate::store::{
    CreateOutcome, JourneyRow, NewAttestation, QuotaExceeded, ScanExtras, ScanRow, SealedAt, SecretBox, SecretError, SiteRow, Store,
    StoreError, StoredSecret,
};

/// The table site secrets are sealed for (their associated data).
const SITE_SECRETS_TABLE: &str = "site_secrets";
use uuid::Uuid;

/// Largest secret value.
const MAX_SECRET_LEN: usize = 4_096;
/// Journeys a site may have.
pub const MAX_JOURNEYS_PER_SITE: usize = 20;

/// Why an owner action was refused.
#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    #[error("no such site")]
    NotFound,
    #[error("{0}")]
    Invalid(String),
    /// The budget document was refused: every error it has (nothing was stored).
    #[error("the budget is invalid: {}", .0.join("; "))]
    InvalidBudget(Vec<String>),
    #[error("the organisation already has the site {0}")]
    Duplicate(String),
    /// Ownership could not be proved (the site is now shown unverified).
    #[error("{0}")]
    OwnershipUnverified(String),
    #[error("the organisation's monthly scan quota ({}) is used up", .0.limit)]
    QuotaExceeded(QuotaExceeded),
    #[error(transparent)]
    Attestation(#[from] AttestationRefused),
    #[error(transparent)]
    Secrets(#[from] SecretError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub use crate::model::attestation_statement;

/// A journey's name and its canonical JSON, or the validation error naming the step and field
/// (`steps[3].fill: "value" is required`).
/// Parsed off the async runtime (a 64 KiB YAML document is still work), and held to the site's
/// origin: every absolute `navigate` on it or on one of the journey's `origins`.
async fn validate_journey(text: &str, site_origin: &str) -> Result<(String, String), SiteError> {
    if text.len() > crate::model::journey::MAX_JOURNEY_BYTES {
        // Refused before a thread is given to it.
        return Err(SiteError::Invalid(format!(
            "journey: {} bytes is over the limit of {} KiB",
            text.len(),
            crate::model::journey::MAX_JOURNEY_BYTES / 1024
        )));
    }
    let text = text.to_string();
    let journey = tokio::task::spawn_blocking(move || crate::model::journey::parse_journey(&text))
        .await
        .map_err(|e| SiteError::Invalid(format!("journey: could not be read ({e})")))?
        .map_err(|e| SiteError::Invalid(e.to_string()))?;
    journey.check_origins(site_origin).map_err(|e| SiteError::Invalid(e.to_string()))?;
    Ok((journey.name.clone(), journey.to_value().to_string()))
}

/// What starting an active scan needs.
#[derive(Debug, Clone)]
pub struct StartActive<'a> {
    pub org: OrgId<'a>,
    pub site_id: Uuid,
    /// Confirmed for the site's origin ([`Attestation::confirm`]).
    pub attestation: Attestation,
    pub triggered_by: TriggeredBy,
    /// Pages this scan may render (1 to `MAX_PAGES_LIMIT`; `None`: the worker's default).
    pub max_pages: Option<i32>,
}

/// Sites, ownership and active scans over the store and the guarded fetcher.
#[derive(Debug, Clone)]
pub struct SiteService {
    store: Store,
    verifier: Verifier,
    policy: AddressPolicy,
    secrets: Option<SecretBox>,
}

impl SiteService {
    pub fn new(store: Store, verifier: Verifier, policy: AddressPolicy, secrets: Option<SecretBox>) -> Self {
        SiteService { store, verifier, policy, secrets }
    }

    /// A service with the system resolver, a fetcher behind `policy`, and the secret key of
    /// `SITESCAN_SECRET_KEY` when set and valid.
    pub fn with_defaults(store: Store, policy: AddressPolicy) -> Self {
        let guard = std::sync::Arc::new(crate::net::EgressGuard::new(policy.clone()));
        let fetcher = crate::net::Fetcher::new(guard, crate::net::FetcherOptions::default())
            .expect("the default HTTP client builds (static TLS configuration)");
        let verifier = Verifier::new(std::sync::Arc::new(fetcher), super::DnsServer::System);
        SiteService::new(store, verifier, policy, SecretBox::from_env_or_file(None).ok())
    }

    /// The key that seals stored secrets, when one is configured.
    pub fn secrets(&self) -> Option<&SecretBox> {
        self.secrets.as_ref()
    }

    /// The store, for the service's own modules (`schedules`); no edge reaches it.
    pub(super) fn store(&self) -> &Store {
        &self.store
    }

    /// The organisation's sites, by origin.
    pub async fn list(&self, org: OrgId<'_>) -> Result<Vec<SiteRow>, SiteError> {
        Ok(self.store.list_sites(org.as_str()).await?)
    }

    /// Removes one of the organisation's sites, with its journeys, secrets, schedules and
    /// monitors (its scans stay); false when there was none.
    pub async fn remove(&self, org: OrgId<'_>, id: Uuid) -> Result<bool, SiteError> {
        Ok(self.store.remove_site(org.as_str(), id).await?)
    }

    /// Adds a site by any URL on it; the site is its origin. Returns the row (with the token
    /// to publish).
    pub async fn add(&self, org: OrgId<'_>, url: &str, actor: &str) -> Result<SiteRow, SiteError> {
        let target = Target::parse(url.trim(), &self.policy).map_err(|e| SiteError::Invalid(e.to_string()))?;
        let origin = target.url().origin().ascii_serialization();
        let token = super::new_token();
        let now = crate::store::time::now_us();
        self.store.set_org(org.as_str(), None).await?;
        match self.store.add_site(org.as_str(), &origin, &target.hostname(), &token, actor, now).await? {
            Some(row) => {
                tracing::info!(site_id = %row.id, %origin, "site added");
                Ok(row)
            }
            None => Err(SiteError::Duplicate(origin)),
        }
    }

    /// A site of the organisation, by id or by any URL on it.
    pub async fn find(&self, org: OrgId<'_>, id_or_url: &str) -> Result<SiteRow, SiteError> {
        let key = id_or_url.trim();
        if let Ok(id) = Uuid::parse_str(key) {
            return self.store.site(org.as_str(), id).await?.ok_or(SiteError::NotFound);
        }
        let url = url::Url::parse(key).map_err(|_| SiteError::NotFound)?;
        self.store.site_by_origin(org.as_str(), &url.origin().ascii_serialization()).await?.ok_or(SiteError::NotFound)
    }

    /// Proves ownership now and records the outcome (a failure marks the site unverified).
    /// `Ok((site, Err(..)))` is a completed check that did not prove ownership.
    pub async fn verify(&self, org: OrgId<'_>, id: Uuid) -> Result<(SiteRow, Result<Verified, VerifyError>), SiteError> {
        let site = self.owned(org, id).await?;
        let outcome = self.reverify(&site).await?;
        let site = self.owned(org, id).await?;
        Ok((site, outcome))
    }

    /// Proves a stored site's ownership again and records the outcome. Returns whether the site
    /// lost ownership it had (the caller tells the organisation: `site.ownership_lost`).
    pub async fn reverify(&self, site: &SiteRow) -> Result<Result<Verified, VerifyError>, SiteError> {
        let start = url::Url::parse(&site.origin).map_err(|e| SiteError::Invalid(e.to_string()))?;
        let outcome = self.verifier.verify(&start, &site.verification_token).await;
        let now = crate::store::time::now_us();
        match &outcome {
            Ok(v) => {
                tracing::info!(site_id = %site.id, method = v.method.as_str(), "ownership verified");
                self.store.record_site_verification(site.id, Ok(v.method.as_str()), now).await?;
            }
            Err(e) => {
                tracing::info!(site_id = %site.id, reason = %e, "ownership not verified");
                self.store.record_site_verification(site.id, Err(&e.to_string()), now).await?;
            }
        }
        Ok(outcome)
    }

    /// Proves the site's ownership again at `addrs` only (the addresses an active scan pinned),
    /// recording the outcome like `reverify`.
    pub async fn reverify_at(&self, site: &SiteRow, addrs: &[std::net::IpAddr]) -> Result<Result<Verified, VerifyError>, SiteError> {
        let start = url::Url::parse(&site.origin).map_err(|e| SiteError::Invalid(e.to_string()))?;
        let outcome = self.verifier.verify_at(&start, &site.verification_token, addrs).await;
        let now = crate::store::time::now_us();
        match &outcome {
            Ok(v) => self.store.record_site_verification(site.id, Ok(v.method.as_str()), now).await?,
            Err(e) => {
                tracing::info!(site_id = %site.id, reason = %e, "ownership not verified at the pinned addresses");
                self.store.record_site_verification(site.id, Err(&e.to_string()), now).await?;
            }
        }
        Ok(outcome)
    }

    /// Starts an active scan: the attestation must be the site's, ownership is proved again
    /// right now, and the attestation is written with the scan in one transaction.
    pub async fn start_active_scan(&self, req: StartActive<'_>) -> Result<ScanRow, SiteError> {
        if let Some(n) = req.max_pages
            && !(1..=crate::model::MAX_PAGES_LIMIT as i64).contains(&i64::from(n))
        {
            return Err(SiteError::Invalid(format!("max_pages: from 0 (the default) to {}", crate::model::MAX_PAGES_LIMIT)));
        }
        let site = self.owned(req.org, req.site_id).await?;
        let attestation = req.attestation.for_origin(&site.origin)?;
        if let Err(e) = self.reverify(&site).await? {
            return Err(SiteError::OwnershipUnverified(e.to_string()));
        }
        let target = Target::parse(&site.origin, &self.policy).map_err(|e| SiteError::Invalid(e.to_string()))?;
        let extras = ScanExtras {
            site_id: Some(site.id),
            attestation: Some(NewAttestation {
                site_id: site.id,
                actor: attestation.attester().actor.clone(),
                client_addr: attestation.attester().client_addr.clone(),
                statement: attestation.statement().to_string(),
            }),
            level: site.level(),
            ..ScanExtras::default()
        };
        let created = self
            .store
            .create_scan_with(req.org.as_str(), &target, ScanMode::Active, req.triggered_by, req.max_pages, extras)
            .await?
            .ok_or(SiteError::Store(StoreError::NotFound("scan")))?;
        match created {
            CreateOutcome::Created(row) => {
                tracing::info!(scan_id = %row.id, site_id = %site.id, actor = %attestation.attester().actor, "active scan queued");
                Ok(row)
            }
            CreateOutcome::QuotaExceeded(q) => Err(SiteError::QuotaExceeded(q)),
        }
    }

    /// Sets the site's budget (JSON or YAML assertions), validated first: on any error nothing
    /// is stored and every error is returned. An empty document removes the budget.
    pub async fn set_budget(&self, org: OrgId<'_>, site_id: Uuid, text: &str) -> Result<SiteRow, SiteError> {
        let site = self.owned(org, site_id).await?;
        let budget = super::validate_budget(text).map_err(SiteError::InvalidBudget)?;
        if !self.store.set_site_budget(org.as_str(), site.id, budget.as_deref()).await? {
            return Err(SiteError::NotFound);
        }
        tracing::info!(site_id = %site.id, removed = budget.is_none(), "site budget set");
        self.owned(org, site.id).await
    }

    /// Sets the conformance level the site's scans judge against (`A`, `AA` or `AAA`; empty:
    /// back to the default, AA). Anything else is refused and nothing changes.
    pub async fn set_level(&self, org: OrgId<'_>, site_id: Uuid, text: &str) -> Result<SiteRow, SiteError> {
        let site = self.owned(org, site_id).await?;
        let level = match text.trim() {
            "" => None,
            t => Some(t.parse::<crate::model::Level>().map_err(|e| SiteError::Invalid(format!("level: {e}")))?),
        };
        if !self.store.set_site_level(org.as_str(), site.id, level).await? {
            return Err(SiteError::NotFound);
        }
        tracing::info!(site_id = %site.id, level = level.map_or("default", |l| l.as_str()), "site level set");
        self.owned(org, site.id).await
    }

    /// Stores (or replaces, by its name) a journey after validating it.
    pub async fn put_journey(&self, org: OrgId<'_>, site_id: Uuid, text: &str) -> Result<JourneyRow, SiteError> {
        let site = self.owned(org, site_id).await?;
        let (name, definition) = validate_journey(text, &site.origin).await?;
        let existing = self.store.list_journeys(site.id).await?;
        if existing.len() >= MAX_JOURNEYS_PER_SITE && !existing.iter().any(|j| j.name == name) {
            return Err(SiteError::Invalid(format!("a site has at most {MAX_JOURNEYS_PER_SITE} journeys (remove one first)")));
        }
        let now = crate::store::time::now_us();
        let id = self.store.put_journey(site.id, &name, &definition, now).await?;
        Ok(JourneyRow { id, site_id: site.id, name, definition, created_at: now })
    }

    fn secret_box(&self) -> Result<&SecretBox, SiteError> {
        self.secrets.as_ref().ok_or(SiteError::Secrets(SecretError::Missing))
    }

    /// The organisation's site `site_id` (`NotFound` for another organisation's).
    /// One site of the organisation (another organisation's is `NotFound`).
    pub async fn get(&self, org: OrgId<'_>, site_id: Uuid) -> Result<SiteRow, SiteError> {
        self.owned(org, site_id).await
    }

    async fn owned(&self, org: OrgId<'_>, site_id: Uuid) -> Result<SiteRow, SiteError> {
        self.store.site(org.as_str(), site_id).await?.ok_or(SiteError::NotFound)
    }

    /// The site's journeys, by name.
    pub async fn list_journeys(&self, org: OrgId<'_>, site_id: Uuid) -> Result<Vec<JourneyRow>, SiteError> {
        let site = self.owned(org, site_id).await?;
        Ok(self.store.list_journeys(site.id).await?)
    }

    /// Removes the journey `name`; false when the site has none by that name.
    pub async fn remove_journey(&self, org: OrgId<'_>, site_id: Uuid, name: &str) -> Result<bool, SiteError> {
        let site = self.owned(org, site_id).await?;
        let removed = self.store.remove_journey(site.id, name.trim()).await?;
        if removed {
            tracing::info!(site_id = %site.id, journey = name.trim(), "journey removed");
        }
        Ok(removed)
    }

    /// Stores (or replaces) a secret, encrypted. The value is never returned again.
    pub async fn put_secret(&self, org: OrgId<'_>, site_id: Uuid, name: &str, value: &str) -> Result<StoredSecret, SiteError> {
        let site = self.owned(org, site_id).await?;
        let name = SecretName::parse(name).map_err(|e| SiteError::Invalid(e.to_string()))?;
        if value.is_empty() || value.len() > MAX_SECRET_LEN {
            return Err(SiteError::Invalid(format!("a secret value is 1 to {MAX_SECRET_LEN} bytes")));
        }
        let row = site.id.to_string();
        let sealed = self.secret_box()?.seal(value, SealedAt { table: SITE_SECRETS_TABLE, row: &row, name: name.as_str() });
        let now = crate::store::time::now_us();
        self.store.put_site_secret(site.id, name.as_str(), &sealed, now).await?;
        tracing::info!(site_id = %site.id, secret = %name, "site secret stored");
        Ok(StoredSecret { name: name.into_string(), created_at: now })
    }

    /// The site's secret names and when each was set (never their values).
    pub async fn list_secrets(&self, org: OrgId<'_>, site_id: Uuid) -> Result<Vec<StoredSecret>, SiteError> {
        let site = self.owned(org, site_id).await?;
        Ok(self.store.list_site_secrets(site.id).await?)
    }

    /// Removes the secret `name`; false when the site has none by that name.
    pub async fn remove_secret(&self, org: OrgId<'_>, site_id: Uuid, name: &str) -> Result<bool, SiteError> {
        let site = self.owned(org, site_id).await?;
        let removed = self.store.remove_site_secret(site.id, name.trim()).await?;
        if removed {
            tracing::info!(site_id = %site.id, secret = name.trim(), "site secret removed");
        }
        Ok(removed)
    }

    /// The site's journeys, each with the secrets it names, for the worker running an active
    /// scan. A journey that names a secret not stored (any more) is left out, with a warning.
    pub async fn journey_specs(&self, site_id: Uuid) -> Result<Vec<crate::model::JourneySpec>, SiteError> {
        let rows = self.store.list_journeys(site_id).await?;
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        let mut secrets = crate::model::JourneySecrets::new();
        if !self.store.list_site_secrets(site_id).await?.is_empty() {
            for (name, value) in self.secret_values(site_id).await? {
                secrets.insert(name, value);
            }
        }
        let mut specs = Vec::new();
        for row in rows {
            let journey = match crate::model::journey::parse_journey(&row.definition) {
                Ok(j) => j,
                Err(e) => {
                    tracing::warn!(site_id = %site_id, journey = %row.name, error = %e, "stored journey no longer parses; left out");
                    continue;
                }
            };
            let own = secrets.only(&journey.secret_names());
            match crate::model::JourneySpec::new(journey, own) {
                Ok(spec) => specs.push(spec),
                Err(e) => tracing::warn!(site_id = %site_id, journey = %row.name, error = %e, "journey left out"),
            }
        }
        Ok(specs)
    }

    /// The site's secrets in clear, for the worker running its journeys.
    pub async fn secret_values(&self, site_id: Uuid) -> Result<Vec<(String, String)>, SiteError> {
        let sealed = self.store.site_secret_values(site_id).await?;
        let secrets = self.secret_box()?;
        let row = site_id.to_string();
        sealed.into_iter().map(|(name, value)| Ok((name.clone(), secrets.open(&value, SealedAt { table: SITE_SECRETS_TABLE, row: &row, name: &name })?))).collect()
    }

    /// Seals every site secret of the first format (no associated data) again, bound to its
    /// site and name; run at startup. Returns how many were sealed again.
    pub async fn reseal_legacy_secrets(&self) -> Result<usize, SiteError> {
        let Some(secrets) = self.secrets.as_ref() else { return Ok(0) };
        let mut done = 0;
        for (site_id, name, value) in self.store.site_secrets_with_prefix(crate::store::LEGACY_PREFIX).await? {
            let row = site_id.to_string();
            match secrets.reseal_legacy(&value, SealedAt { table: SITE_SECRETS_TABLE, row: &row, name: &name }) {
                Some(Ok(sealed)) => {
                    self.store.replace_site_secret_value(site_id, &name, &value, &sealed).await?;
                    done += 1;
                }
                Some(Err(e)) => tracing::warn!(site_id = %site_id, secret = %name, error = %e, "a stored secret of the first format does not open; left as it is"),
                None => {}
            }
        }
        Ok(done)
    }
}
