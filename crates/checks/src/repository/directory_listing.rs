use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::signature;
use crate::declare_check;
use crate::model::ProbeKind;

declare_check! {
    /// A directory answers with an auto-generated index of its files.
    ///
    /// # Fires when
    /// a folder the crawl saw (a parent of a page or resource URL), asked for without a file name, answers 200 with an auto-generated index (`Index of /...`, `Directory listing for /...`) linking to its entries.
    ///
    /// # Why it matters
    /// A directory listing shows every file in the folder, including those never linked: backups, uploads, exports, old versions. It turns guessing into reading.
    ///
    /// # How to fix
    /// Turn off automatic indexes (`Options -Indexes` in Apache, `autoindex off;` in nginx) or put an index page in the folder.
    ///
    /// # Evidence
    /// `url`, `status`, `content_type`, `signature` (what matched), `bytes_read`, `source`.
    pub struct DirectoryListing {
        id: "repository.directory-listing",
        severity: Medium,
        title: "A directory lists its files",
        fires_when: "a folder the crawl saw (a parent of a page or resource URL), asked for without a file name, answers 200 with an auto-generated index (`Index of /...`, `Directory listing for /...`) linking to its entries",
        description: "A directory listing shows every file in the folder, including those never linked: backups, uploads, exports, old versions. It turns guessing into reading.",
        remediation: "Turn off automatic indexes (`Options -Indexes` in Apache, `autoindex off;` in nginx) or put an index page in the folder.",
        cwe: Some("CWE-548"),
        evidence: ["url", "status", "content_type", "signature", "bytes_read", "source"],
        help_url: None,
        site_requires: [RepositoryProbes],
    }
}

impl Check for DirectoryListing {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for answer in site.repository_probes().iter().filter(|a| a.kind == ProbeKind::DirectoryListing) {
            let Some(signature) = signature::directory_listing(answer).map(|n| format!("an auto-generated index with {n} links")) else { continue };
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
        let site = site_with(ProbeKind::DirectoryListing, "/assets/", b"<html><head><title>Index of /assets/</title></head><body><h1>Index of /assets/</h1><a href=\"app.js\">app.js</a></body></html>".to_vec());
        let found = findings(&site, "repository.directory-listing");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].evidence["url"], "https://shop.test/assets/");
        assert!(found[0].evidence["signature"].as_str().is_some_and(|s| !s.is_empty()));
    }

    #[test]
    fn quiet_on_a_lookalike() {
        let site = site_with(ProbeKind::DirectoryListing, "/assets/", b"<html><head><title>Assets</title></head><body><a href=\"/\">Home</a></body></html>".to_vec());
        assert!(findings(&site, "repository.directory-listing").is_empty());
    }
}
