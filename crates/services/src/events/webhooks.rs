//! Webhooks: which endpoints an event goes to (the outbox), and the delivery loop that signs
//! and POSTs each message through the egress guard, retrying on the schedule below (or later,
//! when a 429 or 503 says `Retry-After`: `retry_after.rs`).
//!
//! An endpoint's kind ([`WebhookKind`]) decides what it receives: `standard` endpoints get the
//! event as queued, signed; chat endpoints (Slack, Teams, Discord, Google Chat) get the
//! platform's message built from it at delivery (`chat/`), unsigned, since the platform's URL is
//! its own secret. Retries, lanes, the breaker, the egress guard and the delivery log are the
//! same for every kind.
//!
//! Time comes from a [`Clock`], so tests move it instead of sleeping through the schedule.
//!
//! Sharing between tenants: deliveries run in lanes, one message in flight per endpoint across
//! the fleet ([`Store::claim_webhook_lanes`]), each delivery an independent future: a slow
//! receiver holds only its own lane, never a batch. At most [`DELIVERIES_PER_ORG`] of an
//! instance's [`DELIVERIES_AT_ONCE`] slots go to one organisation, and an endpoint that keeps
//! answering slowly is rested by its latency breaker (`breaker.rs`). An organisation has at most
//! [`MAX_ENDPOINTS_PER_ORG`] endpoints, and "send test event" is limited per endpoint and per
//! organisation.

pub use crate::store::{Clock, ManualClock, SystemClock};
use crate::tasks::{Drained, spawn_logged};
use crate::store::{SealedAt, SecretBox, SecretError};
use super::breaker::BreakerRule;
use super::retry_after;
use super::chat::{ChatMessage, TOP_FINDINGS, WebhookKind};
use super::payloads;
use super::signing::SigningKey;
use crate::model::{OrgSlots, Severity};
use crate::net::Fetcher;
use crate::store::throttle::ThrottleRule;
use crate::store::{OutboxRow, ScanRow, Store, StoreError, WebhookRow};
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// The events an endpoint may subscribe to.
pub const EVENT_TYPES: &[&str] =
    &["scan.completed", "scan.failed", "scan.regressed", "scan.budget_failed", "monitor.triggered", "site.ownership_lost"];
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
/// Deliveries in flight at once per instance (each mostly waits on its receiver).
pub const DELIVERIES_AT_ONCE: usize = 16;
/// Of those, at most this many for one organisation's endpoints; the rest wait their turn.
pub const DELIVERIES_PER_ORG: usize = 4;
/// How long a claim holds its message: one delivery at the longest timeout, and a margin for
/// the store (a lease that ran out mid-delivery would let another instance send it twice).
const CLAIM_LEASE: Duration = Duration::from_secs(DELIVERY_TIMEOUT.as_secs() + 60);
/// While deliveries are in flight, how often the loop looks for more due messages.
const REFILL_EVERY: Duration = Duration::from_millis(500);
/// Endpoints an organisation may have.
pub const MAX_ENDPOINTS_PER_ORG: i64 = 20;
/// "Send test event": at most one per endpoint this often.
pub const TEST_EVENT_ENDPOINT_EVERY: Duration = Duration::from_secs(10);
/// "Send test event": at most this many per organisation per [`TEST_EVENT_ORG_WINDOW`].
pub const TEST_EVENTS_PER_ORG: i64 = 10;
pub const TEST_EVENT_ORG_WINDOW: Duration = Duration::from_secs(60);
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
    /// No such endpoint in the organisation.
    #[error("no such webhook endpoint")]
    NotFound,
    /// The organisation has [`MAX_ENDPOINTS_PER_ORG`] endpoints already.
    #[error("the organisation has {0} webhook endpoints, the most allowed; remove one first")]
    TooMany(i64),
    /// "Send test event" was used too often; the next one is allowed in `retry_after_s`.
    #[error("{what}: try again in {retry_after_s} s")]
    RateLimited { what: &'static str, retry_after_s: i64 },
}

