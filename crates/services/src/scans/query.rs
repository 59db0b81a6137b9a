//! The inputs of [`super::ScanService`]'s lists, and their one set of rules: page sizes,
//! cursors, severities, categories, the check id, dates (RFC 3339). An input that breaks a rule
//! is an [`Issue`] naming the field, and every issue of a request is reported at once.

use crate::model::{ACTIVE_ONLY_CATEGORIES, PASSIVE_CATEGORIES, Severity};
use crate::store::{CursorCodec, CursorKind, FindingFilter, Position};
use serde::Serialize;
use uuid::Uuid;

/// Page size bounds of the scan list (min, default, max).
pub const SCANS_LIMIT: (i64, i64, i64) = (1, 50, 100);
/// Page size bounds of the findings list (min, default, max).
pub const FINDINGS_LIMIT: (i64, i64, i64) = (1, 100, 200);
/// Longest `check_id` filter accepted.
pub const MAX_CHECK_ID_LEN: usize = 200;
/// Longest page-address filter accepted.
pub const MAX_URL_FILTER_LEN: usize = 500;

/// One problem with the input: where (`path`, e.g. `target`, `limit`, `body`) and what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Issue {
    pub path: String,
    pub message: String,
}

impl Issue {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Issue { path: path.into(), message: message.into() }
    }
}

/// A page of a list: how many, from where.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListQuery {
    pub limit: Option<i64>,
    pub cursor: Option<String>,
}

/// Which findings: every field narrows the list (a list field: any of its values).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FindingsQuery {
    /// Severity names (`critical`, ...), each item may itself be a comma-separated list.
    pub severities: Vec<String>,
    /// Category names (a check id's prefix: `accessibility`, `security`, ...).
    pub categories: Vec<String>,
    pub check_id: Option<String>,
    /// Text the page address contains, literally.
    pub url_contains: Option<String>,
    /// One scan's findings (its id).
    pub scan: Option<String>,
    /// RFC 3339: created at or after.
    pub since: Option<String>,
    /// RFC 3339: created before.
    pub until: Option<String>,
    pub page: ListQuery,
}

/// Every category a finding can be in.
pub fn categories() -> impl Iterator<Item = &'static str> {
    PASSIVE_CATEGORIES.iter().chain(ACTIVE_ONLY_CATEGORIES.iter()).copied()
}

pub(super) fn limit(limit: Option<i64>, (min, default, max): (i64, i64, i64), issues: &mut Vec<Issue>) -> u64 {
    match limit {
        None => default as u64,
        Some(l) if (min..=max).contains(&l) => l as u64,
        Some(_) => {
            issues.push(Issue::new("limit", format!("must be an integer from {min} to {max}")));
            default as u64
        }
    }
}

pub(super) fn cursor(codec: &CursorCodec, kind: CursorKind, cursor: Option<&str>, issues: &mut Vec<Issue>) -> Option<Position> {
    match cursor.map(str::trim) {
        None | Some("") => None,
        Some(c) => codec.decode(kind, c).map_err(|e| issues.push(Issue::new("cursor", e.to_string()))).ok(),
    }
}

/// An RFC 3339 date-time in microseconds.
fn instant(field: &str, text: Option<&str>, issues: &mut Vec<Issue>) -> Option<i64> {
    // Given but empty is malformed, like any other text that is no date-time.
    let text = text.map(str::trim)?;
    match chrono::DateTime::parse_from_rfc3339(text) {
        Ok(t) => Some(t.timestamp_micros()),
        Err(_) => {
            issues.push(Issue::new(field, "must be an RFC 3339 date-time such as 2026-01-31T00:00:00Z"));
            None
        }
    }
}

