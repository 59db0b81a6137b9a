//! A running scan's crawl in the store, shared by every worker of the fleet: the frontier (one
//! row per scan and normalised URL, so a link joins it once however many workers find it), page
//! claims under a lease (a worker that dies loses only its unfinished pages), each judged page's
//! results written with its crawl row in one transaction (a page is judged once), and per-host
//! politeness slots and pacing (at most K requests in flight and a minimum interval between
//! starts for a host, across all workers together).
//!
//! The page budget is kept as pages join the frontier (admissions of one scan take turns on its
//! `crawls` row), so claims need neither count nor wait for each other.

use super::Store;
use super::error::{StoreError, StoreResult};
use super::time::now_us;
use crate::model::{Change, Finding, ReportPage};
use sea_orm::{ConnectionTrait, DatabaseBackend, TransactionTrait};
use sha2::{Digest, Sha256};
use std::time::Duration;
use uuid::Uuid;

/// How many workers' admissions at once an admission far from the budget leaves room for.
const FAR_FROM_BUDGET: i64 = 256;
/// Rows written per INSERT when pages join the frontier.
const ENQUEUE_CHUNK: usize = 200;

fn lease_us(lease: Duration) -> i64 {
    i64::try_from(lease.as_micros()).unwrap_or(i64::MAX / 2)
}

/// The frontier key of a normalised URL (URLs can be longer than an index entry may be).
pub fn url_key(url: &str) -> String {
    format!("{:x}", Sha256::digest(url.as_bytes()))
}

pub use crate::model::crawl_store::{Admission, ClaimCursor, ClaimedPage, CrawlCounts};

/// The queue position past which each crawl's queue was last claimed by this process, shared
/// by its worker loops: a loop's own last claim is older by every claim the others made since,
/// and a search from it walks past each of them. (Bounded: forgotten whole past
/// `CLAIM_HINTS_KEPT` crawls.)
#[derive(Debug, Clone, Default)]
pub struct ClaimHints(std::sync::Arc<std::sync::Mutex<std::collections::HashMap<Uuid, (i32, i64)>>>);

const CLAIM_HINTS_KEPT: usize = 4096;

impl ClaimHints {
    fn get(&self, scan_id: Uuid) -> Option<(i32, i64)> {
        self.0.lock().ok().and_then(|hints| hints.get(&scan_id).copied())
    }

    fn advance(&self, scan_id: Uuid, to: (i32, i64)) {
        if let Ok(mut hints) = self.0.lock() {
            if hints.len() >= CLAIM_HINTS_KEPT && !hints.contains_key(&scan_id) {
                hints.clear();
            }
            let hint = hints.entry(scan_id).or_insert(to);
            *hint = (*hint).max(to);
        }
    }

    fn forget(&self, scan_id: Uuid) {
        if let Ok(mut hints) = self.0.lock() {
            hints.remove(&scan_id);
        }
    }
}

/// A page one claim took, with where it stood.
struct Claimed {
    url: String,
    position: (i32, i64),
    /// Taken from the queue (not from an expired lease).
    queued: bool,
}

/// A running scan whose pages another worker may help with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelpWanted {
    pub scan_id: Uuid,
    pub org_id: String,
}

impl Store {
    /// Opens a scan's shared crawl with `context` (what every worker needs to judge its pages
    /// alike). `false` when it was open already: an earlier attempt's crawl, to resume.
    pub async fn open_crawl(&self, scan_id: Uuid, context: &str) -> StoreResult<bool> {
        let stmt = self.stmt(
            "INSERT INTO crawls (scan_id, context, site_phase_at, created_at) VALUES ($1, $2, NULL, $3) ON CONFLICT (scan_id) DO NOTHING",
            vec![scan_id.into(), context.into(), now_us().into()],
        );
        Ok(self.conn().execute_raw(stmt).await?.rows_affected() == 1)
    }

    /// The crawl's context and when its post-crawl phase began (if it did).
    pub async fn crawl_context(&self, scan_id: Uuid) -> StoreResult<Option<(String, Option<i64>)>> {
        let stmt = self.stmt("SELECT context, site_phase_at FROM crawls WHERE scan_id = $1", vec![scan_id.into()]);
        let Some(row) = self.conn().query_one_raw(stmt).await? else { return Ok(None) };
        Ok(Some((row.try_get("", "context")?, row.try_get("", "site_phase_at")?)))
    }

    pub async fn set_crawl_context(&self, scan_id: Uuid, context: &str) -> StoreResult<()> {
        let stmt = self.stmt("UPDATE crawls SET context = $1 WHERE scan_id = $2", vec![context.into(), scan_id.into()]);
        self.conn().execute_raw(stmt).await?;
        Ok(())
    }

