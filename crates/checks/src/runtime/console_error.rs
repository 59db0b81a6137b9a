use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::failed_request::request_failed;
use super::grouping::{clip, group_by};
use crate::model::ConsoleMessage;
use crate::{declare_check, evidence};

declare_check! {
    /// The page logged an error to the console.
    ///
    /// Console messages of level `error`: `console.error()` calls (source `console`) and the
    /// browser's own error entries (`Log.entryAdded`). One finding per distinct message (same
    /// source, text, script and line) with its `count`. Left to the checks that own them, so one
    /// problem is not reported twice:
    /// - network errors ("Failed to load resource ...") for a URL that failed:
    ///   runtime.failed-request;
    /// - "Uncaught ..." entries repeating an exception of `js_errors`: runtime.uncaught-exception;
    /// - Content-Security-Policy refusals when the page has CSP violations: runtime.csp-violation;
    /// - "Mixed Content:" entries on https pages: runtime.mixed-content.
    pub struct ConsoleError {
        id: "runtime.console-error",
        severity: Medium,
        title: "Error logged to the console",
        fires_when: "the page calls console.error() or the browser logs an error entry while the page loads (failed requests, uncaught exceptions, CSP and mixed-content errors are reported by their own checks)",
        description: "Console errors are the page telling you something went wrong: a broken integration, a failed API call handled badly, invalid configuration. They often precede visible breakage and make real problems hard to spot among the noise.",
        remediation: "Open the browser console on the page, read the message and its source in the evidence, and fix the cause (or, for expected conditions, handle them without logging an error). Third-party messages point at an embed to update or remove.",
        cwe: None,
        evidence: ["url", "message", "source", "resource", "line", "count"],
        help_url: Some("https://developer.chrome.com/docs/lighthouse/best-practices/errors-in-console"),
        requires: [Dom, Network, Console, Exceptions, Csp, Issues],
    }
}

/// True when another runtime check already reports what this message says.
fn reported_elsewhere(page: &PageView<'_>, message: &ConsoleMessage) -> bool {
    let text = message.text.trim_start();
    let network = message.source.eq_ignore_ascii_case("network") || text.starts_with("Failed to load resource");
    if network
        && let Some(url) = message.url.as_deref()
        && page.requests().iter().any(|r| r.url == url && (request_failed(r) || r.blocked_reason.is_some()))
    {
        return true;
    }
    if text.starts_with("Uncaught")
        && page.js_errors().iter().any(|e| !e.message.is_empty() && text.contains(e.message.as_str()))
    {
        return true;
    }
    if text.contains("Content Security Policy")
        && (!page.csp_violations().is_empty() || page.browser_issues().iter().any(|i| i.kind == "csp"))
    {
        return true;
    }
    text.starts_with("Mixed Content:") && page.is_https()
}

impl Check for ConsoleError {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let errors =
            page.console().iter().filter(|m| m.level.eq_ignore_ascii_case("error") && !reported_elsewhere(page, m));
        for (message, count) in
            group_by(errors, |m: &ConsoleMessage| (m.source.clone(), m.text.clone(), m.url.clone(), m.line))
        {
            out.report(evidence! {
                "url" => page.final_url,
                "message" => clip(&message.text),
                "source" => message.source,
                "resource" => message.url,
                "line" => message.line,
                "count" => count,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{page, request, run};
    use super::*;
    use crate::model::{CspViolation, JsError};

    fn msg(level: &str, source: &str, text: &str, url: Option<&str>) -> ConsoleMessage {
        ConsoleMessage {
            level: level.into(),
            source: source.into(),
            text: text.into(),
            url: url.map(str::to_string),
            line: Some(3),
        }
    }

    #[test]
    fn fires_per_distinct_error_message() {
        let mut p = page();
        p.console = vec![
            msg("error", "console", "Stripe: invalid publishable key", Some("https://js.stripe.test/v3")),
            msg("error", "console", "Stripe: invalid publishable key", Some("https://js.stripe.test/v3")),
            msg(
                "error",
                "javascript",
                "Refused to apply style: MIME type ('text/html') is not a supported stylesheet MIME type",
                None,
            ),
            // A network error whose request is not in the capture stays a console error.
            msg(
                "error",
                "network",
                "Failed to load resource: net::ERR_CONNECTION_RESET",
                Some("https://lost.test/x.js"),
            ),
        ];
        let f = run(&ConsoleError, &p);
        assert_eq!(f.len(), 3);
        assert_eq!(f[0].evidence["count"], 2);
        assert_eq!(f[0].evidence["source"], "console");
        assert_eq!(f[2].evidence["resource"], "https://lost.test/x.js");
    }

    #[test]
    fn quiet_for_warnings_and_what_other_checks_report() {
        let mut p = page();
        p.requests = vec![request("https://example.com/missing.js", "script", Some(404))];
        p.js_errors =
            vec![JsError { kind: "exception".into(), message: "x is not defined".into(), ..Default::default() }];
        p.csp_violations =
            vec![CspViolation { directive: "script-src".into(), blocked_uri: "inline".into(), ..Default::default() }];
        p.console = vec![
            msg("warning", "console", "deprecated option", None),
            msg("log", "console", "hello", None),
            msg(
                "error",
                "network",
                "Failed to load resource: the server responded with a status of 404 (Not Found)",
                Some("https://example.com/missing.js"),
            ),
            msg("error", "javascript", "Uncaught ReferenceError: x is not defined", None),
            msg(
                "error",
                "security",
                "Refused to execute inline script because it violates the following Content Security Policy directive: \"script-src 'self'\"",
                None,
            ),
            msg(
                "error",
                "security",
                "Mixed Content: The page at 'https://example.com/page' was loaded over HTTPS, but requested an insecure script 'http://example.com/a.js'.",
                None,
            ),
        ];
        assert!(run(&ConsoleError, &p).is_empty());
    }
}
