//! What changed between two scans of one target: which findings are `new`, which are
//! `persisting`, and which went away (`fixed`). Pure: findings in, verdicts out.
//!
//! A finding's fingerprint is its check id, its page (`evidence.url`) and what on the page it is
//! about (`evidence.resource`, else `evidence.selector`). Fingerprints may repeat (two identical
//! links on one page), so they are matched as multisets: `k` before and `m` now give `min(k, m)`
//! persisting, `m - min` new and `k - min` fixed.
//!
//! A finding only counts as fixed when this scan could have seen it again: a finding on a page of
//! the previous scan whose page was not crawled this time (or was crawled but could not be
//! rendered, or one of its gatherers failed, so some checks could not run on it) is neither fixed
//! nor persisting: it is left out.

pub use crate::model::{Change, ChangeCounts};
use crate::model::{ReportPage, ScanReport};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

pub use crate::model::fingerprint::{Fingerprint, strip_fragment};

/// Which pages each scan saw.
#[derive(Debug, Clone, Default)]
pub struct Coverage {
    /// Pages of the previous scan (requested and final URLs).
    pub previous_pages: BTreeSet<String>,
    /// Pages this scan rendered (no page error).
    pub current_pages: BTreeSet<String>,
    /// `(page URL, check id)`: checks that did not run on a page this time (a gatherer they
    /// need failed, or the check failed): their earlier findings there are not fixed.
    pub not_run: BTreeSet<(String, String)>,
    /// Site checks that did not run this time: none of their earlier findings is fixed.
    pub site_not_run: BTreeSet<String>,
}

impl Coverage {
    /// The pages of a report's `pages`: all of them (requested and final URLs), and the ones
    /// rendered without a page error.
    pub fn pages_of(pages: &[ReportPage]) -> (BTreeSet<String>, BTreeSet<String>) {
        let mut all = BTreeSet::new();
        let mut clean = BTreeSet::new();
        for p in pages {
            let ok = p.error.as_ref().is_none_or(Value::is_null);
            for u in std::iter::once(&p.url).chain(&p.final_url).map(|u| strip_fragment(u)) {
                if ok {
                    clean.insert(u.clone());
                }
                all.insert(u);
            }
        }
        (all, clean)
    }

    /// The `(page URL, check id)` pairs of a report's pages' `checks_not_run`.
    pub fn not_run_of(pages: &[ReportPage]) -> BTreeSet<(String, String)> {
        let mut out = BTreeSet::new();
        for p in pages {
            for skipped in &p.checks_not_run {
                for u in std::iter::once(&p.url).chain(&p.final_url).map(|u| strip_fragment(u)) {
                    out.insert((u, skipped.check_id.clone()));
                }
            }
        }
        out
    }

    /// True when a finding of check `check_id` of the previous scan on `url` could have been
    /// seen again.
    fn rechecked(&self, url: Option<&str>, check_id: &str, journey: bool) -> bool {
        if self.site_not_run.contains(check_id) {
            return false;
        }
        match url {
            // A journey's audit page: only if a journey reached it again (an audit page marks
            // every check as not run for the crawl's findings, never for its own).
            Some(u) if journey && self.previous_pages.contains(u) => self.current_pages.contains(u),
            // On a page of the previous crawl: only if this crawl rendered it and ran the check.
            Some(u) if self.previous_pages.contains(u) => {
                self.current_pages.contains(u)
                    && !self.not_run.contains(&(u.to_string(), check_id.to_string()))
                    && !self.not_run.contains(&(u.to_string(), "*".to_string()))
            }
            // Site-wide (robots.txt, sitemaps) or no page at all: the site checks ran again.
            _ => true,
        }
    }
}

/// The outcome of a comparison.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Comparison {
    /// One verdict per current finding, in the order given.
    pub current: Vec<Change>,
    /// Indexes of the previous findings that went away, in the order given.
    pub fixed: Vec<usize>,
    pub counts: ChangeCounts,
}