    /// Marks the start of the post-crawl phase (journeys, site checks): what is written from
    /// now on is not a crawled page's, and a resumed attempt removes it first.
    pub async fn begin_site_phase(&self, scan_id: Uuid) -> StoreResult<i64> {
        let now = now_us();
        let stmt = self.stmt("UPDATE crawls SET site_phase_at = $1 WHERE scan_id = $2", vec![now.into(), scan_id.into()]);
        self.conn().execute_raw(stmt).await?;
        Ok(now)
    }

    /// Removes what an interrupted post-crawl phase wrote (journey pages, site findings) and
    /// reopens the crawl; the crawled pages stay.
    pub async fn undo_site_phase(&self, scan_id: Uuid, since: i64) -> StoreResult<()> {
        let txn = self.conn().begin().await?;
        for sql in [
            "DELETE FROM findings WHERE scan_id = $1 AND created_at >= $2",
            "DELETE FROM scan_pages WHERE scan_id = $1 AND created_at >= $2",
        ] {
            txn.execute_raw(self.stmt(sql, vec![scan_id.into(), since.into()])).await?;
        }
        txn.execute_raw(self.stmt("UPDATE crawls SET site_phase_at = NULL WHERE scan_id = $1", vec![scan_id.into()])).await?;
        txn.commit().await?;
        Ok(())
    }

    /// Removes a finished scan's crawl (the frontier and the pages' facts).
    pub async fn drop_crawl(&self, scan_id: Uuid) -> StoreResult<()> {
        let txn = self.conn().begin().await?;
        txn.execute_raw(self.stmt("DELETE FROM crawl_pages WHERE scan_id = $1", vec![scan_id.into()])).await?;
        txn.execute_raw(self.stmt("DELETE FROM crawls WHERE scan_id = $1", vec![scan_id.into()])).await?;
        txn.commit().await?;
        self.claim_hints().forget(scan_id);
        Ok(())
    }

    /// Adds pages to the frontier, each (scan, URL) once (a URL already there, in whatever
    /// state, is left as it is), in order, until `budget` pages have joined the crawl: the
    /// budget is kept here, so that claims need not count. Returns how many joined, and whether
    /// the budget was found spent (a count that only grows: a worker told so stops asking).
    pub async fn enqueue_pages(&self, scan_id: Uuid, pages: &[(String, u32)], budget: usize) -> StoreResult<Admission> {
        if pages.is_empty() {
            return Ok(Admission::default());
        }
        let budget = i64::try_from(budget).unwrap_or(i64::MAX);
        let admitted_sql = "SELECT admitted FROM crawls WHERE scan_id = $1";
        let read = |row: Option<sea_orm::QueryResult>| -> StoreResult<i64> { Ok(row.map(|r| r.try_get::<i64>("", "admitted")).transpose()?.unwrap_or(i64::MAX)) };
        // Most links of a big crawl arrive once the budget is spent: no lock for those.
        let seen = read(self.conn().query_one_raw(self.stmt(admitted_sql, vec![scan_id.into()])).await?)?;
        if seen >= budget {
            return Ok(Admission { added: 0, spent: true });
        }
        // Far from the budget (room for these pages from every worker at once) the count is
        // added at the end, a moment's lock; near it, admissions take turns on the crawl's row.
        let far = budget - seen >= (pages.len() as i64).saturating_mul(FAR_FROM_BUDGET);
        if far && self.backend() == DatabaseBackend::Postgres {
            return Ok(Admission { added: self.admit_far_pg(scan_id, pages).await?, spent: false });
        }
        if far {
            // Far from the budget (room for these pages from every worker at once): no turns,
            // and the count added after (a crash between the two leaves it a few pages short).
            let added = self.admit_in(self.conn(), scan_id, pages, pages.len()).await?;
            let count = self.stmt("UPDATE crawls SET admitted = admitted + $1 WHERE scan_id = $2", vec![(added as i64).into(), scan_id.into()]);
            self.conn().execute_raw(count).await?;
            return Ok(Admission { added, spent: false });
        }
        // Near it, admissions take turns on the crawl's row.
        let txn = self.conn().begin().await?;
        let lock = match self.backend() {
            DatabaseBackend::Postgres => {
                // The turn ends without waiting for the WAL flush (see `admit_far_pg`).
                txn.execute_unprepared("SET LOCAL synchronous_commit TO OFF").await?;
                " FOR UPDATE"
            }
            _ => {
                txn.execute_raw(self.stmt("UPDATE crawls SET admitted = admitted WHERE scan_id = $1", vec![scan_id.into()])).await?;
                ""
            }
        };
        let admitted = read(txn.query_one_raw(self.stmt(&format!("{admitted_sql}{lock}"), vec![scan_id.into()])).await?)?;
        let room = usize::try_from((budget - admitted).max(0)).unwrap_or(0);
        let added = if room == 0 { 0 } else { self.admit_in(&txn, scan_id, pages, room).await? };
        txn.execute_raw(self.stmt("UPDATE crawls SET admitted = admitted + $1 WHERE scan_id = $2", vec![(added as i64).into(), scan_id.into()])).await?;
        txn.commit().await?;
        Ok(Admission { added, spent: added as usize == room })
    }

