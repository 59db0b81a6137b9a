use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use super::duplicate_groups::{duplicate_groups, others};
use crate::{declare_check, evidence};

declare_check! {
    /// Several crawled pages share one meta description.
    pub struct MetaDescriptionDuplicate {
        id: "search.meta-description-duplicate",
        severity: Low,
        title: "Meta description shared by several pages",
        fires_when: "two or more crawled, indexable 2xx pages have the same meta description (case and whitespace ignored); pages canonicalised elsewhere and redirect aliases are not counted. One finding per page",
        description: "A description copied across pages (often a site-wide template default) describes none of them: search engines ignore it and build snippets from page text instead.",
        remediation: "Write a specific description per page, or leave the tag out on pages where you cannot (a template default is worse than none).",
        cwe: None,
        evidence: ["url", "value", "count", "pages"],
        help_url: Some("https://developers.google.com/search/docs/appearance/snippet#meta-descriptions"),
        site_requires: [Pages],
    }
}

impl Check for MetaDescriptionDuplicate {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for (description, group) in duplicate_groups(site.pages(), |p| p.meta_description.as_deref())
        {
            for page in &group {
                out.report(evidence! {
                    "url" => page.final_url,
                    "value" => description,
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

    fn described(url: &str, d: Option<&str>) -> PageDigest {
        PageDigest {
            meta_description: d.map(str::to_string),
            ..digest(url)
        }
    }

    #[test]
    fn fires_for_a_template_default() {
        let d = Some("Welcome to our store, the best store.");
        let site = SiteSnapshot {
            pages: vec![
                described("https://e.com/", d),
                described("https://e.com/a", d),
                described("https://e.com/b", d),
            ],
            ..Default::default()
        };
        let f = site_findings(&site, "search.meta-description-duplicate");
        assert_eq!(f.len(), 3);
        assert_eq!(f[2].evidence["count"], 3);
    }

    #[test]
    fn quiet_when_descriptions_differ_or_are_missing() {
        let site = SiteSnapshot {
            pages: vec![
                described("https://e.com/", Some("Home of the store")),
                described("https://e.com/a", Some("All about shoes")),
                described("https://e.com/b", None),
                described("https://e.com/c", None),
            ],
            ..Default::default()
        };
        assert!(site_findings(&site, "search.meta-description-duplicate").is_empty());
    }
}
