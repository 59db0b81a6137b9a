use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::grouping::{clip, group_by};
use crate::model::{BrowserIssue, ConsoleMessage};
use crate::{declare_check, evidence};

declare_check! {
    /// The page uses a deprecated browser API.
    ///
    /// From the browser's deprecation reports: `browser_issues` of kind `deprecation` (one finding
    /// per distinct code, else message). When the snapshot has no such issue, console messages of
    /// source `deprecation` are used instead (one per distinct text): Chromium reports the same
    /// deprecation through both channels, so they are not combined.
    pub struct DeprecatedApi {
        id: "runtime.deprecated-api",
        severity: Low,
        title: "Deprecated browser API in use",
        fires_when: "the browser reports use of a deprecated API (a deprecation issue or console deprecation message)",
        description: "Deprecated APIs are scheduled for removal or already behave differently; when a browser drops one, the feature built on it (unload handlers, synchronous XHR, old storage or event APIs) stops working without any change on your side.",
        remediation: "Replace the API named in the evidence with its successor (the browser's message says which), e.g. `pagehide`/`visibilitychange` instead of `unload`, `fetch` instead of synchronous XMLHttpRequest; update third-party libraries that use it.",
        cwe: None,
        evidence: ["url", "code", "message", "resource", "line", "count"],
        help_url: Some("https://developer.chrome.com/docs/lighthouse/best-practices/deprecations"),
        requires: [Console, Issues],
    }
}

impl Check for DeprecatedApi {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let issues: Vec<&BrowserIssue> =
            page.browser_issues().iter().filter(|i| i.kind.eq_ignore_ascii_case("deprecation")).collect();
        if !issues.is_empty() {
            for (issue, count) in
                group_by(issues, |i: &BrowserIssue| i.code.clone().unwrap_or_else(|| i.message.clone()))
            {
                out.report(evidence! {
                    "url" => page.final_url,
                    "code" => issue.code,
                    "message" => clip(&issue.message),
                    "resource" => issue.url,
                    "line" => issue.line,
                    "count" => count,
                });
            }
            return;
        }
        let messages = page.console().iter().filter(|m| m.source.eq_ignore_ascii_case("deprecation"));
        for (message, count) in group_by(messages, |m: &ConsoleMessage| m.text.clone()) {
            out.report(evidence! {
                "url" => page.final_url,
                "code" => None::<String>,
                "message" => clip(&message.text),
                "resource" => message.url,
                "line" => message.line,
                "count" => count,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{page, run};
    use super::*;

    fn issue(kind: &str, code: &str) -> BrowserIssue {
        BrowserIssue {
            kind: kind.into(),
            code: Some(code.into()),
            message: format!("{code} is deprecated"),
            url: Some("https://example.com/legacy.js".into()),
            line: Some(10),
        }
    }

    fn deprecation_message(text: &str) -> ConsoleMessage {
        ConsoleMessage {
            level: "warning".into(),
            source: "deprecation".into(),
            text: text.into(),
            url: None,
            line: None,
        }
    }

    #[test]
    fn fires_per_distinct_deprecation_issue() {
        let mut p = page();
        p.browser_issues = vec![
            issue("deprecation", "UnloadHandler"),
            issue("deprecation", "UnloadHandler"),
            issue("deprecation", "SyncXHR"),
        ];
        // The same deprecation also arrives as a console message: not counted twice.
        p.console = vec![deprecation_message("Unload event listeners are deprecated")];
        let f = run(&DeprecatedApi, &p);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].evidence["code"], "UnloadHandler");
        assert_eq!(f[0].evidence["count"], 2);
    }

    #[test]
    fn falls_back_to_console_deprecations() {
        let mut p = page();
        p.console = vec![deprecation_message("Synchronous XMLHttpRequest on the main thread is deprecated")];
        let f = run(&DeprecatedApi, &p);
        assert_eq!(f.len(), 1);
        assert!(f[0].evidence["code"].is_null());
    }

    #[test]
    fn quiet_for_other_issues_and_messages() {
        let mut p = page();
        p.browser_issues = vec![issue("cookie", "ExcludeSameSiteNoneInsecure"), issue("heavy-ad", "NetworkTotalLimit")];
        p.console = vec![ConsoleMessage {
            level: "warning".into(),
            source: "console".into(),
            text: "deprecated: use v2".into(),
            url: None,
            line: None,
        }];
        assert!(run(&DeprecatedApi, &p).is_empty());
    }
}