/// Adds a `standard` endpoint; returns its id and its signing secret (`whsec_...`, shown once).
pub async fn add_endpoint(
    store: &Store,
    secrets: &SecretBox,
    org: &str,
    url: &str,
    events: &[String],
    min_severity: Option<Severity>,
    now: i64,
) -> Result<(Uuid, String), WebhookError> {
    let (id, secret) = add_endpoint_of_kind(store, secrets, org, &NewEndpoint { url, kind: WebhookKind::Standard, events, min_severity }, now).await?;
    Ok((id, secret.unwrap_or_default()))
}

/// An endpoint as it is asked for: where to post, in which format, which events, and the
/// least severity a finding needs to be posted.
#[derive(Debug, Clone, Copy)]
pub struct NewEndpoint<'a> {
    pub url: &'a str,
    pub kind: WebhookKind,
    pub events: &'a [String],
    pub min_severity: Option<Severity>,
}

/// Adds an endpoint; returns its id and, for a signed kind, its signing secret (`whsec_...`,
/// shown once). A chat endpoint's messages are not signed, so it has no secret to show (one is
/// still sealed beside it, should it ever become `standard`).
pub async fn add_endpoint_of_kind(
    store: &Store,
    secrets: &SecretBox,
    org: &str,
    endpoint: &NewEndpoint<'_>,
    now: i64,
) -> Result<(Uuid, Option<String>), WebhookError> {
    let NewEndpoint { url, kind, events, min_severity } = *endpoint;
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
    // A chat kind's URL is its secret: sealed like one, and only its shown form stored in the
    // clear. A signed kind's URL is no secret; its signing secret is.
    let (stored_url, sealed) = if kind.is_signed() {
        (parsed.to_string(), secrets.seal(&secret, SealedAt { table: WEBHOOKS_TABLE, row: &row, name: SIGNING_SECRET }))
    } else {
        (kind.shown_url(parsed.as_str()), secrets.seal(parsed.as_str(), SealedAt { table: WEBHOOKS_TABLE, row: &row, name: CHAT_URL }))
    };
    let added = store
        .add_webhook_within(id, org, &stored_url, kind.as_str(), events, min_severity.map(|s| s.as_str()), &sealed, now, MAX_ENDPOINTS_PER_ORG)
        .await?;
    match added {
        Some(_) => Ok((id, kind.is_signed().then_some(secret))),
        None => Err(WebhookError::TooMany(MAX_ENDPOINTS_PER_ORG)),
    }
}

/// The delivery attempts kept an endpoint (the newest); older ones are pruned on the purge timer.
pub const DELIVERY_LOG_KEEP: usize = 1000;

/// What an endpoint's signing secret is sealed for (its associated data).
const WEBHOOKS_TABLE: &str = "webhook_endpoints";
const SIGNING_SECRET: &str = "signing_secret";
/// What a chat endpoint's URL is sealed for.
const CHAT_URL: &str = "chat_url";

/// True when a chat endpoint's stored URL is its shown form (the whole URL sealed); false for
/// a row stored before chat URLs were sealed, whose `url` is still whole.
fn chat_url_is_sealed(stored: &str) -> bool {
    stored.ends_with('…')
}

/// Seals the whole URL of every chat endpoint stored before chat URLs were sealed, and keeps
/// only its shown form in the clear; run at startup. Returns how many were sealed.
pub async fn seal_chat_urls(store: &Store, secrets: &SecretBox) -> Result<usize, WebhookError> {
    let mut done = 0;
    for (id, kind, url) in store.chat_webhook_urls().await? {
        let kind = WebhookKind::from_stored(&kind);
        if kind.is_signed() || chat_url_is_sealed(&url) {
            continue;
        }
        let row = id.to_string();
        let sealed = secrets.seal(&url, SealedAt { table: WEBHOOKS_TABLE, row: &row, name: CHAT_URL });
        if store.replace_webhook_url(id, &url, &kind.shown_url(&url), &sealed).await? {
            done += 1;
        }
    }
    Ok(done)
}

