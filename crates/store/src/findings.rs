//! Findings and scanned pages: written per page in one transaction, listed by keyset.

use super::Store;
use super::cursor::{CursorKind, Position};
use super::db::statement;
use super::entity::{finding, scan_page};
use super::error::{StoreError, StoreResult};
use super::paging::{Keyset, Page};
use super::time::now_us;
use crate::model::{Change, Finding, ReportPage, Severity};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
    TransactionTrait, DatabaseBackend,
};
use uuid::Uuid;

pub use crate::model::{PageRow, StoredFinding};

/// Whole finding rows read at once by [`Store::scan_findings_slim`].
pub const SLIM_BATCH: u64 = 1000;

/// Rows per INSERT statement (well under SQLite's bound-variable limit).
pub(crate) const INSERT_CHUNK: usize = 500;

/// The scan's page counter taken and raised: its next page number. A scan without a counter yet
/// starts it after its highest page number.
const TAKE: &str = "INSERT INTO scan_page_numbers (scan_id, last_seq) \
     VALUES ($1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM scan_pages WHERE scan_id = $1)) \
     ON CONFLICT (scan_id) DO UPDATE SET last_seq = scan_page_numbers.last_seq + 1 RETURNING last_seq";

/// `findings`' values appended to `values` and their rows of placeholders, `($n, ...), ...`,
/// numbered after the values already there.
fn finding_rows(values: &mut Vec<sea_orm::Value>, scan_id: Uuid, org: &str, created_at: i64, findings: &[Finding], change: Option<Change>) -> String {
    let mut rows = Vec::with_capacity(findings.len());
    for f in findings {
        let n = values.len();
        let row = finding::Model::of(scan_id, org, created_at, f, change).values();
        rows.push(format!("({})", (1..=row.len()).map(|i| format!("${}", n + i)).collect::<Vec<_>>().join(", ")));
        values.extend(row);
    }
    rows.join(", ")
}

/// PostgreSQL: a crawled page's whole write as one statement in its own transaction, committed
/// without waiting for its WAL flush: the frontier row marked done (only while `holder` still
/// holds it), then its findings, then the scan's page number and the page row. The number's row
/// lock is held from the moment it is taken to the end of this statement's commit, on the server:
/// no turn waits for a client's next message. Returns whether the page was written (nothing is,
/// when its lease was lost). At most `INSERT_CHUNK` findings, written with `change` (a first
/// scan's are `new` from the start).
#[allow(clippy::too_many_arguments)]
pub(crate) fn crawled_page_statement(
    scan_id: Uuid,
    org: &str,
    url_key: &str,
    holder: &str,
    facts: &str,
    page: &ReportPage,
    findings: &[Finding],
    change: Option<Change>,
) -> (String, Vec<sea_orm::Value>) {
    // $1 scan, $2 holder, $3 facts, $4 url key, $5 the page row's id, $6.. the page's columns.
    let mut values: Vec<sea_orm::Value> = vec![scan_id.into(), holder.into(), facts.into(), url_key.into(), Uuid::now_v7().into()];
    values.extend(page_columns(page));
    let page_marks: Vec<String> = (6..=values.len()).map(|i| format!("${i}")).collect();
    let written = if findings.is_empty() {
        "SELECT 0 AS n FROM done".to_string()
    } else {
        let rows = finding_rows(&mut values, scan_id, org, now_us(), findings, change);
        format!("INSERT INTO findings ({columns}) SELECT v.* FROM (VALUES {rows}) AS v({columns}) WHERE EXISTS (SELECT 1 FROM done) RETURNING 0 AS n", columns = finding::columns())
    };
    let sql = format!(
        "WITH lazy AS (SELECT set_config('synchronous_commit', 'off', true) AS c), \
         done AS (UPDATE crawl_pages SET state = 'done', facts = $3, done_by = $2, holder = NULL, lease_expires_at = NULL \
                  WHERE scan_id = $1 AND url_key = $4 AND state = 'claimed' AND holder = $2 RETURNING 1), \
         found AS ({written}), \
         number AS (INSERT INTO scan_page_numbers (scan_id, last_seq) \
                    SELECT $1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM scan_pages WHERE scan_id = $1) \
                    WHERE EXISTS (SELECT 1 FROM done) AND (SELECT COUNT(*) FROM found) >= 0 \
                    ON CONFLICT (scan_id) DO UPDATE SET last_seq = scan_page_numbers.last_seq + 1 RETURNING last_seq) \
         {}",
        insert_page_sql(&format!("SELECT $5, $1, number.last_seq, {} FROM number, lazy", page_marks.join(", ")))
    );
    (sql, values)
}

