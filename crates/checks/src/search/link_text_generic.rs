use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::semantics::html_document::is_html_document;
use crate::{declare_check, evidence};

/// Link texts that say nothing about the target (Lighthouse's `link-text` list, English, plus
/// common equivalents in German, French, Spanish, Italian, Portuguese and Dutch).
pub const GENERIC_LINK_TEXTS: &[&str] = &[
    "click here",
    "click this",
    "click",
    "go",
    "here",
    "information",
    "learn more",
    "link",
    "more",
    "more info",
    "more information",
    "right here",
    "read more",
    "see more",
    "start",
    "this",
    "this page",
    "continue",
    "continue reading",
    "details",
    "view more",
    "find out more",
    "hier",
    "hier klicken",
    "klicken sie hier",
    "mehr",
    "mehr erfahren",
    "weiterlesen",
    "weiter",
    "cliquez ici",
    "ici",
    "plus",
    "en savoir plus",
    "lire la suite",
    "voir plus",
    "haga clic aquí",
    "haz clic aquí",
    "aquí",
    "más",
    "leer más",
    "ver más",
    "más información",
    "clicca qui",
    "qui",
    "di più",
    "leggi di più",
    "scopri di più",
    "clique aqui",
    "aqui",
    "mais",
    "leia mais",
    "saiba mais",
    "klik hier",
    "meer",
    "lees meer",
    "meer informatie",
];

/// Lowercased, whitespace collapsed, decoration (arrows, ellipses, punctuation) trimmed.
fn normalise(text: &str) -> String {
    let collapsed = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    collapsed
        .trim_matches(|c: char| {
            c.is_ascii_punctuation() || "…»«›‹→←▸▶".contains(c) || c.is_whitespace()
        })
        .to_string()
}

fn is_generic(text: &str) -> bool {
    GENERIC_LINK_TEXTS.contains(&normalise(text).as_str())
}

declare_check! {
    /// A link's text is generic ("click here", "read more").
    pub struct SearchLinkTextGeneric {
        id: "search.link-text-generic",
        severity: Low,
        title: "Link text is not descriptive",
        fires_when: "a link to a URL has generic text such as \"click here\", \"read more\", \"here\" or \"more\" (and no descriptive aria-label); in-page #anchors, javascript: and mailto:/tel: links are not judged",
        description: "Search engines use link text to understand what the target page is about, and screen-reader users often navigate by a list of links out of context, where ten \"read more\" links are indistinguishable.",
        remediation: "Make the link text name its target: \"Read more about our return policy\" instead of \"read more\", or link the descriptive words themselves. For a visual \"More\" button, add an aria-label that includes the subject.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "value", "resource"],
        help_url: Some("https://developer.chrome.com/docs/lighthouse/seo/link-text"),
        requires: [Dom],
    }
}

impl Check for SearchLinkTextGeneric {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        for a in &page.dom().anchors {
            let Some(href) = a.href.as_deref() else {
                continue;
            };
            let raw = a
                .href_raw
                .as_deref()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            if raw.starts_with('#') || raw.starts_with("mailto:") || raw.starts_with("tel:") {
                continue;
            }
            if !is_generic(&a.text) {
                continue;
            }
            // aria-label="Read more about shipping" gives the link a descriptive name.
            let name = a.accessible_name.trim();
            if !name.is_empty() && normalise(name) != normalise(&a.text) && !is_generic(name) {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => a.selector,
                "snippet" => a.snippet,
                "value" => a.text.trim(),
                "resource" => href,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, page};
    use crate::model::{Anchor, DomFacts};

    fn link(text: &str, name: &str, raw: &str) -> Anchor {
        Anchor {
            href_raw: Some(raw.into()),
            href: Some(format!(
                "https://example.com{}",
                raw.trim_start_matches('#')
            )),
            text: text.into(),
            accessible_name: name.into(),
            selector: format!("a[data-t=\"{text}\"]"),
            snippet: format!("<a href=\"{raw}\">{text}</a>"),
            visible: true,
            ..Default::default()
        }
    }

    #[test]
    fn fires_on_generic_texts() {
        let p = page(DomFacts {
            anchors: vec![
                link("Click here!", "Click here!", "/a"),
                link("Read more …", "Read more …", "/b"),
                link("Weiterlesen »", "", "/c"),
            ],
            ..Default::default()
        });
        let f = findings(&p, "search.link-text-generic");
        assert_eq!(f.len(), 3);
        assert_eq!(f[0].evidence["value"], "Click here!");
    }

    #[test]
    fn quiet_for_descriptive_text_aria_labels_and_in_page_links() {
        let p = page(DomFacts {
            anchors: vec![
                link("Read more about returns", "Read more about returns", "/a"),
                link("More", "More running shoes", "/b"),
                link("here", "here", "#top"),
                link("Therefore", "Therefore", "/c"),
            ],
            ..Default::default()
        });
        assert!(findings(&p, "search.link-text-generic").is_empty());
    }
}