/// `error` with every form of the chat URL `url` in it replaced by its `shown` form: a
/// transport error names the URL it failed on, and the delivery log must not hold the secret.
fn redact_url(error: &str, url: &str, shown: &str) -> String {
    let mut out = error.replace(url, shown);
    if let Ok(u) = url::Url::parse(url) {
        out = out.replace(u.as_str(), shown);
        if u.path().len() > 1 {
            out = out.replace(u.path(), "/…");
        }
        if let Some(query) = u.query().filter(|q| !q.is_empty()) {
            out = out.replace(query, "…");
        }
    }
    out
}

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

/// Queues the events of a scan that ended: `scan.completed` or `scan.failed`, and
/// `scan.regressed` for endpoints whose minimum severity a new finding reaches, when the scan
/// was compared with a baseline (`counts` names one): a first scan's findings are all new, but
/// nothing regressed. Payloads are small: ids and counts, never the report.
pub async fn scan_finished(
    store: &Store,
    scan: &ScanRow,
    completed: bool,
    counts: Option<&crate::model::ChangeCounts>,
    new_severities: &[Severity],
    gaps: Option<&crate::model::ChecksNotRun>,
    now: i64,
) -> Result<usize, WebhookError> {
    let endpoints: Vec<WebhookRow> = store.list_webhooks(&scan.org_id).await?.into_iter().filter(|e| e.enabled).collect();
    if endpoints.is_empty() {
        return Ok(0);
    }
    let row = store.scan_any_org(scan.id).await?.unwrap_or_else(|| scan.clone());
    let findings_count = row.findings_count.as_deref().and_then(|c| serde_json::from_str::<crate::model::SeverityCounts>(c).ok());
    let data = payloads::scan_data(scan, completed, findings_count, counts, gaps);
    // Chat endpoints also get what their message shows: the top new findings, the new ones'
    // severities, why a scan failed (read once, only when a chat endpoint is there).
    let chat_extra = if endpoints.iter().any(|e| !WebhookKind::from_stored(&e.kind).is_signed()) {
        Some(chat_extra(store, &row, completed, new_severities).await?)
    } else {
        None
    };
    let compared = counts.is_some_and(|c| c.baseline_scan_id.is_some());
    let mut queued = 0;
    for ep in &endpoints {
        let extra = chat_extra.as_ref().filter(|_| !WebhookKind::from_stored(&ep.kind).is_signed());
        let main = if completed { "scan.completed" } else { "scan.failed" };
        if ep.subscribes(main) {
            let body = payloads::body(&payloads::scan_event(main, now, data.clone()), extra)?;
            store.enqueue_webhook(ep.id, &message_id(), main, &body, now).await?;
            queued += 1;
        }
        let min = ep.min_severity.as_deref().and_then(|s| s.parse().ok()).unwrap_or(DEFAULT_MIN_SEVERITY);
        let reached = new_severities.iter().filter(|s| **s >= min).count();
        if completed && compared && reached > 0 && ep.subscribes("scan.regressed") {
            let body = payloads::body(&payloads::scan_event("scan.regressed", now, payloads::regressed(&data, min, reached)), extra)?;
            store.enqueue_webhook(ep.id, &message_id(), "scan.regressed", &body, now).await?;
            queued += 1;
        }
    }
    Ok(queued)
}

