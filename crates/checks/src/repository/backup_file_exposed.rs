use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::signature;
use crate::declare_check;
use crate::model::ProbeKind;

declare_check! {
    /// A backup, archive, dump or swap copy is served.
    ///
    /// # Fires when
    /// a backup, swap or archive copy of site files or a database dump is served (`.bak`, `.old`, `~`, `.swp`, `.zip`, `.tar.gz`, `.sql`, ...): its magic bytes (PK, gzip, tar, Vim swap) or content (SQL statements, `<?php` source) match, unlike a random path with the same extension.
    ///
    /// # Why it matters
    /// Backups and archives contain source code that is normally executed, not shown (and with it configuration and credentials), or whole database dumps with customer data and password hashes.
    ///
    /// # How to fix
    /// Never keep backups, archives or editor swap files in the web root; move them to storage that is not served, and deny those extensions at the web server.
    ///
    /// # Evidence
    /// `url`, `status`, `content_type`, `signature` (what matched), `bytes_read`, `source`.
    pub struct BackupFileExposed {
        id: "repository.backup-file-exposed",
        severity: High,
        title: "A backup or archive of site files is served",
        fires_when: "a backup, swap or archive copy of site files or a database dump is served (`.bak`, `.old`, `~`, `.swp`, `.zip`, `.tar.gz`, `.sql`, ...): its magic bytes (PK, gzip, tar, Vim swap) or content (SQL statements, `<?php` source) match, unlike a random path with the same extension",
        description: "Backups and archives contain source code that is normally executed, not shown (and with it configuration and credentials), or whole database dumps with customer data and password hashes.",
        remediation: "Never keep backups, archives or editor swap files in the web root; move them to storage that is not served, and deny those extensions at the web server.",
        cwe: Some("CWE-530"),
        evidence: ["url", "status", "content_type", "signature", "bytes_read", "source"],
        help_url: None,
        site_requires: [RepositoryProbes],
    }
}

impl Check for BackupFileExposed {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for answer in site.repository_probes().iter().filter(|a| a.kind == ProbeKind::BackupFile) {
            let Some(signature) = signature::backup_file(answer).map(str::to_string) else { continue };
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
        let site = site_with(ProbeKind::BackupFile, "/backup.zip", b"PK\x03\x04\x14\x00\x00\x00".to_vec());
        let found = findings(&site, "repository.backup-file-exposed");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].evidence["url"], "https://shop.test/backup.zip");
        assert!(found[0].evidence["signature"].as_str().is_some_and(|s| !s.is_empty()));
    }

    #[test]
    fn quiet_on_a_lookalike() {
        let site = site_with(ProbeKind::BackupFile, "/backup.zip", b"<html><body>Welcome</body></html>".to_vec());
        assert!(findings(&site, "repository.backup-file-exposed").is_empty());
    }
}
