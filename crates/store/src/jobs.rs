//! The scans table as a job queue: claim with a lease, renew it, finish, fail or release.
//!
//! PostgreSQL claims with `FOR UPDATE SKIP LOCKED`; SQLite with one atomic `UPDATE ... RETURNING`
//! (SQLite serialises writers). Either way no scan is claimed twice while its lease is live, and a
//! scan whose lease expired (its worker died) is claimed again.

use super::Store;
use super::error::StoreResult;
use super::scans::ScanRow;
use super::time::now_us;
use crate::model::{ReportSummary, ScanStatus, Severity, SeverityCounts, StoredReport};
use sea_orm::{ConnectionTrait, DatabaseBackend};
use std::collections::BTreeMap;
use std::time::Duration;
use uuid::Uuid;

/// After this many claims a scan that keeps losing its worker is failed.
pub const DEFAULT_MAX_ATTEMPTS: i32 = 3;

/// Counts per check id and severity, from the stored findings.
pub type CheckCounts = Vec<(String, Severity, u64)>;

fn lease_us(lease: Duration) -> i64 {
    i64::try_from(lease.as_micros()).unwrap_or(i64::MAX / 2)
}

impl Store {
    /// Claims a claimable scan for `owner`, fairly across organisations, with no cap on an
    /// organisation's running scans (see [`Store::claim_scan_fair`]).
    pub async fn claim_scan(&self, owner: &str, lease: Duration, max_attempts: i32) -> StoreResult<Option<ScanRow>> {
        self.claim_scan_fair(owner, lease, max_attempts, usize::MAX).await
    }

    /// Claims a claimable scan for `owner`, fairly across organisations: of the organisations
    /// with claimable scans, the one with the fewest scans running now goes first, then the one
    /// a worker served longest ago (`organisations.last_claimed_at`: round-robin), then the one
    /// whose oldest scan has waited longest; its oldest scan is claimed. An organisation with
    /// `max_running_per_org` scans running is skipped: its scans wait, the others' do not. So
    /// one organisation's backlog of thousands delays another's single scan by at most the time
    /// until the next worker frees up. Scans past `max_attempts` are failed on the way (their
    /// `report.summary.error` says why) and the next one is tried.
    pub async fn claim_scan_fair(
        &self,
        owner: &str,
        lease: Duration,
        max_attempts: i32,
        max_running_per_org: usize,
    ) -> StoreResult<Option<ScanRow>> {
        let cap = i64::try_from(max_running_per_org).unwrap_or(i64::MAX);
        'rounds: loop {
            let now = now_us();
            let order = self.claim_order(now, cap).await?;
            let lock = match self.backend() {
                DatabaseBackend::Postgres => " FOR UPDATE SKIP LOCKED",
                _ => "",
            };
            // The cap is checked again in the claim itself: two workers claiming for the same
            // organisation at once cannot both pass it on SQLite (one writer at a time); on
            // PostgreSQL they can exceed it by the claims in flight at that instant.
            let sql = format!(
                "UPDATE scans SET status = 'running', lease_owner = $1, lease_expires_at = $2, \
                 attempts = attempts + 1, started_at = COALESCE(started_at, $3), progress = NULL \
                 WHERE id = (SELECT id FROM scans WHERE org_id = $4 AND (status = 'queued' \
                   OR (status = 'running' AND lease_expires_at < $3)) \
                   ORDER BY created_at, id LIMIT 1{lock}) \
                 AND (SELECT COUNT(*) FROM scans WHERE org_id = $4 AND status = 'running' AND lease_expires_at >= $3) < $5 \
                 RETURNING id"
            );
            for org in order {
                let stmt = self.stmt(&sql, vec![owner.into(), (now + lease_us(lease)).into(), now.into(), org.clone().into(), cap.into()]);
                let Some(row) = self.conn().query_one_raw(stmt).await? else { continue };
                let id: Uuid = row.try_get("", "id")?;
                let served = self.stmt("UPDATE organisations SET last_claimed_at = $1 WHERE id = $2", vec![now.into(), org.into()]);
                self.conn().execute_raw(served).await?;
                let Some(scan) = self.scan_any_org(id).await? else { continue 'rounds };
                if scan.attempts > max_attempts {
                    let message = format!(
                        "the scan was interrupted {} times (its worker stopped before finishing); giving up",
                        scan.attempts - 1
                    );
                    let report = StoredReport::of(ReportSummary::failed("retries_exhausted", &message));
                    self.fail_scan(id, owner, &report).await?;
                    continue 'rounds;
                }
                return Ok(Some(scan));
            }
            return Ok(None);
        }
    }

