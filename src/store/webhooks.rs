//! Webhooks: endpoints, the durable outbox and the delivery log.
//!
//! The outbox is claimed like the scan queue: one atomic `UPDATE ... RETURNING` (with `FOR
//! UPDATE SKIP LOCKED` on PostgreSQL), so two instances never hold one delivery at once, and a
//! claim whose instance died is taken again when its lease runs out. Rows stay until delivered or
//! given up: a restart loses nothing.

use super::Store;
use super::error::StoreResult;
use sea_orm::{ConnectionTrait, DatabaseBackend, QueryResult};
use uuid::Uuid;

/// An endpoint (its secret still encrypted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookRow {
    pub id: Uuid,
    pub org_id: String,
    pub url: String,
    /// Event types, comma-separated.
    pub events: String,
    pub min_severity: Option<String>,
    pub secret_enc: String,
    pub enabled: bool,
    pub disabled_reason: Option<String>,
    pub failing_since: Option<i64>,
    pub created_at: i64,
}

impl WebhookRow {
    pub fn subscribes(&self, event: &str) -> bool {
        self.events.split(',').any(|e| e.trim() == event)
    }
}

/// A delivery to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxRow {
    pub id: Uuid,
    pub endpoint_id: Uuid,
    pub message_id: String,
    pub event_type: String,
    pub payload: String,
    /// Attempts made before this one.
    pub attempts: i32,
}

/// One attempt, as logged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryRow {
    pub outbox_id: Uuid,
    pub attempt: i32,
    pub status: Option<i32>,
    pub latency_ms: i64,
    pub error: Option<String>,
    pub created_at: i64,
}

const ENDPOINT_COLUMNS: &str =
    "id, org_id, url, events, min_severity, secret_enc, enabled, disabled_reason, failing_since, created_at";

fn endpoint(row: &QueryResult) -> StoreResult<WebhookRow> {
    Ok(WebhookRow {
        id: row.try_get("", "id")?,
        org_id: row.try_get("", "org_id")?,
        url: row.try_get("", "url")?,
        events: row.try_get("", "events")?,
        min_severity: row.try_get("", "min_severity")?,
        secret_enc: row.try_get("", "secret_enc")?,
        enabled: row.try_get("", "enabled")?,
        disabled_reason: row.try_get("", "disabled_reason")?,
        failing_since: row.try_get("", "failing_since")?,
        created_at: row.try_get("", "created_at")?,
    })
}

impl Store {
    /// Every endpoint whose sealed signing secret starts with `prefix` (a format): (id, value).
    pub async fn webhook_secrets_with_prefix(&self, prefix: &str) -> StoreResult<Vec<(Uuid, String)>> {
        let stmt = self.stmt("SELECT id, secret_enc FROM webhook_endpoints WHERE secret_enc LIKE $1 ORDER BY id", vec![format!("{prefix}%").into()]);
        self.conn().query_all_raw(stmt).await?.iter().map(|r| Ok((r.try_get("", "id")?, r.try_get("", "secret_enc")?))).collect()
    }

    /// Replaces an endpoint's sealed signing secret, only if it is still `old`.
    pub async fn replace_webhook_secret(&self, id: Uuid, old: &str, new: &str) -> StoreResult<bool> {
        let stmt = self.stmt(
            "UPDATE webhook_endpoints SET secret_enc = $1 WHERE id = $2 AND secret_enc = $3",
            vec![new.into(), id.into(), old.into()],
        );
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// Adds an endpoint; returns its id.
    pub async fn add_webhook(
        &self,
        id: Uuid,
        org: &str,
        url: &str,
        events: &[String],
        min_severity: Option<&str>,
        secret_enc: &str,
        now: i64,
    ) -> StoreResult<Uuid> {
        let stmt = self.stmt(
            "INSERT INTO webhook_endpoints (id, org_id, url, events, min_severity, secret_enc, enabled, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            vec![
                id.into(),
                org.into(),
                url.into(),
                events.join(",").into(),
                min_severity.map(str::to_string).into(),
                secret_enc.into(),
                true.into(),
                now.into(),
            ],
        );
        self.conn().execute_raw(stmt).await?;
        Ok(id)
    }

    /// The organisation's endpoints, oldest first.
    pub async fn list_webhooks(&self, org: &str) -> StoreResult<Vec<WebhookRow>> {
        let stmt = self.stmt(
            &format!("SELECT {ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE org_id = $1 ORDER BY created_at, id"),
            vec![org.into()],
        );
        self.conn().query_all_raw(stmt).await?.iter().map(endpoint).collect()
    }

    /// One endpoint, whatever its organisation.
    pub async fn webhook(&self, id: Uuid) -> StoreResult<Option<WebhookRow>> {
        let stmt = self.stmt(&format!("SELECT {ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1"), vec![id.into()]);
        self.conn().query_one_raw(stmt).await?.as_ref().map(endpoint).transpose()
    }

