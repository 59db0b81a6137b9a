//! One crawled page, judged: what the crawl learns from a rendered page (its digest, the
//! statuses the render told, its links) and its page checks. The in-process crawl
//! ([`super::scanner`]) and the crawl shared by a fleet of workers ([`super::shared_crawl`]) both
//! judge their pages here, so the two cannot judge alike pages differently.

use super::digest::{digest, page_record};
use super::frontier::{Site, looks_like_page, normalize};
use super::probes::ProbeLeads;
use super::site_gather::{RobotsRules, SiteFacts};
use super::options::ScanOptions;
use crate::checks::run::CheckRun;
use crate::checks::run_page_checks;
use crate::model::{CappedCounts, CheckNotRun, Finding, PageDigest, PageSnapshot, ReportPage, UrlStatus};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};
use url::Url;

/// What every page of one crawl is judged with.
pub struct PageContext<'a> {
    pub start: &'a Url,
    pub site: &'a Site,
    pub rules: &'a RobotsRules,
    pub options: &'a ScanOptions,
}

/// What the site checks need of one judged page. A shared crawl keeps it in the store with the
/// page's frontier row; the worker that finishes the crawl reads every page's back.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PageFacts {
    pub digest: PageDigest,
    /// The statuses the render told (the requested URL and, after a redirect, the final one).
    pub rendered: Vec<UrlStatus>,
    /// The page's internal links (normalised).
    pub link_targets: Vec<String>,
    /// (link, page) for the links robots.txt kept the crawl from.
    pub robots_blocked: Vec<(String, String)>,
    /// Active scans: what the page shows of the origin's layout, for the repository probes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leads: Option<ProbeLeads>,
    /// What the budgets cut on this page (a shared crawl sums them from the store).
    #[serde(default)]
    pub capped: CappedCounts,
}

impl PageFacts {
    /// Adds this page's facts to the site's (in crawl order: a later render's status of a URL
    /// replaces an earlier one's).
    pub fn add_to(self, facts: &mut SiteFacts) {
        for status in self.rendered {
            facts.rendered.insert(status.url.clone(), status);
        }
        facts.link_targets.extend(self.link_targets);
        facts.robots_blocked.extend(self.robots_blocked);
        if let Some(leads) = self.leads {
            facts.probe_leads.merge(leads);
        }
        facts.digests.push(self.digest);
    }
}

/// One page, judged.
pub struct JudgedPage {
    pub url: Url,
    /// Where the page really is (after redirects).
    pub final_url: Url,
    pub depth: u32,
    /// On-site links robots.txt allows that look like pages, within the depth limit: the
    /// pages to crawl next (those already seen included; the frontier drops them).
    pub next: Vec<Url>,
    pub record: ReportPage,
    pub findings: Vec<Finding>,
    pub facts: PageFacts,
    pub checks_took: Duration,
    pub capped: CappedCounts,
}

/// Where a rendered page really is: its final URL, normalised (the requested one if that fails).
pub fn final_url_of(url: &Url, snapshot: &PageSnapshot) -> Url {
    normalize(&snapshot.final_url, None).unwrap_or_else(|| url.clone())
}

/// Reads what the crawl learns from a rendered page, then runs its page checks (off the async
/// runtime).
pub async fn judge(snapshot: PageSnapshot, url: Url, depth: u32, cx: &PageContext<'_>) -> JudgedPage {
    let final_url = final_url_of(&url, &snapshot);
    let on_site = cx.site.contains(&final_url);
    let page_digest = digest(&snapshot, depth, |u| cx.site.contains(u));
    let mut facts = PageFacts { rendered: rendered_statuses(&url, &final_url, &snapshot), ..PageFacts::default() };
    let mut next = Vec::new();
    if on_site && snapshot.rendered() {
        for link in &page_digest.internal_links {
            let Some(link_url) = normalize(&link.href, None) else { continue };
            facts.link_targets.push(link_url.to_string());
            // Disallowed links are neither rendered nor status-checked, pages or not (a PDF or
            // an archive under a Disallow rule is off limits too).
            if !cx.rules.allowed(&link_url) {
                facts.robots_blocked.push((link_url.to_string(), snapshot.final_url.clone()));
            } else if looks_like_page(&link_url) && depth < cx.options.max_depth {
                next.push(link_url);
            }
        }
    }
    facts.digest = page_digest;
    if cx.options.active && on_site {
        let mut leads = ProbeLeads::default();
        leads.add_page(cx.start, &snapshot);
        facts.leads = Some(leads);
    }
    let t = Instant::now();
    let thresholds = cx.options.thresholds.clone();
    let mut record = page_record(&snapshot);
    let page_url = snapshot.final_url.clone();
    let checked = tokio::task::spawn_blocking(move || run_page_checks(&snapshot, &thresholds)).await;
    let checked = account_checks(checked, &page_url);
    record.checks_not_run = checked.not_run;
    JudgedPage {
        url,
        final_url,
        depth,
        next,
        record,
        findings: checked.findings,
        facts,
        checks_took: t.elapsed(),
        capped: checked.capped,
    }
}

/// Logs and counts the checks that did not run; a runner task that died (it cannot, the runner
/// catches each check's panic) is one more internal error, never a page silently without findings.
pub fn account_checks(checked: Result<CheckRun, tokio::task::JoinError>, url: &str) -> CheckRun {
    let run = match checked {
        Ok(run) => run,
        Err(e) => {
            tracing::error!(url, error = %e, "the check runner failed; no findings for this page");
            crate::metrics::metrics().check_panics.inc();
            return CheckRun {
                not_run: vec![CheckNotRun { check_id: "*".into(), reason: crate::checks::run::PANICKED.into() }],
                ..CheckRun::default()
            };
        }
    };
    for skipped in &run.not_run {
        if skipped.reason == crate::checks::run::PANICKED {
            tracing::error!(url, check_id = %skipped.check_id, "check panicked; its findings on this page are left out");
        } else {
            tracing::debug!(url, check_id = %skipped.check_id, reason = %skipped.reason, "check not run");
        }
    }
    crate::metrics::metrics().check_panics.inc_by(run.panicked as u64);
    run
}

/// The statuses a render tells: the requested URL (with its redirect chain) and the final one.
fn rendered_statuses(url: &Url, final_url: &Url, page: &PageSnapshot) -> Vec<UrlStatus> {
    let content_type = page.mime_type.clone();
    let x_robots_tag = page.header("x-robots-tag").map(str::to_string);
    let error = page.error.as_ref().map(|e| format!("{}: {}", e.kind, e.message));
    let requested = UrlStatus {
        url: url.to_string(),
        status: page.redirects.first().map(|h| h.status).or(page.status),
        final_url: Some(final_url.to_string()),
        redirects: page.redirects.clone(),
        content_type: content_type.clone(),
        x_robots_tag: x_robots_tag.clone(),
        error: error.clone(),
    };
    let mut out = vec![requested];
    if final_url != url {
        out.push(UrlStatus {
            url: final_url.to_string(),
            status: page.status,
            final_url: Some(final_url.to_string()),
            redirects: Vec::new(),
            content_type,
            x_robots_tag,
            error,
        });
    }
    out
}