/// Compares the fingerprints of this scan's findings with the previous scan's (`None`: there
/// was no previous scan, so everything is new).
pub fn compare(
    current: &[Fingerprint],
    previous: Option<(&str, &[Fingerprint])>,
    coverage: &Coverage,
) -> Comparison {
    let Some((baseline_id, previous)) = previous else {
        return Comparison {
            current: vec![Change::New; current.len()],
            fixed: Vec::new(),
            counts: ChangeCounts { new: current.len() as u64, ..ChangeCounts::default() },
        };
    };
    let mut before: BTreeMap<&Fingerprint, Vec<usize>> = BTreeMap::new();
    for (i, f) in previous.iter().enumerate() {
        before.entry(f).or_default().push(i);
    }
    let mut verdicts = Vec::with_capacity(current.len());
    for f in current {
        // Match the earliest unmatched previous finding with this fingerprint.
        let matched = before.get_mut(f).is_some_and(|left| {
            if left.is_empty() {
                false
            } else {
                left.remove(0);
                true
            }
        });
        verdicts.push(if matched { Change::Persisting } else { Change::New });
    }
    let mut fixed: Vec<usize> = before
        .into_iter()
        .filter(|(f, _)| coverage.rechecked(f.url.as_deref(), &f.check_id, f.journey.is_some()))
        .flat_map(|(_, left)| left)
        .collect();
    fixed.sort_unstable();
    let new = verdicts.iter().filter(|c| **c == Change::New).count() as u64;
    let counts = ChangeCounts {
        new,
        fixed: fixed.len() as u64,
        persisting: current.len() as u64 - new,
        baseline_scan_id: Some(baseline_id.to_string()),
    };
    Comparison { current: verdicts, fixed, counts }
}

