//! Webhooks: which endpoints an event goes to (the outbox), and the delivery loop that signs
//! and POSTs each message through the egress guard, retrying on the schedule below.
//!
//! Time comes from a [`Clock`], so tests move it instead of sleeping through the schedule.

pub use crate::store::{Clock, ManualClock, SystemClock};
use crate::store::{SealedAt, SecretBox, SecretError};
use super::signing::SigningKey;
use crate::model::Severity;
use crate::net::Fetcher;
use crate::store::{ScanRow, Store, StoreError, WebhookRow};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// The events an endpoint may subscribe to.
pub const EVENT_TYPES: &[&str] =
    &["scan.completed", "scan.failed", "scan.regressed", "monitor.triggered", "site.ownership_lost"];
/// The wait before each retry after a failed attempt (then the message is given up).
pub const RETRY_SCHEDULE: [Duration; 7] = [
    Duration::from_secs(5),
    Duration::from_secs(5 * 60),
    Duration::from_secs(30 * 60),
    Duration::from_secs(2 * 3600),
    Duration::from_secs(5 * 3600),
    Duration::from_secs(10 * 3600),
    Duration::from_secs(24 * 3600),
];
/// How long one POST may take.
pub const DELIVERY_TIMEOUT: Duration = Duration::from_secs(10);
/// An endpoint failing for this long is disabled.
pub const DISABLE_AFTER: Duration = Duration::from_secs(24 * 3600);
/// Messages claimed at a time; a round claims batch after batch until none is due.
const CLAIM_BATCH: i64 = 20;
/// Deliveries in flight at once (each mostly waits on its receiver).
pub const DELIVERIES_AT_ONCE: usize = 16;
/// How long a claim holds its messages: the whole batch even if delivered one after another at
/// the longest timeout each, and a margin (a lease that ran out mid-batch would let another
/// instance send a message twice).
const CLAIM_LEASE: Duration = Duration::from_secs(DELIVERY_TIMEOUT.as_secs() * (CLAIM_BATCH as u64 + 1) + 60);
/// The minimum severity of `scan.regressed` when an endpoint names none.
pub const DEFAULT_MIN_SEVERITY: Severity = Severity::High;

/// Errors of the webhook layer.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Secret(#[from] SecretError),
    #[error("{0}")]
    Invalid(String),
}

