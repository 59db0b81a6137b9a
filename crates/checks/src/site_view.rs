//! What a site check sees of the site: the start URL, and each site artifact only through an
//! accessor that holds the check to its declared `site_requires`.
//!
//! The runner skips a site check when a site artifact it declares failed to gather; a check that
//! read an artifact it did not declare would judge whatever that failed gatherer left (an empty
//! list read as "no sitemap", "no icon"). Here such a read fails at once, whatever the site
//! holds: the check panics, the runner reports it as not run, and the contract test below, which
//! runs every site check over a site that holds every artifact, names it.

use super::check::CheckMeta;
use crate::model::{HttpsProbe, JourneyOutcome, PageDigest, ProbeAnswer, RobotsTxt, SiteArtifact, SiteSnapshot, Sitemap, UrlStatus};

/// The site as one site check may read it.
#[derive(Debug, Clone, Copy)]
pub struct SiteView<'a> {
    /// The URL the scan started from.
    pub start_url: &'a str,
    snapshot: &'a SiteSnapshot,
    check: &'static CheckMeta,
}

impl<'a> SiteView<'a> {
    /// `snapshot` as the check `check` may read it.
    pub fn new(snapshot: &'a SiteSnapshot, check: &'static CheckMeta) -> Self {
        SiteView { start_url: &snapshot.start_url, snapshot, check }
    }