/// Compares a report (`GET /api/v1/scans/{id}?include_findings=true`, or `sitescan scan
/// --format json`) with a baseline body of the same shape, and writes the verdicts into the
/// report: `report.summary.changes`, each finding's `change`, and `report.fixed`. Fails when the
/// baseline is not such a body.
pub fn annotate_report(report: &mut ScanReport, baseline: &Value) -> Result<ChangeCounts, String> {
    if !baseline.get("report").is_some_and(Value::is_object) {
        return Err("the baseline is not a sitescan JSON report (no `report` object): write one with `sitescan scan --format json`".into());
    }
    if !baseline.pointer("/report/findings").is_some_and(Value::is_array) {
        return Err("the baseline report has no `findings` list: write it with `sitescan scan --format json`".into());
    }
    let base = ScanReport::from_body(baseline).map_err(|e| format!("the baseline is not a sitescan JSON report: {e}"))?;
    let base_findings: Vec<_> = base.findings().iter().filter(|f| !f.finding.check_id.is_empty()).collect();
    let previous: Vec<Fingerprint> = base_findings.iter().map(|f| Fingerprint::new(&f.finding.check_id, Some(&f.finding.evidence))).collect();
    let baseline_id = if base.scan.id.is_empty() { "baseline".to_string() } else { base.scan.id.clone() };
    let Some(body) = report.report.as_mut() else {
        return Ok(ChangeCounts::default());
    };
    let (previous_pages, _) = Coverage::pages_of(base.pages());
    let pages = body.pages.as_deref().unwrap_or_default();
    let (_, current_pages) = Coverage::pages_of(pages);
    let not_run = Coverage::not_run_of(pages);
    let current: Vec<Fingerprint> = body
        .findings
        .iter()
        .flatten()
        .filter(|f| !f.finding.check_id.is_empty())
        .map(|f| Fingerprint::new(&f.finding.check_id, Some(&f.finding.evidence)))
        .collect();
    let site_not_run = body.summary.site_checks_not_run.iter().map(|n| n.check_id.clone()).collect();
    let comparison = compare(&current, Some((&baseline_id, &previous)), &Coverage { previous_pages, current_pages, not_run, site_not_run });
    for (f, change) in body.findings.iter_mut().flatten().filter(|f| !f.finding.check_id.is_empty()).zip(&comparison.current) {
        f.change = Some(*change);
    }
    body.fixed = Some(comparison.fixed.iter().map(|&i| base_findings[i].clone()).collect());
    body.summary.changes = Some(comparison.counts.clone());
    Ok(comparison.counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fp(check: &str, url: &str, locator: &str) -> Fingerprint {
        Fingerprint::of_json(&json!({"check_id": check, "evidence": {"url": url, "selector": locator}})).unwrap()
    }

    fn coverage(prev: &[&str], now: &[&str]) -> Coverage {
        Coverage {
            previous_pages: prev.iter().map(|s| s.to_string()).collect(),
            current_pages: now.iter().map(|s| s.to_string()).collect(),
            not_run: BTreeSet::new(),
            site_not_run: BTreeSet::new(),
        }
    }

    #[test]
    fn without_a_baseline_everything_is_new() {
        let now = [fp("a.x", "http://s/", "img")];
        let c = compare(&now, None, &Coverage::default());
        assert_eq!(c.current, [Change::New]);
        assert_eq!(c.counts, ChangeCounts { new: 1, fixed: 0, persisting: 0, baseline_scan_id: None });
    }

    #[test]
    fn new_fixed_and_persisting() {
        let prev = [fp("a.alt", "http://s/", "img"), fp("a.alt", "http://s/b", "img"), fp("c.link", "http://s/", "a")];
        let now = [fp("c.link", "http://s/", "a"), fp("c.link", "http://s/", "a:nth-of-type(2)")];
        let c = compare(&now, Some(("p", &prev)), &coverage(&["http://s/", "http://s/b"], &["http://s/", "http://s/b"]));
        assert_eq!(c.current, [Change::Persisting, Change::New]);
        assert_eq!(c.fixed, [0, 1]);
        assert_eq!(c.counts, ChangeCounts { new: 1, fixed: 2, persisting: 1, baseline_scan_id: Some("p".into()) });
    }

    #[test]
    fn a_page_not_crawled_again_fixes_nothing() {
        let prev = [fp("a.alt", "http://s/gone", "img"), fp("a.alt", "http://s/broken", "img"), fp("robots.x", "http://s/robots.txt", "")];
        let c = compare(&[], Some(("p", &prev)), &coverage(&["http://s/gone", "http://s/broken"], &[]));
        assert_eq!(c.fixed, [2], "only the site-wide finding, whose checks ran again, is fixed");
    }

    #[test]
    fn a_check_that_did_not_run_fixes_nothing() {
        let prev = [fp("accessibility.keyboard-trap", "http://s/", "#a"), fp("search.title-missing", "http://s/", "")];
        let pages: Vec<ReportPage> = serde_json::from_value(json!([{"url": "http://s/", "error": null,
            "checks_not_run": [{"check_id": "accessibility.keyboard-trap", "reason": "the keyboard gatherer failed"}]}]))
        .unwrap();
        let mut cov = coverage(&["http://s/"], &["http://s/"]);
        cov.not_run = Coverage::not_run_of(&pages);
        let c = compare(&[], Some(("p", &prev)), &cov);
        assert_eq!(c.fixed, vec![1], "only the check that ran again can call its finding fixed");
    }

    #[test]
    fn a_site_check_that_did_not_run_fixes_nothing() {
        // Site-wide (no page) and on a page: neither is fixed while the check did not run.
        let prev = [fp("crawlability.sitemap-invalid", "", ""), fp("search.title-duplicate", "http://s/", ""), fp("search.title-missing", "http://s/", "")];
        let mut cov = coverage(&["http://s/"], &["http://s/"]);
        cov.site_not_run = ["crawlability.sitemap-invalid".to_string(), "search.title-duplicate".to_string()].into();
        let c = compare(&[], Some(("p", &prev)), &cov);
        assert_eq!(c.fixed, vec![2], "only the check that ran again can call its finding fixed");
    }

    #[test]
    fn a_journey_audit_page_never_fixes_the_crawls_findings() {
        let journey = |check: &str, url: &str| {
            Fingerprint::of_json(&json!({"check_id": check, "evidence": {"url": url, "journey": "sign in", "step_index": 5}})).unwrap()
        };
        // Before: the crawl found a missing title on /account, the journey a missing description.
        let prev = [fp("search.title-missing", "http://s/account", ""), journey("search.meta-description-missing", "http://s/account")];
        // Now the crawl did not reach /account; only the journey's audit did, and found the title missing.
        let now = [journey("search.title-missing", "http://s/account")];
        let pages: Vec<ReportPage> = serde_json::from_value(json!([{"url": "http://s/account", "error": null,
            "checks_not_run": [{"check_id": "*", "reason": "a journey's audit page"}]}]))
        .unwrap();
        let mut cov = coverage(&["http://s/account"], &["http://s/account"]);
        cov.not_run = Coverage::not_run_of(&pages);
        let c = compare(&now, Some(("p", &prev)), &cov);
        assert_eq!(c.current, [Change::New], "a journey's finding is not the crawl's");
        assert_eq!(c.fixed, vec![1], "the journey's own finding went away; the crawl's is not fixed by the audit");
    }

    #[test]
    fn repeated_fingerprints_are_counted() {
        let prev = [fp("c.link", "http://s/", "x"), fp("c.link", "http://s/", "x")];
        let now = [fp("c.link", "http://s/", "x"), fp("c.link", "http://s/", "x"), fp("c.link", "http://s/", "x")];
        let c = compare(&now, Some(("p", &prev)), &coverage(&["http://s/"], &["http://s/"]));
        assert_eq!(c.counts.persisting, 2);
        assert_eq!(c.counts.new, 1);
        assert!(c.fixed.is_empty());
    }

    #[test]
    fn annotates_a_body_against_a_baseline_body() {
        let base = json!({"scan": {"id": "b1"}, "report": {"summary": {}, "pages": [{"url": "http://s/"}, {"url": "http://s/gone"}],
            "findings": [
                {"check_id": "a.alt", "severity": "high", "evidence": {"url": "http://s/", "selector": "img"}},
                {"check_id": "a.alt", "severity": "high", "evidence": {"url": "http://s/gone", "selector": "img"}},
                {"check_id": "c.link", "severity": "low", "evidence": {"url": "http://s/", "selector": "a", "resource": "http://s/x"}}
            ]}});
        let body = json!({"scan": {"id": "n"}, "report": {"summary": {}, "pages": [{"url": "http://s/"}],
            "findings": [
                {"check_id": "c.link", "severity": "low", "evidence": {"url": "http://s/", "selector": "a", "resource": "http://s/x"}},
                {"check_id": "c.link", "severity": "high", "evidence": {"url": "http://s/", "selector": "a", "resource": "http://s/y"}}
            ]}});
        let mut report = ScanReport::from_body(&body).unwrap();
        let counts = annotate_report(&mut report, &base).unwrap();
        let body = report.to_body();
        assert_eq!(counts, ChangeCounts { new: 1, fixed: 1, persisting: 1, baseline_scan_id: Some("b1".into()) });
        assert_eq!(body["report"]["findings"][0]["change"], "persisting");
        assert_eq!(body["report"]["findings"][1]["change"], "new");
        assert_eq!(body["report"]["fixed"].as_array().unwrap().len(), 1);
        assert_eq!(body["report"]["fixed"][0]["evidence"]["url"], "http://s/");
        assert_eq!(body["report"]["summary"]["changes"]["new"], 1);
        assert!(annotate_report(&mut report, &json!({"findings": []})).is_err());
    }

    #[test]
    fn resource_wins_over_selector_and_fragments_are_ignored() {
        let a = Fingerprint::of_json(&json!({"check_id": "c", "evidence": {"url": "http://s/#top", "selector": "a", "resource": "http://x/"}})).unwrap();
        assert_eq!(a.url.as_deref(), Some("http://s/"));
        assert_eq!(a.locator.as_deref(), Some("http://x/"));
    }
}
