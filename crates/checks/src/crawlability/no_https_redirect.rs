use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use crate::{declare_check, evidence};

declare_check! {
    /// http:// does not redirect to https://.
    pub struct NoHttpsRedirect {
        id: "crawlability.no-https-redirect",
        severity: Medium,
        title: "http:// does not redirect to https://",
        fires_when: "the start URL is https:// and its http:// form answers without a 3xx redirect to an https:// URL. Not judged when nothing listens on http:// (connection refused: nothing is served insecurely)",
        description: "Visitors typing the bare domain or following old links land on the unencrypted site, where content can be read and altered in transit, and search engines see two copies of every page.",
        remediation: "Answer every http:// request with a 301 (or 308) redirect to the same path on https://, and add Strict-Transport-Security on the https:// responses so browsers go there directly.",
        cwe: Some("CWE-319"),
        evidence: ["url", "status", "resource", "expected"],
        help_url: Some("https://developers.google.com/search/docs/crawling-indexing/http-network-errors#https"),
        site_requires: [HttpsProbe],
    }
}

impl Check for NoHttpsRedirect {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !site.start_url.to_ascii_lowercase().starts_with("https://") {
            return;
        }
        let Some(probe) = &site.https_probe() else {
            return;
        };
        let Some(status) = probe.status else { return };
        let location = probe.location.as_deref().unwrap_or("");
        let to_https = (300..400).contains(&status)
            && location.trim().to_ascii_lowercase().starts_with("https://");
        if !to_https {
            out.report(evidence! {
                "url" => probe.http_url,
                "status" => status,
                "resource" => probe.location,
                "expected" => format!("301 to {}", site.start_url),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{START, site_findings};
    use crate::model::{HttpsProbe, SiteSnapshot};

    fn probe(status: Option<u16>, location: Option<&str>, error: Option<&str>) -> SiteSnapshot {
        SiteSnapshot {
            start_url: START.into(),
            https_probe: Some(HttpsProbe {
                http_url: "http://e.com/".into(),
                status,
                location: location.map(str::to_string),
                error: error.map(str::to_string),
            }),
            ..Default::default()
        }
    }

    #[test]
    fn fires_when_http_serves_content_or_redirects_to_http() {
        assert_eq!(
            site_findings(
                &probe(Some(200), None, None),
                "crawlability.no-https-redirect"
            )
            .len(),
            1
        );
        assert_eq!(
            site_findings(
                &probe(Some(302), Some("/login"), None),
                "crawlability.no-https-redirect"
            )
            .len(),
            1
        );
    }

    #[test]
    fn quiet_for_a_redirect_to_https_or_no_http_service() {
        assert!(
            site_findings(
                &probe(Some(301), Some("HTTPS://e.com/"), None),
                "crawlability.no-https-redirect"
            )
            .is_empty()
        );
        assert!(
            site_findings(
                &probe(None, None, Some("connection refused")),
                "crawlability.no-https-redirect"
            )
            .is_empty()
        );
        let mut http_site = probe(Some(200), None, None);
        http_site.start_url = "http://e.com/".into();
        assert!(site_findings(&http_site, "crawlability.no-https-redirect").is_empty());
    }
}