    /// PostgreSQL, far from the budget: the pages not in the frontier yet join it and are
    /// counted in one statement per chunk, committed on the server without waiting for its WAL
    /// flush (the crawl's row is locked only inside the statement: admissions of every worker
    /// took turns on it across their commits' flushes, which capped a big crawl's first pages,
    /// when every page adds its links, at a few hundred a second). A crash can lose the last
    /// moment's admissions, whose pages are then not crawled; the page that found them is
    /// written after them, so it is lost too and judged again, finding them again.
    async fn admit_far_pg(&self, scan_id: Uuid, pages: &[(String, u32)]) -> StoreResult<u64> {
        let mut seen = std::collections::HashSet::new();
        let fresh: Vec<(String, &String, u32)> = pages
            .iter()
            .filter_map(|(url, depth)| {
                let key = url_key(url);
                seen.insert(key.clone()).then_some((key, url, *depth))
            })
            .collect();
        let base = now_us();
        let mut added = 0;
        for (c, chunk) in fresh.chunks(ENQUEUE_CHUNK).enumerate() {
            let mut rows = Vec::with_capacity(chunk.len());
            let mut values: Vec<sea_orm::Value> = vec![scan_id.into()];
            for (i, (key, url, depth)) in chunk.iter().enumerate() {
                let n = values.len();
                rows.push(format!("($1, ${}, ${}, ${}, ${}, 'queued')", n + 1, n + 2, n + 3, n + 4));
                let ordinal = base + (c * ENQUEUE_CHUNK + i) as i64;
                values.extend([key.clone().into(), (*url).clone().into(), (*depth as i32).into(), ordinal.into()]);
            }
            let sql = format!(
                "WITH lazy AS (SELECT set_config('synchronous_commit', 'off', true) AS c), \
                 added AS (INSERT INTO crawl_pages (scan_id, url_key, url, depth, ordinal, state) VALUES {} \
                   ON CONFLICT (scan_id, url_key) DO NOTHING RETURNING 1 AS one), \
                 n AS (SELECT COUNT(*) AS n FROM added) \
                 UPDATE crawls SET admitted = admitted + n.n FROM n, lazy WHERE scan_id = $1 RETURNING n.n",
                rows.join(", ")
            );
            let row = self.conn().query_one_raw(self.stmt(&sql, values)).await?;
            added += row.map(|r| r.try_get::<i64>("", "n")).transpose()?.map_or(0, |n| u64::try_from(n).unwrap_or(0));
        }
        Ok(added)
    }

    /// Inserts the pages not in the frontier yet, in order, at most `room`; how many joined.
    async fn admit_in<C: ConnectionTrait>(&self, conn: &C, scan_id: Uuid, pages: &[(String, u32)], room: usize) -> StoreResult<u64> {
        let mut keyed: Vec<(String, &String, u32)> = Vec::with_capacity(pages.len());
        let mut seen = std::collections::HashSet::new();
        for (url, depth) in pages {
            let key = url_key(url);
            if seen.insert(key.clone()) {
                keyed.push((key, url, *depth));
            }
        }
        let mut known = std::collections::HashSet::new();
        for chunk in keyed.chunks(ENQUEUE_CHUNK) {
            let marks: Vec<String> = (0..chunk.len()).map(|i| format!("${}", i + 2)).collect();
            let mut values: Vec<sea_orm::Value> = vec![scan_id.into()];
            values.extend(chunk.iter().map(|(k, _, _)| k.clone().into()));
            let sql = format!("SELECT url_key FROM crawl_pages WHERE scan_id = $1 AND url_key IN ({})", marks.join(", "));
            for row in conn.query_all_raw(self.stmt(&sql, values)).await? {
                known.insert(row.try_get::<String>("", "url_key")?);
            }
        }
        let fresh: Vec<&(String, &String, u32)> = keyed.iter().filter(|(k, _, _)| !known.contains(k)).take(room).collect();
        let base = now_us();
        let mut added = 0;
        for (c, chunk) in fresh.chunks(ENQUEUE_CHUNK).enumerate() {
            let mut sql = String::from("INSERT INTO crawl_pages (scan_id, url_key, url, depth, ordinal, state) VALUES ");
            let mut values: Vec<sea_orm::Value> = Vec::with_capacity(chunk.len() * 5);
            for (i, (key, url, depth)) in chunk.iter().enumerate() {
                let n = values.len();
                if i > 0 {
                    sql.push_str(", ");
                }
                sql.push_str(&format!("(${}, ${}, ${}, ${}, ${}, 'queued')", n + 1, n + 2, n + 3, n + 4, n + 5));
                let ordinal = base + (c * ENQUEUE_CHUNK + i) as i64;
                values.extend([scan_id.into(), key.clone().into(), (*url).clone().into(), (*depth as i32).into(), ordinal.into()]);
            }
            sql.push_str(" ON CONFLICT (scan_id, url_key) DO NOTHING");
            added += conn.execute_raw(self.stmt(&sql, values)).await?.rows_affected();
        }
        Ok(added)
    }

