use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::duplicate_groups::{duplicate_groups, others};
use crate::{declare_check, evidence};

declare_check! {
    /// Several crawled pages share one title.
    pub struct TitleDuplicate {
        id: "search.title-duplicate",
        severity: Medium,
        title: "Title shared by several pages",
        fires_when: "two or more crawled, indexable 2xx pages have the same title (case and whitespace ignored); pages that declare another URL as canonical, and the same page reached through redirects, are not counted. One finding per page",
        description: "Identical titles make pages indistinguishable in search results and tabs, suggest duplicate content to search engines, and make them pick one page and rewrite or drop the others.",
        remediation: "Give every page a title that says what is specific to it (product, article, category, page number). If the pages really are the same content, pick one URL and point the others to it with <link rel=\"canonical\"> or a 301 redirect.",
        cwe: None,
        evidence: ["url", "value", "count", "pages"],
        help_url: Some("https://developers.google.com/search/docs/appearance/title-link#page-titles"),
        site_requires: [Pages],
    }
}

impl Check for TitleDuplicate {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for (title, group) in duplicate_groups(site.pages(), |p| p.title.as_deref()) {
            for page in &group {
                out.report(evidence! {
                    "url" => page.final_url,
                    "value" => title,
                    "count" => group.len(),
                    "pages" => others(&group, page),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{digest, site_findings};
    use crate::model::{PageDigest, SiteSnapshot};

    fn titled(url: &str, title: &str) -> PageDigest {
        PageDigest {
            title: Some(title.into()),
            ..digest(url)
        }
    }

    #[test]
    fn fires_for_each_page_sharing_a_title() {
        let site = SiteSnapshot {
            pages: vec![
                titled("https://e.com/a", "Shoes – Example"),
                titled("https://e.com/b", "shoes  –  example"),
                titled("https://e.com/c", "Boots – Example"),
            ],
            ..Default::default()
        };
        let f = site_findings(&site, "search.title-duplicate");
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].evidence["count"], 2);
        assert_eq!(
            f[0].evidence["pages"],
            serde_json::json!(["https://e.com/b"])
        );
    }

    #[test]
    fn quiet_for_canonicalised_copies_noindex_and_redirect_aliases() {
        let mut copy = titled("https://e.com/a?utm=x", "Shoes");
        copy.canonical = Some("https://e.com/a".into());
        let mut hidden = titled("https://e.com/print", "Shoes");
        hidden.noindex = true;
        let mut alias = titled("https://e.com/old", "Shoes");
        alias.final_url = "https://e.com/a".into();
        let mut broken = titled("https://e.com/gone", "Shoes");
        broken.status = Some(404);
        let site = SiteSnapshot {
            pages: vec![
                titled("https://e.com/a", "Shoes"),
                copy,
                hidden,
                alias,
                broken,
            ],
            ..Default::default()
        };
        assert!(site_findings(&site, "search.title-duplicate").is_empty());
    }
}
