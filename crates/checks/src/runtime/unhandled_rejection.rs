use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::uncaught_exception::report_js_errors;
use crate::declare_check;

declare_check! {
    /// A promise rejection went unhandled.
    ///
    /// One finding per distinct `js_errors` entry of kind `unhandled-rejection` (same message,
    /// script, line and column), with its `count`.
    pub struct UnhandledRejection {
        id: "runtime.unhandled-rejection",
        severity: Medium,
        title: "Unhandled promise rejection",
        fires_when: "a promise is rejected and no handler catches it (an async error nobody handles)",
        description: "An unhandled rejection is an asynchronous operation (a fetch, a lazy-loaded module, a payment widget) that failed without the page noticing: the feature that depended on it silently stays empty or stuck, and the visitor gets no error message or retry.",
        remediation: "Find the promise at the script and line in the evidence and handle its failure: `await` it inside try/catch or add `.catch()`, show the visitor a message or a retry, and fix the underlying cause (often a failing request, see runtime.failed-request).",
        cwe: None,
        evidence: ["url", "message", "resource", "line", "column", "stack", "count"],
        help_url: Some("https://developer.mozilla.org/en-US/docs/Web/API/Window/unhandledrejection_event"),
        requires: [Exceptions],
    }
}

impl Check for UnhandledRejection {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if page.rendered() {
            report_js_errors(page, &["unhandled-rejection", "unhandledrejection"], out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{page, run};
    use super::*;
    use crate::model::JsError;

    fn error(kind: &str, message: &str) -> JsError {
        JsError { kind: kind.into(), message: message.into(), ..Default::default() }
    }

    #[test]
    fn fires_per_distinct_rejection() {
        let mut p = page();
        p.js_errors = vec![
            error("unhandled-rejection", "TypeError: Failed to fetch"),
            error("unhandled-rejection", "TypeError: Failed to fetch"),
        ];
        let f = run(&UnhandledRejection, &p);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["count"], 2);
        assert_eq!(f[0].evidence["message"], "TypeError: Failed to fetch");
    }

    #[test]
    fn quiet_for_exceptions() {
        let mut p = page();
        p.js_errors = vec![error("exception", "boom")];
        assert!(run(&UnhandledRejection, &p).is_empty());
    }
}