    /// Records that `url` was reached by a redirect: it is not rendered again (nor does it
    /// count against the budget).
    pub async fn mark_reached(&self, scan_id: Uuid, url: &str, depth: u32) -> StoreResult<()> {
        let stmt = self.stmt(
            "INSERT INTO crawl_pages (scan_id, url_key, url, depth, ordinal, state) VALUES ($1, $2, $3, $4, $5, 'reached') \
             ON CONFLICT (scan_id, url_key) DO NOTHING",
            vec![scan_id.into(), url_key(url).into(), url.into(), (depth as i32).into(), now_us().into()],
        );
        self.conn().execute_raw(stmt).await?;
        Ok(())
    }

    /// Whether the page at `url` of the scan's crawl is judged and written.
    pub async fn crawl_page_done(&self, scan_id: Uuid, url: &str) -> StoreResult<bool> {
        let row = self
            .conn()
            .query_one_raw(self.stmt("SELECT state FROM crawl_pages WHERE scan_id = $1 AND url_key = $2", vec![scan_id.into(), url_key(url).into()]))
            .await?;
        Ok(row.map(|r| r.try_get::<String>("", "state")).transpose()?.as_deref() == Some("done"))
    }

    /// Claims up to `max` pages of the scan for `holder`, breadth first: first the pages whose
    /// holder's lease expired, then the queue. Concurrent claims skip each other's rows
    /// (PostgreSQL) or take turns (SQLite). A worker that claims again and again keeps a
    /// [`ClaimCursor`] and calls [`Store::claim_pages_from`].
    pub async fn claim_pages(&self, scan_id: Uuid, holder: &str, lease: Duration, max: usize) -> StoreResult<Vec<ClaimedPage>> {
        self.claim_pages_from(scan_id, holder, lease, max, &mut ClaimCursor::default()).await
    }

    /// `claim_pages` for a worker that claims again and again: the queue is searched past the
    /// last page `cursor` took from it, and the expired leases are looked for once a lease
    /// (a lost page waits at most two leases); when that finds nothing, the whole frontier is
    /// searched as `claim_pages` does, so a page given back behind the cursor is claimed once
    /// the queue ahead of it is empty.
    ///
    /// Without the cursor every claim walks past every page claimed before it: the index
    /// entries an update leaves behind stay until the table is vacuumed, and a claim of a
    /// 100,000-page crawl's last pages read some 600 index pages (13 ms) on PostgreSQL.
    pub async fn claim_pages_from(&self, scan_id: Uuid, holder: &str, lease: Duration, max: usize, cursor: &mut ClaimCursor) -> StoreResult<Vec<ClaimedPage>> {
        if max == 0 {
            return Ok(Vec::new());
        }
        let look_expired = cursor.expired_seen.is_none_or(|t| t.elapsed() >= lease);
        if cursor.after.is_some() {
            cursor.after = cursor.after.max(self.claim_hints().get(scan_id));
        }
        let mut claimed = self.claim_after(scan_id, holder, lease, max, cursor.after, look_expired).await?;
        let whole = claimed.is_empty() && (cursor.after.is_some() || !look_expired);
        if whole {
            claimed = self.claim_after(scan_id, holder, lease, max, None, true).await?;
        }
        if look_expired || whole {
            cursor.expired_seen = Some(std::time::Instant::now());
        }
        for page in &claimed {
            if page.queued {
                cursor.after = cursor.after.max(Some(page.position));
            }
        }
        if let Some(after) = cursor.after {
            self.claim_hints().advance(scan_id, after);
        }
        claimed.sort_by_key(|page| page.position);
        Ok(claimed.into_iter().map(|page| ClaimedPage { url: page.url, depth: u32::try_from(page.position.0).unwrap_or(0) }).collect())
    }