/// What a chat message of the scan shows beyond the standard event's `data`: the top
/// [`TOP_FINDINGS`] new findings (check, severity, title, page, resource), the count of new findings per
/// severity, and for a failed scan the reason (`summary.error.message`).
async fn chat_extra(store: &Store, scan: &ScanRow, completed: bool, new_severities: &[Severity]) -> Result<Map<String, Value>, WebhookError> {
    let mut data = Map::new();
    if completed {
        let mut by = crate::model::SeverityCounts::default();
        for s in new_severities {
            by.add(*s, 1);
        }
        data.insert("new_by_severity".into(), json!(by));
        let top = store.top_new_findings(scan.id, TOP_FINDINGS as i64).await?;
        // Each as the API writes a finding, with only what a message shows of it.
        let top: Value = top
            .into_iter()
            .map(|mut f| {
                f.finding.evidence.retain(|k, _| k == "url" || k == "resource");
                (f.finding.description, f.finding.remediation) = (String::new(), String::new());
                json!(f)
            })
            .collect();
        data.insert("new_findings".into(), top);
    } else {
        let report: Option<Value> = scan.report.as_deref().and_then(|r| serde_json::from_str(r).ok());
        if let Some(message) = report.as_ref().and_then(|r| r.pointer("/summary/error/message")).and_then(Value::as_str) {
            data.insert("error".into(), json!(message));
        }
    }
    Ok(data)
}

/// Queues an organisation-wide event (`monitor.triggered`, `site.ownership_lost`) for every
/// enabled endpoint of the organisation that subscribes to it; returns how many were queued.
pub async fn org_event<M: prost::Message + prost::Name>(store: &Store, org: &str, event: &str, message: &M, now: i64) -> Result<usize, WebhookError> {
    let mut queued = 0;
    let body = payloads::body(message, None)?;
    for ep in store.list_webhooks(org).await?.into_iter().filter(|e| e.enabled && e.subscribes(event)) {
        store.enqueue_webhook(ep.id, &message_id(), event, &body, now).await?;
        queued += 1;
    }
    Ok(queued)
}

/// Queues `monitor.triggered` for the organisation's endpoints that subscribe to it: which
/// monitor saw what change, and the scan it started (small: ids and the changed fields).
pub async fn monitor_triggered(store: &Store, scan: &ScanRow, monitor_id: Uuid, changes: &[Value], now: i64) -> Result<usize, WebhookError> {
    let fields: Vec<String> = changes.iter().filter_map(|c| c.get("field").and_then(Value::as_str).map(str::to_string)).collect();
    org_event(store, &scan.org_id, "monitor.triggered", &payloads::monitor_triggered(now, monitor_id, scan, fields), now).await
}

/// One test event per endpoint per [`TEST_EVENT_ENDPOINT_EVERY`].
const TEST_ENDPOINT_RULE: ThrottleRule = ThrottleRule {
    threshold: 1,
    window_us: TEST_EVENT_ENDPOINT_EVERY.as_micros() as i64,
    first_lock_us: TEST_EVENT_ENDPOINT_EVERY.as_micros() as i64,
    max_lock_us: TEST_EVENT_ENDPOINT_EVERY.as_micros() as i64,
};
/// [`TEST_EVENTS_PER_ORG`] test events per organisation per [`TEST_EVENT_ORG_WINDOW`].
const TEST_ORG_RULE: ThrottleRule = ThrottleRule {
    threshold: TEST_EVENTS_PER_ORG,
    window_us: TEST_EVENT_ORG_WINDOW.as_micros() as i64,
    first_lock_us: TEST_EVENT_ORG_WINDOW.as_micros() as i64,
    max_lock_us: TEST_EVENT_ORG_WINDOW.as_micros() as i64,
};

/// The seconds until `key`'s lock runs out (at least 1).
async fn wait_for(store: &Store, key: &str, now: i64) -> Result<i64, WebhookError> {
    let until = store.throttle_locked_until(key).await?.unwrap_or(now);
    Ok(((until - now) / 1_000_000).max(1))
}

