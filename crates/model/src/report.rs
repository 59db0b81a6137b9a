//! The report object's summary (the report object of `GET /api/v1/scans/{id}`, `docs/architecture.md` "The wire contract").

use super::category::{ACTIVE_ONLY_CATEGORIES, PASSIVE_CATEGORIES};
use super::scan_state::ScanMode;
use super::severity::{Severity, SeverityCounts};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Why a scan failed (`summary.error`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReportError {
    /// `target_unreachable`, `target_blocked`, `target_timeout`, `ownership_unverified` (active
    /// scans), `retries_exhausted`, `worker_stopped` (its worker process stopped twice while
    /// scanning it: the message names the memory limit), `internal`.
    pub code: String,
    pub message: String,
}

/// `report.summary`: pages scanned, duration, counts per category (every category of the scan's
/// mode, zeros included) and the error of a failed scan. Read leniently: what is missing is zero
/// or absent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReportSummary {
    pub pages_scanned: u64,
    pub duration_ms: u64,
    pub categories: BTreeMap<String, SeverityCounts>,
    pub error: Option<ReportError>,
    /// What changed since the previous completed scan of the same target and mode (completed
    /// scans only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<ChangeCounts>,
    /// Why a schedule or monitor started the scan (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<ScanTrigger>,
    /// What sitescan's budgets cut from this report (absent when nothing was cut).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capped: Option<CappedCounts>,
    /// The budget's verdict, assertion by assertion (absent when no budget applied).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<super::BudgetResult>,
    /// Site checks that did not judge the site, and why (a site gatherer they need failed, or
    /// the check itself failed); absent when every site check ran. Their absence of findings is
    /// not a pass.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub site_checks_not_run: Vec<super::CheckNotRun>,
    /// Page checks that did not judge some pages, and why; absent when every check ran on
    /// every page. A scan with it is incomplete: those pages were not found clean.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks_not_run: Option<ChecksNotRun>,
    /// The WCAG conformance level the scan judged against (`A`, `AA`, `AAA`): the checks of
    /// criteria above it did not run, by choice. Absent in reports of older versions (AAA checks
    /// ran then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<super::Level>,
}

/// `report.summary.trigger`: why a schedule or a monitor started a scan. Recorded with the scan
/// when it is created and copied into its summary when it ends.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ScanTrigger {
    /// `schedule` or `monitor`.
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule_id: Option<String>,
    /// The schedule's cron expression and time zone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cron: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    /// When the schedule was due (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub due_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub monitor_id: Option<String>,
    /// When the monitor's probe saw the change (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detected_at: Option<String>,
    /// What the monitor's probe saw change.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<MonitorChange>,
}

/// One field a monitor's probe saw change, with its value before and after (a string, a boolean
/// or null).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MonitorChange {
    pub field: String,
    pub before: serde_json::Value,
    pub after: serde_json::Value,
}

/// `report.summary.checks_not_run`: how many page checks did not run on how many pages, by
/// reason (a gatherer's failure names the gatherer and its error).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ChecksNotRun {
    /// Pages on which at least one check did not run.
    pub pages: u64,
    /// Distinct checks that did not run on at least one page.
    pub checks: u64,
    /// One entry a reason, the most pages first (at most `MAX_REASONS`).
    pub reasons: Vec<NotRunReason>,
}

/// Checks that did not run for one reason.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct NotRunReason {
    pub reason: String,
    /// Pages it happened on.
    pub pages: u64,
    /// The checks it kept from running (sorted).
    pub check_ids: Vec<String>,
    /// One page it happened on.
    pub example_url: String,
}

impl ChecksNotRun {
    /// Reasons kept in the summary (the rest are counted in `pages` and `checks`).
    pub const MAX_REASONS: usize = 20;