    /// One claim: the expired leases' pages (when `expired`), then the queue's past `after`.
    async fn claim_after(&self, scan_id: Uuid, holder: &str, lease: Duration, max: usize, after: Option<(i32, i64)>, expired: bool) -> StoreResult<Vec<Claimed>> {
        let now = now_us();
        let expires = now + lease_us(lease);
        let max = i64::try_from(max).unwrap_or(i64::MAX);
        let (after_depth, after_ordinal) = after.unwrap_or((-1, i64::MIN));
        let read = |rows: Vec<sea_orm::QueryResult>, claimed: &mut Vec<Claimed>| -> StoreResult<()> {
            for row in rows {
                let depth: i32 = row.try_get("", "depth")?;
                let ordinal: i64 = row.try_get("", "ordinal")?;
                let queued: i32 = row.try_get("", "k")?;
                claimed.push(Claimed { url: row.try_get("", "url")?, position: (depth, ordinal), queued: queued == 1 });
            }
            Ok(())
        };
        let mut claimed = Vec::new();
        if self.backend() == DatabaseBackend::Postgres {
            // One statement in its own transaction. Rows other claims hold are skipped.
            // Committed without waiting for its WAL flush: a claim a crash loses leaves the page
            // queued, and the render of it is dropped when its write finds the page not held.
            // The rows picked are updated where they lie (`ctid`, rows this statement locked): a
            // join by key let a connection's cached plan, made while the frontier was a few
            // rows, read every row of the scan for each claim (1,800 buffers at 6,000 pages).
            let sql = "WITH lazy AS (SELECT set_config('synchronous_commit', 'off', true) AS c), \
                        expired AS (SELECT ctid AS at, depth, ordinal, 0 AS k FROM crawl_pages \
                          WHERE $6 AND scan_id = $1 AND state = 'claimed' AND lease_expires_at < $2 \
                          ORDER BY depth, ordinal LIMIT $3 FOR UPDATE SKIP LOCKED), \
                        queued AS (SELECT ctid AS at, depth, ordinal, 1 AS k FROM crawl_pages \
                          WHERE scan_id = $1 AND state = 'queued' AND (depth, ordinal) > ($7, $8) \
                          ORDER BY depth, ordinal LIMIT $3 FOR UPDATE SKIP LOCKED), \
                        picked AS (SELECT at, k FROM (SELECT * FROM expired UNION ALL SELECT * FROM queued) AS p \
                          ORDER BY k, depth, ordinal LIMIT $3) \
                      UPDATE crawl_pages AS c SET state = 'claimed', holder = $4, lease_expires_at = $5 FROM picked, lazy \
                      WHERE c.ctid = picked.at RETURNING c.url, c.depth, c.ordinal, picked.k";
            let values = vec![scan_id.into(), now.into(), max.into(), holder.into(), expires.into(), expired.into(), after_depth.into(), after_ordinal.into()];
            read(self.conn().query_all_raw(self.stmt(sql, values)).await?, &mut claimed)?;
            return Ok(claimed);
        }
        let txn = self.conn().begin().await?;
        // SQLite: the write lock first (a read that later writes could fail on a stale snapshot).
        txn.execute_raw(self.stmt("UPDATE crawls SET admitted = admitted WHERE scan_id = $1", vec![scan_id.into()])).await?;
        let mut rows = Vec::new();
        if expired {
            rows = txn
                .query_all_raw(self.stmt(
                    "SELECT url_key, url, depth, ordinal, 0 AS k FROM crawl_pages WHERE scan_id = $1 AND state = 'claimed' AND lease_expires_at < $2 \
                     ORDER BY depth, ordinal LIMIT $3",
                    vec![scan_id.into(), now.into(), max.into()],
                ))
                .await?;
        }
        if (rows.len() as i64) < max {
            let rest = max - rows.len() as i64;
            rows.extend(
                txn.query_all_raw(self.stmt(
                    "SELECT url_key, url, depth, ordinal, 1 AS k FROM crawl_pages WHERE scan_id = $1 AND state = 'queued' AND (depth, ordinal) > ($3, $4) \
                     ORDER BY depth, ordinal LIMIT $2",
                    vec![scan_id.into(), rest.into(), after_depth.into(), after_ordinal.into()],
                ))
                .await?,
            );
        }
        for row in &rows {
            let key: String = row.try_get("", "url_key")?;
            txn.execute_raw(self.stmt(
                "UPDATE crawl_pages SET state = 'claimed', holder = $1, lease_expires_at = $2 WHERE scan_id = $3 AND url_key = $4",
                vec![holder.into(), expires.into(), scan_id.into(), key.into()],
            ))
            .await?;
        }
        read(rows, &mut claimed)?;
        txn.commit().await?;
        Ok(claimed)
    }

