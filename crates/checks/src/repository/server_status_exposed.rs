use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::signature;
use crate::declare_check;
use crate::model::ProbeKind;

declare_check! {
    /// A server status or info page is served.
    ///
    /// # Fires when
    /// a server status or info page is served: `/server-status` (Apache Server Status), `/server-info` (Apache Server Information), `/phpinfo.php` (phpinfo output) or an nginx stub_status.
    ///
    /// # Why it matters
    /// Status and info pages show the server's exact versions and modules, its configuration, environment variables, and (for server-status) the URLs and client addresses of requests in flight, session tokens in query strings included.
    ///
    /// # How to fix
    /// Restrict status pages to localhost or an admin network (`Require local` / `Require ip ...` in Apache, `allow`/`deny` in nginx) and delete phpinfo scripts from production.
    ///
    /// # Evidence
    /// `url`, `status`, `content_type`, `signature` (what matched), `bytes_read`, `source`.
    pub struct ServerStatusExposed {
        id: "repository.server-status-exposed",
        severity: High,
        title: "A server status or info page is served",
        fires_when: "a server status or info page is served: `/server-status` (Apache Server Status), `/server-info` (Apache Server Information), `/phpinfo.php` (phpinfo output) or an nginx stub_status",
        description: "Status and info pages show the server's exact versions and modules, its configuration, environment variables, and (for server-status) the URLs and client addresses of requests in flight, session tokens in query strings included.",
        remediation: "Restrict status pages to localhost or an admin network (`Require local` / `Require ip ...` in Apache, `allow`/`deny` in nginx) and delete phpinfo scripts from production.",
        cwe: Some("CWE-200"),
        evidence: ["url", "status", "content_type", "signature", "bytes_read", "source"],
        help_url: None,
        site_requires: [RepositoryProbes],
    }
}

impl Check for ServerStatusExposed {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for answer in site.repository_probes().iter().filter(|a| a.kind == ProbeKind::ServerStatus) {
            let Some(signature) = signature::server_status(answer).map(str::to_string) else { continue };
            out.report(signature::evidence(answer, &signature));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{findings, site_with};
    use crate::model::ProbeKind;

    #[test]
    fn fires_on_the_artifact() {
        let site = site_with(ProbeKind::ServerStatus, "/server-status", b"<html><head><title>Apache Status</title></head><body><h1>Apache Server Status for localhost</h1></body></html>".to_vec());
        let found = findings(&site, "repository.server-status-exposed");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].evidence["url"], "https://shop.test/server-status");
        assert!(found[0].evidence["signature"].as_str().is_some_and(|s| !s.is_empty()));
    }

    #[test]
    fn quiet_on_a_lookalike() {
        let site = site_with(ProbeKind::ServerStatus, "/server-status", b"<html><body><h1>Status</h1>All systems operational</body></html>".to_vec());
        assert!(findings(&site, "repository.server-status-exposed").is_empty());
    }
}