    /// The summary of pages' `checks_not_run` (`(page URL, its list)`); `None` when every check
    /// ran. A journey's audit page (`*`: not re-judged by design) is no gap.
    pub fn of<'a>(pages: impl IntoIterator<Item = (&'a str, &'a [super::CheckNotRun])>) -> Option<ChecksNotRun> {
        use std::collections::{BTreeMap, BTreeSet};
        let mut page_count = 0u64;
        let mut checks = BTreeSet::new();
        let mut by_reason: BTreeMap<&str, (u64, BTreeSet<&str>, &str)> = BTreeMap::new();
        // A reason's first line, at most 300 bytes (a script's stack trace is for the page's own
        // list, not the summary).
        fn short_reason(reason: &str) -> &str {
            let line = reason.lines().next().unwrap_or_default().trim_end();
            let mut end = line.len().min(300);
            while !line.is_char_boundary(end) {
                end -= 1;
            }
            &line[..end]
        }
        for (url, not_run) in pages {
            let gaps: Vec<&super::CheckNotRun> = not_run.iter().filter(|n| n.check_id != "*").collect();
            if gaps.is_empty() {
                continue;
            }
            page_count += 1;
            let mut reasons_here = BTreeSet::new();
            for gap in gaps {
                checks.insert(gap.check_id.as_str());
                let entry = by_reason.entry(short_reason(&gap.reason)).or_insert((0, BTreeSet::new(), url));
                entry.1.insert(gap.check_id.as_str());
                if reasons_here.insert(short_reason(&gap.reason)) {
                    entry.0 += 1;
                }
            }
        }
        if page_count == 0 {
            return None;
        }
        let mut reasons: Vec<NotRunReason> = by_reason
            .into_iter()
            .map(|(reason, (pages, ids, url))| NotRunReason {
                reason: reason.to_string(),
                pages,
                check_ids: ids.into_iter().map(str::to_string).collect(),
                example_url: url.to_string(),
            })
            .collect();
        reasons.sort_by(|a, b| b.pages.cmp(&a.pages).then(b.check_ids.len().cmp(&a.check_ids.len())).then(a.reason.cmp(&b.reason)));
        reasons.truncate(Self::MAX_REASONS);
        Some(ChecksNotRun { pages: page_count, checks: checks.len() as u64, reasons })
    }

    /// One line for the top of a report: `12 checks did not run on 3 pages: <reason> (3 pages)`.
    pub fn headline(&self) -> String {
        let plural = |n: u64, one: &str, many: &str| if n == 1 { format!("1 {one}") } else { format!("{n} {many}") };
        let mut line = format!("{} did not run on {}", plural(self.checks, "check", "checks"), plural(self.pages, "page", "pages"));
        if let Some(first) = self.reasons.first() {
            line.push_str(&format!(": {} ({})", first.reason, plural(first.pages, "page", "pages")));
            if self.reasons.len() > 1 {
                let more = self.reasons.len() - 1;
                line.push_str(&format!(", and {more} more {}", if more == 1 { "reason" } else { "reasons" }));
            }
        }
        line
    }
}

/// `report.summary.capped`: what the report's budgets left out, so a reader knows the report is
/// not the whole story (README "Limits").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CappedCounts {
    /// Findings stored with a value cut to the per-value or per-finding budget
    /// (`evidence.truncated`).
    pub findings_truncated: u64,
    /// Instances of a check on a page past the per-page cap, counted in the last kept one's
    /// `evidence.omitted`.
    pub instances_omitted: u64,
    /// Findings not stored at all because the scan reached its ceiling.
    pub findings_omitted: u64,
}

impl CappedCounts {
    /// Adds `other`'s counts.
    pub fn add(&mut self, other: CappedCounts) {
        self.findings_truncated += other.findings_truncated;
        self.instances_omitted += other.instances_omitted;
        self.findings_omitted += other.findings_omitted;
    }

    /// `Some(self)` when anything was cut.
    pub fn any(self) -> Option<CappedCounts> {
        (self != CappedCounts::default()).then_some(self)
    }

    /// What one run of the checks cut from `findings`.
    pub fn of_findings(findings: &[super::Finding]) -> CappedCounts {
        CappedCounts {
            findings_truncated: findings.iter().filter(|f| f.evidence.get("truncated") == Some(&serde_json::Value::Bool(true))).count() as u64,
            instances_omitted: findings.iter().filter_map(|f| f.evidence.get("omitted").and_then(serde_json::Value::as_u64)).sum(),
            findings_omitted: 0,
        }
    }
}

/// `report.summary.changes`: findings new since the baseline scan, persisting from it, and
/// fixed (gone from pages this scan rendered again).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ChangeCounts {
    pub new: u64,
    pub fixed: u64,
    pub persisting: u64,
    /// The scan compared with; `None` when there was none (every finding is then new).
    pub baseline_scan_id: Option<String>,
}

impl ReportSummary {
    /// A summary with every passive category at zero.
    pub fn empty() -> Self {
        ReportSummary {
            pages_scanned: 0,
            duration_ms: 0,
            categories: PASSIVE_CATEGORIES.iter().map(|c| (c.to_string(), SeverityCounts::default())).collect(),
            error: None,
            changes: None,
            trigger: None,
            capped: None,
            budget: None,
            site_checks_not_run: Vec::new(),
            checks_not_run: None,
            level: None,
        }
    }