    /// Removes an endpoint and what it still had to deliver; `false` when there was none.
    pub async fn remove_webhook(&self, id: Uuid) -> StoreResult<bool> {
        let outbox = self.stmt("DELETE FROM webhook_outbox WHERE endpoint_id = $1 AND state = 'pending'", vec![id.into()]);
        self.conn().execute_raw(outbox).await?;
        let stmt = self.stmt("DELETE FROM webhook_endpoints WHERE id = $1", vec![id.into()]);
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// Disables an endpoint, saying why.
    pub async fn disable_webhook(&self, id: Uuid, reason: &str) -> StoreResult<()> {
        let stmt = self.stmt(
            "UPDATE webhook_endpoints SET enabled = $1, disabled_reason = $2 WHERE id = $3",
            vec![false.into(), reason.into(), id.into()],
        );
        self.conn().execute_raw(stmt).await?;
        Ok(())
    }

    /// Records that an endpoint is failing since `now` (kept if it already was); `None` clears it.
    pub async fn set_webhook_failing(&self, id: Uuid, now: Option<i64>) -> StoreResult<()> {
        let stmt = match now {
            Some(t) => self.stmt(
                "UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, $1) WHERE id = $2",
                vec![t.into(), id.into()],
            ),
            None => self.stmt("UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1", vec![id.into()]),
        };
        self.conn().execute_raw(stmt).await?;
        Ok(())
    }

    /// Queues one message for one endpoint, due at `now`.
    pub async fn enqueue_webhook(
        &self,
        endpoint_id: Uuid,
        message_id: &str,
        event_type: &str,
        payload: &str,
        now: i64,
    ) -> StoreResult<Uuid> {
        let id = Uuid::now_v7();
        let stmt = self.stmt(
            "INSERT INTO webhook_outbox (id, endpoint_id, message_id, event_type, payload, state, attempts, next_attempt_at, created_at) \
             VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, $6)",
            vec![id.into(), endpoint_id.into(), message_id.into(), event_type.into(), payload.into(), now.into()],
        );
        self.conn().execute_raw(stmt).await?;
        Ok(id)
    }

    /// Claims up to `limit` due deliveries for `owner` until `now + lease_us`.
    pub async fn claim_webhooks(&self, owner: &str, now: i64, lease_us: i64, limit: i64) -> StoreResult<Vec<OutboxRow>> {
        let lock = match self.backend() {
            DatabaseBackend::Postgres => " FOR UPDATE SKIP LOCKED",
            _ => "",
        };
        let sql = format!(
            "UPDATE webhook_outbox SET lease_owner = $1, lease_expires_at = $2 \
             WHERE id IN (SELECT id FROM webhook_outbox WHERE state = 'pending' AND next_attempt_at <= $3 \
               AND (lease_expires_at IS NULL OR lease_expires_at < $3) \
               ORDER BY next_attempt_at, id LIMIT $4{lock}) \
             RETURNING id, endpoint_id, message_id, event_type, payload, attempts"
        );
        let stmt = self.stmt(&sql, vec![owner.into(), (now + lease_us).into(), now.into(), limit.into()]);
        let mut out = Vec::new();
        for row in self.conn().query_all_raw(stmt).await? {
            out.push(OutboxRow {
                id: row.try_get("", "id")?,
                endpoint_id: row.try_get("", "endpoint_id")?,
                message_id: row.try_get("", "message_id")?,
                event_type: row.try_get("", "event_type")?,
                payload: row.try_get("", "payload")?,
                attempts: row.try_get("", "attempts")?,
            });
        }
        out.sort_by_key(|r| r.id);
        Ok(out)
    }

    /// Ends a claimed delivery: `delivered`, `failed` (given up), or back to `pending` due at
    /// `retry_at`. `false` when the claim was lost.
    pub async fn finish_webhook(&self, id: Uuid, owner: &str, state: &str, retry_at: Option<i64>, now: i64) -> StoreResult<bool> {
        let stmt = self.stmt(
            "UPDATE webhook_outbox SET state = $1, attempts = attempts + 1, next_attempt_at = COALESCE($2, next_attempt_at), \
             delivered_at = CASE WHEN $1 = 'delivered' THEN $3 ELSE delivered_at END, \
             lease_owner = NULL, lease_expires_at = NULL WHERE id = $4 AND lease_owner = $5",
            vec![state.into(), retry_at.into(), now.into(), id.into(), owner.into()],
        );
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// Logs one attempt.
    #[allow(clippy::too_many_arguments)]
    pub async fn log_webhook_delivery(
        &self,
        outbox_id: Uuid,
        endpoint_id: Uuid,
        attempt: i32,
        status: Option<i32>,
        latency_ms: i64,
        error: Option<&str>,
        now: i64,
    ) -> StoreResult<()> {
        let stmt = self.stmt(
            "INSERT INTO webhook_deliveries (id, outbox_id, endpoint_id, attempt, status, latency_ms, error, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            vec![
                Uuid::now_v7().into(),
                outbox_id.into(),
                endpoint_id.into(),
                attempt.into(),
                status.into(),
                latency_ms.into(),
                error.map(str::to_string).into(),
                now.into(),
            ],
        );
        self.conn().execute_raw(stmt).await?;
        Ok(())
    }

    /// An endpoint's delivery log, oldest first.
    pub async fn webhook_deliveries(&self, endpoint_id: Uuid) -> StoreResult<Vec<DeliveryRow>> {
        let stmt = self.stmt(
            "SELECT outbox_id, attempt, status, latency_ms, error, created_at FROM webhook_deliveries \
             WHERE endpoint_id = $1 ORDER BY created_at, id",
            vec![endpoint_id.into()],
        );
        let mut out = Vec::new();
        for row in self.conn().query_all_raw(stmt).await? {
            out.push(DeliveryRow {
                outbox_id: row.try_get("", "outbox_id")?,
                attempt: row.try_get("", "attempt")?,
                status: row.try_get("", "status")?,
                latency_ms: row.try_get("", "latency_ms")?,
                error: row.try_get("", "error")?,
                created_at: row.try_get("", "created_at")?,
            });
        }
        Ok(out)
    }
}