/// Filters of `GET /api/v1/findings`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FindingFilter {
    pub severities: Vec<Severity>,
    pub check_id: Option<String>,
    /// Inclusive lower bound on creation time (microseconds).
    pub since: Option<i64>,
    pub scan_id: Option<Uuid>,
    /// Categories (the check id's prefix before the dot); any of them.
    pub categories: Vec<String>,
    /// Exclusive upper bound on creation time (microseconds).
    pub until: Option<i64>,
    /// Text the page URL contains (taken literally: `%` and `_` are not wildcards).
    pub url_contains: Option<String>,
}

/// `text` for a LIKE pattern with `\\` as the escape: its `%`, `_` and `\\` match themselves.
fn like_literal(text: &str) -> String {
    text.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")
}



async fn insert_findings_in<C: ConnectionTrait>(
    conn: &C,
    scan_id: Uuid,
    org: &str,
    findings: &[Finding],
    change: Option<Change>,
) -> StoreResult<()> {
    let backend = conn.get_database_backend();
    let now = now_us();
    for chunk in findings.chunks(INSERT_CHUNK) {
        let mut values = Vec::with_capacity(chunk.len() * 16);
        let rows = finding_rows(&mut values, scan_id, org, now, chunk, change);
        let sql = format!("INSERT INTO findings ({}) VALUES {rows}", finding::columns());
        conn.execute_raw(statement(backend, &sql, values)).await?;
    }
    Ok(())
}

async fn insert_page_in<C: ConnectionTrait>(conn: &C, scan_id: Uuid, org: &str, seq: i32, page: &ReportPage, findings: &[Finding]) -> StoreResult<()> {
    insert_page_row(conn, scan_id, seq, page).await?;
    insert_findings_in(conn, scan_id, org, findings, None).await
}

async fn insert_page_row<C: ConnectionTrait>(conn: &C, scan_id: Uuid, seq: i32, page: &ReportPage) -> StoreResult<()> {
    let backend = conn.get_database_backend();
    let mut values = vec![Uuid::now_v7().into(), scan_id.into(), seq.into()];
    values.extend(page_columns(page));
    let sql = insert_page_sql("VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)");
    conn.execute_raw(statement(backend, &sql, values)).await?;
    Ok(())
}

/// `INSERT INTO scan_pages` with every column, from `rows` (`VALUES (...)` or a `SELECT`).
fn insert_page_sql(rows: &str) -> String {
    format!("INSERT INTO scan_pages (id, scan_id, seq, url, final_url, status, title, metrics, error, checks_not_run, created_at) {rows}")
}

/// The page row's columns after `id`, `scan_id` and `seq`, in `insert_page_sql`'s order.
fn page_columns(page: &ReportPage) -> Vec<sea_orm::Value> {
    vec![
        page.url.clone().into(),
        page.final_url.clone().into(),
        page.status.map(i32::from).into(),
        page.title.clone().into(),
        Some(page.metrics.to_string()).into(),
        page.error.as_ref().map(|e| e.to_string()).into(),
        (!page.checks_not_run.is_empty()).then(|| serde_json::to_string(&page.checks_not_run).unwrap_or_default()).into(),
        now_us().into(),
    ]
}

impl Store {
    /// Writes one page and its findings atomically: a crash leaves the page wholly written or
    /// not at all.
    pub async fn insert_page_results(
        &self,
        scan_id: Uuid,
        org: &str,
        seq: i32,
        page: &ReportPage,
        findings: &[Finding],
    ) -> StoreResult<()> {
        let txn = self.conn().begin().await?;
        insert_page_in(&txn, scan_id, org, seq, page, findings).await?;
        txn.commit().await?;
        Ok(())
    }

    /// Writes one page and its findings atomically after the scan's last page (its `seq` is
    /// the next; writers of one scan take turns, so pages are numbered in the order they
    /// commit and a live reader that follows `seq` misses none).
    pub async fn append_page_results(&self, scan_id: Uuid, org: &str, page: &ReportPage, findings: &[Finding]) -> StoreResult<()> {
        let txn = self.conn().begin().await?;
        self.append_page_in(&txn, scan_id, org, page, findings, None).await?;
        txn.commit().await?;
        Ok(())
    }