/// Queues a `webhook.test` message for one endpoint (whatever it subscribes to), within the
/// limits: one per endpoint per [`TEST_EVENT_ENDPOINT_EVERY`], [`TEST_EVENTS_PER_ORG`] per
/// organisation per [`TEST_EVENT_ORG_WINDOW`]. The counts live in the store's throttle table,
/// so every instance of a fleet shares them; a refusal queues nothing.
/// Another organisation's endpoint (or none) is [`WebhookError::NotFound`].
pub async fn send_test(store: &Store, org: &str, endpoint: Uuid, now: i64) -> Result<String, WebhookError> {
    let ep = store.org_webhook(org, endpoint).await?.ok_or(WebhookError::NotFound)?;
    let org_key = format!("webhook-test:org:{}", ep.org_id);
    let endpoint_key = format!("webhook-test:endpoint:{}", ep.id);
    if !store.throttle_count(&org_key, TEST_ORG_RULE, now).await? {
        let retry_after_s = wait_for(store, &org_key, now).await?;
        return Err(WebhookError::RateLimited { what: "the organisation sent test events too often", retry_after_s });
    }
    if !store.throttle_count(&endpoint_key, TEST_ENDPOINT_RULE, now).await? {
        store.throttle_uncount(&org_key, TEST_ORG_RULE.threshold).await?;
        let retry_after_s = wait_for(store, &endpoint_key, now).await?;
        return Err(WebhookError::RateLimited { what: "a test event was just sent to this endpoint", retry_after_s });
    }
    enqueue_test(store, &ep, now).await
}

/// Queues a `webhook.test` message for one endpoint with no limit: the operator's own
/// `sitescan webhook test`, run on the service's machine, not a tenant's button.
pub async fn send_test_unlimited(store: &Store, endpoint: Uuid, now: i64) -> Result<String, WebhookError> {
    let ep = store.webhook(endpoint).await?.ok_or_else(|| WebhookError::Invalid(format!("no webhook {endpoint}")))?;
    enqueue_test(store, &ep, now).await
}

async fn enqueue_test(store: &Store, ep: &WebhookRow, now: i64) -> Result<String, WebhookError> {
    let id = message_id();
    let body = payloads::body(&payloads::test_event(now, ep.id, &ep.org_id), None)?;
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
    /// When an endpoint counts as slow and how long it then rests ([`BreakerRule::default`]).
    pub breaker: BreakerRule,
    /// The dashboard's public URL (`--public-url`): chat messages link to its compare and scan
    /// pages; without it they carry no link.
    pub dashboard: Option<url::Url>,
}

impl Deliverer {
    /// A deliverer over `store` that posts through an egress guard of `policy`, as `owner`.
    pub fn new(store: Store, secrets: SecretBox, policy: crate::model::AddressPolicy, dashboard: Option<url::Url>, owner: String) -> Result<Deliverer, crate::net::NetError> {
        let fetcher = Fetcher::new(Arc::new(crate::net::EgressGuard::new(policy)), crate::net::FetcherOptions::default())?;
        Ok(Deliverer { store, fetcher: Arc::new(fetcher), secrets, clock: Arc::new(SystemClock), owner, breaker: BreakerRule::default(), dashboard })
    }
}

/// The headers of one POST.
type Headers = Vec<(&'static str, String)>;

/// What became of one attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attempt {
    Delivered,
    Retry { at: i64 },
    GaveUp(String),
}

/// How long the delivery loop keeps going.
enum Until<'a> {
    /// Until nothing is due or in flight (`run_once`).
    Idle,
    /// Until the token is cancelled, looking for due messages every `every` when idle.
    Stopped { every: Duration, stop: &'a CancellationToken },
}

impl Deliverer {
    /// Delivers what is due now, in lanes, until nothing is due or in flight; returns the
    /// attempts made. Each endpoint gets its messages one after another in the order they were
    /// queued (a receiver sees `scan.completed` before the `scan.regressed` of the same scan);
    /// endpoints are served side by side, up to `DELIVERIES_AT_ONCE` at once and
    /// `DELIVERIES_PER_ORG` per organisation.
    pub async fn run_once(&self) -> Result<Vec<Attempt>, WebhookError> {
        self.drive(Until::Idle).await
    }