    /// True when some check did not judge some page or the site: the report is not the whole
    /// story, and its silence is no pass.
    pub fn incomplete(&self) -> bool {
        self.checks_not_run.is_some() || !self.site_checks_not_run.is_empty()
    }

    /// A summary with every category of `mode` at zero (active adds `journeys` and `repository`).
    pub fn for_mode(mode: ScanMode) -> Self {
        let mut summary = Self::empty();
        if mode == ScanMode::Active {
            for c in ACTIVE_ONLY_CATEGORIES {
                summary.categories.insert(c.to_string(), SeverityCounts::default());
            }
        }
        summary
    }

    /// The summary of a scan that could not run.
    pub fn failed(code: &str, message: &str) -> Self {
        Self::failed_in(ScanMode::Passive, code, message)
    }

    /// The summary of a scan of `mode` that could not run.
    pub fn failed_in(mode: ScanMode, code: &str, message: &str) -> Self {
        ReportSummary { error: Some(ReportError { code: code.into(), message: message.into() }), ..Self::for_mode(mode) }
    }

    /// Adds `n` findings of `check_id` at `severity` to its category.
    pub fn count(&mut self, check_id: &str, severity: Severity, n: u64) {
        let category = check_id.split_once('.').map_or(check_id, |(c, _)| c);
        self.categories.entry(category.to_string()).or_default().add(severity, n);
    }

    /// The totals over every category.
    pub fn totals(&self) -> SeverityCounts {
        let mut total = SeverityCounts::default();
        for counts in self.categories.values() {
            for s in Severity::ALL {
                total.add(s, counts.get(s));
            }
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_not_run_are_summed_by_reason() {
        use super::super::CheckNotRun;
        let gap = |id: &str, reason: &str| CheckNotRun { check_id: id.into(), reason: reason.into() };
        let a = [gap("search.title-missing", "the dom gatherer failed: x"), gap("links.broken", "the dom gatherer failed: x"), gap("accessibility.color-contrast", "axe timed out")];
        let b = [gap("search.title-missing", "the dom gatherer failed: x")];
        let journey = [gap("*", "a journey's audit page")];
        assert_eq!(ChecksNotRun::of([("https://e.com/j", &journey[..])]), None, "a journey's audit page is no gap");
        let sum = ChecksNotRun::of([("https://e.com/a", &a[..]), ("https://e.com/b", &b[..]), ("https://e.com/c", &[][..])]).expect("gaps");
        assert_eq!((sum.pages, sum.checks), (2, 3));
        assert_eq!(sum.reasons[0].reason, "the dom gatherer failed: x");
        assert_eq!(sum.reasons[0].pages, 2);
        assert_eq!(sum.reasons[0].check_ids, ["links.broken", "search.title-missing"]);
        assert_eq!(sum.reasons[1].example_url, "https://e.com/a");
        assert_eq!(sum.headline(), "3 checks did not run on 2 pages: the dom gatherer failed: x (2 pages), and 1 more reason");
        let mut summary = ReportSummary::empty();
        assert!(!summary.incomplete());
        summary.checks_not_run = Some(sum);
        assert!(summary.incomplete());
        let json = serde_json::to_value(&summary).unwrap();
        assert_eq!(json["checks_not_run"]["pages"], 2);
    }

    #[test]
    fn site_checks_not_run_are_in_the_summary_only_when_some_did_not_run() {
        let mut summary = ReportSummary::empty();
        let json = serde_json::to_value(&summary).unwrap();
        assert!(json.get("site_checks_not_run").is_none(), "absent when every site check ran: {json}");
        summary.site_checks_not_run.push(super::super::CheckNotRun {
            check_id: "crawlability.sitemap-invalid".into(),
            reason: "the sitemaps gatherer failed: parser error".into(),
        });
        let json = serde_json::to_value(&summary).unwrap();
        assert_eq!(json["site_checks_not_run"][0]["check_id"], "crawlability.sitemap-invalid");
        let back: ReportSummary = serde_json::from_value(json).unwrap();
        assert_eq!(back.site_checks_not_run, summary.site_checks_not_run, "stored and read back");
        let old: ReportSummary = serde_json::from_value(serde_json::to_value(ReportSummary::empty()).unwrap()).unwrap();
        assert!(old.site_checks_not_run.is_empty(), "a report stored before the field reads as all run");
    }
}
