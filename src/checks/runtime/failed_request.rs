use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::{NetworkRequest, Severity};
use crate::{declare_check, evidence};

declare_check! {
    /// A subresource request failed.
    ///
    /// For each subresource (not the page's own document: that is crawlability.http-error) that
    /// answered 4xx/5xx or failed at the network level, one finding per URL. High for scripts
    /// and stylesheets (the page's behaviour or look breaks), medium otherwise. Not reported:
    /// - `net::ERR_ABORTED` without a status (a request the page or the end of the capture
    ///   cancelled, not a failure);
    /// - requests the browser blocked as mixed content or by the page's CSP (runtime.mixed-content
    ///   and runtime.csp-violation report those);
    /// - the browser's automatic `/favicon.ico` request when no `<link rel=icon>` points at it
    ///   (search.favicon-missing covers a missing icon).
    ///
    /// Requests our egress guard refused (`blocked_reason == "egress"`: a private or otherwise
    /// disallowed address) are reported with `blocked: true`: they fail for the scan, and an
    /// address the scanner may not reach is usually unreachable for the public too.
    pub struct FailedRequest {
        id: "runtime.failed-request",
        severity: Medium,
        title: "Subresource fails to load",
        fires_when: "a subresource (script, stylesheet, image, font, XHR/fetch, ...) answers 4xx/5xx or fails with a network error (high for scripts and stylesheets)",
        description: "Every failed request is something the page wanted and did not get: a missing script or stylesheet breaks behaviour or layout, a failing API call leaves parts of the page empty, and each failure still costs a round trip.",
        remediation: "Check the resource URL and status in the evidence: restore or re-deploy missing files (404), fix the server or API errors (5xx), correct wrong paths and hostnames, or remove references to resources that are gone. For third-party resources, update or drop the embed.",
        cwe: None,
        evidence: ["url", "resource", "resource_type", "status", "failure", "blocked", "blocked_reason"],
        help_url: Some("https://developer.chrome.com/docs/lighthouse/best-practices/errors-in-console"),
        requires: [Dom, Network],
    }
}

/// True when the request failed (an HTTP error status or a network error other than an abort).
pub fn request_failed(request: &NetworkRequest) -> bool {
    let aborted = request.failure.as_deref().is_some_and(|f| f.contains("ERR_ABORTED"));
    request.status.is_some_and(|s| s >= 400) || (request.failure.is_some() && !aborted)
}

/// The path of an absolute URL (without query and fragment).
fn path_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let path = rest.find('/').map_or("/", |i| &rest[i..]);
    path.split(['?', '#']).next().unwrap_or(path)
}

/// True for the browser's own `/favicon.ico` probe (no icon link names that URL).
fn is_automatic_favicon(page: &PageView<'_>, request: &NetworkRequest) -> bool {
    path_of(&request.url).eq_ignore_ascii_case("/favicon.ico")
        && !page.dom().links.iter().any(|l| {
            l.rel.split_ascii_whitespace().any(|r| r.eq_ignore_ascii_case("icon"))
                && l.href.as_deref() == Some(request.url.as_str())
        })
}

/// True when runtime.failed-request reports this request.
pub fn reported_failure(page: &PageView<'_>, request: &NetworkRequest) -> bool {
    let blocked_elsewhere = matches!(request.blocked_reason.as_deref(), Some("mixed-content") | Some("csp"));
    !request.is_navigation && request_failed(request) && !blocked_elsewhere && !is_automatic_favicon(page, request)
}

impl Check for FailedRequest {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let mut seen: Vec<&str> = Vec::new();
        for request in page.requests().iter().filter(|r| reported_failure(page, r)) {
            if seen.contains(&request.url.as_str()) {
                continue;
            }
            seen.push(&request.url);
            let severity = match request.resource_type.as_str() {
                "script" | "stylesheet" => Severity::High,
                _ => Severity::Medium,
            };
            out.report_with(
                severity,
                evidence! {
                    "url" => page.final_url,
                    "resource" => request.url,
                    "resource_type" => request.resource_type,
                    "status" => request.status,
                    "failure" => request.failure,
                    "blocked" => request.blocked_reason.is_some(),
                    "blocked_reason" => request.blocked_reason,
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{page, request, run};
    use super::*;
    use crate::model::LinkTag;

    fn failing(url: &str, kind: &str, failure: &str) -> NetworkRequest {
        NetworkRequest { failure: Some(failure.into()), ..request(url, kind, None) }
    }

    #[test]
    fn fires_per_failed_url_with_severity_by_type() {
        let mut p = page();
        let mut egress = failing("http://10.0.0.5/internal.js", "script", "net::ERR_BLOCKED_BY_CLIENT");
        egress.blocked_reason = Some("egress".into());
        p.requests = vec![
            request("https://example.com/app.js", "script", Some(404)),
            request("https://example.com/app.js", "script", Some(404)),
            request("https://api.example.com/items", "fetch", Some(500)),
            failing("https://fonts.test/a.woff2", "font", "net::ERR_NAME_NOT_RESOLVED"),
            egress,
        ];
        let f = run(&FailedRequest, &p);
        assert_eq!(f.len(), 4);
        assert_eq!((f[0].severity, f[0].evidence["status"].as_u64()), (Severity::High, Some(404)));
        assert_eq!(f[1].severity, Severity::Medium);
        assert_eq!(f[2].evidence["failure"], "net::ERR_NAME_NOT_RESOLVED");
        assert_eq!(f[3].evidence["blocked"], true);
        assert_eq!(f[3].evidence["blocked_reason"], "egress");
        assert_eq!(f[3].severity, Severity::High);
    }

    #[test]
    fn quiet_for_document_aborts_blocked_elsewhere_and_favicon_probe() {
        let mut p = page();
        let mut doc = request(super::super::test_support::URL, "document", Some(404));
        doc.is_navigation = true;
        let mut mixed = failing("http://example.com/x.js", "script", "net::ERR_BLOCKED_BY_CLIENT");
        mixed.blocked_reason = Some("mixed-content".into());
        let mut csp = failing("https://evil.test/x.js", "script", "net::ERR_BLOCKED_BY_CLIENT");
        csp.blocked_reason = Some("csp".into());
        p.requests = vec![
            doc,
            failing("https://example.com/video.mp4", "media", "net::ERR_ABORTED"),
            mixed,
            csp,
            request("https://example.com/favicon.ico", "other", Some(404)),
            request("https://example.com/ok.js", "script", Some(200)),
            request("https://example.com/moved.css", "stylesheet", Some(301)),
        ];
        assert!(run(&FailedRequest, &p).is_empty());
        // A favicon the page links to explicitly is a real broken resource.
        p.dom.links.push(LinkTag {
            rel: "icon".into(),
            href: Some("https://example.com/favicon.ico".into()),
            in_head: true,
            selector: "link[rel=icon]".into(),
            ..Default::default()
        });
        assert_eq!(run(&FailedRequest, &p).len(), 1);
    }
}