    /// Claims, for the free slots, the next message of endpoints with nothing in flight, and
    /// admits each within its organisation's share (a message over the share goes back, due as
    /// it was). Returns what may start, and whether the store had anything to claim.
    async fn claim_more(&self, slots: &mut OrgSlots) -> Result<(Vec<(String, OutboxRow)>, bool), WebhookError> {
        let free = DELIVERIES_AT_ONCE.saturating_sub(slots.total());
        if free == 0 {
            return Ok((Vec::new(), false));
        }
        let now = self.clock.now_us();
        let claimed = self.store.claim_webhook_lanes(&self.owner, now, CLAIM_LEASE.as_micros() as i64, free as i64, &slots.full()).await?;
        let any = !claimed.is_empty();
        let mut start = Vec::with_capacity(claimed.len());
        for msg in claimed {
            let org = self.store.webhook(msg.endpoint_id).await?.map(|e| e.org_id).unwrap_or_default();
            if slots.admit(&org) {
                start.push((org, msg));
            } else {
                self.store.release_webhook(msg.id, &self.owner).await?;
            }
        }
        Ok((start, any))
    }

    /// The delivery loop: keeps the slots filled as deliveries end (and, while some are in
    /// flight, every `REFILL_EVERY`), each delivery its own future, so no delivery waits for
    /// another. Errors of one delivery are logged and the others go on; `Until::Idle` returns
    /// the first of them after everything in flight has ended.
    async fn drive(&self, until: Until<'_>) -> Result<Vec<Attempt>, WebhookError> {
        use futures::StreamExt;
        let mut slots = OrgSlots::new(DELIVERIES_PER_ORG);
        let mut running = futures::stream::FuturesUnordered::new();
        let mut drained: Drained<Attempt, WebhookError> = Drained::new();
        let mut stopping = false;
        loop {
            while !stopping && !drained.failed() {
                match self.claim_more(&mut slots).await {
                    Ok((start, any)) => {
                        let started = !start.is_empty();
                        for (org, msg) in start {
                            running.push(async move { (org, self.deliver(msg).await) });
                        }
                        if !any || !started {
                            break;
                        }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "claiming webhook deliveries failed");
                        if matches!(until, Until::Idle) {
                            drained.fail(e);
                        }
                        break;
                    }
                }
            }
            if running.is_empty() {
                match &until {
                    // Only an `Idle` drain keeps an error.
                    Until::Idle => return drained.finish(),
                    Until::Stopped { every, stop } => {
                        if stopping {
                            return drained.finish();
                        }
                        tokio::select! {
                            _ = tokio::time::sleep(*every) => {}
                            _ = stop.cancelled() => return drained.finish(),
                        }
                        continue;
                    }
                }
            }
            let watched = match &until {
                Until::Stopped { stop, .. } if !stopping => Some(*stop),
                _ => None,
            };
            let stop_signal = async move {
                match watched {
                    Some(stop) => stop.cancelled().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                Some((org, result)) = running.next() => {
                    slots.release(&org);
                    match result {
                        // A loop that runs for ever keeps no history.
                        Ok(attempt) => if matches!(until, Until::Idle) { drained.push(attempt) },
                        Err(e) => {
                            tracing::warn!(error = %e, "webhook delivery failed");
                            if matches!(until, Until::Idle) {
                                drained.fail(e);
                            }
                        }
                    }
                }
                _ = tokio::time::sleep(REFILL_EVERY) => {}
                // Stop claiming; what is in flight ends (within its timeout) so no lease is left.
                _ = stop_signal => stopping = true,
            }
        }
    }