    /// The organisations with claimable scans, in the order a fair claim tries them: fewest
    /// running first, then served longest ago (never first), then the longest-waiting oldest
    /// scan; those at `cap` are left out.
    async fn claim_order(&self, now: i64, cap: i64) -> StoreResult<Vec<String>> {
        let waiting = self.stmt(
            "SELECT w.org_id, w.oldest, COALESCE(o.last_claimed_at, 0) AS served FROM \
             (SELECT org_id, MIN(created_at) AS oldest FROM scans \
              WHERE status = 'queued' OR (status = 'running' AND lease_expires_at < $1) GROUP BY org_id) w \
             LEFT JOIN organisations o ON o.id = w.org_id",
            vec![now.into()],
        );
        let running = self.stmt(
            "SELECT org_id, COUNT(*) AS n FROM scans WHERE status = 'running' AND lease_expires_at >= $1 GROUP BY org_id",
            vec![now.into()],
        );
        let mut busy: BTreeMap<String, i64> = BTreeMap::new();
        for row in self.conn().query_all_raw(running).await? {
            busy.insert(row.try_get("", "org_id")?, row.try_get("", "n")?);
        }
        let mut orgs: Vec<(i64, i64, i64, String)> = Vec::new();
        for row in self.conn().query_all_raw(waiting).await? {
            let org: String = row.try_get("", "org_id")?;
            let oldest: i64 = row.try_get("", "oldest")?;
            let served: i64 = row.try_get("", "served")?;
            let n = busy.get(&org).copied().unwrap_or(0);
            if n < cap {
                orgs.push((n, served, oldest, org));
            }
        }
        orgs.sort();
        Ok(orgs.into_iter().map(|(_, _, _, org)| org).collect())
    }

