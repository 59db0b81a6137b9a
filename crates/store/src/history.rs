//! A target's history: its completed scans in time order, each with its findings per severity
//! and per category and its pages' Core Web Vitals at the 75th percentile, for the dashboard's
//! charts and the API's history, a page at a time.

use super::Store;
use super::cursor::{CursorKind, Position};
use super::entity::{scan, scan_page};
use super::error::StoreResult;
use super::paging::{Keyset, Page};
pub use crate::model::percentile::p75;
use crate::model::SeverityCounts;
use futures::TryStreamExt;
use sea_orm::{ColumnTrait, Condition, EntityTrait, QueryFilter, QuerySelect};
use serde_json::Value;
use std::collections::BTreeMap;
use uuid::Uuid;

/// One completed scan of the target.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryPoint {
    pub scan_id: Uuid,
    /// The scanned URL (on the origin).
    pub target: String,
    pub completed_at: i64,
    pub mode: crate::model::ScanMode,
    pub counts: SeverityCounts,
    /// Findings per category (every severity); categories without findings are absent.
    pub categories: BTreeMap<String, u64>,
    /// The 75th percentile over the scan's pages that measured it (`None`: none did).
    pub lcp_p75_ms: Option<f64>,
    pub cls_p75: Option<f64>,
    pub tbt_p75_ms: Option<f64>,
}

/// The origin (scheme, host and port) of a target URL, as history groups scans.
pub fn origin_of(url: &str) -> Option<String> {
    url::Url::parse(url).ok().map(|u| u.origin().ascii_serialization()).filter(|o| o != "null")
}

impl Store {
    /// The newest `limit` completed scans of `org` whose target is on `origin` (scheme, host and
    /// port), oldest first. Passive and active scans alike. What the dashboard's charts draw.
    pub async fn origin_history(&self, org: &str, origin: &str, limit: u64) -> StoreResult<Vec<HistoryPoint>> {
        let mut page = self.origin_history_page(org, origin, limit, None).await?;
        page.rows.reverse();
        Ok(page.rows)
    }

    /// One page of the completed scans of `org` on `origin`, newest first, `limit` after `cursor`.
    pub async fn origin_history_page(&self, org: &str, origin: &str, limit: u64, cursor: Option<Position>) -> StoreResult<Page<HistoryPoint>> {
        let Some(wanted) = origin_of(origin) else { return Ok(Page { rows: Vec::new(), next_cursor: None }) };
        let host = url::Url::parse(&wanted).ok().and_then(|u| u.host_str().map(str::to_string)).unwrap_or_default();
        let query = scan::Entity::find()
            .filter(scan::Column::OrgId.eq(org))
            .filter(scan::Column::TargetHostname.eq(host))
            .filter(scan::Column::Status.eq("completed"))
            .filter(Condition::any().add(scan::Column::TargetUrl.eq(wanted.as_str())).add(scan::Column::TargetUrl.starts_with(format!("{wanted}/"))));
        let keys = Keyset {
            kind: CursorKind::History,
            created_at: scan::Column::CreatedAt,
            id: scan::Column::Id,
            position: |r: &scan::Model| Position { created_at: r.created_at, id: r.id },
        };
        let page = self.keyset_page(query, keys, limit, cursor).await?;
        // `LIKE` reads `_` in a host as any character: keep exactly the origin's scans.
        let rows: Vec<scan::Model> = page.rows.into_iter().filter(|r| origin_of(&r.target_url).as_deref() == Some(wanted.as_str())).collect();
        Ok(Page { rows: self.history_points(rows).await?, next_cursor: page.next_cursor })
    }

    /// Each scan with its counts and its pages' vitals at the 75th percentile. A scan's pages
    /// (up to 10,000) are read one scan at a time as a stream of rows, keeping only the three
    /// numbers of each: the memory is the numbers of one scan, not every page's metrics text of
    /// the whole page of history.
    async fn history_points(&self, rows: Vec<scan::Model>) -> StoreResult<Vec<HistoryPoint>> {
        let mut vitals: BTreeMap<Uuid, [Vec<f64>; 3]> = BTreeMap::new();
        for row in &rows {
            let mut pages = scan_page::Entity::find()
                .filter(scan_page::Column::ScanId.eq(row.id))
                .filter(scan_page::Column::Metrics.is_not_null())
                .select_only()
                .column(scan_page::Column::Metrics)
                .into_tuple::<Option<String>>()
                .stream(self.conn())
                .await?;
            let mut values: [Vec<f64>; 3] = Default::default();
            while let Some(metrics) = pages.try_next().await? {
                let Some(m) = metrics.and_then(|m| serde_json::from_str::<Value>(&m).ok()) else { continue };
                for (i, key) in ["lcp_ms", "cls", "tbt_ms"].iter().enumerate() {
                    if let Some(v) = m.get(*key).and_then(Value::as_f64).filter(|v| v.is_finite()) {
                        values[i].push(v);
                    }
                }
            }
            vitals.insert(row.id, values);
        }
        Ok(rows
            .into_iter()
            .map(|r| {
                let counts: SeverityCounts = r.findings_count.as_deref().and_then(|c| serde_json::from_str(c).ok()).unwrap_or_default();
                let categories = r
                    .report
                    .as_deref()
                    .and_then(|t| serde_json::from_str::<Value>(t).ok())
                    .and_then(|v| v.get("summary").and_then(|s| s.get("categories")).cloned())
                    .and_then(|c| serde_json::from_value::<BTreeMap<String, SeverityCounts>>(c).ok())
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(k, c)| (k, c.total()))
                    .filter(|(_, n)| *n > 0)
                    .collect();
                let mut v = vitals.remove(&r.id).unwrap_or_default();
                HistoryPoint {
                    scan_id: r.id,
                    target: r.target_url,
                    completed_at: r.completed_at.unwrap_or(r.created_at),
                    mode: r.mode.0,
                    counts,
                    categories,
                    lcp_p75_ms: p75(&mut v[0]),
                    cls_p75: p75(&mut v[1]),
                    tbt_p75_ms: p75(&mut v[2]),
                }
            })
            .collect())
    }
}
