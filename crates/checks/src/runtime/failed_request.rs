use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::{NetworkRequest, Severity};
use crate::{declare_check, evidence};

declare_check! {
    /// A subresource request failed.
    ///
    /// For each subresource (not the page's own document: that is crawlability.http-error) that
    /// answered 4xx/5xx, one finding per URL; for those that failed at the network level before
    /// any answer (a name that does not resolve, a refused or timed-out connection), one finding
    /// per host and failure, with `requests` (how many of the page's requests to that host
    /// failed so) and the first failed URL as `resource`: a dead CDN is one barrier, not sixty.
    /// High for scripts and stylesheets (the page's behaviour or look breaks), medium otherwise
    /// (the worst request of a host's group decides). Not reported:
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
        evidence: ["url", "resource", "resource_type", "status", "failure", "blocked", "blocked_reason", "host", "requests"],
        help_url: Some("https://developer.chrome.com/docs/lighthouse/best-practices/errors-in-console"),
        requires: [Dom, Network],
    }
}

/// True when the request failed (an HTTP error status or a network error other than an abort).
pub fn request_failed(request: &NetworkRequest) -> bool {
    let aborted = request.failure.as_deref().is_some_and(|f| f.contains("ERR_ABORTED"));
    request.status.is_some_and(|s| s >= 400) || (request.failure.is_some() && !aborted)
}

/// The host and failure of a request that failed before any answer came (no status, not
/// refused by a policy): the name did not resolve, the connection was refused or timed out.
fn unreached_host(request: &NetworkRequest) -> Option<(&str, &str)> {
    if request.status.is_some() || request.blocked_reason.is_some() {
        return None;
    }
    let failure = request.failure.as_deref()?;
    let unreached = ["ERR_NAME_NOT_RESOLVED", "ERR_CONNECTION_REFUSED", "ERR_CONNECTION_TIMED_OUT", "ERR_TUNNEL_CONNECTION_FAILED", "ERR_ADDRESS_UNREACHABLE", "ERR_CONNECTION_FAILED", "ERR_TIMED_OUT"];
    if !unreached.iter().any(|u| failure.contains(u)) {
        return None;
    }
    let rest = request.url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    (!host.is_empty()).then_some((host, failure))
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
        let severity_of = |r: &NetworkRequest| match r.resource_type.as_str() {
            "script" | "stylesheet" => Severity::High,
            _ => Severity::Medium,
        };
        let mut seen: Vec<&str> = Vec::new();
        // Network failures by (host, failure): the first request, the worst severity, how many.
        let mut unreached: Vec<(&str, &str, &NetworkRequest, Severity, usize)> = Vec::new();
        for request in page.requests().iter().filter(|r| reported_failure(page, r)) {
            if seen.contains(&request.url.as_str()) {
                continue;
            }
            seen.push(&request.url);
            if let Some((host, failure)) = unreached_host(request) {
                match unreached.iter_mut().find(|(h, f, ..)| *h == host && *f == failure) {
                    Some(group) => {
                        group.3 = group.3.max(severity_of(request));
                        group.4 += 1;
                    }
                    None => unreached.push((host, failure, request, severity_of(request), 1)),
                }
                continue;
            }
            out.report_with(
                severity_of(request),
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
        for (host, _, first, severity, requests) in unreached {
            out.report_with(
                severity,
                evidence! {
                    "url" => page.final_url,
                    "resource" => first.url,
                    "resource_type" => first.resource_type,
                    "status" => first.status,
                    "failure" => first.failure,
                    "blocked" => first.blocked_reason.is_some(),
                    "blocked_reason" => first.blocked_reason,
                    "host" => host,
                    "requests" => requests as u64,
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
        assert_eq!(f[2].evidence["blocked"], true);
        assert_eq!(f[2].evidence["blocked_reason"], "egress");
        assert_eq!(f[2].severity, Severity::High);
        assert_eq!(f[3].evidence["failure"], "net::ERR_NAME_NOT_RESOLVED");
        assert_eq!((f[3].evidence["host"].as_str(), f[3].evidence["requests"].as_u64()), (Some("fonts.test"), Some(1)));
    }

    #[test]
    fn a_host_that_cannot_be_reached_is_one_finding_however_many_requests() {
        let mut p = page();
        p.requests = (0..60).map(|i| failing(&format!("http://cdn.gone.test/img{i}.png"), "image", "net::ERR_NAME_NOT_RESOLVED")).collect();
        p.requests.push(failing("http://cdn.gone.test/app.js", "script", "net::ERR_NAME_NOT_RESOLVED"));
        p.requests.push(failing("http://other.gone.test/a.png", "image", "net::ERR_NAME_NOT_RESOLVED"));
        p.requests.push(failing("https://down.test:8443/b.css", "stylesheet", "net::ERR_CONNECTION_REFUSED"));
        p.requests.push(request("http://cdn.gone.test/x.png", "image", Some(404)));
        let f = run(&FailedRequest, &p);
        let host = |h: &str| f.iter().find(|x| x.evidence.get("host").is_some_and(|v| v == h)).unwrap_or_else(|| panic!("{h}: {f:?}"));
        assert_eq!(f.len(), 4, "one per host and failure, one per HTTP error: {f:?}");
        let cdn = host("cdn.gone.test");
        assert_eq!((cdn.evidence["requests"].as_u64(), cdn.severity), (Some(61), Severity::High), "the script makes it high");
        assert_eq!(cdn.evidence["resource"], "http://cdn.gone.test/img0.png");
        assert_eq!(host("other.gone.test").evidence["requests"], 1);
        assert_eq!(host("down.test:8443").evidence["failure"], "net::ERR_CONNECTION_REFUSED");
        assert!(f.iter().any(|x| x.evidence["status"] == 404 && x.evidence.get("host").is_none()), "an answer is per URL");
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
