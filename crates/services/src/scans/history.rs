//! A site over time, as every edge reads it: its completed scans a page at a time (the counts
//! and vitals the dashboard's charts draw) and any two of its scans compared. The rules of both
//! live here: which target names a site, a page's size, which scans can be compared.

use super::query::{self, Issue, ListQuery};
use super::service::{ScanService, ScanServiceError};
use crate::compare::{ScanComparison, diff_scans};
use crate::model::{OrgId, ScanStatus};
use crate::store::history::{HistoryPoint, origin_of};
use crate::store::{CursorKind, Page};
use uuid::Uuid;

/// Page size bounds of a history (min, default, max).
pub const HISTORY_LIMIT: (i64, i64, i64) = (1, 50, 100);
/// Longest target accepted.
pub const MAX_TARGET_LEN: usize = 2048;

/// Whose history: a URL or a bare hostname (its origin is the site), and a page of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HistoryQuery {
    pub target: Option<String>,
    pub page: ListQuery,
}

/// A site's history: the origin it was read for, and a page of its completed scans, newest first.
#[derive(Debug)]
pub struct History {
    pub origin: String,
    pub page: Page<HistoryPoint>,
}

/// The origin a target names: `https://` when the target has no scheme; http(s) only.
fn origin(target: Option<&str>, issues: &mut Vec<Issue>) -> Option<String> {
    let target = target.map(str::trim).unwrap_or_default();
    let refuse = |issues: &mut Vec<Issue>, why: &str| {
        issues.push(Issue::new("target", why));
        None
    };
    if target.is_empty() {
        return refuse(issues, "is required: the URL or hostname of the site");
    }
    if target.len() > MAX_TARGET_LEN {
        return refuse(issues, &format!("must be at most {MAX_TARGET_LEN} characters"));
    }
    let url = if target.contains("://") { target.to_string() } else { format!("https://{target}") };
    match url::Url::parse(&url) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some() => origin_of(u.as_str()),
        _ => refuse(issues, "must be an http(s) URL or a hostname such as example.com"),
    }
}

fn scan_id(field: &str, text: Option<&str>, issues: &mut Vec<Issue>) -> Option<Uuid> {
    match text.map(str::trim).filter(|t| !t.is_empty()) {
        None => {
            issues.push(Issue::new(field, "is required: the id of a completed scan"));
            None
        }
        Some(t) => Uuid::parse_str(t).map_err(|_| issues.push(Issue::new(field, "must be a scan id"))).ok(),
    }
}

impl ScanService {
    /// The completed scans of the site `q.target` names, newest first, a page at a time.
    pub async fn history(&self, org: OrgId<'_>, q: &HistoryQuery) -> Result<History, ScanServiceError> {
        let mut issues = Vec::new();
        let origin = origin(q.target.as_deref(), &mut issues);
        let limit = query::limit(q.page.limit, HISTORY_LIMIT, &mut issues);
        let cursor = query::cursor(self.store().cursors(), CursorKind::History, q.page.cursor.as_deref(), &mut issues);
        let Some(origin) = origin.filter(|_| issues.is_empty()) else { return Err(ScanServiceError::Invalid(issues)) };
        let page = self.store().origin_history_page(org.as_str(), &origin, limit, cursor).await?;
        Ok(History { origin, page })
    }

    /// The last `limit` completed scans of `origin`, oldest first (the site page's charts), and
    /// the budget verdict of the newest one, if its site had a budget.
    pub async fn site_trend(&self, org: OrgId<'_>, origin: &str, limit: u64) -> Result<(Vec<HistoryPoint>, Option<crate::model::BudgetResult>), ScanServiceError> {
        let history = self.store().origin_history(org.as_str(), origin, limit).await?;
        let verdict = match history.last() {
            Some(latest) => self
                .store()
                .scan_report(org.as_str(), latest.scan_id, false)
                .await?
                .and_then(|r| r.report)
                .and_then(|r| r.summary.budget),
            None => None,
        };
        Ok((history, verdict))
    }

    /// Scan `head` compared with scan `base`: two completed scans of one site (the same origin).
    pub async fn compare(&self, org: OrgId<'_>, base: Option<&str>, head: Option<&str>) -> Result<ScanComparison, ScanServiceError> {
        let mut issues = Vec::new();
        let (base, head) = (scan_id("base", base, &mut issues), scan_id("head", head, &mut issues));
        let (Some(base), Some(head)) = (base, head) else { return Err(ScanServiceError::Invalid(issues)) };
        let store = self.store();
        let base = store.scan(org.as_str(), base).await?.ok_or(ScanServiceError::NotFound)?;
        let head = store.scan(org.as_str(), head).await?.ok_or(ScanServiceError::NotFound)?;
        for (field, scan) in [("base", &base), ("head", &head)] {
            if scan.status != ScanStatus::Completed {
                issues.push(Issue::new(field, format!("is {}: only completed scans can be compared", scan.status)));
            }
        }
        let (from, to) = (origin_of(&base.target_url).unwrap_or_default(), origin_of(&head.target_url).unwrap_or_default());
        if from != to {
            issues.push(Issue::new("head", format!("is a scan of {to} and base one of {from}, different sites: compare two scans of the same site")));
        }
        if !issues.is_empty() {
            return Err(ScanServiceError::Invalid(issues));
        }
        let diff = diff_scans(store, &base, &head).await?;
        Ok(ScanComparison::of(&base, &head, &diff))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_names_its_origin() {
        let of = |t: &str| {
            let mut issues = Vec::new();
            (origin(Some(t), &mut issues), issues.len())
        };
        assert_eq!(of("example.com"), (Some("https://example.com".into()), 0));
        assert_eq!(of("http://example.com:8080/shop?x=1"), (Some("http://example.com:8080".into()), 0));
        assert_eq!(of(" https://Example.COM/ "), (Some("https://example.com".into()), 0));
        for bad in ["", "   ", "ftp://example.com", "https://", "http://[::1"] {
            assert_eq!(of(bad), (None, 1), "{bad:?}");
        }
        assert_eq!(of(&format!("https://e.com/{}", "a".repeat(3000))).1, 1);
    }
}