    /// Extends the lease; `false` when the lease was lost (another worker owns the scan now).
    pub async fn renew_lease(&self, id: Uuid, owner: &str, lease: Duration) -> StoreResult<bool> {
        let stmt = self.stmt(
            "UPDATE scans SET lease_expires_at = $1 WHERE id = $2 AND lease_owner = $3 AND status = 'running'",
            vec![(now_us() + lease_us(lease)).into(), id.into(), owner.into()],
        );
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// Records a running scan's progress; `false` when the lease was lost.
    pub async fn set_scan_progress(&self, id: Uuid, owner: &str, progress: &crate::model::ScanProgressState) -> StoreResult<bool> {
        let text = serde_json::to_string(progress).map_err(|e| super::StoreError::Corrupt(format!("scan progress: {e}")))?;
        let stmt = self.stmt(
            "UPDATE scans SET progress = $1 WHERE id = $2 AND lease_owner = $3 AND status = 'running'",
            vec![text.into(), id.into(), owner.into()],
        );
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// Marks the scan completed with its report (its counts are the summary's totals); `false`
    /// when the lease was lost.
    pub async fn complete_scan(&self, id: Uuid, owner: &str, report: &StoredReport) -> StoreResult<bool> {
        let counts = report.summary.totals();
        self.finish(id, owner, ScanStatus::Completed, Some(&counts), report).await
    }

    /// Marks the scan failed with a report whose `summary.error` says why.
    pub async fn fail_scan(&self, id: Uuid, owner: &str, report: &StoredReport) -> StoreResult<bool> {
        let counts = self.scan_severity_counts(id).await?;
        self.finish(id, owner, ScanStatus::Failed, Some(&counts), report).await
    }

    async fn finish(
        &self,
        id: Uuid,
        owner: &str,
        status: ScanStatus,
        counts: Option<&SeverityCounts>,
        report: &StoredReport,
    ) -> StoreResult<bool> {
        let counts = counts.map(serde_json::to_string).transpose().map_err(|e| super::StoreError::Corrupt(format!("counts: {e}")))?;
        let report = serde_json::to_string(report).map_err(|e| super::StoreError::Corrupt(format!("the report of scan {id}: {e}")))?;
        let stmt = self.stmt(
            "UPDATE scans SET status = $1, completed_at = $2, findings_count = $3, report = $4, \
             lease_owner = NULL, lease_expires_at = NULL \
             WHERE id = $5 AND lease_owner = $6 AND status = 'running'",
            vec![
                status.as_str().into(),
                now_us().into(),
                counts.into(),
                report.into(),
                id.into(),
                owner.into(),
            ],
        );
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// True when a scan of an organisation other than `org` waits for a worker (queued, or
    /// running under a lease that expired) and could be claimed: its organisation has fewer
    /// than `cap` scans running (the claim's own test, [`Store::claim_scan_fair`]). A worker
    /// helping `org`'s scan then goes back to the queue; a scan its organisation's cap holds
    /// back is no reason to, since no worker could take it.
    pub async fn scan_waits_beside(&self, org: &str, cap: i64) -> StoreResult<bool> {
        let stmt = self.stmt(
            "SELECT 1 AS x FROM scans s WHERE s.org_id <> $1 AND (s.status = 'queued' OR (s.status = 'running' AND s.lease_expires_at < $2)) \
             AND (SELECT COUNT(*) FROM scans r WHERE r.org_id = s.org_id AND r.status = 'running' AND r.lease_expires_at >= $2) < $3 LIMIT 1",
            vec![org.into(), now_us().into(), cap.into()],
        );
        Ok(self.conn().query_one_raw(stmt).await?.is_some())
    }

    /// The running scans whose lease owner starts with `prefix` (the workers of one process):
    /// (id, lease owner, attempts).
    pub async fn running_scans_of(&self, prefix: &str) -> StoreResult<Vec<(Uuid, String, i32)>> {
        // Running scans are few (one a worker): the prefix is matched here, the same on every
        // backend (no LIKE wildcards in a host name to escape, no SUBSTR argument types).
        let stmt = self.stmt("SELECT id, lease_owner, attempts FROM scans WHERE status = 'running' AND lease_owner IS NOT NULL ORDER BY id", vec![]);
        let mut out = Vec::new();
        for r in self.conn().query_all_raw(stmt).await? {
            let owner: String = r.try_get("", "lease_owner")?;
            if owner.starts_with(prefix) {
                out.push((r.try_get("", "id")?, owner, r.try_get("", "attempts")?));
            }
        }
        Ok(out)
    }

    /// Puts a running scan of a worker that died back in the queue at once, its attempt
    /// counted (unlike [`Store::release_scan`]); `false` when `owner` no longer holds it.
    pub async fn requeue_scan(&self, id: Uuid, owner: &str) -> StoreResult<bool> {
        let stmt = self.stmt(
            "UPDATE scans SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $2 AND status = 'running'",
            vec![id.into(), owner.into()],
        );
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// Puts a running scan back in the queue (graceful shutdown before it finished). Its partial
    /// results are removed when it is claimed again.
    pub async fn release_scan(&self, id: Uuid, owner: &str) -> StoreResult<bool> {
        let stmt = self.stmt(
            "UPDATE scans SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, \
             attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END \
             WHERE id = $1 AND lease_owner = $2 AND status = 'running'",
            vec![id.into(), owner.into()],
        );
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// Counts of a scan's stored findings per severity.
    pub async fn scan_severity_counts(&self, id: Uuid) -> StoreResult<SeverityCounts> {
        let mut counts = SeverityCounts::default();
        for (_, severity, n) in self.scan_check_counts(id).await? {
            counts.add(severity, n);
        }
        Ok(counts)
    }

    /// Counts of a scan's stored findings per check id and severity.
    pub async fn scan_check_counts(&self, id: Uuid) -> StoreResult<CheckCounts> {
        let stmt = self.stmt(
            "SELECT check_id, severity, COUNT(*) AS n FROM findings WHERE scan_id = $1 GROUP BY check_id, severity",
            vec![id.into()],
        );
        let mut out = Vec::new();
        for row in self.conn().query_all_raw(stmt).await? {
            let check: String = row.try_get("", "check_id")?;
            let severity: String = row.try_get("", "severity")?;
            let n: i64 = row.try_get("", "n")?;
            if let Ok(severity) = severity.parse() {
                out.push((check, severity, n.max(0) as u64));
            }
        }
        Ok(out)
    }

    /// The scan's pages on which some check did not run: `(URL, checks_not_run)` (for the
    /// summary's `checks_not_run`). A list that does not read is kept as one gap, never lost.
    pub async fn scan_pages_not_run(&self, id: Uuid) -> StoreResult<Vec<(String, Vec<crate::model::CheckNotRun>)>> {
        let stmt = self.stmt("SELECT url, checks_not_run FROM scan_pages WHERE scan_id = $1 AND checks_not_run IS NOT NULL ORDER BY seq", vec![id.into()]);
        let mut out = Vec::new();
        for row in self.conn().query_all_raw(stmt).await? {
            let url: String = row.try_get("", "url")?;
            let text: String = row.try_get("", "checks_not_run")?;
            let list = serde_json::from_str::<Vec<crate::model::CheckNotRun>>(&text)
                .unwrap_or_else(|e| vec![crate::model::CheckNotRun { check_id: "*unreadable".into(), reason: format!("the stored list of checks not run does not read: {e}") }]);
            if !list.is_empty() {
                out.push((url, list));
            }
        }
        Ok(out)
    }

    /// Number of queued scans and the age of the oldest, in seconds (for metrics).
    pub async fn queue_depth(&self) -> StoreResult<(u64, f64)> {
        let stmt = self.stmt("SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM scans WHERE status = 'queued'", vec![]);
        let Some(row) = self.conn().query_one_raw(stmt).await? else { return Ok((0, 0.0)) };
        let n: i64 = row.try_get("", "n")?;
        let oldest: Option<i64> = row.try_get("", "oldest")?;
        let age = oldest.map_or(0.0, |o| (now_us() - o).max(0) as f64 / 1e6);
        Ok((n.max(0) as u64, age))
    }

    /// Scans per status (for metrics).
    pub async fn scans_by_status(&self) -> StoreResult<BTreeMap<String, u64>> {
        let stmt = self.stmt("SELECT status, COUNT(*) AS n FROM scans GROUP BY status", vec![]);
        let mut out = BTreeMap::new();
        for row in self.conn().query_all_raw(stmt).await? {
            let status: String = row.try_get("", "status")?;
            let n: i64 = row.try_get("", "n")?;
            out.insert(status, n.max(0) as u64);
        }
        Ok(out)
    }
}
