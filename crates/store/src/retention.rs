//! Retention: scans older than the retention period are deleted with everything recorded for
//! them (findings, pages, journey screenshots), a batch at a time, so that the database grows
//! with the retention period and not with the age of the service. `sitescan serve` runs it on the
//! purge timer (`cli/cleanup.rs`, `--retention-days`, default `DEFAULT_DAYS`; 0 keeps everything).
//!
//! Kept whatever their age: scans that have not ended (queued, running), and the newest ended scan
//! of each target (organisation, target and mode), so a site scanned once a year still shows its
//! last report and the next scan still has a baseline to say what changed. Ownership
//! attestations (`scan_attestations`) are an audit record and are kept; schedule runs older than
//! the period (one row per planned due moment, past ones are never planned again) go.

use super::Store;
use super::error::StoreResult;
use sea_orm::{ConnectionTrait, TransactionTrait, Value};

/// The default retention period (days): thirteen months, so this month can be compared with the
/// same month last year.
pub const DEFAULT_DAYS: u32 = 395;
/// Scans deleted per transaction.
pub const BATCH: u64 = 500;

/// What one sweep deleted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Swept {
    pub scans: u64,
    pub findings: u64,
    pub pages: u64,
    pub screenshots: u64,
    pub schedule_runs: u64,
}

impl Store {
    /// Deletes, in batches of `batch`, the scans created before `cutoff_us` that have ended and
    /// are not the newest ended scan of their target, with their findings, pages and
    /// screenshots; and schedule runs due before `cutoff_us`.
    pub async fn delete_scans_before(&self, cutoff_us: i64, batch: u64) -> StoreResult<Swept> {
        let mut swept = Swept::default();
        loop {
            let ids: Vec<uuid::Uuid> = self
                .conn()
                .query_all_raw(self.stmt(
                    "SELECT s.id AS id FROM scans s
                     WHERE s.created_at < $1 AND s.status IN ('completed', 'failed')
                       AND EXISTS (SELECT 1 FROM scans n
                                   WHERE n.org_id = s.org_id AND n.target_url = s.target_url AND n.mode = s.mode
                                     AND n.status IN ('completed', 'failed')
                                     AND (n.created_at > s.created_at OR (n.created_at = s.created_at AND n.id > s.id)))
                     ORDER BY s.created_at LIMIT $2",
                    vec![cutoff_us.into(), (batch.max(1) as i64).into()],
                ))
                .await?
                .iter()
                .map(|row| row.try_get::<uuid::Uuid>("", "id"))
                .collect::<Result<_, _>>()?;
            if ids.is_empty() {
                break;
            }
            let txn = self.conn().begin().await?;
            let list = placeholders(ids.len());
            let values = || -> Vec<Value> { ids.iter().map(|id| Value::from(*id)).collect() };
            let delete = async |table: &str, column: &str| -> StoreResult<u64> {
                Ok(txn.execute_raw(self.stmt(&format!("DELETE FROM {table} WHERE {column} IN ({list})"), values())).await?.rows_affected())
            };
            swept.findings += delete("findings", "scan_id").await?;
            swept.pages += delete("scan_pages", "scan_id").await?;
            delete("scan_page_numbers", "scan_id").await?;
            swept.screenshots += delete("journey_screenshots", "scan_id").await?;
            swept.scans += delete("scans", "id").await?;
            txn.commit().await?;
            if (ids.len() as u64) < batch.max(1) {
                break;
            }
        }
        swept.schedule_runs = self
            .conn()
            .execute_raw(self.stmt("DELETE FROM schedule_runs WHERE due_at < $1", vec![cutoff_us.into()]))
            .await?
            .rows_affected();
        Ok(swept)
    }
}

