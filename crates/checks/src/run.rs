//! Runs every registered check over snapshots. A page check whose declared artifacts are missing
//! on the page (their gatherer failed) does not run there, nor a site check whose declared site
//! artifacts are; a check that panics loses only its own
//! findings. Both are reported as `CheckNotRun`, never as a silent pass.

use super::check::{Check, Findings, Thresholds};
use super::page_view::PageView;
use super::site_view::SiteView;
use super::registry::CHECKS;
use crate::model::{Artifact, CappedCounts, CheckNotRun, Finding, PageSnapshot, SiteSnapshot, sort_findings};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// What the checks made of one snapshot.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CheckRun {
    /// Sorted.
    pub findings: Vec<Finding>,
    /// Checks that did not judge, in registry order.
    pub not_run: Vec<CheckNotRun>,
    /// How many of `not_run` are checks that panicked (a bug of ours, to log and count).
    pub panicked: usize,
    /// What the per-finding budget and the per-page instance cap cut.
    pub capped: CappedCounts,
}

/// The reason given for a check that panicked.
pub const PANICKED: &str = "the check failed with an internal error; its findings are left out";

/// Runs every page check over one page.
/// Where one of sitescan's checks and an axe-core rule found the same barrier, the page gets one
/// finding (`same_barrier.rs`).
pub fn run_page_checks(page: &PageSnapshot, thresholds: &Thresholds) -> CheckRun {
    let judge = |check: &dyn Check, sink: &mut Findings<'_>| check.page(&PageView::new(page, check.meta()), thresholds, sink);
    let mut run = run_checks(&at_level(thresholds), judge, |check| {
        check.meta().requires.iter().find_map(|artifact| {
            page.artifact_error(*artifact).map(|e| format!("the {} gatherer failed: {}", e.gatherer, e.message))
        })
    });
    annotate(page, &mut run.findings);
    super::same_barrier::merge(&mut run.findings);
    run.capped = CappedCounts::of_findings(&run.findings);
    run
}

/// Runs every site check once the crawl has ended.
pub fn run_site_checks(site: &SiteSnapshot, thresholds: &Thresholds) -> CheckRun {
    run_checks(&at_level(thresholds), |check, sink| check.site(&SiteView::new(site, check.meta()), thresholds, sink), |check| {
        check.meta().site_requires.iter().find_map(|artifact| {
            site.artifact_error(*artifact).map(|e| format!("the {} gatherer failed: {}", e.gatherer, e.message))
        })
    })
}

/// What the registry knows of each finding, written into its evidence:
/// - `wcag_level` (`A`, `AA`, `AAA`): the conformance level of the criteria its check judges,
///   for the checks tied to one;
/// - `wcag`: the level and success criteria in axe-core's tag form (`["wcag2a", "wcag131"]`),
///   for the checks that name their criteria (axe-core's own findings carry axe's tags);
/// - `sampled: true` and `sampled_read` (`layout: the first 4000 of 25113 elements`) when the
///   facts its check judged cover only part of a page larger than the gatherer's budget, so
///   its silence about the rest of the page is not read as a pass.
fn annotate(page: &PageSnapshot, findings: &mut [Finding]) {
    let sampled: Vec<(Artifact, String)> = Artifact::ALL
        .iter()
        .flat_map(|a| page.samples(*a).into_iter().map(move |s| (*a, format!("{}: {s}", a.gatherer()))))
        .collect();
    let mut metas: std::collections::HashMap<String, Option<&'static super::CheckMeta>> = std::collections::HashMap::new();
    for finding in findings {
        let meta = *metas.entry(finding.check_id.clone()).or_insert_with(|| super::registry::find(&finding.check_id));
        let Some(meta) = meta else { continue };
        if let Some(level) = meta.level {
            finding.evidence.insert("wcag_level".into(), serde_json::Value::from(level.as_str()));
        }
        if !meta.wcag.is_empty() && !finding.evidence.contains_key("wcag") {
            finding.evidence.insert("wcag".into(), serde_json::Value::from(meta.wcag_tags()));
        }
        let read: Vec<&str> = sampled.iter().filter(|(a, _)| meta.requires.contains(a)).map(|(_, s)| s.as_str()).collect();
        if !read.is_empty() {
            finding.evidence.insert("sampled".into(), serde_json::Value::Bool(true));
            finding.evidence.insert("sampled_read".into(), serde_json::Value::from(read.join("; ")));
        }
    }
}

