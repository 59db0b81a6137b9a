use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use crate::{declare_check, evidence};

declare_check! {
    /// No icon link and no /favicon.ico.
    pub struct FaviconMissing {
        id: "search.favicon-missing",
        severity: Low,
        title: "Site has no favicon",
        fires_when: "the start page (its DOM read) has no <link rel=\"icon\"> (or shortcut icon / apple-touch-icon) and /favicon.ico answers non-2xx or fails",
        description: "Search results on mobile, browser tabs, bookmarks and history show the site's favicon; without one they show a generic globe, and every visit logs a 404 for /favicon.ico.",
        remediation: "Serve an icon at /favicon.ico and declare it (or an SVG/PNG) in <head>: `<link rel=\"icon\" href=\"/favicon.svg\" type=\"image/svg+xml\">`. Google requires it to be at least 48x48 px and crawlable.",
        cwe: None,
        evidence: ["url", "resource", "status"],
        help_url: Some("https://developers.google.com/search/docs/appearance/favicon-in-search"),
        site_requires: [Statuses, Pages],
    }
}

impl Check for FaviconMissing {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        let Some(start) = site.start_page() else {
            return;
        };
        // Whether a page whose DOM was not read declares an icon is unknown.
        if start.has_icon_link || start.dom_failed {
            return;
        }
        let favicon = site
            .resource_statuses()
            .iter()
            .find(|s| url::Url::parse(&s.url).is_ok_and(|u| u.path() == "/favicon.ico"));
        // Without a probe of /favicon.ico there is nothing to judge.
        let Some(favicon) = favicon else { return };
        if !favicon.is_success() {
            out.report(evidence! {
                "url" => start.final_url,
                "resource" => favicon.url,
                "status" => favicon.status,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{digest, site_findings};
    use crate::model::{PageDigest, SiteSnapshot, UrlStatus};

    fn site(icon_link: bool, favicon_status: u16) -> SiteSnapshot {
        SiteSnapshot {
            start_url: "https://e.com/".into(),
            pages: vec![PageDigest {
                has_icon_link: icon_link,
                ..digest("https://e.com/")
            }],
            resource_statuses: vec![UrlStatus {
                url: "https://e.com/favicon.ico".into(),
                status: Some(favicon_status),
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn fires_without_link_and_with_404_favicon() {
        let f = site_findings(&site(false, 404), "search.favicon-missing");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["status"], 404);
    }

    #[test]
    fn quiet_with_either_an_icon_link_or_a_favicon_ico() {
        assert!(site_findings(&site(true, 404), "search.favicon-missing").is_empty());
        assert!(site_findings(&site(false, 200), "search.favicon-missing").is_empty());
    }

    #[test]
    fn quiet_when_the_start_page_dom_was_not_read() {
        let mut s = site(false, 404);
        s.pages[0].dom_failed = true;
        assert!(site_findings(&s, "search.favicon-missing").is_empty(), "an unread DOM is no missing icon link");
    }
}