    async fn deliver(&self, msg: OutboxRow) -> Result<Attempt, WebhookError> {
        let now = self.clock.now_us();
        let attempt_no = msg.attempts + 1;
        let Some(ep) = self.store.webhook(msg.endpoint_id).await?.filter(|e| e.enabled) else {
            self.store.finish_webhook(msg.id, &self.owner, "failed", None, now).await?;
            return Ok(Attempt::GaveUp("the endpoint is disabled or gone".into()));
        };
        let (body, headers) = self.message(&ep, &msg, now)?;
        let url = self.delivery_url(&ep)?;
        let started = std::time::Instant::now();
        let resp = self.fetcher.post(&url, &headers, body, DELIVERY_TIMEOUT).await;
        let latency = started.elapsed().as_millis() as i64;
        let status = resp.status.map(i32::from);
        let error = resp.error.as_ref().map(|e| if url == ep.url { e.to_string() } else { redact_url(&e.to_string(), &url, &ep.url) });
        // A 429 or 503 may say when to come back: the log says what was asked and waited.
        let retry_after = retry_after::of_answer(resp.status, resp.header("retry-after"), now);
        let error = error.or_else(|| retry_after.map(|r| r.note()));
        self.store.log_webhook_delivery(msg.id, ep.id, attempt_no, status, latency, error.as_deref(), now).await?;
        tracing::info!(webhook = %ep.id, message = %msg.message_id, attempt = attempt_no, status = ?status, latency_ms = latency, "webhook attempt");
        let timed_out = resp.error.as_ref().is_some_and(|e| e.kind == crate::net::FetchErrorKind::Timeout);
        let slow = self.breaker.is_slow(started.elapsed(), timed_out);
        let breaker = self.breaker.after(ep.slow_streak, slow, self.clock.now_us());
        if breaker.open_until.is_some() {
            tracing::warn!(webhook = %ep.id, slow_streak = breaker.slow_streak, "webhook endpoint answers slowly: its deliveries rest for the cool-down");
        }
        self.store.set_webhook_breaker(ep.id, breaker.slow_streak, breaker.open_until).await?;
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
                let wait = retry_after.map_or(*wait, |r| r.wait.max(*wait));
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

    /// Where an endpoint's messages go: a signed kind's stored URL; a chat kind's sealed URL.
    fn delivery_url(&self, ep: &WebhookRow) -> Result<String, WebhookError> {
        if WebhookKind::from_stored(&ep.kind).is_signed() || !chat_url_is_sealed(&ep.url) {
            return Ok(ep.url.clone());
        }
        let row = ep.id.to_string();
        Ok(self.secrets.open(&ep.secret_enc, SealedAt { table: WEBHOOKS_TABLE, row: &row, name: CHAT_URL })?)
    }

    /// The body and headers of one attempt: a `standard` endpoint gets the event as queued,
    /// signed (Standard Webhooks); a chat endpoint gets its platform's message built from the
    /// event, with no signature headers (the platform's URL is its own secret).
    fn message(&self, ep: &WebhookRow, msg: &OutboxRow, now: i64) -> Result<(Vec<u8>, Headers), WebhookError> {
        let kind = WebhookKind::from_stored(&ep.kind);
        let json_type = ("content-type", "application/json".to_string());
        if !kind.is_signed() {
            let event: Value = serde_json::from_str(&msg.payload).unwrap_or(Value::Null);
            let message = ChatMessage::from_envelope(&event, self.dashboard.as_ref());
            if let Some(payload) = kind.payload(&message) {
                return Ok((payload.to_string().into_bytes(), vec![json_type]));
            }
        }
        let row = ep.id.to_string();
        let opened = self.secrets.open(&ep.secret_enc, SealedAt { table: WEBHOOKS_TABLE, row: &row, name: SIGNING_SECRET })?;
        let key = SigningKey::parse(&opened).map_err(|e| WebhookError::Invalid(e.to_string()))?;
        let timestamp = now / 1_000_000;
        let body = msg.payload.clone().into_bytes();
        let signature = key.sign(&msg.message_id, timestamp, &body);
        let headers = vec![
            json_type,
            ("webhook-id", msg.message_id.clone()),
            ("webhook-timestamp", timestamp.to_string()),
            ("webhook-signature", signature),
        ];
        Ok((body, headers))
    }

    /// Runs until `stop`, looking for due messages every `every` while idle and as deliveries end
    /// while busy.
    pub fn spawn(self, every: Duration, stop: CancellationToken) -> tokio::task::JoinHandle<()> {
        spawn_logged("webhook delivery loop ended", async move { self.drive(Until::Stopped { every, stop: &stop }).await })
    }
}
