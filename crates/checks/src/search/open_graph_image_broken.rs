use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::site_view::SiteView;
use crate::{declare_check, evidence};

declare_check! {
    /// og:image does not load or is not an image.
    pub struct OpenGraphImageBroken {
        id: "search.open-graph-image-broken",
        severity: Medium,
        title: "Open Graph image does not load",
        fires_when: "the og:image URL of a crawled page answers non-2xx, fails to load, or is served with a Content-Type that is not image/*",
        description: "Social networks and messengers fetch og:image to build the link preview. When it fails, every share of the page shows no image or a generic placeholder, which markedly lowers clicks.",
        remediation: "Point og:image at an absolute URL of a publicly reachable image (JPEG, PNG or WebP, ideally 1200x630) served with 200 and an image/* Content-Type, and not blocked by robots.txt or authentication.",
        cwe: None,
        evidence: ["url", "resource", "status", "value"],
        help_url: Some("https://ogp.me/#structured"),
        site_requires: [Statuses, Pages],
    }
}

impl Check for OpenGraphImageBroken {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn site(&self, site: &SiteView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        for page in site.pages() {
            let Some(image) = page.og_image.as_deref() else {
                continue;
            };
            let Some(status) = site.status_of(image) else {
                continue;
            };
            let content_type = status
                .content_type
                .as_deref()
                .map(|c| c.trim().to_ascii_lowercase());
            let reason = if let Some(error) = &status.error {
                format!("failed to load: {error}")
            } else if !status.is_success() {
                match status.status {
                    Some(code) => format!("answers {code}"),
                    None => "no response".to_string(),
                }
            } else if let Some(ct) =
                content_type.filter(|ct| !ct.is_empty() && !ct.starts_with("image/"))
            {
                format!("served as {ct}, not an image")
            } else {
                continue;
            };
            out.report(evidence! {
                "url" => page.final_url,
                "resource" => image,
                "status" => status.status,
                "value" => reason,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{digest, site_findings};
    use crate::model::{PageDigest, SiteSnapshot, UrlStatus};

    fn site(status: Option<u16>, content_type: Option<&str>, error: Option<&str>) -> SiteSnapshot {
        SiteSnapshot {
            pages: vec![PageDigest {
                og_image: Some("https://e.com/og.png".into()),
                ..digest("https://e.com/")
            }],
            resource_statuses: vec![UrlStatus {
                url: "https://e.com/og.png".into(),
                status,
                content_type: content_type.map(str::to_string),
                error: error.map(str::to_string),
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn fires_on_404_html_and_network_errors() {
        let f = site_findings(
            &site(Some(404), Some("text/html"), None),
            "search.open-graph-image-broken",
        );
        assert_eq!(f[0].evidence["value"], "answers 404");
        let f = site_findings(
            &site(Some(200), Some("text/html; charset=utf-8"), None),
            "search.open-graph-image-broken",
        );
        assert_eq!(f.len(), 1);
        assert_eq!(
            site_findings(
                &site(None, None, Some("timeout")),
                "search.open-graph-image-broken"
            )
            .len(),
            1
        );
    }

    #[test]
    fn quiet_for_a_working_image() {
        assert!(
            site_findings(
                &site(Some(200), Some("image/webp"), None),
                "search.open-graph-image-broken"
            )
            .is_empty()
        );
        assert!(
            site_findings(
                &site(Some(200), None, None),
                "search.open-graph-image-broken"
            )
            .is_empty()
        );
    }
}
