//! Webhooks: endpoints, the durable outbox and the delivery log.
//!
//! The outbox is claimed like the scan queue: one atomic `UPDATE ... RETURNING` (with `FOR
//! UPDATE SKIP LOCKED` on PostgreSQL), so two instances never hold one delivery at once, and a
//! claim whose instance died is taken again when its lease runs out. Rows stay until delivered or
//! given up: a restart loses nothing.
//!
//! Lanes ([`Store::claim_webhook_lanes`]): the delivery loop takes an endpoint's next message
//! only when none of its messages is in flight on any instance, and skips endpoints whose latency
//! breaker is open, so a slow receiver holds at most one delivery at a time.

use super::{Store, decode};
use super::error::StoreResult;
use sea_orm::{ConnectionTrait, DatabaseBackend, TransactionTrait};
use uuid::Uuid;

/// An endpoint (its secret still encrypted).
#[derive(Debug, Clone, PartialEq, Eq, sea_orm::FromQueryResult)]
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
    /// Slow deliveries in a row (the latency breaker's count).
    pub slow_streak: i32,
    /// While in the future, the breaker holds the endpoint's deliveries back (µs).
    pub breaker_open_until: Option<i64>,
    /// What the endpoint receives: `standard` (signed Standard Webhooks JSON) or a chat
    /// platform's message (`slack`, `teams`, `discord`, `google-chat`).
    pub kind: String,
}

impl WebhookRow {
    pub fn subscribes(&self, event: &str) -> bool {
        self.events.split(',').any(|e| e.trim() == event)
    }
}

/// A delivery to make.
#[derive(Debug, Clone, PartialEq, Eq, sea_orm::FromQueryResult)]
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
#[derive(Debug, Clone, PartialEq, Eq, sea_orm::FromQueryResult)]
pub struct DeliveryRow {
    pub outbox_id: Uuid,
    pub attempt: i32,
    pub status: Option<i32>,
    pub latency_ms: i64,
    pub error: Option<String>,
    pub created_at: i64,
}

const ENDPOINT_COLUMNS: &str = "id, org_id, url, events, min_severity, secret_enc, enabled, disabled_reason, failing_since, created_at, \
     slow_streak, breaker_open_until, kind";



impl Store {
    /// Every endpoint whose sealed signing secret starts with `prefix` (a format): (id, value).
    pub async fn webhook_secrets_with_prefix(&self, prefix: &str) -> StoreResult<Vec<(Uuid, String)>> {
        let stmt = self.stmt("SELECT id, secret_enc FROM webhook_endpoints WHERE secret_enc LIKE $1 ORDER BY id", vec![format!("{prefix}%").into()]);
        self.conn().query_all_raw(stmt).await?.iter().map(|r| Ok((r.try_get("", "id")?, r.try_get("", "secret_enc")?))).collect()
    }

    /// Every endpoint of a kind other than `standard`: (id, kind, stored URL).
    pub async fn chat_webhook_urls(&self) -> StoreResult<Vec<(Uuid, String, String)>> {
        let stmt = self.stmt("SELECT id, kind, url FROM webhook_endpoints WHERE kind <> 'standard' ORDER BY id", vec![]);
        self.conn()
            .query_all_raw(stmt)
            .await?
            .iter()
            .map(|r| Ok((r.try_get("", "id")?, r.try_get("", "kind")?, r.try_get("", "url")?)))
            .collect()
    }

