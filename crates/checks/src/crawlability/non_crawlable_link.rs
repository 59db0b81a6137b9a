use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::semantics::html_document::is_html_document;
use crate::model::Anchor;
use crate::{declare_check, evidence};

declare_check! {
    /// An anchor has no resolvable href.
    pub struct NonCrawlableLink {
        id: "crawlability.non-crawlable-link",
        severity: Low,
        title: "Link that crawlers cannot follow",
        fires_when: "an <a> (or role=link element) navigates by script: href=\"javascript:...\", href=\"#\" only, or no href but a click handler. Placeholder anchors without href or handler, in-page #fragment links, mailto: and tel: are fine",
        description: "Search engines only follow <a> elements with a resolvable href: pages reached only through script-driven links are not discovered. The same links also fail for middle-click, open-in-new-tab and keyboard users.",
        remediation: "Give every navigating link a real URL (`<a href=\"/products/shoes\">`), and let the script enhance it (preventDefault) if needed; use a <button> for actions that do not navigate.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "value"],
        help_url: Some("https://developers.google.com/search/docs/crawling-indexing/links-crawlable"),
        requires: [Dom],
    }
}

/// Why the anchor cannot be crawled, or `None` when it can (or is not meant to navigate).
fn defect(a: &Anchor) -> Option<&'static str> {
    match a.href_raw.as_deref().map(str::trim) {
        None if a.has_click_handler => Some("no href, navigates by click handler"),
        None => None,
        Some(raw) => {
            let lower = raw.to_ascii_lowercase();
            if lower.starts_with("javascript:") {
                Some("javascript: URL")
            } else if raw == "#" || raw == "#!" {
                Some("href=\"#\" only")
            } else {
                None
            }
        }
    }
}

impl Check for NonCrawlableLink {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        for a in &page.dom().anchors {
            if let Some(reason) = defect(a) {
                out.report(evidence! {
                    "url" => page.final_url,
                    "selector" => a.selector,
                    "snippet" => a.snippet,
                    "value" => reason,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, page_at};
    use crate::model::{Anchor, DomFacts};

    fn anchor(raw: Option<&str>, click: bool) -> Anchor {
        Anchor {
            href_raw: raw.map(str::to_string),
            href: None,
            has_click_handler: click,
            selector: format!("a[data-raw=\"{raw:?}\"]"),
            snippet: "<a>x</a>".into(),
            ..Default::default()
        }
    }

    #[test]
    fn fires_on_script_links() {
        let p = page_at(
            "https://e.com/",
            DomFacts {
                anchors: vec![
                    anchor(Some("javascript:void(0)"), true),
                    anchor(Some("#"), true),
                    anchor(None, true),
                ],
                ..Default::default()
            },
        );
        assert_eq!(findings(&p, "crawlability.non-crawlable-link").len(), 3);
    }

    #[test]
    fn quiet_for_placeholders_fragments_and_mail_links() {
        let mut fragment = anchor(Some("#reviews"), false);
        fragment.href = Some("https://e.com/".into());
        let mut mail = anchor(Some("mailto:hi@e.com"), false);
        mail.href = None;
        let p = page_at(
            "https://e.com/",
            DomFacts {
                anchors: vec![anchor(None, false), fragment, mail],
                ..Default::default()
            },
        );
        assert!(findings(&p, "crawlability.non-crawlable-link").is_empty());
    }
}
