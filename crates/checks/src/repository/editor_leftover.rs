use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::signature;
use crate::declare_check;
use crate::model::ProbeKind;

declare_check! {
    /// Editor or operating-system leftovers are served.
    ///
    /// # Fires when
    /// editor or OS leftovers are served: `.DS_Store` (starting with `00 00 00 01 Bud1`), `Thumbs.db` (an OLE file), `.idea/workspace.xml` or `.vscode/settings.json`.
    ///
    /// # Why it matters
    /// Leftovers list the files and folders of the project (a `.DS_Store` names every file in its folder) and the developers' local settings, a map for finding what is not linked.
    ///
    /// # How to fix
    /// Keep these files out of the deployment (`.gitignore`, the build's file list) and deny dotfiles and editor folders at the web server.
    ///
    /// # Evidence
    /// `url`, `status`, `content_type`, `signature` (what matched), `bytes_read`, `source`.
    pub struct EditorLeftover {
        id: "repository.editor-leftover",
        severity: Low,
        title: "Editor or OS leftover files are served",
        fires_when: "editor or OS leftovers are served: `.DS_Store` (starting with `00 00 00 01 Bud1`), `Thumbs.db` (an OLE file), `.idea/workspace.xml` or `.vscode/settings.json`",
        description: "Leftovers list the files and folders of the project (a `.DS_Store` names every file in its folder) and the developers' local settings, a map for finding what is not linked.",
        remediation: "Keep these files out of the deployment (`.gitignore`, the build's file list) and deny dotfiles and editor folders at the web server.",
        cwe: Some("CWE-538"),
        evidence: ["url", "status", "content_type", "signature", "bytes_read", "source"],
        help_url: None,
        site_requires: [RepositoryProbes],
    }
}

impl Check for EditorLeftover {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for answer in site.repository_probes().iter().filter(|a| a.kind == ProbeKind::EditorLeftover) {
            let Some(signature) = signature::editor_leftover(answer).map(str::to_string) else { continue };
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
        let site = site_with(ProbeKind::EditorLeftover, "/.DS_Store", vec![0, 0, 0, 1, b'B', b'u', b'd', b'1', 0, 0, 16, 0]);
        let found = findings(&site, "repository.editor-leftover");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].evidence["url"], "https://shop.test/.DS_Store");
        assert!(found[0].evidence["signature"].as_str().is_some_and(|s| !s.is_empty()));
    }

    #[test]
    fn quiet_on_a_lookalike() {
        let site = site_with(ProbeKind::EditorLeftover, "/.DS_Store", b"<html><body>Not here</body></html>".to_vec());
        assert!(findings(&site, "repository.editor-leftover").is_empty());
    }
}