    /// Replaces an endpoint's stored URL and sealed value, only if its URL is still `old_url`.
    pub async fn replace_webhook_url(&self, id: Uuid, old_url: &str, url: &str, sealed: &str) -> StoreResult<bool> {
        let stmt = self.stmt(
            "UPDATE webhook_endpoints SET url = $1, secret_enc = $2 WHERE id = $3 AND url = $4",
            vec![url.into(), sealed.into(), id.into(), old_url.into()],
        );
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// Replaces an endpoint's sealed signing secret, only if it is still `old`.
    pub async fn replace_webhook_secret(&self, id: Uuid, old: &str, new: &str) -> StoreResult<bool> {
        let stmt = self.stmt(
            "UPDATE webhook_endpoints SET secret_enc = $1 WHERE id = $2 AND secret_enc = $3",
            vec![new.into(), id.into(), old.into()],
        );
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// Adds a `standard` endpoint whatever the organisation has already (seeding; the app adds
    /// through [`Store::add_webhook_within`] and its cap); returns its id.
    #[allow(clippy::too_many_arguments)]
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
        self.add_webhook_within(id, org, url, "standard", events, min_severity, secret_enc, now, i64::MAX).await?;
        Ok(id)
    }

    /// Adds an endpoint of `kind` unless the organisation has `cap` already (one statement, so
    /// two adds at once cannot both pass the count); returns its id, or `None` at the cap.
    #[allow(clippy::too_many_arguments)]
    pub async fn add_webhook_within(
        &self,
        id: Uuid,
        org: &str,
        url: &str,
        kind: &str,
        events: &[String],
        min_severity: Option<&str>,
        secret_enc: &str,
        now: i64,
        cap: i64,
    ) -> StoreResult<Option<Uuid>> {
        let stmt = self.stmt(
            "INSERT INTO webhook_endpoints (id, org_id, url, events, min_severity, secret_enc, enabled, created_at, kind) \
             SELECT $1, $2, $3, $4, $5, $6, $7, $8, $10 \
             WHERE (SELECT COUNT(*) FROM webhook_endpoints WHERE org_id = $2) < $9",
            vec![
                id.into(),
                org.into(),
                url.into(),
                events.join(",").into(),
                min_severity.map(str::to_string).into(),
                secret_enc.into(),
                true.into(),
                now.into(),
                cap.into(),
                kind.into(),
            ],
        );
        Ok((self.conn().execute_raw(stmt).await?.rows_affected() == 1).then_some(id))
    }

    /// How many endpoints the organisation has.
    pub async fn count_webhooks(&self, org: &str) -> StoreResult<i64> {
        let stmt = self.stmt("SELECT COUNT(*) AS n FROM webhook_endpoints WHERE org_id = $1", vec![org.into()]);
        Ok(self.conn().query_one_raw(stmt).await?.map(|r| r.try_get::<i64>("", "n")).transpose()?.unwrap_or(0))
    }

    /// The organisation's endpoints, oldest first.
    pub async fn list_webhooks(&self, org: &str) -> StoreResult<Vec<WebhookRow>> {
        let stmt = self.stmt(
            &format!("SELECT {ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE org_id = $1 ORDER BY created_at, id"),
            vec![org.into()],
        );
        self.conn().query_all_raw(stmt).await?.iter().map(decode).collect()
    }

    /// One endpoint, whatever its organisation.
    pub async fn webhook(&self, id: Uuid) -> StoreResult<Option<WebhookRow>> {
        let stmt = self.stmt(&format!("SELECT {ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1"), vec![id.into()]);
        self.conn().query_one_raw(stmt).await?.as_ref().map(decode).transpose()
    }

    /// One endpoint of `org` (another organisation's is none).
    pub async fn org_webhook(&self, org: &str, id: Uuid) -> StoreResult<Option<WebhookRow>> {
        let stmt = self.stmt(
            &format!("SELECT {ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1 AND org_id = $2"),
            vec![id.into(), org.into()],
        );
        self.conn().query_one_raw(stmt).await?.as_ref().map(decode).transpose()
    }

    /// Removes an endpoint of `org` (`None`: of any organisation, the operator's CLI) and what
    /// it still had to deliver, in one transaction; `false` when there was none.
    pub async fn remove_webhook(&self, org: Option<&str>, id: Uuid) -> StoreResult<bool> {
        let txn = self.conn().begin().await?;
        let (scope, mut values) = match org {
            Some(org) => ("id = $1 AND org_id = $2", vec![id.into(), org.into()]),
            None => ("id = $1", vec![id.into()]),
        };
        let endpoint = self.stmt(&format!("DELETE FROM webhook_endpoints WHERE {scope}"), std::mem::take(&mut values));
        if txn.execute_raw(endpoint).await?.rows_affected() != 1 {
            txn.rollback().await?;
            return Ok(false);
        }
        // Its log and its messages, delivered or not, go with it.
        let log = self.stmt("DELETE FROM webhook_deliveries WHERE endpoint_id = $1", vec![id.into()]);
        txn.execute_raw(log).await?;
        let outbox = self.stmt("DELETE FROM webhook_outbox WHERE endpoint_id = $1", vec![id.into()]);
        txn.execute_raw(outbox).await?;
        txn.commit().await?;
        Ok(true)
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

    /// Records an endpoint's latency breaker after a delivery: its slow streak and, when open,
    /// until when.
    pub async fn set_webhook_breaker(&self, id: Uuid, slow_streak: i32, open_until: Option<i64>) -> StoreResult<()> {
        let stmt = self.stmt(
            "UPDATE webhook_endpoints SET slow_streak = $1, breaker_open_until = $2 WHERE id = $3",
            vec![slow_streak.into(), open_until.into(), id.into()],
        );
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

    /// Claims, for `owner` until `now + lease_us`, the next due message of up to `limit`
    /// endpoints: an endpoint's oldest due message, only when none of its messages is in flight
    /// (leased) on any instance and its breaker is not open, and never one of an endpoint of the
    /// organisations in `skip_orgs` (those whose share of this instance's deliveries is taken).
    pub async fn claim_webhook_lanes(
        &self,
        owner: &str,
        now: i64,
        lease_us: i64,
        limit: i64,
        skip_orgs: &[String],
    ) -> StoreResult<Vec<OutboxRow>> {
        let lock = match self.backend() {
            DatabaseBackend::Postgres => " FOR UPDATE OF o SKIP LOCKED",
            _ => "",
        };
        let mut values: Vec<sea_orm::Value> = vec![owner.into(), (now + lease_us).into(), now.into(), limit.into()];
        let skip = if skip_orgs.is_empty() {
            String::new()
        } else {
            let marks: Vec<String> = (0..skip_orgs.len()).map(|i| format!("${}", i + 5)).collect();
            values.extend(skip_orgs.iter().map(|o| sea_orm::Value::from(o.as_str())));
            format!(" AND (e.org_id IS NULL OR e.org_id NOT IN ({}))", marks.join(", "))
        };
        let sql = format!(
            "UPDATE webhook_outbox SET lease_owner = $1, lease_expires_at = $2 \
             WHERE id IN (SELECT o.id FROM webhook_outbox o LEFT JOIN webhook_endpoints e ON e.id = o.endpoint_id \
               WHERE o.state = 'pending' AND o.next_attempt_at <= $3 \
               AND (o.lease_expires_at IS NULL OR o.lease_expires_at < $3) \
               AND (e.breaker_open_until IS NULL OR e.breaker_open_until <= $3) \
               AND NOT EXISTS (SELECT 1 FROM webhook_outbox b WHERE b.endpoint_id = o.endpoint_id \
                 AND b.state = 'pending' AND b.lease_expires_at IS NOT NULL AND b.lease_expires_at >= $3) \
               AND NOT EXISTS (SELECT 1 FROM webhook_outbox p WHERE p.endpoint_id = o.endpoint_id \
                 AND p.state = 'pending' AND p.next_attempt_at <= $3 \
                 AND (p.next_attempt_at < o.next_attempt_at OR (p.next_attempt_at = o.next_attempt_at AND p.id < o.id))){skip} \
               ORDER BY o.next_attempt_at, o.id LIMIT $4{lock}) \
             RETURNING id, endpoint_id, message_id, event_type, payload, attempts"
        );
        let stmt = self.stmt(&sql, values);
        let mut out: Vec<OutboxRow> = Vec::new();
        for row in self.conn().query_all_raw(stmt).await? {
            out.push(decode(&row)?);
        }
        out.sort_by_key(|r| r.id);
        Ok(out)
    }

    /// Hands a claimed message back untouched (no attempt counted): due as it was.
    pub async fn release_webhook(&self, id: Uuid, owner: &str) -> StoreResult<bool> {
        let stmt = self.stmt(
            "UPDATE webhook_outbox SET lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $2",
            vec![id.into(), owner.into()],
        );
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// Claims up to `limit` due deliveries for `owner` until `now + lease_us`, whatever their
    /// endpoints (no lanes: the delivery loop uses [`Store::claim_webhook_lanes`]).
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
        let mut out: Vec<OutboxRow> = Vec::new();
        for row in self.conn().query_all_raw(stmt).await? {
            out.push(decode(&row)?);
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

    /// Up to `limit` of a scan's findings that are new since its baseline, the most serious
    /// first, then in the order they were found (for the chat messages of `scan.completed`).
    pub async fn top_new_findings(&self, scan_id: Uuid, limit: i64) -> StoreResult<Vec<crate::model::StoredFinding>> {
        use sea_orm::FromQueryResult;
        let stmt = self.stmt(
            "SELECT * FROM findings WHERE scan_id = $1 AND change = 'new' \
             ORDER BY CASE severity WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END, \
             created_at, id LIMIT $2",
            vec![scan_id.into(), limit.into()],
        );
        let rows = self.conn().query_all_raw(stmt).await?;
        rows.iter().map(|row| Ok(super::entity::finding::Model::from_query_result(row, "")?.into())).collect()
    }

    /// An endpoint's delivery log, oldest first.
    /// The newest `n` delivery attempts of an endpoint, newest first (what the dashboard shows:
    /// read in one bounded query however long the log).
    pub async fn latest_webhook_deliveries(&self, endpoint_id: Uuid, n: usize) -> StoreResult<Vec<DeliveryRow>> {
        let stmt = self.stmt(
            "SELECT outbox_id, attempt, status, latency_ms, error, created_at FROM webhook_deliveries \
             WHERE endpoint_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2",
            vec![endpoint_id.into(), (n.min(i64::MAX as usize) as i64).into()],
        );
        self.conn().query_all_raw(stmt).await?.iter().map(decode).collect()
    }

    /// Prunes the delivery log with the retention policy: attempts and finished messages
    /// (delivered or given up) older than `cutoff_us` (`None`: kept whatever their age), and of
    /// every endpoint all but its newest `keep` attempts. Returns the attempts and messages deleted.
    pub async fn prune_webhook_log(&self, cutoff_us: Option<i64>, keep: usize) -> StoreResult<(u64, u64)> {
        let (mut attempts, mut messages) = (0, 0);
        if let Some(cutoff) = cutoff_us {
            let old = self.stmt("DELETE FROM webhook_deliveries WHERE created_at < $1", vec![cutoff.into()]);
            attempts += self.conn().execute_raw(old).await?.rows_affected();
            let done = self.stmt("DELETE FROM webhook_outbox WHERE state IN ('delivered', 'failed') AND created_at < $1", vec![cutoff.into()]);
            messages += self.conn().execute_raw(done).await?.rows_affected();
        }
        let endpoints = self.stmt(
            "SELECT endpoint_id FROM webhook_deliveries GROUP BY endpoint_id HAVING COUNT(*) > $1",
            vec![(keep.min(i64::MAX as usize) as i64).into()],
        );
        let over: Vec<Uuid> = self.conn().query_all_raw(endpoints).await?.iter().map(|r| r.try_get("", "endpoint_id")).collect::<Result<_, _>>()?;
        for endpoint in over {
            let trim = self.stmt(
                "DELETE FROM webhook_deliveries WHERE endpoint_id = $1 AND id NOT IN \
                 (SELECT id FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2)",
                vec![endpoint.into(), (keep.min(i64::MAX as usize) as i64).into()],
            );
            attempts += self.conn().execute_raw(trim).await?.rows_affected();
        }
        Ok((attempts, messages))
    }

    pub async fn webhook_deliveries(&self, endpoint_id: Uuid) -> StoreResult<Vec<DeliveryRow>> {
        let stmt = self.stmt(
            "SELECT outbox_id, attempt, status, latency_ms, error, created_at FROM webhook_deliveries \
             WHERE endpoint_id = $1 ORDER BY created_at, id",
            vec![endpoint_id.into()],
        );
        self.conn().query_all_raw(stmt).await?.iter().map(decode).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_delivery_log_keeps_each_endpoints_newest_attempts_and_nothing_past_the_cutoff() {
        let store = Store::open("sqlite::memory:", true).await.unwrap();
        store.set_org("acme", None).await.unwrap();
        let events = vec!["scan.completed".to_string()];
        let (busy, quiet) = (Uuid::now_v7(), Uuid::now_v7());
        for id in [busy, quiet] {
            store.add_webhook_within(id, "acme", "http://127.0.0.1:9/", "standard", &events, None, "x2:unused", 0, 100).await.unwrap().unwrap();
        }
        for at in 1..=30 {
            store.log_webhook_delivery(Uuid::now_v7(), busy, 1, Some(500), 1, Some("refused"), at).await.unwrap();
        }
        for at in [5, 25] {
            store.log_webhook_delivery(Uuid::now_v7(), quiet, 1, Some(204), 1, None, at).await.unwrap();
        }
        // No age limit: only the cap.
        assert_eq!(store.prune_webhook_log(None, 10).await.unwrap(), (20, 0));
        let kept: Vec<i64> = store.webhook_deliveries(busy).await.unwrap().iter().map(|d| d.created_at).collect();
        assert_eq!(kept, (21..=30).collect::<Vec<_>>(), "the newest ten");
        assert_eq!(store.latest_webhook_deliveries(busy, 3).await.unwrap().iter().map(|d| d.created_at).collect::<Vec<_>>(), [30, 29, 28]);
        // With the retention cutoff: older attempts go on every endpoint.
        assert_eq!(store.prune_webhook_log(Some(24), 10).await.unwrap(), (4, 0));
        assert_eq!(store.webhook_deliveries(quiet).await.unwrap().iter().map(|d| d.created_at).collect::<Vec<_>>(), [25]);
        // Removing an endpoint removes its log.
        assert!(store.remove_webhook(None, busy).await.unwrap());
        assert!(store.webhook_deliveries(busy).await.unwrap().is_empty());
    }
}
