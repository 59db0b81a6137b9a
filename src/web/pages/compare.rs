//! `/compare?base=ID&head=ID`: two scans of one target side by side, like Lighthouse CI's compare
//! view: findings new in the head, fixed since the base and persisting, grouped by check; counts
//! per category; pages added and gone; each page's Core Web Vitals before and after. The scan
//! service compares (the API's `CompareScans` is the same answer); this page only shows it.

use super::when;
use crate::compare::view::{BeforeAfter, ComparedScan};
use crate::scans::ScanServiceError;
use crate::web::error::DashboardError;
use crate::web::session::Session;
use crate::web::state::WebState;
use crate::web::templates::{CheckGroupView, ComparePage, Chrome, ScanRef, VitalsLine, render};
use axum::extract::{RawQuery, State};
use axum::response::Response;
use std::collections::BTreeMap;

fn groups(groups: &[crate::compare::view::CheckGroup]) -> Vec<CheckGroupView> {
    groups
        .iter()
        .map(|g| CheckGroupView {
            check_id: g.check_id.clone(),
            count: g.count,
            items: g.findings.iter().map(|f| (f.page_url.clone().unwrap_or_default(), f.locator.clone().unwrap_or_default())).collect(),
            omitted: g.omitted,
        })
        .collect()
}

fn fmt(v: BeforeAfter, unit: &str) -> (String, String) {
    let one = |v: Option<f64>| match v {
        None => "–".into(),
        Some(v) if unit == "ms" => format!("{v:.0} ms"),
        Some(v) => format!("{v:.3}"),
    };
    (one(v.base), one(v.head))
}

fn scan_ref(s: &ComparedScan) -> ScanRef {
    let at = chrono::DateTime::parse_from_rfc3339(&s.completed_at).map(|t| t.timestamp_micros()).unwrap_or_default();
    ScanRef { id: s.id.clone(), when: when(at), mode: s.mode.to_string(), target: s.target.clone() }
}

/// `GET /compare?base=ID&head=ID`
pub async fn compare(State(state): State<WebState>, s: Session, RawQuery(q): RawQuery) -> Result<Response, DashboardError> {
    let params: BTreeMap<String, String> = url::form_urlencoded::parse(q.as_deref().unwrap_or("").as_bytes()).into_owned().collect();
    let diff = match state.scans().compare(s.org(), params.get("base").map(String::as_str), params.get("head").map(String::as_str)).await {
        Ok(diff) => diff,
        Err(ScanServiceError::NotFound) => return Err(DashboardError::NotFound),
        Err(ScanServiceError::Invalid(issues)) => {
            let why: Vec<String> = issues.iter().map(|i| format!("{}: {}", i.path, i.message)).collect();
            return Err(DashboardError::BadRequest(format!("Give two completed scans of one site to compare, as ?base=SCAN_ID&head=SCAN_ID ({}).", why.join("; "))));
        }
        Err(e) => return Err(DashboardError::internal(e)),
    };
    let page = ComparePage {
        chrome: Chrome::new("Compare scans", Some(&s), "scans"),
        base: scan_ref(&diff.base),
        head: scan_ref(&diff.head),
        new_count: diff.counts.new,
        fixed_count: diff.counts.fixed,
        persisting_count: diff.counts.persisting,
        sections: vec![("New in the head".into(), "new".into(), groups(&diff.new)), ("Fixed since the base".into(), "fixed".into(), groups(&diff.fixed))],
        persisting: groups(&diff.persisting),
        categories: diff.categories.iter().map(|c| (c.category.clone(), c.base, c.head, c.head as i64 - c.base as i64)).collect(),
        pages_added: diff.pages_added,
        pages_gone: diff.pages_gone,
        vitals: diff.vitals.iter().map(|v| VitalsLine { url: v.url.clone(), lcp: fmt(v.lcp_ms, "ms"), cls: fmt(v.cls_score, ""), tbt: fmt(v.tbt_ms, "ms") }).collect(),
    };
    Ok(render(&page))
}
