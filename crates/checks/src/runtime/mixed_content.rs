use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::model::NetworkRequest;
use crate::{declare_check, evidence};

declare_check! {
    /// An https page loads a subresource over plain http.
    ///
    /// On an https page, each request (not the page's own navigation) to an `http://` or `ws://`
    /// URL, or that Chromium classified as mixed content (`mixed_content_type` `blockable` or
    /// `optionally-blockable`, also when it then upgraded the request to https). One finding per
    /// URL; `blocked` says whether the browser refused it (active mixed content such as scripts
    /// is blocked, which breaks the page outright).
    pub struct MixedContent {
        id: "runtime.mixed-content",
        severity: High,
        title: "Mixed content: http:// resource on an https page",
        fires_when: "an https page requests a subresource over http:// (or ws://), whether the browser blocked, upgraded or loaded it (CWE-319)",
        description: "A resource fetched over http:// can be read and replaced by anyone on the network path, which undoes the page's https: a replaced script takes over the page. Browsers block such scripts, styles and frames (breaking the page) and upgrade or flag images and media, removing the padlock.",
        remediation: "Reference every subresource over https:// (or with a relative URL); make sure the host serves it over https, and add `Content-Security-Policy: upgrade-insecure-requests` as a safety net while you fix the references.",
        cwe: Some("CWE-319"),
        evidence: ["url", "resource", "resource_type", "mixed_content_type", "blocked"],
        help_url: Some("https://developer.mozilla.org/en-US/docs/Web/Security/Mixed_content"),
        requires: [Network],
    }
}

fn has_scheme(url: &str, scheme: &str) -> bool {
    url.get(..scheme.len()).is_some_and(|p| p.eq_ignore_ascii_case(scheme))
}

fn is_mixed(request: &NetworkRequest) -> bool {
    let classified = matches!(request.mixed_content_type.as_deref(), Some("blockable") | Some("optionally-blockable"));
    !request.is_navigation && (has_scheme(&request.url, "http://") || has_scheme(&request.url, "ws://") || classified)
}

impl Check for MixedContent {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() || !page.is_https() {
            return;
        }
        let mut seen: Vec<&str> = Vec::new();
        for request in page.requests().iter().filter(|r| is_mixed(r)) {
            if seen.contains(&request.url.as_str()) {
                continue;
            }
            seen.push(&request.url);
            out.report(evidence! {
                "url" => page.final_url,
                "resource" => request.url,
                "resource_type" => request.resource_type,
                "mixed_content_type" => request.mixed_content_type,
                "blocked" => request.blocked_reason.as_deref() == Some("mixed-content"),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{page, page_at, request, run};
    use super::*;

    #[test]
    fn fires_for_http_subresources_on_https_page() {
        let mut p = page();
        let mut script = request("http://cdn.example.com/jquery.js", "script", None);
        script.blocked_reason = Some("mixed-content".into());
        script.mixed_content_type = Some("blockable".into());
        let mut upgraded = request("https://example.com/photo.jpg", "image", Some(200));
        upgraded.mixed_content_type = Some("optionally-blockable".into());
        p.requests = vec![script, upgraded, request("ws://example.com/live", "websocket", None)];
        let f = run(&MixedContent, &p);
        assert_eq!(f.len(), 3);
        assert_eq!(f[0].cwe_id.as_deref(), Some("CWE-319"));
        assert_eq!(f[0].evidence["blocked"], true);
        assert_eq!(f[1].evidence["blocked"], false);
        assert_eq!(f[2].evidence["resource"], "ws://example.com/live");
    }

    #[test]
    fn quiet_for_secure_subresources_and_http_pages() {
        let mut p = page();
        let mut none = request("https://example.com/a.js", "script", Some(200));
        none.mixed_content_type = Some("none".into());
        p.requests = vec![none, request("wss://example.com/live", "websocket", None)];
        assert!(run(&MixedContent, &p).is_empty());
        let mut http = page_at("http://example.com/");
        http.requests = vec![request("http://example.com/a.js", "script", Some(200))];
        assert!(run(&MixedContent, &http).is_empty());
    }
}