    /// Renews the leases of the scan's pages at `urls` (normalised) that `holder` holds; how
    /// many it still holds. (Each found by its key: reading every claimed page of the scan would
    /// walk past every page claimed before, see `claim_pages_from`.)
    pub async fn renew_pages(&self, scan_id: Uuid, holder: &str, lease: Duration, urls: &[String]) -> StoreResult<u64> {
        let mut renewed = 0;
        for chunk in urls.chunks(ENQUEUE_CHUNK) {
            let marks: Vec<String> = (0..chunk.len()).map(|i| format!("${}", i + 4)).collect();
            let mut values: Vec<sea_orm::Value> = vec![(now_us() + lease_us(lease)).into(), scan_id.into(), holder.into()];
            values.extend(chunk.iter().map(|url| url_key(url).into()));
            let sql = format!(
                "UPDATE crawl_pages SET lease_expires_at = $1 WHERE scan_id = $2 AND url_key IN ({}) AND state = 'claimed' AND holder = $3",
                marks.join(", ")
            );
            renewed += self.conn().execute_raw(self.stmt(&sql, values)).await?.rows_affected();
        }
        Ok(renewed)
    }

    /// Gives back the scan's pages `holder` has not finished (it is shutting down): claimable
    /// at once.
    pub async fn release_pages(&self, scan_id: Uuid, holder: &str) -> StoreResult<u64> {
        let stmt = self.stmt(
            "UPDATE crawl_pages SET state = 'queued', holder = NULL, lease_expires_at = NULL WHERE scan_id = $1 AND state = 'claimed' AND holder = $2",
            vec![scan_id.into(), holder.into()],
        );
        Ok(self.conn().execute_raw(stmt).await?.rows_affected())
    }

    /// Writes one judged page: its row and findings in the report, its facts for the site
    /// checks, and its frontier row done, in one transaction. `false` (nothing written) when
    /// `holder` no longer holds the page: its lease expired and another worker took it. The
    /// findings are written with `change` (`new` for a first scan's, see `CrawlContext::first`).
    #[allow(clippy::too_many_arguments)]
    pub async fn complete_page(
        &self,
        scan_id: Uuid,
        org: &str,
        url: &str,
        holder: &str,
        facts: &str,
        page: &ReportPage,
        findings: &[Finding],
        change: Option<Change>,
    ) -> StoreResult<bool> {
        if self.backend() == DatabaseBackend::Postgres && findings.len() <= super::findings::INSERT_CHUNK {
            // One statement, committed on the server: see `crawled_page_statement`.
            let (sql, values) = super::findings::crawled_page_statement(scan_id, org, &url_key(url), holder, facts, page, findings, change);
            return Ok(self.conn().execute_raw(self.stmt(&sql, values)).await?.rows_affected() == 1);
        }
        let txn = self.conn().begin().await?;
        if self.backend() == DatabaseBackend::Postgres {
            // The page's write does not wait for its WAL flush. Writers of one scan take turns
            // for the page's number (`append_page_in`), and a turn that waits for a flush caps a
            // scan at one page per flush, however many workers it has. A server crash can lose
            // the last moment's page writes whole (each is one transaction: its report rows and
            // its frontier row together); such a page is still claimed by its worker, which
            // gives it back once it has nothing in flight, and it is judged again. The scan's
            // completion is committed with a flush, which makes every page before it durable.
            txn.execute_unprepared("SET LOCAL synchronous_commit TO OFF").await?;
        }
        let done = txn
            .execute_raw(self.stmt(
                "UPDATE crawl_pages SET state = 'done', facts = $1, done_by = $2, holder = NULL, lease_expires_at = NULL \
                 WHERE scan_id = $3 AND url_key = $4 AND state = 'claimed' AND holder = $2",
                vec![facts.into(), holder.into(), scan_id.into(), url_key(url).into()],
            ))
            .await?
            .rows_affected();
        if done != 1 {
            txn.rollback().await?;
            return Ok(false);
        }
        self.append_page_in(&txn, scan_id, org, page, findings, change).await?;
        txn.commit().await?;
        Ok(true)
    }

    /// How many findings the scan has stored (the ceiling a worker joining its crawl starts from).
    pub async fn scan_findings_stored(&self, scan_id: Uuid) -> StoreResult<u64> {
        let row = self.conn().query_one_raw(self.stmt("SELECT COUNT(*) AS n FROM findings WHERE scan_id = $1", vec![scan_id.into()])).await?;
        Ok(row.map(|r| r.try_get::<i64>("", "n")).transpose()?.map_or(0, |n| u64::try_from(n).unwrap_or(0)))
    }

