use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::signature;
use crate::declare_check;
use crate::model::ProbeKind;

declare_check! {
    /// A private key is served.
    ///
    /// # Fires when
    /// a private key (`-----BEGIN ... PRIVATE KEY-----`) is served at a probed path such as `/id_rsa` or `/server.key`.
    ///
    /// # Why it matters
    /// A served private key lets anyone impersonate the server (TLS), log in where the key is trusted (SSH) or sign as its owner. The key must be treated as compromised from the moment it was reachable.
    ///
    /// # How to fix
    /// Remove the key from the web root, deny such paths at the web server, and replace the key: revoke its certificate or remove it from every `authorized_keys` and trust store.
    ///
    /// # Evidence
    /// `url`, `status`, `content_type`, `signature` (what matched), `bytes_read`, `source`.
    pub struct PrivateKeyExposed {
        id: "repository.private-key-exposed",
        severity: Critical,
        title: "A private key is served",
        fires_when: "a private key (`-----BEGIN ... PRIVATE KEY-----`) is served at a probed path such as `/id_rsa` or `/server.key`",
        description: "A served private key lets anyone impersonate the server (TLS), log in where the key is trusted (SSH) or sign as its owner. The key must be treated as compromised from the moment it was reachable.",
        remediation: "Remove the key from the web root, deny such paths at the web server, and replace the key: revoke its certificate or remove it from every `authorized_keys` and trust store.",
        cwe: Some("CWE-321"),
        evidence: ["url", "status", "content_type", "signature", "bytes_read", "source"],
        help_url: None,
        site_requires: [RepositoryProbes],
    }
}

impl Check for PrivateKeyExposed {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for answer in site.repository_probes().iter().filter(|a| a.kind == ProbeKind::PrivateKey) {
            let Some(signature) = signature::private_key(answer) else { continue };
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
        let site = site_with(ProbeKind::PrivateKey, "/id_rsa", b"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n".to_vec());
        let found = findings(&site, "repository.private-key-exposed");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].evidence["url"], "https://shop.test/id_rsa");
        assert!(found[0].evidence["signature"].as_str().is_some_and(|s| !s.is_empty()));
    }

    #[test]
    fn quiet_on_a_lookalike() {
        let site = site_with(ProbeKind::PrivateKey, "/id_rsa", b"-----BEGIN PUBLIC KEY-----\nMIIB\n".to_vec());
        assert!(findings(&site, "repository.private-key-exposed").is_empty());
    }
}
