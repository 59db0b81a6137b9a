//! What a page check sees of a page: the main document's facts, and each gathered artifact
//! only through an accessor that holds the check to its declared `requires`.
//!
//! A check that reads an artifact it did not declare would judge an empty default on a page
//! whose gatherer failed (a false "missing description" where the DOM was never read), because
//! the runner skips a check only for the artifacts it declares. Here such a read fails at once,
//! on every page, whatever the page holds: the check panics, the runner reports it as not run,
//! and the first test that exercises the check names it.

use super::check::CheckMeta;
use crate::model::{
    Artifact, AxeResults, BarrierFacts, BrowserIssue, ConsoleMessage, CookieSet, CspViolation, DomFacts, Header, ImageText, JsError, KeyboardWalk,
    LayoutFacts, MetaTag, NetworkRequest, PageError, PageMetrics, PageSnapshot, PageText, RedirectHop,
};

/// One page as one check may read it.
#[derive(Debug, Clone, Copy)]
pub struct PageView<'a> {
    /// The URL the crawl asked for.
    pub requested_url: &'a str,
    /// The URL the page ended on, after redirects.
    pub final_url: &'a str,
    /// The redirects that led there.
    pub redirects: &'a [RedirectHop],
    /// The main document's status.
    pub status: Option<u16>,
    /// The main document's response headers.
    pub response_headers: &'a [Header],
    /// The main document's MIME type.
    pub mime_type: Option<&'a str>,
    /// Why the page could not be rendered, when it could not.
    pub error: Option<&'a PageError>,
    snapshot: &'a PageSnapshot,
    check: &'static CheckMeta,
}

impl<'a> PageView<'a> {
    /// `snapshot` as the check `check` may read it.
    pub fn new(snapshot: &'a PageSnapshot, check: &'static CheckMeta) -> Self {
        PageView {
            requested_url: &snapshot.requested_url,
            final_url: &snapshot.final_url,
            redirects: &snapshot.redirects,
            status: snapshot.status,
            response_headers: &snapshot.response_headers,
            mime_type: snapshot.mime_type.as_deref(),
            error: snapshot.error.as_ref(),
            snapshot,
            check,
        }
    }

