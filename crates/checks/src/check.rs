//! What a check is: declared metadata plus a pure function over snapshots.

use super::page_view::PageView;
use super::site_view::SiteView;
use crate::model::{Artifact, Finding, Level, Severity, SiteArtifact};
use serde_json::{Map, Value};

/// At most this many findings per check per page; the rest are counted in the last one's
/// `evidence.omitted`.
pub const MAX_FINDINGS_PER_CHECK_PER_PAGE: usize = 20;

/// A check's declared metadata (the public catalogue is generated from it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckMeta {
    /// `<category>.<subject>-<defect>`, public contract.
    pub id: &'static str,
    /// The default severity (a check may raise or lower it per finding, as documented).
    pub severity: Severity,
    /// One line naming the defect.
    pub title: &'static str,
    /// When it fires (`# Fires when`).
    pub fires_when: &'static str,
    /// Why it matters (`# Why it matters`).
    pub description: &'static str,
    /// What to do (`# How to fix`).
    pub remediation: &'static str,
    /// `CWE-<n>` where one applies.
    pub cwe_id: Option<&'static str>,
    /// The evidence keys its findings carry (`# Evidence`).
    pub evidence_keys: &'static [&'static str],
    /// Where to read more, when a public reference exists.
    pub help_url: Option<&'static str>,
    /// The gathered facts a page check judges: when one failed on a page, the check does not
    /// run there (it would judge an empty default).
    pub requires: &'static [Artifact],
    /// The site facts a site check judges, read through `SiteView` only: when one failed to
    /// gather, the check does not run.
    pub site_requires: &'static [SiteArtifact],
    /// The W3C ACT rules (`https://www.w3.org/WAI/standards-guidelines/act/rules/<id>/`) the
    /// check implements, so an ACT harness can map its findings: a finding on a test case means
    /// the check failed it.
    pub act_ids: &'static [&'static str],
    /// The WCAG conformance level of the success criteria the check judges (the lowest, where it
    /// judges several): a scan whose target (`Thresholds::level`) is below it does not run it.
    /// `None`: not tied to a level (best practice, search, performance, ...): runs at every level.
    pub level: Option<Level>,
    /// The WCAG 2.2 success criteria the check judges (`1.3.1`), the first the one its findings
    /// fail; empty for checks not tied to a criterion. Findings carry them as `evidence.wcag`, in
    /// axe-core's tag form (`wcag2a`, `wcag131`), so every accessibility finding names its
    /// criterion and level the same way.
    pub wcag: &'static [&'static str],
}

impl CheckMeta {
    /// The category: the id's prefix.
    pub fn category(&self) -> &'static str {
        self.id.split_once('.').map_or(self.id, |(c, _)| c)
    }

    /// The WCAG tags of the check's findings: its level (`wcag2a`, `wcag2aa`, `wcag2aaa`), then
    /// each criterion (`wcag131`); empty when it names no criterion.
    pub fn wcag_tags(&self) -> Vec<String> {
        if self.wcag.is_empty() {
            return Vec::new();
        }
        let level = match self.level {
            Some(Level::AAA) => "wcag2aaa",
            Some(Level::AA) => "wcag2aa",
            _ => "wcag2a",
        };
        std::iter::once(level.to_string()).chain(self.wcag.iter().map(|sc| format!("wcag{}", sc.replace('.', "")))).collect()
    }
}

/// Thresholds (CHECKS.md defaults; configurable).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Thresholds {
    pub title_min_chars: usize,
    pub title_max_chars: usize,
    pub description_min_chars: usize,
    pub description_max_chars: usize,
    pub lcp_medium_ms: f64,
    pub lcp_high_ms: f64,
    pub cls_medium: f64,
    pub cls_high: f64,
    pub tbt_medium_ms: f64,
    pub tbt_high_ms: f64,
    pub fcp_low_ms: f64,
    pub fcp_medium_ms: f64,
    pub ttfb_low_ms: f64,
    pub ttfb_medium_ms: f64,
    pub page_weight_low_bytes: u64,
    pub page_weight_medium_bytes: u64,
    pub max_requests: u64,
    pub render_blocking_ms: f64,
    pub uncompressed_min_bytes: u64,
    pub cache_min_seconds: u64,
    pub dom_size_low: u64,
    pub dom_size_medium: u64,
    pub long_task_ms: f64,
    pub image_oversize_factor: f64,
    pub image_heavy_bytes: u64,
    /// Below-the-fold distance, in viewport heights, beyond which an eager image is flagged.
    pub lazy_viewports: f64,
    pub redirect_max_hops: usize,
    /// The WCAG conformance target: checks whose criteria sit above it do not run.
    pub level: Level,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            title_min_chars: 10,
            title_max_chars: 60,
            description_min_chars: 50,
            description_max_chars: 160,
            lcp_medium_ms: 2500.0,
            lcp_high_ms: 4000.0,
            cls_medium: 0.1,
            cls_high: 0.25,
            tbt_medium_ms: 200.0,
            tbt_high_ms: 600.0,
            fcp_low_ms: 1800.0,
            fcp_medium_ms: 3000.0,
            ttfb_low_ms: 800.0,
            ttfb_medium_ms: 1800.0,
            page_weight_low_bytes: 2 * 1024 * 1024,
            page_weight_medium_bytes: 4 * 1024 * 1024,
            max_requests: 100,
            render_blocking_ms: 500.0,
            uncompressed_min_bytes: 1400,
            cache_min_seconds: 86_400,
            dom_size_low: 1500,
            dom_size_medium: 3000,
            long_task_ms: 250.0,
            image_oversize_factor: 2.0,
            image_heavy_bytes: 100 * 1024,
            lazy_viewports: 2.0,
            redirect_max_hops: 10,
            level: Level::AA,
        }
    }
}