impl FindingsQuery {
    /// The store's filter for this query, or every rule it breaks.
    pub(super) fn filter(&self, issues: &mut Vec<Issue>) -> FindingFilter {
        let mut filter = FindingFilter::default();
        for part in self.severities.iter().flat_map(|s| s.split(',')).map(str::trim) {
            match part.parse::<Severity>() {
                Ok(s) if !filter.severities.contains(&s) => filter.severities.push(s),
                Ok(_) => {}
                Err(_) => issues.push(Issue::new(
                    "severity",
                    format!("unknown severity {part:?}: expected a comma-separated list of critical, high, medium, low, info"),
                )),
            }
        }
        for part in self.categories.iter().flat_map(|s| s.split(',')).map(str::trim).filter(|c| !c.is_empty()) {
            match categories().find(|c| *c == part) {
                Some(c) if !filter.categories.iter().any(|x| x == c) => filter.categories.push(c.to_string()),
                Some(_) => {}
                None => issues.push(Issue::new("category", format!("unknown category {part:?}: expected one of {}", categories().collect::<Vec<_>>().join(", ")))),
            }
        }
        filter.since = instant("since", self.since.as_deref(), issues);
        filter.until = instant("until", self.until.as_deref(), issues);
        if let (Some(a), Some(b)) = (filter.since, filter.until)
            && a >= b
        {
            issues.push(Issue::new("until", "must come after since"));
        }
        match self.check_id.as_deref().map(str::trim) {
            Some(c) if c.len() > MAX_CHECK_ID_LEN => issues.push(Issue::new("check_id", format!("must be at most {MAX_CHECK_ID_LEN} characters"))),
            Some(c) if !c.is_empty() => filter.check_id = Some(c.to_string()),
            _ => {}
        }
        match self.url_contains.as_deref().map(str::trim) {
            Some(u) if u.len() > MAX_URL_FILTER_LEN => issues.push(Issue::new("url", format!("must be at most {MAX_URL_FILTER_LEN} characters"))),
            Some(u) if !u.is_empty() => filter.url_contains = Some(u.to_string()),
            _ => {}
        }
        match self.scan.as_deref().map(str::trim) {
            Some(s) if !s.is_empty() => match Uuid::parse_str(s) {
                Ok(id) => filter.scan_id = Some(id),
                Err(_) => issues.push(Issue::new("scan", "must be a scan id")),
            },
            _ => {}
        }
        filter
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn issues_of(q: &FindingsQuery) -> (FindingFilter, Vec<String>) {
        let mut issues = Vec::new();
        let f = q.filter(&mut issues);
        (f, issues.into_iter().map(|i| i.path).collect())
    }

    #[test]
    fn severities_come_as_lists_or_repeated_and_are_kept_once() {
        let q = FindingsQuery { severities: vec!["high, critical".into(), "high".into()], ..FindingsQuery::default() };
        let (f, issues) = issues_of(&q);
        assert!(issues.is_empty());
        assert_eq!(f.severities, [Severity::High, Severity::Critical]);
        let (_, issues) = issues_of(&FindingsQuery { severities: vec!["urgent".into(), "".into()], ..FindingsQuery::default() });
        assert_eq!(issues, ["severity", "severity"], "an unknown and an empty item");
    }

    #[test]
    fn every_broken_rule_is_reported_at_once() {
        let q = FindingsQuery {
            categories: vec!["seo".into()],
            check_id: Some("x".repeat(201)),
            url_contains: Some("u".repeat(501)),
            scan: Some("not-a-scan".into()),
            since: Some("2026-01-31".into()),
            until: Some("yesterday".into()),
            ..FindingsQuery::default()
        };
        let (_, issues) = issues_of(&q);
        assert_eq!(issues, ["category", "since", "until", "check_id", "url", "scan"]);
    }

    #[test]
    fn dates_are_rfc_3339_and_until_comes_after_since() {
        let q = FindingsQuery { since: Some("2026-02-01T00:00:00Z".into()), until: Some("2026-02-01T00:00:00+01:00".into()), ..FindingsQuery::default() };
        let (_, issues) = issues_of(&q);
        assert_eq!(issues, ["until"]);
        let (_, issues) = issues_of(&FindingsQuery { since: Some(" ".into()), ..FindingsQuery::default() });
        assert_eq!(issues, ["since"], "given but empty");
        let q = FindingsQuery { since: Some(" 2026-01-31T00:00:00Z ".into()), categories: vec!["accessibility".into()], ..FindingsQuery::default() };
        let (f, issues) = issues_of(&q);
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(f.since, Some(1_769_817_600_000_000));
        assert_eq!(f.categories, ["accessibility"]);
    }
}