    /// The check this view was made for.
    pub fn check(&self) -> &'static CheckMeta {
        self.check
    }

    /// Panics unless the check declared `artifact`.
    fn declared(&self, artifact: Artifact) -> &'a PageSnapshot {
        assert!(
            self.check.requires.contains(&artifact),
            "{} reads the `{}` artifact without declaring it in `requires`",
            self.check.id,
            artifact.gatherer()
        );
        self.snapshot
    }

    /// True when the page rendered a document (a response arrived and nothing fatal happened).
    pub fn rendered(&self) -> bool {
        self.snapshot.rendered()
    }

    /// True when the final URL was served over https.
    pub fn is_https(&self) -> bool {
        self.snapshot.is_https()
    }

    /// The main response header `name`.
    pub fn header(&self, name: &str) -> Option<&'a str> {
        self.snapshot.header(name)
    }

    /// The DOM facts the in-page collector read (`Dom`).
    pub fn dom(&self) -> &'a DomFacts {
        &self.declared(Artifact::Dom).dom
    }

    /// The first `<meta name=NAME>`, case-insensitive (`Dom`).
    pub fn meta_named(&self, name: &str) -> Option<&'a MetaTag> {
        self.declared(Artifact::Dom).meta_named(name)
    }

    /// The HTML as served, before scripts ran (`ServedHtml`).
    pub fn served_html(&self) -> Option<&'a str> {
        self.declared(Artifact::ServedHtml).served_html.as_deref()
    }

    /// Where a `<meta charset>` starts in the served HTML (`ServedHtml`).
    pub fn meta_charset_offset(&self) -> Option<usize> {
        self.declared(Artifact::ServedHtml).meta_charset_offset
    }

    /// The HTML after scripts ran (`RenderedHtml`).
    pub fn rendered_html(&self) -> Option<&'a str> {
        self.declared(Artifact::RenderedHtml).rendered_html.as_deref()
    }

    /// Vitals, timings and weights (`Metrics`).
    pub fn metrics(&self) -> &'a PageMetrics {
        &self.declared(Artifact::Metrics).metrics
    }

    /// axe-core's results (`Axe`).
    pub fn axe(&self) -> Option<&'a AxeResults> {
        self.declared(Artifact::Axe).axe.as_ref()
    }

    /// The keyboard walk (`Keyboard`).
    pub fn keyboard(&self) -> Option<&'a KeyboardWalk> {
        self.declared(Artifact::Keyboard).keyboard.as_ref()
    }

    /// The barrier facts (`Barriers`).
    pub fn barriers(&self) -> Option<&'a BarrierFacts> {
        self.declared(Artifact::Barriers).barriers.as_ref()
    }

    /// Reading and layout facts (`Layout`).
    pub fn layout(&self) -> Option<&'a LayoutFacts> {
        self.declared(Artifact::Layout).layout.as_ref()
    }

    /// The first viewport as PNG, base64 (`Screenshot`).
    pub fn screenshot_png_base64(&self) -> Option<&'a str> {
        self.declared(Artifact::Screenshot).screenshot_png_base64.as_deref()
    }

    /// The page's rendered text (`PageText`).
    pub fn page_text(&self) -> Option<&'a PageText> {
        self.declared(Artifact::PageText).page_text.as_ref()
    }

    /// The text recognised in the page's images (`ImageText`).
    pub fn image_text(&self) -> Option<&'a ImageText> {
        self.declared(Artifact::ImageText).image_text.as_ref()
    }

    /// What the keyboard met in the page's dialogs (`Dialogs`).
    pub fn dialogs(&self) -> Option<&'a crate::model::DialogFacts> {
        self.declared(Artifact::Dialogs).dialogs.as_ref()
    }

    /// Every request the page made (`Network`).
    pub fn requests(&self) -> &'a [NetworkRequest] {
        &self.declared(Artifact::Network).requests
    }

    /// Console messages (`Console`).
    pub fn console(&self) -> &'a [ConsoleMessage] {
        &self.declared(Artifact::Console).console
    }

    /// Uncaught exceptions and unhandled rejections (`Exceptions`).
    pub fn js_errors(&self) -> &'a [JsError] {
        &self.declared(Artifact::Exceptions).js_errors
    }

    /// CSP violation reports (`Csp`).
    pub fn csp_violations(&self) -> &'a [CspViolation] {
        &self.declared(Artifact::Csp).csp_violations
    }

    /// The browser's issues (`Issues`).
    pub fn browser_issues(&self) -> &'a [BrowserIssue] {
        &self.declared(Artifact::Issues).browser_issues
    }

    /// Cookies the page's responses set (`Cookies`).
    pub fn cookies(&self) -> &'a [CookieSet] {
        &self.declared(Artifact::Cookies).cookies
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Severity;

    const DECLARES_DOM: CheckMeta = CheckMeta {
        id: "test.declares-dom",
        severity: Severity::Low,
        title: "t",
        fires_when: "f",
        description: "d",
        remediation: "r",
        cwe_id: None,
        evidence_keys: &["url"],
        help_url: None,
        requires: &[Artifact::Dom],
        site_requires: &[],
        act_ids: &[],
        level: None,
        wcag: &[],
    };

    #[test]
    fn a_declared_artifact_reads_and_the_main_document_is_always_there() {
        let snapshot = PageSnapshot { final_url: "https://a.test/".into(), status: Some(200), ..Default::default() };
        let view = PageView::new(&snapshot, &DECLARES_DOM);
        assert_eq!(view.dom().title, None);
        assert_eq!((view.final_url, view.status), ("https://a.test/", Some(200)));
    }

    #[test]
    #[should_panic(expected = "test.declares-dom reads the `network` artifact without declaring it")]
    fn an_undeclared_artifact_fails_on_every_page() {
        let snapshot = PageSnapshot::default();
        let _ = PageView::new(&snapshot, &DECLARES_DOM).requests();
    }
}
