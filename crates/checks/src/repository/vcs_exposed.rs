use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::signature;
use crate::declare_check;
use crate::model::ProbeKind;

declare_check! {
    /// A version-control folder is served.
    ///
    /// # Fires when
    /// a version-control folder is served: `/.git/HEAD` (starting with `ref:` or a commit id) or `/.git/config` (a `[core]` section), `/.svn/entries`, `/.hg/requires` or `/.bzr/branch-format` answer 200 with their real content, unlike a random path in the same folder.
    ///
    /// # Why it matters
    /// Anyone who can read the version-control folder can download the whole repository: the full source code and its history, often with credentials, API keys and internal hostnames committed at some point. Tools that rebuild a repository from an exposed `.git/` are public and widely used.
    ///
    /// # How to fix
    /// Deploy a build artefact without the `.git/` (or `.svn/`, `.hg/`, `.bzr/`) folder, and deny every path starting with a version-control folder at the web server (`location ~ /\\.(git|svn|hg|bzr) { deny all; }` in nginx, `RedirectMatch 404 /\\.git` in Apache). Then rotate any secret that was ever committed.
    ///
    /// # Evidence
    /// `url`, `status`, `content_type`, `signature` (what matched), `bytes_read`, `source`.
    pub struct VcsExposed {
        id: "repository.vcs-exposed",
        severity: Critical,
        title: "A version-control folder is served",
        fires_when: "a version-control folder is served: `/.git/HEAD` (starting with `ref:` or a commit id) or `/.git/config` (a `[core]` section), `/.svn/entries`, `/.hg/requires` or `/.bzr/branch-format` answer 200 with their real content, unlike a random path in the same folder",
        description: "Anyone who can read the version-control folder can download the whole repository: the full source code and its history, often with credentials, API keys and internal hostnames committed at some point. Tools that rebuild a repository from an exposed `.git/` are public and widely used.",
        remediation: "Deploy a build artefact without the `.git/` (or `.svn/`, `.hg/`, `.bzr/`) folder, and deny every path starting with a version-control folder at the web server (`location ~ /\\.(git|svn|hg|bzr) { deny all; }` in nginx, `RedirectMatch 404 /\\.git` in Apache). Then rotate any secret that was ever committed.",
        cwe: Some("CWE-527"),
        evidence: ["url", "status", "content_type", "signature", "bytes_read", "source"],
        help_url: None,
        site_requires: [RepositoryProbes],
    }
}

impl Check for VcsExposed {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for answer in site.repository_probes().iter().filter(|a| a.kind == ProbeKind::Vcs) {
            let Some(signature) = signature::vcs(answer).map(str::to_string) else { continue };
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
        let site = site_with(ProbeKind::Vcs, "/.git/HEAD", b"ref: refs/heads/main\n".to_vec());
        let found = findings(&site, "repository.vcs-exposed");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].evidence["url"], "https://shop.test/.git/HEAD");
        assert!(found[0].evidence["signature"].as_str().is_some_and(|s| !s.is_empty()));
    }

    #[test]
    fn quiet_on_a_lookalike() {
        let site = site_with(ProbeKind::Vcs, "/.git/HEAD", b"<!doctype html><html><body>ref: refs/heads/main</body></html>".to_vec());
        assert!(findings(&site, "repository.vcs-exposed").is_empty());
    }
}