/// Collects one check's findings, applying the cap per page: for a page check the page is the
/// snapshot; for a site check, each finding's `evidence.url`.
pub struct Findings<'a> {
    meta: &'static CheckMeta,
    out: &'a mut Vec<Finding>,
    /// Per page URL: findings kept, index of the last one kept, findings dropped.
    pages: std::collections::HashMap<String, (usize, usize, usize)>,
}

impl<'a> Findings<'a> {
    pub fn new(meta: &'static CheckMeta, out: &'a mut Vec<Finding>) -> Self {
        Findings { meta, out, pages: std::collections::HashMap::new() }
    }

    /// Reports a finding at the check's default severity.
    pub fn report(&mut self, evidence: Map<String, Value>) {
        self.report_with(self.meta.severity, evidence);
    }

    /// Reports a finding at a severity the check's documented rule chose.
    pub fn report_with(&mut self, severity: Severity, evidence: Map<String, Value>) {
        self.report_finding(severity, self.meta.title.to_string(), self.meta.cwe_id.map(str::to_string), evidence);
    }

    /// Reports a finding at the check's default severity whose title names the thing it is about
    /// (`Security header missing: Content-Security-Policy`): a page with several such findings
    /// lists them apart, in reports and chat alike. The check's own title stays the catalogue's.
    pub fn report_titled(&mut self, title: String, evidence: Map<String, Value>) {
        self.report_finding(self.meta.severity, title, self.meta.cwe_id.map(str::to_string), evidence);
    }

    /// Reports a finding at `severity` with its own title and CWE (the check's description and
    /// remediation).
    pub fn report_finding(&mut self, severity: Severity, title: String, cwe_id: Option<String>, evidence: Map<String, Value>) {
        // The one place a registered check's finding is made: a field the catalogue does not
        // give takes its default.
        #[allow(clippy::needless_update, reason = "a field added to Finding defaults here until checks give it")]
        let finding = Finding {
            check_id: self.meta.id.to_string(),
            severity,
            title,
            description: self.meta.description.to_string(),
            remediation: self.meta.remediation.to_string(),
            cwe_id,
            help_url: self.meta.help_url.map(str::to_string),
            evidence,
            ..Finding::default()
        };
        self.push(finding, MAX_FINDINGS_PER_CHECK_PER_PAGE);
    }

    /// Reports a finding whose id is generated (axe rules: `accessibility.<rule>`), with its own
    /// title, description and help. The cap covers the whole family on a page.
    pub fn report_dynamic(&mut self, finding: Finding) {
        self.push(finding, MAX_FINDINGS_PER_CHECK_PER_PAGE * 10);
    }

    fn push(&mut self, mut finding: Finding, cap: usize) {
        let url = finding.url().unwrap_or_default().to_string();
        let entry = self.pages.entry(url).or_insert((0, 0, 0));
        if entry.0 >= cap {
            entry.2 += 1;
            return;
        }
        // Whatever the page held, the finding fits its budget (model::finding_size).
        crate::model::finding_size::bound(&mut finding);
        entry.0 += 1;
        entry.1 = self.out.len();
        self.out.push(finding);
    }
}

impl Drop for Findings<'_> {
    fn drop(&mut self) {
        for (_, last, omitted) in self.pages.values() {
            if *omitted > 0
                && let Some(f) = self.out.get_mut(*last)
            {
                f.evidence.insert("omitted".into(), Value::from(*omitted as u64));
            }
        }
    }
}

/// A check: metadata plus pure functions over snapshots. Implement `page` or `site` (or both).
pub trait Check: Sync + Send {
    fn meta(&self) -> &'static CheckMeta;

    /// Judges one page: the artifacts it reads are the ones its `requires` declares.
    fn page(&self, _page: &PageView<'_>, _thresholds: &Thresholds, _out: &mut Findings<'_>) {}