    /// Panics unless the check declared `artifact`.
    fn declared(&self, artifact: SiteArtifact) -> &'a SiteSnapshot {
        assert!(
            self.check.site_requires.contains(&artifact),
            "{} reads the `{}` site artifact without declaring it in `site_requires`",
            self.check.id,
            artifact.gatherer()
        );
        self.snapshot
    }

    /// robots.txt as fetched and parsed (`Robots`).
    pub fn robots(&self) -> Option<&'a RobotsTxt> {
        self.declared(SiteArtifact::Robots).robots.as_ref()
    }

    /// Internal links robots.txt kept the crawl from: (link, page it was found on) (`Robots`).
    pub fn robots_blocked_links(&self) -> &'a [(String, String)] {
        &self.declared(SiteArtifact::Robots).robots_blocked_links
    }

    /// The sitemaps read (`Sitemaps`).
    pub fn sitemaps(&self) -> &'a [Sitemap] {
        &self.declared(SiteArtifact::Sitemaps).sitemaps
    }

    /// Statuses of the URLs the sitemaps list, within budget (`Statuses`).
    pub fn sitemap_url_statuses(&self) -> &'a [UrlStatus] {
        &self.declared(SiteArtifact::Statuses).sitemap_url_statuses
    }

    /// Statuses of every internal link target the crawl knows (`Statuses`).
    pub fn link_statuses(&self) -> &'a [UrlStatus] {
        &self.declared(SiteArtifact::Statuses).link_statuses
    }

    /// Statuses of the resources the checks need: og:image, canonical targets, /favicon.ico
    /// (`Statuses`).
    pub fn resource_statuses(&self) -> &'a [UrlStatus] {
        &self.declared(SiteArtifact::Statuses).resource_statuses
    }

    /// The known status of a URL from any fetch or render of it (`Statuses`).
    pub fn status_of(&self, url: &str) -> Option<&'a UrlStatus> {
        self.declared(SiteArtifact::Statuses).status_of(url)
    }

    /// The http:// probe of an https start URL (`HttpsProbe`).
    pub fn https_probe(&self) -> Option<&'a HttpsProbe> {
        self.declared(SiteArtifact::HttpsProbe).https_probe.as_ref()
    }

    /// Every crawled page's digest (`Pages`).
    pub fn pages(&self) -> &'a [PageDigest] {
        &self.declared(SiteArtifact::Pages).pages
    }

    /// The digest of the page requested or ending at `url` (`Pages`).
    pub fn page(&self, url: &str) -> Option<&'a PageDigest> {
        self.declared(SiteArtifact::Pages).page(url)
    }

    /// The digest of the start page (requested or ending at the start URL, else depth 0, else
    /// the first page crawled) (`Pages`).
    pub fn start_page(&self) -> Option<&'a PageDigest> {
        let pages = self.pages();
        pages
            .iter()
            .find(|p| p.url == self.start_url || p.final_url == self.start_url)
            .or_else(|| pages.iter().find(|p| p.depth == 0))
            .or_else(|| pages.first())
    }

    /// Active scans: the repository probes that answered (`RepositoryProbes`).
    pub fn repository_probes(&self) -> &'a [ProbeAnswer] {
        &self.declared(SiteArtifact::RepositoryProbes).repository_probes
    }

    /// Active scans: what each journey did (`Journeys`).
    pub fn journeys(&self) -> &'a [JourneyOutcome] {
        &self.declared(SiteArtifact::Journeys).journeys
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CHECKS, Findings, Thresholds};
    use crate::model::{HttpsProbe, PageDigest, RobotsTxt, Severity, Sitemap, UrlStatus};
    use std::panic::{AssertUnwindSafe, catch_unwind};

    const DECLARES_ROBOTS: CheckMeta = CheckMeta {
        id: "test.declares-robots",
        severity: Severity::Low,
        title: "t",
        fires_when: "f",
        description: "d",
        remediation: "r",
        cwe_id: None,
        evidence_keys: &["url"],
        help_url: None,
        requires: &[],
        site_requires: &[SiteArtifact::Robots],
        act_ids: &[],
        level: None,
        wcag: &[],
    };

    #[test]
    #[should_panic(expected = "test.declares-robots reads the `pages` site artifact without declaring it")]
    fn an_undeclared_site_artifact_fails_whatever_the_site_holds() {
        let site = SiteSnapshot::default();
        let view = SiteView::new(&site, &DECLARES_ROBOTS);
        assert!(view.robots().is_none());
        let _ = view.pages();
    }

    /// A site that holds every artifact, each with something in it, so that every read a check
    /// makes along its usual paths is reached.
    fn full_site() -> SiteSnapshot {
        let start = "https://e.com/";
        let status = |url: &str, code: u16| UrlStatus { url: url.into(), status: Some(code), ..Default::default() };
        let page = |url: &str, depth: u32| PageDigest {
            url: url.into(),
            final_url: url.into(),
            status: Some(200),
            depth,
            title: Some("Same title".into()),
            meta_description: Some("Same description".into()),
            canonical: Some("https://e.com/gone".into()),
            hreflang: vec![("de".into(), "https://e.com/de/".into())],
            og_image: Some("https://e.com/og.png".into()),
            internal_links: vec![crate::model::LinkRef { href: "https://e.com/gone".into(), selector: "a".into(), snippet: "<a>".into() }],
            ..Default::default()
        };
        SiteSnapshot {
            start_url: start.into(),
            robots: Some(RobotsTxt { status: Some(200), body: Some("User-agent: *\nDisallow: /\n".into()), ..Default::default() }),
            sitemaps: vec![Sitemap { url: "https://e.com/sitemap.xml".into(), status: Some(200), urls: vec!["https://e.com/de/".into()], url_count: 1, ..Default::default() }],
            sitemap_url_statuses: vec![status("https://e.com/de/", 404)],
            link_statuses: vec![status("https://e.com/gone", 404), status("https://e.com/moved", 301)],
            resource_statuses: vec![status("https://e.com/og.png", 404), status("https://e.com/favicon.ico", 404)],
            robots_blocked_links: vec![("https://e.com/private".into(), start.into())],
            https_probe: Some(HttpsProbe { http_url: "http://e.com/".into(), status: Some(200), ..Default::default() }),
            pages: vec![page(start, 0), page("https://e.com/de/", 1)],
            ..Default::default()
        }
    }

    #[test]
    fn every_site_check_reads_only_the_site_artifacts_it_declares() {
        let site = full_site();
        let thresholds = Thresholds::default();
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let mut violations = Vec::new();
        for check in CHECKS.iter() {
            let meta = check.meta();
            let mut out = Vec::new();
            let judged = catch_unwind(AssertUnwindSafe(|| {
                let mut sink = Findings::new(meta, &mut out);
                check.site(&SiteView::new(&site, meta), &thresholds, &mut sink);
            }));
            if let Err(panic) = judged {
                let message = panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()));
                violations.push(format!("{}: {}", meta.id, message.unwrap_or_default()));
            }
        }
        std::panic::set_hook(hook);
        assert!(violations.is_empty(), "site checks reading undeclared artifacts:\n{}", violations.join("\n"));
    }
}
