//! What an operator's tools ask of the application: readiness, the queue's gauges, sealing old
//! secrets again, migrations.

use super::{App, OpenError};
use std::collections::BTreeMap;

/// The scan queue as `/metrics` reports it.
#[derive(Debug, Clone, Default)]
pub struct QueueGauges {
    /// Queued scans and the age of the oldest (seconds), when they could be read.
    pub depth: Option<(u64, f64)>,
    /// Scans by status, when they could be read.
    pub by_status: Option<BTreeMap<String, u64>>,
}

/// Applies the migrations not yet applied to the database at `url`; returns how many.
pub async fn migrate(url: &str) -> Result<usize, OpenError> {
    Ok(crate::store::migrate(url).await?)
}

impl App {
    /// True when the database answers and its migrations are applied.
    pub async fn ready(&self) -> bool {
        self.store.ready().await
    }

    /// The queue's depth, oldest age and scans by status (each `None` when it could not be read).
    pub async fn queue_gauges(&self) -> QueueGauges {
        QueueGauges { depth: self.store.queue_depth().await.ok(), by_status: self.store.scans_by_status().await.ok() }
    }

    /// True when a user exists (a fresh service has none: its first owner is made with the CLI).
    pub async fn has_users(&self) -> bool {
        crate::accounts::users::any_exist(&self.store).await.unwrap_or(true)
    }

    /// Seals again, bound to where they are stored, the site and webhook secrets sealed in the
    /// first format, and seals chat endpoints' URLs stored whole; returns how many.
    pub async fn reseal_legacy_secrets(&self) -> anyhow::Result<usize> {
        let Some(key) = &self.secrets else { return Ok(0) };
        let sites = self.sites.reseal_legacy_secrets().await?;
        let webhooks = crate::events::webhooks::reseal_legacy_secrets(&self.store, key).await?;
        let chat_urls = crate::events::webhooks::seal_chat_urls(&self.store, key).await?;
        Ok(sites + webhooks + chat_urls)
    }
}
