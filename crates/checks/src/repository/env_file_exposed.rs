use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::signature;
use crate::declare_check;
use crate::model::ProbeKind;

declare_check! {
    /// An environment file is served.
    ///
    /// # Fires when
    /// an environment file (`/.env`, `/.env.local`, `/.env.production`) answers 200 with mostly `KEY=value` lines, unlike a random path. The evidence lists the variable names, never their values.
    ///
    /// # Why it matters
    /// Environment files hold the application's secrets: database passwords, API keys, signing keys, cloud credentials. Served over HTTP, they hand those secrets to anyone who asks, and automated scanners ask for `/.env` on every site they find.
    ///
    /// # How to fix
    /// Keep environment files outside the web root (or out of the deployed artefact), deny dotfiles at the web server, and rotate every secret the file held: assume they have been read.
    ///
    /// # Evidence
    /// `url`, `status`, `content_type`, `signature` (what matched), `bytes_read`, `source`, `keys` (variable names only).
    pub struct EnvFileExposed {
        id: "repository.env-file-exposed",
        severity: Critical,
        title: "An environment file is served",
        fires_when: "an environment file (`/.env`, `/.env.local`, `/.env.production`) answers 200 with mostly `KEY=value` lines, unlike a random path. The evidence lists the variable names, never their values",
        description: "Environment files hold the application's secrets: database passwords, API keys, signing keys, cloud credentials. Served over HTTP, they hand those secrets to anyone who asks, and automated scanners ask for `/.env` on every site they find.",
        remediation: "Keep environment files outside the web root (or out of the deployed artefact), deny dotfiles at the web server, and rotate every secret the file held: assume they have been read.",
        cwe: Some("CWE-538"),
        evidence: ["url", "status", "content_type", "signature", "bytes_read", "source", "keys"],
        help_url: None,
        site_requires: [RepositoryProbes],
    }
}

impl Check for EnvFileExposed {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for answer in site.repository_probes().iter().filter(|a| a.kind == ProbeKind::EnvFile) {
            let Some((signature, keys)) = signature::env_file(answer).map(|keys| (format!("{} KEY=value lines", keys.len()), keys)) else { continue };
            let mut evidence = signature::evidence(answer, &signature);
            evidence.insert("keys".into(), serde_json::json!(keys));
            out.report(evidence);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{findings, site_with};
    use crate::model::ProbeKind;

    #[test]
    fn fires_on_the_artifact() {
        let site = site_with(ProbeKind::EnvFile, "/.env", b"# app\nAPP_KEY=base64:abc\nDB_PASSWORD=hunter2\n".to_vec());
        let found = findings(&site, "repository.env-file-exposed");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].evidence["url"], "https://shop.test/.env");
        assert!(found[0].evidence["signature"].as_str().is_some_and(|s| !s.is_empty()));
    }

    #[test]
    fn quiet_on_a_lookalike() {
        let site = site_with(ProbeKind::EnvFile, "/.env", b"Not found. Try the home page.".to_vec());
        assert!(findings(&site, "repository.env-file-exposed").is_empty());
    }
}