    /// Judges the site once the crawl has ended: the artifacts it reads are the ones its
    /// `site_requires` declares.
    fn site(&self, _site: &SiteView<'_>, _thresholds: &Thresholds, _out: &mut Findings<'_>) {}
}

/// Builds an evidence object: `evidence! { "url" => page.final_url, "value" => 3 }`.
#[macro_export]
macro_rules! evidence {
    ($($k:expr => $v:expr),* $(,)?) => {{
        #[allow(unused_mut)]
        let mut map = ::serde_json::Map::new();
        $( map.insert(($k).to_string(), ::serde_json::json!($v)); )*
        map
    }};
}

/// Declares a check: a unit struct with its documentation and its `META`.
///
/// ```ignore
/// declare_check! {
///     /// `<title>` is missing or empty.
///     pub struct TitleMissing {
///         id: "search.title-missing",
///         severity: High,
///         title: "Page has no title",
///         fires_when: "no <title> or an empty one",
///         description: "Why it matters ...",
///         remediation: "What to do ...",
///         cwe: None,
///         evidence: ["url"],
///         help_url: None,
///         requires: [Dom],            // optional: the page artifacts a page check reads
///         site_requires: [Pages],     // optional: the site artifacts a site check reads
///         act_ids: [],                // optional: the W3C ACT rules it implements
///     }
/// }
/// ```
#[macro_export]
macro_rules! declare_check {
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident {
            id: $id:literal,
            severity: $sev:ident,
            title: $title:literal,
            fires_when: $fires:literal,
            description: $desc:literal,
            remediation: $rem:literal,
            cwe: $cwe:expr,
            evidence: [$($ev:literal),* $(,)?],
            help_url: $help:expr
            $(, requires: [$($req:ident),* $(,)?])?
            $(, site_requires: [$($sreq:ident),* $(,)?])?
            $(, act_ids: [$($act:literal),* $(,)?])?
            $(, level: $level:ident)?
            $(, wcag: [$($sc:literal),* $(,)?])? $(,)?
        }
    ) => {
        $(#[$attr])*
        #[derive(Debug, Clone, Copy, Default)]
        $vis struct $name;

        impl $name {
            /// This check's declared metadata.
            pub const META: $crate::CheckMeta = $crate::CheckMeta {
                id: $id,
                severity: $crate::model::Severity::$sev,
                title: $title,
                fires_when: $fires,
                description: $desc,
                remediation: $rem,
                cwe_id: $cwe,
                evidence_keys: &[$($ev),*],
                help_url: $help,
                requires: &[$($($crate::model::Artifact::$req),*)?],
                site_requires: &[$($($crate::model::SiteArtifact::$sreq),*)?],
                act_ids: &[$($($act),*)?],
                level: $crate::level_of(&[$($crate::model::Level::$level)?]),
                wcag: &[$($($sc),*)?],
            };
        }
    };
}

/// The level a check's declaration names, if any (`declare_check!`'s optional `level: AA`).
pub const fn level_of(declared: &[Level]) -> Option<Level> {
    match declared {
        [level, ..] => Some(*level),
        [] => None,
    }
}

/// Registers a category's checks, in catalogue order: each line is a check's file (its module)
/// and its type. The module is declared, the type re-exported, and the category's `CHECKS` lists
/// them (the registry joins the categories' lists). Adding a check is its file and its line here.
///
/// ```ignore
/// crate::category_checks! {
///     title_missing::TitleMissing,
///     title_length::TitleLength,
/// }
/// ```
#[macro_export]
macro_rules! category_checks {
    ($($module:ident :: $check:ident),* $(,)?) => {
        $(
            pub mod $module;
            pub use $module::$check;
        )*

        /// This category's checks, in catalogue order.
        pub static CHECKS: &[&dyn $crate::Check] = &[$(&$check),*];
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    const META: CheckMeta = CheckMeta {
        id: "test.capped",
        severity: Severity::Low,
        title: "t",
        fires_when: "f",
        description: "d",
        remediation: "r",
        cwe_id: None,
        evidence_keys: &["url"],
        help_url: None,
        requires: &[],
        site_requires: &[],
        act_ids: &[],
        level: None,
        wcag: &[],
    };

    #[test]
    fn caps_per_page_and_counts_the_rest() {
        let mut out = Vec::new();
        {
            let mut sink = Findings::new(&META, &mut out);
            for i in 0..25 {
                sink.report(evidence! { "url" => "https://a.test/", "i" => i });
            }
            for i in 0..3 {
                sink.report(evidence! { "url" => "https://a.test/other", "i" => i });
            }
        }
        assert_eq!(out.len(), MAX_FINDINGS_PER_CHECK_PER_PAGE + 3, "the cap is per page, not per site");
        let omitted: Vec<_> = out.iter().filter_map(|f| f.evidence.get("omitted")).collect();
        assert_eq!(omitted, vec![&Value::from(5u64)]);
    }
}