    pub(crate) async fn append_page_in<C: ConnectionTrait>(
        &self,
        conn: &C,
        scan_id: Uuid,
        org: &str,
        page: &ReportPage,
        findings: &[Finding],
        change: Option<Change>,
    ) -> StoreResult<()> {
        // The findings first: they carry no number, and writing them is most of the page's write.
        insert_findings_in(conn, scan_id, org, findings, change).await?;
        // Then the turn: the scan's counter taken and raised (PostgreSQL holds its row lock to
        // the commit, so the next writer's number waits for this page to commit; SQLite's write
        // lock is held already). A scan without a counter yet starts it after its highest page
        // number. On PostgreSQL the page's row is written by the same statement, so that a turn
        // is one statement and the commit.
        if self.backend() == DatabaseBackend::Postgres {
            let mut values = vec![scan_id.into(), Uuid::now_v7().into()];
            values.extend(page_columns(page));
            let rows = "SELECT $2, $1, n.last_seq, $3, $4, $5, $6, $7, $8, $9, $10 FROM n";
            let sql = format!("WITH n AS ({TAKE}) {}", insert_page_sql(rows));
            conn.execute_raw(self.stmt(&sql, values)).await?;
            return Ok(());
        }
        let seq: i32 = conn
            .query_one_raw(self.stmt(TAKE, vec![scan_id.into()]))
            .await?
            .ok_or_else(|| StoreError::Corrupt("the scan's page counter returned no number".into()))?
            .try_get("", "last_seq")?;
        insert_page_row(conn, scan_id, seq, page).await
    }

    /// Writes findings that belong to no single page render (site-level checks), atomically.
    pub async fn insert_findings(&self, scan_id: Uuid, org: &str, findings: &[Finding]) -> StoreResult<()> {
        let txn = self.conn().begin().await?;
        insert_findings_in(&txn, scan_id, org, findings, None).await?;
        txn.commit().await?;
        Ok(())
    }

    /// Removes what an earlier, interrupted attempt of a scan wrote (so a retry does not
    /// duplicate findings).
    pub async fn delete_scan_results(&self, scan_id: Uuid) -> StoreResult<()> {
        let txn = self.conn().begin().await?;
        finding::Entity::delete_many().filter(finding::Column::ScanId.eq(scan_id)).exec(&txn).await?;
        scan_page::Entity::delete_many().filter(scan_page::Column::ScanId.eq(scan_id)).exec(&txn).await?;
        txn.commit().await?;
        Ok(())
    }

    /// The organisation's findings, newest first, filtered, `limit` per page after `cursor`.
    pub async fn list_findings(
        &self,
        org: &str,
        filter: &FindingFilter,
        limit: u64,
        cursor: Option<Position>,
    ) -> StoreResult<Page<StoredFinding>> {
        let mut query = finding::Entity::find().filter(finding::Column::OrgId.eq(org));
        if !filter.severities.is_empty() {
            query = query.filter(finding::Column::Severity.is_in(filter.severities.iter().map(|s| s.as_str())));
        }
        if let Some(check) = &filter.check_id {
            query = query.filter(finding::Column::CheckId.eq(check.as_str()));
        }
        if let Some(since) = filter.since {
            query = query.filter(finding::Column::CreatedAt.gte(since));
        }
        if let Some(scan) = filter.scan_id {
            query = query.filter(finding::Column::ScanId.eq(scan));
        }
        if !filter.categories.is_empty() {
            let mut any = sea_orm::Condition::any();
            for c in &filter.categories {
                any = any.add(sea_orm::sea_query::ExprTrait::like(sea_orm::sea_query::Expr::col(finding::Column::CheckId), sea_orm::sea_query::LikeExpr::new(format!("{}.%", like_literal(c))).escape('\\')));
            }
            query = query.filter(any);
        }
        if let Some(until) = filter.until {
            query = query.filter(finding::Column::CreatedAt.lt(until));
        }
        if let Some(text) = filter.url_contains.as_deref().filter(|t| !t.is_empty()) {
            query = query.filter(sea_orm::sea_query::ExprTrait::like(sea_orm::sea_query::Expr::col(finding::Column::PageUrl), sea_orm::sea_query::LikeExpr::new(format!("%{}%", like_literal(text))).escape('\\')));
        }
        let keys = Keyset {
            kind: CursorKind::Findings,
            created_at: finding::Column::CreatedAt,
            id: finding::Column::Id,
            position: |r: &finding::Model| Position { created_at: r.created_at, id: r.id },
        };
        Ok(self.keyset_page(query, keys, limit, cursor).await?.map(Into::into))
    }

    /// Every finding of one scan, in insertion order.
    pub async fn scan_findings(&self, scan_id: Uuid) -> StoreResult<Vec<StoredFinding>> {
        Ok(finding::Entity::find()
            .filter(finding::Column::ScanId.eq(scan_id))
            .order_by_asc(finding::Column::CreatedAt)
            .order_by_asc(finding::Column::Id)
            .all(self.conn())
            .await?
            .into_iter()
            .map(Into::into)
            .collect())
    }