/// The checks a scan at `thresholds.level` runs: those tied to no level or to one at or below
/// it. The others are left out by choice, not reported as not run.
fn at_level(thresholds: &Thresholds) -> Vec<&'static dyn Check> {
    CHECKS.iter().copied().filter(|check| thresholds.level.runs(check.meta().level)).collect()
}

fn run_checks(
    checks: &[&dyn Check],
    judge: impl Fn(&dyn Check, &mut Findings<'_>),
    missing: impl Fn(&dyn Check) -> Option<String>,
) -> CheckRun {
    let mut run = CheckRun::default();
    for &check in checks {
        let meta = check.meta();
        if let Some(reason) = missing(check) {
            run.not_run.push(CheckNotRun { check_id: meta.id.to_string(), reason });
            continue;
        }
        let mut own = Vec::new();
        let judged = catch_unwind(AssertUnwindSafe(|| {
            let mut sink = Findings::new(meta, &mut own);
            judge(check, &mut sink);
        }));
        match judged {
            Ok(()) => run.findings.append(&mut own),
            Err(_) => {
                run.panicked += 1;
                run.not_run.push(CheckNotRun { check_id: meta.id.to_string(), reason: PANICKED.to_string() });
            }
        }
    }
    sort_findings(&mut run.findings);
    run.capped = CappedCounts::of_findings(&run.findings);
    run
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CheckMeta;
    use crate::model::{Artifact, DomFacts, GatherError, Severity};
    use crate::{declare_check, evidence};

    declare_check! {
        /// Fires on every page.
        struct Always {
            id: "test.always",
            severity: Low,
            title: "t",
            fires_when: "always",
            description: "d",
            remediation: "r",
            cwe: None,
            evidence: ["url"],
            help_url: None,
        }
    }
    impl Check for Always {
        fn meta(&self) -> &'static CheckMeta {
            &Self::META
        }
        fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
            out.report(evidence! { "url" => page.final_url });
        }
    }

    declare_check! {
        /// Reports, then panics.
        struct Panics {
            id: "test.panics",
            severity: High,
            title: "t",
            fires_when: "always, then panics",
            description: "d",
            remediation: "r",
            cwe: None,
            evidence: ["url"],
            help_url: None,
        }
    }
    impl Check for Panics {
        fn meta(&self) -> &'static CheckMeta {
            &Self::META
        }
        fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
            out.report(evidence! { "url" => page.final_url });
            let empty: Vec<u8> = Vec::new();
            let _ = empty[usize::from(!page.final_url.is_empty())];
        }
    }

    fn page() -> PageSnapshot {
        PageSnapshot {
            requested_url: "https://a.test/".into(),
            final_url: "https://a.test/".into(),
            status: Some(200),
            mime_type: Some("text/html".into()),
            ..Default::default()
        }
    }

    #[test]
    fn a_panicking_check_loses_only_its_own_findings() {
        let checks: &[&dyn Check] = &[&Always, &Panics, &Always];
        let run = run_checks(checks, |c, sink| c.page(&PageView::new(&page(), c.meta()), &Thresholds::default(), sink), |_| None);
        assert_eq!(run.findings.len(), 2, "{:?}", run.findings);
        assert!(run.findings.iter().all(|f| f.check_id == "test.always" && f.severity == Severity::Low));
        assert_eq!(run.panicked, 1);
        assert_eq!(run.not_run, vec![CheckNotRun { check_id: "test.panics".into(), reason: PANICKED.into() }]);
    }

    #[test]
    fn a_failed_site_gatherer_skips_the_site_checks_that_need_it_and_says_why() {
        use crate::model::{SiteArtifact, SiteSnapshot, Sitemap};
        // Our sitemap parser failed: what it left reads as an invalid sitemap, which is not the
        // site's doing.
        let mut site = SiteSnapshot {
            start_url: "https://a.test/".into(),
            sitemaps: vec![Sitemap { url: "https://a.test/sitemap.xml".into(), status: Some(200), parse_error: Some("the sitemap could not be parsed".into()), ..Default::default() }],
            gather_errors: vec![GatherError { gatherer: SiteArtifact::Sitemaps.gatherer().into(), message: "the sitemap parser failed".into() }],
            ..Default::default()
        };
        let run = run_site_checks(&site, &Thresholds::default());
        assert!(!run.findings.iter().any(|f| f.check_id.starts_with("crawlability.sitemap-")), "{:?}", run.findings);
        let skipped = run.not_run.iter().find(|n| n.check_id == "crawlability.sitemap-invalid").expect("sitemap-invalid reported as not run");
        assert_eq!(skipped.reason, "the sitemaps gatherer failed: the sitemap parser failed");
        assert!(!run.not_run.iter().any(|n| n.check_id == "crawlability.http-error"), "pages did not fail");

        // The same site with the gatherer working: the sitemap is judged.
        site.gather_errors.clear();
        let run = run_site_checks(&site, &Thresholds::default());
        assert!(run.findings.iter().any(|f| f.check_id == "crawlability.sitemap-invalid"), "{:?}", run.findings);
    }

    #[test]
    fn a_failed_gatherer_skips_the_checks_that_need_it_and_says_why() {
        // The page has a title, but the DOM gatherer failed: the title checks must not judge
        // the empty default.
        let mut p = page();
        p.dom = DomFacts::default();
        p.gather_errors.push(GatherError { gatherer: Artifact::Dom.gatherer().into(), message: "timed out after 5s".into() });
        let run = run_page_checks(&p, &Thresholds::default());
        assert!(!run.findings.iter().any(|f| f.check_id == "search.title-missing"), "{:?}", run.findings);
        let skipped = run.not_run.iter().find(|n| n.check_id == "search.title-missing").expect("title check reported as not run");
        assert_eq!(skipped.reason, "the dom gatherer failed: timed out after 5s");
        assert!(!run.not_run.iter().any(|n| n.check_id == "performance.lcp"), "metrics did not fail");
        assert_eq!(run.panicked, 0);

        // The same page with the gatherer working: the title check judges it.
        p.gather_errors.clear();
        let run = run_page_checks(&p, &Thresholds::default());
        assert!(run.findings.iter().any(|f| f.check_id == "search.title-missing"));
        assert!(run.not_run.is_empty(), "{:?}", run.not_run);
    }

    #[test]
    fn a_scan_runs_the_checks_of_its_level_and_below_only() {
        use crate::model::{AxeNode, AxeResults, AxeRule, Level, LayoutFacts, Reading, TextRun};
        let rule = |id: &str, tags: &[&str]| AxeRule {
            id: id.into(),
            impact: Some("serious".into()),
            tags: tags.iter().map(|t| t.to_string()).collect(),
            nodes: vec![AxeNode { target: "#x".into(), html: "<p id=x>".into(), ..Default::default() }],
            ..Default::default()
        };
        let mut p = page();
        p.axe = Some(AxeResults {
            violations: vec![
                rule("color-contrast-enhanced", &["wcag2aaa", "wcag146"]),
                rule("color-contrast", &["wcag2aa", "wcag143"]),
                rule("image-alt", &["wcag2a", "wcag111"]),
                rule("region", &["best-practice"]),
            ],
            ..Default::default()
        });
        let long = TextRun { selector: "#wide".into(), chars_per_line: 160, lines: 4, chars: 640, ..Default::default() };
        p.layout = Some(LayoutFacts { reading: Reading { long_lines: vec![long], ..Default::default() }, ..Default::default() });
        let ids = |level: Level| {
            let run = run_page_checks(&p, &Thresholds { level, ..Thresholds::default() });
            assert!(run.not_run.is_empty(), "a check left out by level is not a gap: {:?}", run.not_run);
            let mut ids: Vec<String> = run.findings.iter().map(|f| f.check_id.clone()).filter(|id| id.starts_with("accessibility.")).collect();
            ids.sort();
            ids.dedup();
            ids
        };
        let at_aa = ids(Level::AA);
        assert_eq!(Thresholds::default().level, Level::AA, "AA is the default");
        assert!(at_aa.contains(&"accessibility.color-contrast".to_string()), "{at_aa:?}");
        assert!(at_aa.contains(&"accessibility.image-alt".to_string()) && at_aa.contains(&"accessibility.region".to_string()), "{at_aa:?}");
        for aaa in ["accessibility.color-contrast-enhanced", "accessibility.line-too-long"] {
            assert!(!at_aa.contains(&aaa.to_string()), "{aaa} is AAA: {at_aa:?}");
        }
        let at_aaa = ids(Level::AAA);
        for id in ["accessibility.color-contrast-enhanced", "accessibility.line-too-long", "accessibility.color-contrast", "accessibility.region"] {
            assert!(at_aaa.contains(&id.to_string()), "{id} at AAA: {at_aaa:?}");
        }
        let at_a = ids(Level::A);
        assert!(!at_a.contains(&"accessibility.color-contrast".to_string()), "contrast is AA: {at_a:?}");
        assert!(at_a.contains(&"accessibility.image-alt".to_string()) && at_a.contains(&"accessibility.region".to_string()), "{at_a:?}");
    }

    #[test]
    fn every_axe_rule_has_the_level_of_its_tags() {
        // The build script computes each rule's level on its own (it cannot call the crate).
        for rule in crate::accessibility::axe_catalogue() {
            assert_eq!(rule.meta.level, crate::model::Level::of_axe_tags(rule.tags.iter().copied()), "{}", rule.rule_id);
        }
        let level = |id: &str| crate::accessibility::axe_catalogue().iter().find(|r| r.rule_id == id).and_then(|r| r.meta.level);
        assert_eq!(level("color-contrast-enhanced"), Some(crate::model::Level::AAA));
        assert_eq!(level("color-contrast"), Some(crate::model::Level::AA));
        assert_eq!(level("region"), None);
    }

    #[test]
    fn findings_judged_on_part_of_a_long_page_say_how_much_was_read() {
        use crate::model::{LayoutFacts, Level, Reading, Sample, TextRun};
        let mut p = page();
        let long = TextRun { selector: "#wide".into(), chars_per_line: 160, lines: 4, chars: 640, ..Default::default() };
        p.layout = Some(LayoutFacts {
            reading: Reading { long_lines: vec![long], ..Default::default() },
            truncated: true,
            sampled: Some(Sample::new("elements", 4000, 25_113)),
            ..Default::default()
        });
        let run = run_page_checks(&p, &Thresholds { level: Level::AAA, ..Thresholds::default() });
        let long = run.findings.iter().find(|f| f.check_id == "accessibility.line-too-long").expect("judged on the part read");
        assert_eq!(long.evidence["sampled"], true);
        assert_eq!(long.evidence["sampled_read"], "layout: the first 4000 of 25113 elements");
        assert_eq!(long.evidence["wcag_level"], "AAA");
        assert_eq!(long.evidence["wcag"], serde_json::json!(["wcag2aaa", "wcag148"]));
        let title = run.findings.iter().find(|f| f.check_id == "search.title-missing").expect("the DOM check");
        assert!(title.evidence.get("sampled").is_none(), "the DOM was read whole: {:?}", title.evidence);
        assert!(title.evidence.get("wcag_level").is_none(), "not a conformance check: {:?}", title.evidence);
        assert!(run.not_run.is_empty(), "a sampled page is judged, not skipped: {:?}", run.not_run);
    }
}
