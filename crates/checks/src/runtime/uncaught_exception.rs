use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::grouping::{clip, group_by};
use crate::model::JsError;
use crate::{declare_check, evidence};

declare_check! {
    /// The page threw an uncaught JavaScript exception.
    ///
    /// One finding per distinct exception in `js_errors` of kind `exception` (same message,
    /// script, line and column), with how often it was thrown (`count`).
    pub struct RuntimeUncaughtException {
        id: "runtime.uncaught-exception",
        severity: High,
        title: "Uncaught JavaScript exception",
        fires_when: "the page throws an exception that no code catches while it loads",
        description: "An uncaught exception stops the script that threw it, so whatever it was about to do (render a menu, attach a click handler, submit a form, start a checkout) silently does not happen; visitors see a page that looks fine and does not work.",
        remediation: "Open the page with the browser's developer tools, find the error at the script, line and column in the evidence, and fix its cause (typically a missing element, an undefined value or a failed request it did not expect); guard optional features with checks and try/catch where failure is possible.",
        cwe: None,
        evidence: ["url", "message", "resource", "line", "column", "stack", "count"],
        help_url: Some("https://developer.chrome.com/docs/lighthouse/best-practices/errors-in-console"),
        requires: [Exceptions],
    }
}

/// Reports each distinct JS error of `kind` (`exception`, `unhandled-rejection`).
pub fn report_js_errors(page: &PageView<'_>, kinds: &[&str], out: &mut Findings<'_>) {
    let matching = page.js_errors().iter().filter(|e| kinds.iter().any(|k| e.kind.eq_ignore_ascii_case(k)));
    for (error, count) in group_by(matching, |e: &JsError| (e.message.clone(), e.url.clone(), e.line, e.column)) {
        out.report(evidence! {
            "url" => page.final_url,
            "message" => clip(&error.message),
            "resource" => error.url,
            "line" => error.line,
            "column" => error.column,
            "stack" => error.stack.as_deref().map(clip),
            "count" => count,
        });
    }
}

impl Check for RuntimeUncaughtException {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if page.rendered() {
            report_js_errors(page, &["exception"], out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{page, run};
    use super::*;

    fn error(kind: &str, message: &str, line: u32) -> JsError {
        JsError {
            kind: kind.into(),
            message: message.into(),
            stack: Some(format!("TypeError: {message}\n    at init (https://example.com/app.js:{line}:7)")),
            url: Some("https://example.com/app.js".into()),
            line: Some(line),
            column: Some(7),
        }
    }

    #[test]
    fn one_finding_per_distinct_exception_with_count() {
        let mut p = page();
        p.js_errors = vec![
            error("exception", "Cannot read properties of null (reading 'addEventListener')", 12),
            error("exception", "Cannot read properties of null (reading 'addEventListener')", 12),
            error("exception", "x is not defined", 40),
        ];
        let f = run(&RuntimeUncaughtException, &p);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].evidence["count"], 2);
        assert_eq!(f[0].evidence["line"], 12);
        assert_eq!(f[0].evidence["resource"], "https://example.com/app.js");
        assert_eq!(f[1].evidence["message"], "x is not defined");
    }

    #[test]
    fn quiet_for_rejections_and_clean_pages() {
        let mut p = page();
        p.js_errors = vec![error("unhandled-rejection", "Failed to fetch", 3)];
        assert!(run(&RuntimeUncaughtException, &p).is_empty());
        assert!(run(&RuntimeUncaughtException, &page()).is_empty());
    }
}