    /// Where the scan's crawl stands.
    pub async fn crawl_counts(&self, scan_id: Uuid) -> StoreResult<CrawlCounts> {
        let rows = self
            .conn()
            .query_all_raw(self.stmt(
                "SELECT state, (lease_expires_at IS NOT NULL AND lease_expires_at < $2) AS expired, COUNT(*) AS n \
                 FROM crawl_pages WHERE scan_id = $1 GROUP BY state, expired",
                vec![scan_id.into(), now_us().into()],
            ))
            .await?;
        let mut counts = CrawlCounts::default();
        for row in rows {
            let state: String = row.try_get("", "state")?;
            let expired: bool = row.try_get("", "expired")?;
            let n = u64::try_from(row.try_get::<i64>("", "n")?).unwrap_or(0);
            match (state.as_str(), expired) {
                ("queued", _) => counts.queued += n,
                ("claimed", false) => counts.claimed += n,
                ("claimed", true) => counts.abandoned += n,
                ("done", _) => counts.done += n,
                _ => {}
            }
        }
        Ok(counts)
    }

    /// The facts of every judged page of the scan, in crawl order, and which worker judged it.
    pub async fn crawl_facts(&self, scan_id: Uuid) -> StoreResult<Vec<(String, String)>> {
        let rows = self
            .conn()
            .query_all_raw(self.stmt(
                "SELECT facts, done_by FROM crawl_pages WHERE scan_id = $1 AND state = 'done' ORDER BY depth, ordinal",
                vec![scan_id.into()],
            ))
            .await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let facts: Option<String> = row.try_get("", "facts")?;
            let by: Option<String> = row.try_get("", "done_by")?;
            out.push((facts.ok_or_else(|| StoreError::Corrupt("a judged page without its facts".into()))?, by.unwrap_or_default()));
        }
        Ok(out)
    }

    /// The running scan whose pages an idle worker should help with, fairly across
    /// organisations: the organisation with the fewest pages being rendered now first, then the
    /// scan that started first. Only scans whose crawl is open (not yet in the post-crawl phase)
    /// with a claimable page, and whose own worker still holds them. Helpers count against
    /// their scan's organisation: an organisation whose running scans and helpers (workers
    /// holding its pages that do not hold its scans) reach `cap` gets no more.
    pub async fn help_wanted(&self, cap: i64) -> StoreResult<Option<HelpWanted>> {
        let now = now_us();
        let rows = self
            .conn()
            .query_all_raw(self.stmt(
                "SELECT c.scan_id, s.org_id, \
                   (SELECT COUNT(*) FROM crawl_pages b JOIN scans t ON t.id = b.scan_id \
                     WHERE t.org_id = s.org_id AND b.state = 'claimed' AND b.lease_expires_at >= $1) AS busy \
                 FROM crawls c JOIN scans s ON s.id = c.scan_id \
                 WHERE s.status = 'running' AND s.lease_expires_at >= $1 AND c.site_phase_at IS NULL \
                   AND EXISTS (SELECT 1 FROM crawl_pages p WHERE p.scan_id = c.scan_id \
                     AND (p.state = 'queued' OR (p.state = 'claimed' AND p.lease_expires_at < $1))) \
                   AND (SELECT COUNT(*) FROM scans r WHERE r.org_id = s.org_id AND r.status = 'running' AND r.lease_expires_at >= $1) \
                     + (SELECT COUNT(DISTINCT h.holder) FROM crawl_pages h JOIN scans u ON u.id = h.scan_id \
                        WHERE u.org_id = s.org_id AND h.state = 'claimed' AND h.lease_expires_at >= $1 \
                          AND h.holder NOT IN (SELECT q.lease_owner FROM scans q WHERE q.org_id = s.org_id AND q.status = 'running' AND q.lease_owner IS NOT NULL)) < $2 \
                 ORDER BY busy, s.started_at, c.scan_id LIMIT 1",
                vec![now.into(), cap.into()],
            ))
            .await?;
        let Some(row) = rows.into_iter().next() else { return Ok(None) };
        Ok(Some(HelpWanted { scan_id: row.try_get("", "scan_id")?, org_id: row.try_get("", "org_id")? }))
    }

    /// Takes one of `host`'s `slots` for `holder` under a lease; `None` when all are held.
    pub async fn enter_host_slot(&self, host: &str, slots: usize, holder: &str, lease: Duration) -> StoreResult<Option<i32>> {
        let now = now_us();
        let slots = i32::try_from(slots.max(1)).unwrap_or(i32::MAX);
        if self.backend() == DatabaseBackend::Postgres {
            return self.enter_host_slot_pg(host, slots, holder, now + lease_us(lease), now).await;
        }
        // The slots are tried from a random one, not from the first: the takers of a busy host
        // would otherwise all walk past the same held slots, a statement each, before finding
        // a free one.
        let first = rand::random_range(0..slots);
        for i in 0..slots {
            let slot = (first + i) % slots;
            // One statement a slot: a slot never used is made, one free or expired is taken.
            let take = self.stmt(
                "INSERT INTO host_slots (host, slot, holder, lease_expires_at) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (host, slot) DO UPDATE SET holder = excluded.holder, lease_expires_at = excluded.lease_expires_at \
                 WHERE host_slots.holder IS NULL OR host_slots.lease_expires_at < $5",
                vec![host.into(), slot.into(), holder.into(), (now + lease_us(lease)).into(), now.into()],
            );
            if self.conn().execute_raw(take).await?.rows_affected() == 1 {
                return Ok(Some(slot));
            }
        }
        Ok(None)
    }

    /// PostgreSQL: one statement takes a free (or expired) slot, skipping those other takers
    /// are locking, instead of a statement per slot tried (with most of a busy host's slots
    /// held, a taker tried two or three). The host's slots are made the first time none is found.
    async fn enter_host_slot_pg(&self, host: &str, slots: i32, holder: &str, until: i64, now: i64) -> StoreResult<Option<i32>> {
        let take = || {
            self.stmt(
                "WITH free AS (SELECT slot FROM host_slots WHERE host = $1 AND slot < $2 \
                   AND (holder IS NULL OR lease_expires_at < $5) LIMIT 1 FOR UPDATE SKIP LOCKED) \
                 UPDATE host_slots SET holder = $3, lease_expires_at = $4 FROM free \
                 WHERE host_slots.host = $1 AND host_slots.slot = free.slot RETURNING host_slots.slot",
                vec![host.into(), slots.into(), holder.into(), until.into(), now.into()],
            )
        };
        if let Some(row) = self.conn().query_one_raw(take()).await? {
            return Ok(Some(row.try_get("", "slot")?));
        }
        let make = self.stmt(
            "INSERT INTO host_slots (host, slot) SELECT $1, s FROM generate_series(0, $2 - 1) AS s ON CONFLICT (host, slot) DO NOTHING",
            vec![host.into(), slots.into()],
        );
        if self.conn().execute_raw(make).await?.rows_affected() == 0 {
            return Ok(None);
        }
        Ok(self.conn().query_one_raw(take()).await?.map(|row| row.try_get("", "slot")).transpose()?)
    }

    pub async fn leave_host_slot(&self, host: &str, slot: i32, holder: &str) -> StoreResult<()> {
        let stmt = self.stmt(
            "UPDATE host_slots SET holder = NULL, lease_expires_at = NULL WHERE host = $1 AND slot = $2 AND holder = $3",
            vec![host.into(), slot.into(), holder.into()],
        );
        self.conn().execute_raw(stmt).await?;
        Ok(())
    }

    /// Reserves the next start time for a request to `host`, `interval` after the previous
    /// reservation (or now); returns it, in microseconds since the epoch.
    pub async fn reserve_host_start(&self, host: &str, interval: Duration) -> StoreResult<i64> {
        let now = now_us();
        let iv = lease_us(interval);
        let insert = self.stmt("INSERT INTO host_pace (host, next_start_at) VALUES ($1, $2) ON CONFLICT (host) DO NOTHING", vec![host.into(), (now + iv).into()]);
        if self.conn().execute_raw(insert).await?.rows_affected() == 1 {
            return Ok(now);
        }
        let row = self
            .conn()
            .query_one_raw(self.stmt(
                "UPDATE host_pace SET next_start_at = (CASE WHEN next_start_at > $1 THEN next_start_at ELSE $1 END) + $2 \
                 WHERE host = $3 RETURNING next_start_at",
                vec![now.into(), iv.into(), host.into()],
            ))
            .await?
            .ok_or_else(|| StoreError::Corrupt("the host's pace row vanished".into()))?;
        let next: i64 = row.try_get("", "next_start_at")?;
        Ok(next - iv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crawl_is_drained_when_nothing_is_left_to_render_within_its_budget() {
        let counts = |queued, claimed, abandoned, done| CrawlCounts { queued, claimed, abandoned, done };
        assert!(counts(0, 0, 0, 7).drained(50), "nothing queued, nobody rendering");
        assert!(!counts(0, 1, 0, 7).drained(50), "a page is being rendered");
        assert!(!counts(3, 0, 0, 7).drained(50), "pages wait");
        assert!(!counts(0, 0, 2, 7).drained(50), "a dead worker's pages wait for another");
        assert!(counts(9, 0, 0, 50).drained(50), "the budget is spent: the queue's rest is not rendered");
        assert!(!counts(9, 2, 0, 48).drained(50), "the last pages of the budget are being rendered");
    }

    #[test]
    fn url_keys_are_fixed_length_and_tell_urls_apart() {
        let long = format!("https://a.test/{}", "x".repeat(5000));
        assert_eq!(url_key(&long).len(), 64);
        assert_ne!(url_key("https://a.test/a"), url_key("https://a.test/b"));
        assert_eq!(url_key("https://a.test/a"), url_key("https://a.test/a"));
    }
}