/// Adds an endpoint; returns its id and its signing secret (`whsec_...`, shown once).
pub async fn add_endpoint(
    store: &Store,
    secrets: &SecretBox,
    org: &str,
    url: &str,
    events: &[String],
    min_severity: Option<Severity>,
    now: i64,
) -> Result<(Uuid, String), WebhookError> {
    let parsed = url::Url::parse(url).map_err(|e| WebhookError::Invalid(format!("not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(WebhookError::Invalid("the URL must be http or https".into()));
    }
    if events.is_empty() {
        return Err(WebhookError::Invalid(format!("name at least one event: {}", EVENT_TYPES.join(", "))));
    }
    for e in events {
        if !EVENT_TYPES.contains(&e.as_str()) {
            return Err(WebhookError::Invalid(format!("unknown event {e:?}: expected {}", EVENT_TYPES.join(", "))));
        }
    }
    let secret = SigningKey::generate().to_secret();
    let id = Uuid::now_v7();
    let row = id.to_string();
    let sealed = secrets.seal(&secret, SealedAt { table: WEBHOOKS_TABLE, row: &row, name: SIGNING_SECRET });
    store.add_webhook(id, org, parsed.as_str(), events, min_severity.map(|s| s.as_str()), &sealed, now).await?;
    Ok((id, secret))
}

/// What an endpoint's signing secret is sealed for (its associated data).
const WEBHOOKS_TABLE: &str = "webhook_endpoints";
const SIGNING_SECRET: &str = "signing_secret";

/// Seals every endpoint's signing secret of the first format again, bound to its endpoint; run
/// at startup. Returns how many were sealed again.
pub async fn reseal_legacy_secrets(store: &Store, secrets: &SecretBox) -> Result<usize, WebhookError> {
    let mut done = 0;
    for (id, value) in store.webhook_secrets_with_prefix(crate::store::LEGACY_PREFIX).await? {
        let row = id.to_string();
        match secrets.reseal_legacy(&value, SealedAt { table: WEBHOOKS_TABLE, row: &row, name: SIGNING_SECRET }) {
            Some(Ok(sealed)) => {
                store.replace_webhook_secret(id, &value, &sealed).await?;
                done += 1;
            }
            Some(Err(e)) => tracing::warn!(endpoint = %id, error = %e, "a webhook secret of the first format does not open; left as it is"),
            None => {}
        }
    }
    Ok(done)
}

fn message_id() -> String {
    format!("msg_{}", Uuid::now_v7().simple())
}

fn envelope(event: &str, now: i64, data: Value) -> String {
    json!({"type": event, "timestamp": crate::store::time::to_rfc3339(now), "data": data}).to_string()
}

/// Queues the events of a scan that ended: `scan.completed` or `scan.failed`, and
/// `scan.regressed` for endpoints whose minimum severity a new finding reaches. Payloads are
/// small: ids and counts, never the report.
pub async fn scan_finished(
    store: &Store,
    scan: &ScanRow,
    completed: bool,
    counts: Option<&crate::model::ChangeCounts>,
    new_severities: &[Severity],
    now: i64,
) -> Result<usize, WebhookError> {
    let endpoints: Vec<WebhookRow> = store.list_webhooks(&scan.org_id).await?.into_iter().filter(|e| e.enabled).collect();
    if endpoints.is_empty() {
        return Ok(0);
    }
    let row = store.scan_any_org(scan.id).await?.unwrap_or_else(|| scan.clone());
    let findings_count: Value = row.findings_count.as_deref().and_then(|c| serde_json::from_str(c).ok()).unwrap_or(Value::Null);
    let data = json!({
        "scan_id": scan.id.to_string(),
        "target_url": scan.target_url,
        "mode": scan.mode,
        "status": if completed { "completed" } else { "failed" },
        "findings_count": findings_count,
        "changes": counts,
    });
    let mut queued = 0;
    for ep in &endpoints {
        let main = if completed { "scan.completed" } else { "scan.failed" };
        if ep.subscribes(main) {
            store.enqueue_webhook(ep.id, &message_id(), main, &envelope(main, now, data.clone()), now).await?;
            queued += 1;
        }
        let min = ep.min_severity.as_deref().and_then(|s| s.parse().ok()).unwrap_or(DEFAULT_MIN_SEVERITY);
        let reached = new_severities.iter().filter(|s| **s >= min).count();
        if completed && reached > 0 && ep.subscribes("scan.regressed") {
            let mut d = data.clone();
            d["min_severity"] = json!(min.as_str());
            d["new_at_or_above"] = json!(reached);
            store.enqueue_webhook(ep.id, &message_id(), "scan.regressed", &envelope("scan.regressed", now, d), now).await?;
            queued += 1;
        }
    }
    Ok(queued)
}

/// Queues an organisation-wide event (`monitor.triggered`, `site.ownership_lost`) for every
/// enabled endpoint of the organisation that subscribes to it; returns how many were queued.
pub async fn org_event(store: &Store, org: &str, event: &str, data: Value, now: i64) -> Result<usize, WebhookError> {
    let mut queued = 0;
    for ep in store.list_webhooks(org).await?.into_iter().filter(|e| e.enabled && e.subscribes(event)) {
        store.enqueue_webhook(ep.id, &message_id(), event, &envelope(event, now, data.clone()), now).await?;
        queued += 1;
    }
    Ok(queued)
}

/// Queues `monitor.triggered` for the organisation's endpoints that subscribe to it: which
/// monitor saw what change, and the scan it started (small: ids and the changed fields).
pub async fn monitor_triggered(
    store: &Store,
    scan: &ScanRow,
    monitor_id: Uuid,
    changes: &[Value],
    now: i64,
) -> Result<usize, WebhookError> {
    let fields: Vec<Value> = changes.iter().filter_map(|c| c.get("field").cloned()).collect();
    let data = json!({
        "monitor_id": monitor_id.to_string(),
        "site_id": scan.site_id.map(|s| s.to_string()),
        "scan_id": scan.id.to_string(),
        "target_url": scan.target_url,
        "changed_fields": fields,
    });
    org_event(store, &scan.org_id, "monitor.triggered", data, now).await
}

/// Queues a `webhook.test` message for one endpoint (whatever it subscribes to).
pub async fn send_test(store: &Store, endpoint: Uuid, now: i64) -> Result<String, WebhookError> {
    let ep = store.webhook(endpoint).await?.ok_or_else(|| WebhookError::Invalid(format!("no webhook {endpoint}")))?;
    let id = message_id();
    let body = envelope("webhook.test", now, json!({"webhook_id": ep.id.to_string(), "org": ep.org_id}));
    store.enqueue_webhook(ep.id, &id, "webhook.test", &body, now).await?;
    Ok(id)
}

/// Signs and delivers due messages.
#[derive(Debug, Clone)]
pub struct Deliverer {
    pub store: Store,
    pub fetcher: Arc<Fetcher>,
    pub secrets: SecretBox,
    pub clock: Arc<dyn Clock>,
    pub owner: String,
}

/// What became of one attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attempt {
    Delivered,
    Retry { at: i64 },
    GaveUp(String),
}

impl Deliverer {
    /// Claims and delivers what is due now, batch after batch until nothing is due; returns the
    /// attempts made. Up to `DELIVERIES_AT_ONCE` endpoints are served at once, and each endpoint
    /// gets its messages one after another in the order they were queued, so a receiver sees
    /// `scan.completed` before the `scan.regressed` of the same scan.
    pub async fn run_once(&self) -> Result<Vec<Attempt>, WebhookError> {
        use futures::StreamExt;
        let mut out = Vec::new();
        loop {
            let now = self.clock.now_us();
            let claimed = self.store.claim_webhooks(&self.owner, now, CLAIM_LEASE.as_micros() as i64, CLAIM_BATCH).await?;
            let full = claimed.len() as i64 == CLAIM_BATCH;
            let mut per_endpoint: Vec<Vec<crate::store::OutboxRow>> = Vec::new();
            for msg in claimed {
                match per_endpoint.iter_mut().find(|queue| queue[0].endpoint_id == msg.endpoint_id) {
                    Some(queue) => queue.push(msg),
                    None => per_endpoint.push(vec![msg]),
                }
            }
            let results: Vec<Result<Vec<Attempt>, WebhookError>> = futures::stream::iter(per_endpoint)
                .map(|queue| async move {
                    let mut attempts = Vec::with_capacity(queue.len());
                    for msg in queue {
                        attempts.push(self.deliver(msg).await?);
                    }
                    Ok(attempts)
                })
                .buffer_unordered(DELIVERIES_AT_ONCE)
                .collect()
                .await;
            for r in results {
                out.extend(r?);
            }
            if !full {
                return Ok(out);
            }
        }
    }

    async fn deliver(&self, msg: crate::store::OutboxRow) -> Result<Attempt, WebhookError> {
        let now = self.clock.now_us();
        let attempt_no = msg.attempts + 1;
        let Some(ep) = self.store.webhook(msg.endpoint_id).await?.filter(|e| e.enabled) else {
            self.store.finish_webhook(msg.id, &self.owner, "failed", None, now).await?;
            return Ok(Attempt::GaveUp("the endpoint is disabled or gone".into()));
        };
        let row = ep.id.to_string();
        let opened = self.secrets.open(&ep.secret_enc, SealedAt { table: WEBHOOKS_TABLE, row: &row, name: SIGNING_SECRET })?;
        let key = SigningKey::parse(&opened).map_err(|e| WebhookError::Invalid(e.to_string()))?;
        let timestamp = now / 1_000_000;
        let body = msg.payload.clone().into_bytes();
        let headers = [
            ("content-type", "application/json".to_string()),
            ("webhook-id", msg.message_id.clone()),
            ("webhook-timestamp", timestamp.to_string()),
            ("webhook-signature", key.sign(&msg.message_id, timestamp, &body)),
        ];
        let started = std::time::Instant::now();
        let resp = self.fetcher.post(&ep.url, &headers, body, DELIVERY_TIMEOUT).await;
        let latency = started.elapsed().as_millis() as i64;
        let status = resp.status.map(i32::from);
        let error = resp.error.as_ref().map(|e| e.to_string());
        self.store.log_webhook_delivery(msg.id, ep.id, attempt_no, status, latency, error.as_deref(), now).await?;
        tracing::info!(webhook = %ep.id, message = %msg.message_id, attempt = attempt_no, status = ?status, latency_ms = latency, "webhook attempt");
        if status.is_some_and(|s| (200..300).contains(&s)) {
            self.store.finish_webhook(msg.id, &self.owner, "delivered", None, now).await?;
            self.store.set_webhook_failing(ep.id, None).await?;
            return Ok(Attempt::Delivered);
        }
        if status == Some(410) {
            self.store.disable_webhook(ep.id, "the receiver answered 410 Gone").await?;
            self.store.finish_webhook(msg.id, &self.owner, "failed", None, now).await?;
            return Ok(Attempt::GaveUp("410 Gone: endpoint disabled".into()));
        }
        self.store.set_webhook_failing(ep.id, Some(now)).await?;
        let failing_since = self.store.webhook(ep.id).await?.and_then(|e| e.failing_since).unwrap_or(now);
        if now - failing_since >= DISABLE_AFTER.as_micros() as i64 {
            self.store.disable_webhook(ep.id, "failing for a day").await?;
            self.store.finish_webhook(msg.id, &self.owner, "failed", None, now).await?;
            return Ok(Attempt::GaveUp("failing for a day: endpoint disabled".into()));
        }
        match RETRY_SCHEDULE.get(msg.attempts as usize) {
            Some(wait) => {
                let at = now + wait.as_micros() as i64;
                self.store.finish_webhook(msg.id, &self.owner, "pending", Some(at), now).await?;
                Ok(Attempt::Retry { at })
            }
            None => {
                self.store.finish_webhook(msg.id, &self.owner, "failed", None, now).await?;
                Ok(Attempt::GaveUp("retries exhausted".into()))
            }
        }
    }

    /// Runs until `stop`: a round every `every`.
    pub fn spawn(self, every: Duration, stop: CancellationToken) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            loop {
                if let Err(e) = self.run_once().await {
                    tracing::warn!(error = %e, "webhook delivery round failed");
                }
                tokio::select! {
                    _ = tokio::time::sleep(every) => {}
                    _ = stop.cancelled() => return,
                }
            }
        })
    }
}