    /// A scan's findings as a comparison needs them, read [`SLIM_BATCH`] rows at a time so that
    /// at most one batch of whole rows is in memory: each row keeps its id, check, severity and
    /// page, and of its evidence only what identifies it (`url`, `resource`, `selector`,
    /// `journey`); title, description and remediation are left out. In report order.
    pub async fn scan_findings_slim(&self, scan_id: Uuid) -> StoreResult<Vec<StoredFinding>> {
        use sea_orm::Condition;
        let mut out = Vec::new();
        let mut after: Option<(i64, Uuid)> = None;
        loop {
            let mut query = finding::Entity::find().filter(finding::Column::ScanId.eq(scan_id));
            if let Some((at, id)) = after {
                query = query.filter(
                    Condition::any()
                        .add(finding::Column::CreatedAt.gt(at))
                        .add(Condition::all().add(finding::Column::CreatedAt.eq(at)).add(finding::Column::Id.gt(id))),
                );
            }
            let batch = query
                .order_by_asc(finding::Column::CreatedAt)
                .order_by_asc(finding::Column::Id)
                .limit(SLIM_BATCH)
                .all(self.conn())
                .await?;
            let full = batch.len() as u64 == SLIM_BATCH;
            for model in batch {
                after = Some((model.created_at, model.id));
                let mut row: StoredFinding = model.into();
                let f = &mut row.finding;
                f.evidence.retain(|k, _| ["url", "resource", "selector", "journey"].contains(&k.as_str()));
                (f.title, f.description, f.remediation) = (String::new(), String::new(), String::new());
                out.push(row);
            }
            if !full {
                return Ok(out);
            }
        }
    }

    /// The findings of `ids` whole, in the order of `ids` (those that exist), read
    /// [`INSERT_CHUNK`] at a time.
    pub async fn findings_by_ids(&self, ids: &[Uuid]) -> StoreResult<Vec<StoredFinding>> {
        let mut found: std::collections::HashMap<Uuid, StoredFinding> = std::collections::HashMap::with_capacity(ids.len());
        for chunk in ids.chunks(INSERT_CHUNK) {
            for model in finding::Entity::find().filter(finding::Column::Id.is_in(chunk.iter().copied())).all(self.conn()).await? {
                let row: StoredFinding = model.into();
                found.insert(row.id, row);
            }
        }
        Ok(ids.iter().filter_map(|id| found.remove(id)).collect())
    }

    /// Up to `limit` pages of one scan after sequence number `seq`, in crawl order.
    pub async fn scan_pages_after(&self, scan_id: Uuid, seq: i32, limit: u64) -> StoreResult<Vec<PageRow>> {
        Ok(scan_page::Entity::find()
            .filter(scan_page::Column::ScanId.eq(scan_id))
            .filter(scan_page::Column::Seq.gt(seq))
            .order_by_asc(scan_page::Column::Seq)
            .limit(limit)
            .all(self.conn())
            .await?
            .into_iter()
            .map(Into::into)
            .collect())
    }

    /// Every page of one scan, in crawl order.
    pub async fn scan_pages(&self, scan_id: Uuid) -> StoreResult<Vec<PageRow>> {
        Ok(scan_page::Entity::find()
            .filter(scan_page::Column::ScanId.eq(scan_id))
            .order_by_asc(scan_page::Column::Seq)
            .all(self.conn())
            .await?
            .into_iter()
            .map(Into::into)
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AddressPolicy, ScanMode, Target, TriggeredBy};

    #[tokio::test]
    async fn slim_findings_are_every_finding_in_order_with_only_what_identifies_it() {
        let store = Store::open("sqlite::memory:", true).await.unwrap();
        store.set_org("acme", None).await.unwrap();
        let target = Target::parse("https://a.test/", &AddressPolicy::default()).unwrap();
        let scan = match store.create_scan("acme", &target, ScanMode::Passive, TriggeredBy::Api, None).await.unwrap() {
            crate::CreateOutcome::Created(row) => row.id,
            other => panic!("{other:?}"),
        };
        let n = SLIM_BATCH as usize * 2 + 500;
        let findings: Vec<Finding> = (0..n)
            .map(|i| Finding {
                check_id: "search.title-missing".into(),
                severity: Severity::Low,
                title: "t".into(),
                description: "d".repeat(100),
                remediation: "r".into(),
                cwe_id: None,
                evidence: serde_json::json!({"url": format!("https://a.test/{i}"), "selector": "title", "snippet": "x".repeat(2000)})
                    .as_object()
                    .cloned()
                    .unwrap(),
                ..Finding::default()
            })
            .collect();
        store.insert_findings(scan, "acme", &findings).await.unwrap();
        let whole = store.scan_findings(scan).await.unwrap();
        let slim = store.scan_findings_slim(scan).await.unwrap();
        assert_eq!(slim.iter().map(|r| r.id).collect::<Vec<_>>(), whole.iter().map(|r| r.id).collect::<Vec<_>>(), "all of them, in report order");
        let e = serde_json::Value::Object(slim[7].finding.evidence.clone());
        assert_eq!(e, serde_json::json!({"url": whole[7].finding.evidence["url"], "selector": "title"}));
        assert!(slim.iter().all(|r| r.finding.title.is_empty() && r.finding.description.is_empty()));
    }
}
