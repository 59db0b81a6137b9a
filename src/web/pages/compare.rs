//! `/compare?base=ID&head=ID`: two scans of one target side by side, like Lighthouse CI's compare
//! view: findings new in the head, fixed since the base and persisting, grouped by check; counts
//! per category; pages added and gone; each page's Core Web Vitals before and after.

use super::when;
use crate::compare::diff_scans;
use crate::store::FindingRow;
use crate::web::error::PageError;
use crate::web::session::Session;
use crate::web::state::WebState;
use crate::web::templates::{CheckGroup, ComparePage, Chrome, ScanRef, VitalsLine, render};
use axum::extract::{RawQuery, State};
use axum::response::Response;
use std::collections::BTreeMap;

/// Findings grouped by check id, each as (page, locator).
fn groups(rows: &[FindingRow]) -> Vec<CheckGroup> {
    let mut by: BTreeMap<&str, Vec<(String, String)>> = BTreeMap::new();
    for r in rows {
        let evidence = r.evidence_json();
        let at = |k: &str| evidence.as_ref().and_then(|e| e.get(k)).and_then(|v| v.as_str()).unwrap_or_default().to_string();
        let locator = [at("selector"), at("resource")].into_iter().find(|s| !s.is_empty()).unwrap_or_default();
        by.entry(&r.check_id).or_default().push((r.page_url.clone().unwrap_or_else(|| at("url")), locator));
    }
    by.into_iter().map(|(check, items)| CheckGroup { check_id: check.to_string(), items }).collect()
}

fn fmt(v: Option<f64>, unit: &str) -> String {
    match v {
        None => "–".into(),
        Some(v) if unit == "ms" => format!("{v:.0} ms"),
        Some(v) => format!("{v:.3}"),
    }
}

/// `GET /compare?base=ID&head=ID`
pub async fn compare(State(state): State<WebState>, s: Session, RawQuery(q): RawQuery) -> Result<Response, PageError> {
    let params: BTreeMap<String, String> = url::form_urlencoded::parse(q.as_deref().unwrap_or("").as_bytes()).into_owned().collect();
    let id = |k: &str| -> Result<uuid::Uuid, PageError> {
        params.get(k).and_then(|v| uuid::Uuid::parse_str(v.trim()).ok()).ok_or_else(|| PageError::BadRequest(format!("Give two scans to compare: ?base=SCAN_ID&head=SCAN_ID ({k} is missing or not a scan id).")))
    };
    let (base_id, head_id) = (id("base")?, id("head")?);
    let store = state.store();
    let base = store.scan(&s.user.org_id, base_id).await.map_err(PageError::internal)?.ok_or(PageError::NotFound)?;
    let head = store.scan(&s.user.org_id, head_id).await.map_err(PageError::internal)?.ok_or(PageError::NotFound)?;
    let origin = |u: &str| url::Url::parse(u).map(|u| u.origin().ascii_serialization()).unwrap_or_default();
    if origin(&base.target_url) != origin(&head.target_url) {
        return Err(PageError::BadRequest(format!("These scans are of different sites ({} and {}): compare two scans of the same one.", origin(&base.target_url), origin(&head.target_url))));
    }
    for scan in [&base, &head] {
        if scan.status != crate::model::ScanStatus::Completed {
            return Err(PageError::BadRequest(format!("The scan of {} is {}: only completed scans can be compared.", when(scan.created_at), scan.status)));
        }
    }
    let diff = diff_scans(store, &base, &head).await.map_err(PageError::internal)?;
    let scan_ref = |r: &crate::store::ScanRow| ScanRef { id: r.id.to_string(), when: when(r.completed_at.unwrap_or(r.created_at)), mode: r.mode.to_string(), target: r.target_url.clone() };
    let page = ComparePage {
        chrome: Chrome::new("Compare scans", Some(&s), "scans"),
        base: scan_ref(&base),
        head: scan_ref(&head),
        new_count: diff.counts.new,
        fixed_count: diff.counts.fixed,
        persisting_count: diff.counts.persisting,
        sections: vec![
            ("New in the head".into(), "new".into(), groups(&diff.new)),
            ("Fixed since the base".into(), "fixed".into(), groups(&diff.fixed)),
        ],
        persisting: groups(&diff.persisting),
        categories: diff.categories.iter().map(|(c, b, h)| (c.clone(), *b, *h, *h as i64 - *b as i64)).collect(),
        pages_added: diff.pages_added,
        pages_gone: diff.pages_gone,
        vitals: diff
            .vitals
            .iter()
            .map(|v| VitalsLine {
                url: v.url.clone(),
                lcp: (fmt(v.lcp_ms.0, "ms"), fmt(v.lcp_ms.1, "ms")),
                cls: (fmt(v.cls.0, ""), fmt(v.cls.1, "")),
                tbt: (fmt(v.tbt_ms.0, "ms"), fmt(v.tbt_ms.1, "ms")),
            })
            .collect(),
    };
    Ok(render(&page))
}
