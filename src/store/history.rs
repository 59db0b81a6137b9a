//! A target's history: its completed scans in time order, each with its findings per severity
//! and per category and its pages' Core Web Vitals at the 75th percentile, for the dashboard's
//! charts (and, later, the API's).

use super::Store;
use super::entity::{scan, scan_page};
use super::error::StoreResult;
use crate::model::SeverityCounts;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use serde_json::Value;
use std::collections::BTreeMap;
use uuid::Uuid;

/// One completed scan of the target.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryPoint {
    pub scan_id: Uuid,
    pub completed_at: i64,
    pub mode: crate::model::ScanMode,
    pub counts: SeverityCounts,
    /// Findings per category (every severity).
    pub categories: BTreeMap<String, u64>,
    /// The 75th percentile over the scan's pages that measured it (`None`: none did).
    pub lcp_p75_ms: Option<f64>,
    pub cls_p75: Option<f64>,
    pub tbt_p75_ms: Option<f64>,
}

/// The 75th percentile of `values` (nearest rank, as CrUX reports it); `None` when empty.
pub fn p75(values: &mut [f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let rank = (0.75 * values.len() as f64).ceil() as usize;
    Some(values[rank.clamp(1, values.len()) - 1])
}

impl Store {
    /// The newest `limit` completed scans of `org` whose target is on `origin` (scheme, host and
    /// port), oldest first. Passive and active scans alike.
    pub async fn origin_history(&self, org: &str, origin: &str, limit: u64) -> StoreResult<Vec<HistoryPoint>> {
        let Ok(wanted) = url::Url::parse(origin) else { return Ok(Vec::new()) };
        let host = wanted.host_str().unwrap_or_default().to_string();
        let rows = scan::Entity::find()
            .filter(scan::Column::OrgId.eq(org))
            .filter(scan::Column::TargetHostname.eq(host))
            .filter(scan::Column::Status.eq("completed"))
            .order_by_desc(scan::Column::CreatedAt)
            .order_by_desc(scan::Column::Id)
            .limit(limit * 4)
            .all(self.conn())
            .await?;
        let mut rows: Vec<scan::Model> = rows
            .into_iter()
            .filter(|r| url::Url::parse(&r.target_url).is_ok_and(|u| u.origin() == wanted.origin()))
            .take(limit as usize)
            .collect();
        rows.reverse();
        let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
        let mut vitals: BTreeMap<Uuid, [Vec<f64>; 3]> = BTreeMap::new();
        if !ids.is_empty() {
            let pages = scan_page::Entity::find()
                .filter(scan_page::Column::ScanId.is_in(ids.iter().copied()))
                .select_only()
                .column(scan_page::Column::ScanId)
                .column(scan_page::Column::Metrics)
                .into_tuple::<(Uuid, Option<String>)>()
                .all(self.conn())
                .await?;
            for (scan_id, metrics) in pages {
                let Some(m) = metrics.and_then(|m| serde_json::from_str::<Value>(&m).ok()) else { continue };
                let entry = vitals.entry(scan_id).or_default();
                for (i, key) in ["lcp_ms", "cls", "tbt_ms"].iter().enumerate() {
                    if let Some(v) = m.get(*key).and_then(Value::as_f64).filter(|v| v.is_finite()) {
                        entry[i].push(v);
                    }
                }
            }
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
                    .collect();
                let mut v = vitals.remove(&r.id).unwrap_or_default();
                HistoryPoint {
                    scan_id: r.id,
                    completed_at: r.completed_at.unwrap_or(r.created_at),
                    mode: r.mode,
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

#[cfg(test)]
mod tests {
    use super::p75;

    #[test]
    fn the_75th_percentile_is_the_nearest_rank() {
        assert_eq!(p75(&mut []), None);
        assert_eq!(p75(&mut [5.0]), Some(5.0));
        assert_eq!(p75(&mut [4.0, 1.0, 3.0, 2.0]), Some(3.0));
        assert_eq!(p75(&mut [1.0, 2.0, 3.0, 4.0, 5.0]), Some(4.0));
    }
}