/// `$1, $2, ... $n`.
fn placeholders(n: usize) -> String {
    (1..=n).map(|i| format!("${i}")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ScanMode, Target, TriggeredBy};

    async fn count(store: &Store, sql: &str) -> i64 {
        let row = store.conn().query_one_raw(store.stmt(sql, vec![])).await.unwrap().unwrap();
        row.try_get_by_index::<i64>(0).unwrap()
    }

    const DAY: i64 = 86_400_000_000;

    /// A scan of `url` created `days_ago` days before `now`, left in `status`.
    async fn scan(store: &Store, url: &str, mode: ScanMode, status: &str, now: i64, days_ago: i64) -> uuid::Uuid {
        let target = Target::parse(url, &crate::model::AddressPolicy::default()).unwrap();
        let id = match store.create_scan("acme", &target, mode, TriggeredBy::Schedule, None).await.unwrap() {
            crate::CreateOutcome::Created(row) => row.id,
            other => panic!("{other:?}"),
        };
        store
            .conn()
            .execute_raw(store.stmt("UPDATE scans SET status = $1, created_at = $2 WHERE id = $3", vec![status.into(), (now - days_ago * DAY).into(), id.into()]))
            .await
            .unwrap();
        id
    }

    fn finding(check: &str) -> crate::model::Finding {
        crate::model::Finding {
            check_id: check.into(),
            severity: crate::model::Severity::Low,
            title: "t".into(),
            description: "d".into(),
            remediation: "r".into(),
            cwe_id: None,
            evidence: serde_json::Map::new(),
            ..Default::default()
        }
    }

    #[tokio::test]
    async fn old_scans_go_with_their_findings_but_each_targets_newest_and_unfinished_scans_stay() {
        let store = Store::open("sqlite::memory:", true).await.unwrap();
        store.set_org("acme", None).await.unwrap();
        let now = 1_000 * DAY;
        let (a, b, c) = ("https://a.test/", "https://b.test/", "https://c.test/");
        let old: Vec<uuid::Uuid> = futures::future::join_all([500, 450, 396].map(|d| scan(&store, a, ScanMode::Passive, "completed", now, d))).await;
        let recent = scan(&store, a, ScanMode::Passive, "completed", now, 10).await;
        let only_b = scan(&store, b, ScanMode::Passive, "failed", now, 500).await;
        let queued = scan(&store, c, ScanMode::Passive, "queued", now, 500).await;
        let _recent_c = scan(&store, c, ScanMode::Passive, "completed", now, 1).await;
        let active_a = scan(&store, a, ScanMode::Active, "completed", now, 500).await;
        store.insert_findings(old[0], "acme", &[finding("search.title-missing"), finding("links.broken-internal")]).await.unwrap();
        store.insert_findings(recent, "acme", &[finding("search.title-missing")]).await.unwrap();
        for (scan_id, seq) in [(old[0], 1), (recent, 1)] {
            store
                .conn()
                .execute_raw(store.stmt(
                    "INSERT INTO scan_pages (id, scan_id, seq, url, created_at) VALUES ($1, $2, $3, 'https://a.test/', 0)",
                    vec![uuid::Uuid::new_v4().into(), scan_id.into(), seq.into()],
                ))
                .await
                .unwrap();
        }
        for days_ago in [500, 1] {
            store
                .conn()
                .execute_raw(store.stmt(
                    "INSERT INTO schedule_runs (schedule_id, due_at, scan_id, created_at) VALUES ($1, $2, NULL, 0)",
                    vec![uuid::Uuid::new_v4().into(), (now - days_ago * DAY).into()],
                ))
                .await
                .unwrap();
        }

        // Batches of two: the three old scans of a.test take two.
        let swept = store.delete_scans_before(now - i64::from(DEFAULT_DAYS) * DAY, 2).await.unwrap();
        assert_eq!(swept, Swept { scans: 3, findings: 2, pages: 1, screenshots: 0, schedule_runs: 1 });
        for id in &old {
            assert!(store.scan("acme", *id).await.unwrap().is_none(), "old scan {id} deleted");
        }
        for id in [recent, only_b, queued, active_a] {
            assert!(store.scan("acme", id).await.unwrap().is_some(), "{id} kept");
        }
        assert_eq!(count(&store, "SELECT COUNT(*) FROM findings").await, 1, "the recent scan's finding");
        assert_eq!(count(&store, "SELECT COUNT(*) FROM scan_pages").await, 1);
        assert_eq!(count(&store, "SELECT COUNT(*) FROM schedule_runs").await, 1);
        // Nothing more to do the second time.
        assert_eq!(store.delete_scans_before(now - i64::from(DEFAULT_DAYS) * DAY, 2).await.unwrap(), Swept::default());
    }

    #[test]
    fn placeholders_are_numbered() {
        assert_eq!(placeholders(3), "$1, $2, $3");
    }
}
