use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::grouping::{clip, group_by};
use crate::model::{BrowserIssue, CspViolation as ViolationReport, Severity};
use crate::{declare_check, evidence};

declare_check! {
    /// The page violates its own Content-Security-Policy.
    ///
    /// One finding per distinct violation in `csp_violations` (same directive, blocked URI and
    /// disposition) with its `count`. Medium for an enforced policy (the browser blocked
    /// something the page wanted), low for `report`-only policies (nothing was blocked yet, but
    /// enforcing the policy would break this). When the snapshot has no violation reports but the
    /// browser raised `csp` issues, those are used (one per distinct message).
    pub struct RuntimeCspViolation {
        id: "runtime.csp-violation",
        severity: Medium,
        title: "Page violates its Content-Security-Policy",
        fires_when: "the page does something its own Content-Security-Policy forbids (a blocked script, style, frame, connection or inline code); low when the policy is report-only",
        description: "A violation means the browser blocked (or, report-only, would block) a resource or inline code the page relies on: the feature it belonged to is broken, or the policy is out of step with the site and will break it when enforced. It can also reveal injected third-party code.",
        remediation: "For each blocked URI and directive in the evidence, decide whether the resource is legitimate: if so, allow its origin in that directive (or move inline code to files, or use nonces/hashes); if not, remove what injects it. Re-test with the policy in report-only mode before enforcing changes.",
        cwe: None,
        evidence: ["url", "directive", "resource", "source_file", "line", "disposition", "count", "message"],
        help_url: Some("https://developer.mozilla.org/en-US/docs/Web/HTTP/CSP"),
        requires: [Csp, Issues],
    }
}

impl Check for RuntimeCspViolation {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        if page.csp_violations().is_empty() {
            let issues = page.browser_issues().iter().filter(|i| i.kind.eq_ignore_ascii_case("csp"));
            for (issue, count) in group_by(issues, |i: &BrowserIssue| i.message.clone()) {
                out.report(evidence! {
                    "url" => page.final_url,
                    "directive" => issue.code,
                    "resource" => None::<String>,
                    "source_file" => issue.url,
                    "line" => issue.line,
                    "disposition" => None::<String>,
                    "message" => clip(&issue.message),
                    "count" => count,
                });
            }
            return;
        }
        let key = |v: &ViolationReport| (v.directive.clone(), v.blocked_uri.clone(), v.disposition.clone());
        for (violation, count) in group_by(page.csp_violations(), key) {
            let report_only = violation.disposition.as_deref().is_some_and(|d| d.eq_ignore_ascii_case("report"));
            let severity = if report_only { Severity::Low } else { Severity::Medium };
            out.report_with(
                severity,
                evidence! {
                    "url" => page.final_url,
                    "directive" => violation.directive,
                    "resource" => violation.blocked_uri,
                    "source_file" => violation.source_file,
                    "line" => violation.line,
                    "disposition" => violation.disposition,
                    "count" => count,
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{page, run};
    use super::*;

    fn violation(directive: &str, blocked: &str, disposition: &str) -> ViolationReport {
        ViolationReport {
            directive: directive.into(),
            blocked_uri: blocked.into(),
            source_file: Some("https://example.com/page".into()),
            line: Some(12),
            disposition: Some(disposition.into()),
        }
    }

    #[test]
    fn fires_per_distinct_violation_lower_for_report_only() {
        let mut p = page();
        p.csp_violations = vec![
            violation("script-src-elem", "https://tracker.test/t.js", "enforce"),
            violation("script-src-elem", "https://tracker.test/t.js", "enforce"),
            violation("style-src-attr", "inline", "report"),
        ];
        let f = run(&RuntimeCspViolation, &p);
        assert_eq!(f.len(), 2);
        assert_eq!((f[0].severity, f[0].evidence["count"].as_u64()), (Severity::Medium, Some(2)));
        assert_eq!(f[0].evidence["resource"], "https://tracker.test/t.js");
        assert_eq!(f[1].severity, Severity::Low);
    }

    #[test]
    fn falls_back_to_csp_issues_and_is_quiet_otherwise() {
        let mut p = page();
        assert!(run(&RuntimeCspViolation, &p).is_empty());
        p.browser_issues = vec![BrowserIssue {
            kind: "csp".into(),
            code: Some("kInlineViolation".into()),
            message: "Inline script blocked".into(),
            url: None,
            line: None,
        }];
        assert_eq!(run(&RuntimeCspViolation, &p).len(), 1);
    }
}
