//! The webhook endpoints service: what the dashboard and the CLI do with an organisation's
//! endpoints. Every read and write is scoped to the organisation in the store's query, so an
//! endpoint id of another organisation is simply not found.

use super::webhooks::{self, Deliverer, NewEndpoint, WebhookError};
use crate::model::OrgId;
use crate::store::{DeliveryRow, SecretBox, SecretError, Store, WebhookRow};
use uuid::Uuid;

/// The longest endpoint URL accepted.
pub const MAX_URL_LEN: usize = 2048;

/// An endpoint and its latest delivery attempts (newest first).
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub row: WebhookRow,
    pub deliveries: Vec<DeliveryRow>,
}

/// Endpoints over the store; `secrets` seals their signing secrets (none: webhooks are off).
#[derive(Debug, Clone)]
pub struct Webhooks {
    store: Store,
    secrets: Option<SecretBox>,
    policy: crate::model::AddressPolicy,
}

impl Webhooks {
    /// Endpoints must be URLs `policy` lets the service post to.
    pub fn new(store: Store, secrets: Option<SecretBox>, policy: crate::model::AddressPolicy) -> Self {
        Webhooks { store, secrets, policy }
    }

    /// True when a secret key is configured (without one no endpoint can be added).
    pub fn enabled(&self) -> bool {
        self.secrets.is_some()
    }

    /// The organisation's endpoints, oldest first, each with its last `log_lines` attempts.
    pub async fn list(&self, org: OrgId<'_>, log_lines: usize) -> Result<Vec<Endpoint>, WebhookError> {
        let mut out = Vec::new();
        for row in self.store.list_webhooks(org.as_str()).await? {
            let deliveries = if log_lines == 0 { Vec::new() } else { self.store.latest_webhook_deliveries(row.id, log_lines).await? };
            out.push(Endpoint { row, deliveries });
        }
        Ok(out)
    }

    /// Adds an endpoint for a tenant: its URL must be one `policy` lets the service post to.
    /// Returns its id and, for a signed kind, its signing secret (shown once).
    pub async fn add(&self, org: OrgId<'_>, endpoint: &NewEndpoint<'_>, now: i64) -> Result<(Uuid, Option<String>), WebhookError> {
        if endpoint.url.len() > MAX_URL_LEN {
            return Err(WebhookError::Invalid("the URL is too long".into()));
        }
        crate::model::Target::parse(endpoint.url, &self.policy).map_err(|e| WebhookError::Invalid(format!("the URL cannot be used: {e}")))?;
        self.add_by_operator(org, endpoint, now).await
    }

    /// [`Webhooks::add`] by the operator on the service's machine (`sitescan webhook add`): the
    /// URL is not held to this process's policy; the delivering process's egress guard is.
    pub async fn add_by_operator(&self, org: OrgId<'_>, endpoint: &NewEndpoint<'_>, now: i64) -> Result<(Uuid, Option<String>), WebhookError> {
        let secrets = self.secrets.as_ref().ok_or(WebhookError::Secret(SecretError::Missing))?;
        webhooks::add_endpoint_of_kind(&self.store, secrets, org.as_str(), endpoint, now).await
    }

    /// "Send test event" for an endpoint of `org`, within the tenant's limits.
    pub async fn send_test(&self, org: OrgId<'_>, id: Uuid, now: i64) -> Result<String, WebhookError> {
        webhooks::send_test(&self.store, org.as_str(), id, now).await
    }

    /// The operator's test event (any organisation, no limit), delivered at once through
    /// `deliverer`; returns the message id and the attempt as logged, if one was made.
    pub async fn send_test_now(&self, id: Uuid, now: i64, deliverer: &Deliverer) -> Result<(String, Option<DeliveryRow>), WebhookError> {
        let message = webhooks::send_test_unlimited(&self.store, id, now).await?;
        deliverer.run_once().await?;
        Ok((message, self.store.latest_webhook_deliveries(id, 1).await?.pop()))
    }

    /// Removes an endpoint of `org` (`None`: of any organisation, the operator's CLI) and what it
    /// still had to deliver; `false` when there was none.
    pub async fn remove(&self, org: Option<OrgId<'_>>, id: Uuid) -> Result<bool, WebhookError> {
        Ok(self.store.remove_webhook(org.map(|o| o.as_str()), id).await?)
    }

    /// A deliverer of this service's messages (posting under `policy`), when a key is configured.
    pub fn deliverer(&self, policy: crate::model::AddressPolicy, dashboard: Option<url::Url>, owner: String) -> Result<Option<Deliverer>, crate::net::NetError> {
        let Some(secrets) = self.secrets.clone() else { return Ok(None) };
        Deliverer::new(self.store.clone(), secrets, policy, dashboard, owner).map(Some)
    }
}
