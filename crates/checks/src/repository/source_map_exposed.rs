use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::signature;
use crate::declare_check;
use crate::model::ProbeKind;

declare_check! {
    /// A public script's source map is served with its original sources.
    ///
    /// # Fires when
    /// the source map of a script the crawl loaded (`<script>.js.map`, or the one its `SourceMap` header names) answers 200 with JSON whose `sourcesContent` holds the original source.
    ///
    /// # Why it matters
    /// A source map with `sourcesContent` publishes the original, unminified source of the application, comments and internal names included. It makes finding weaknesses much easier and sometimes leaks keys or endpoints that were meant to stay internal.
    ///
    /// # How to fix
    /// Do not deploy source maps to public servers (or build them without `sourcesContent`), upload them to your error tracker instead, or restrict `*.map` to your own network.
    ///
    /// # Evidence
    /// `url`, `status`, `content_type`, `signature` (what matched), `bytes_read`, `source`.
    pub struct SourceMapExposed {
        id: "repository.source-map-exposed",
        severity: Medium,
        title: "A source map with the original sources is served",
        fires_when: "the source map of a script the crawl loaded (`<script>.js.map`, or the one its `SourceMap` header names) answers 200 with JSON whose `sourcesContent` holds the original source",
        description: "A source map with `sourcesContent` publishes the original, unminified source of the application, comments and internal names included. It makes finding weaknesses much easier and sometimes leaks keys or endpoints that were meant to stay internal.",
        remediation: "Do not deploy source maps to public servers (or build them without `sourcesContent`), upload them to your error tracker instead, or restrict `*.map` to your own network.",
        cwe: Some("CWE-540"),
        evidence: ["url", "status", "content_type", "signature", "bytes_read", "source"],
        help_url: None,
        site_requires: [RepositoryProbes],
    }
}

impl Check for SourceMapExposed {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for answer in site.repository_probes().iter().filter(|a| a.kind == ProbeKind::SourceMap) {
            let Some(signature) = signature::source_map(answer).map(|n| format!("a source map with sourcesContent ({n} source{})", if n == 1 { "" } else { "s" })) else { continue };
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
        let site = site_with(ProbeKind::SourceMap, "/app.js.map", br#"{"version":3,"sources":["app.ts"],"sourcesContent":["const secret = 1;"],"mappings":"AAAA"}"#.to_vec());
        let found = findings(&site, "repository.source-map-exposed");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].evidence["url"], "https://shop.test/app.js.map");
        assert!(found[0].evidence["signature"].as_str().is_some_and(|s| !s.is_empty()));
    }

    #[test]
    fn quiet_on_a_lookalike() {
        let site = site_with(ProbeKind::SourceMap, "/app.js.map", br#"{"version":3,"sources":["app.ts"],"mappings":"AAAA"}"#.to_vec());
        assert!(findings(&site, "repository.source-map-exposed").is_empty());
    }
}
