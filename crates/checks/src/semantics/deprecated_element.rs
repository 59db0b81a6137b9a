use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::html_document::is_html_document;
use crate::{declare_check, evidence};

/// Elements the HTML standard lists as obsolete and non-conforming (WHATWG HTML, "Obsolete
/// features", non-conforming features).
pub const OBSOLETE_ELEMENTS: &[&str] = &[
    "acronym",
    "applet",
    "basefont",
    "bgsound",
    "big",
    "blink",
    "center",
    "dir",
    "font",
    "frame",
    "frameset",
    "isindex",
    "keygen",
    "listing",
    "marquee",
    "menuitem",
    "multicol",
    "nextid",
    "nobr",
    "noembed",
    "noframes",
    "plaintext",
    "rb",
    "rtc",
    "spacer",
    "strike",
    "tt",
    "xmp",
];

declare_check! {
    /// Obsolete elements (center, font, marquee, ...).
    pub struct DeprecatedElement {
        id: "semantics.deprecated-element",
        severity: Low,
        title: "Obsolete HTML element",
        fires_when: "the page uses an element the HTML standard declares obsolete: center, font, marquee, blink, frame, frameset, big, strike, tt, acronym, applet, basefont, dir, nobr, ...",
        description: "Obsolete elements carry presentation in markup or were never standardised: browsers may drop support (blink already did), they convey no meaning to assistive technology, and they tie the look of the page to its markup.",
        remediation: "Replace presentational elements with CSS (center -> text-align/margin auto, font/big/tt -> font properties, strike -> <s> or <del>, marquee/blink -> CSS animation that respects prefers-reduced-motion), acronym with <abbr>, and frames with regular pages or <iframe>.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "value"],
        help_url: Some("https://html.spec.whatwg.org/multipage/obsolete.html#non-conforming-features"),
        requires: [Dom],
    }
}

impl Check for DeprecatedElement {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        for el in &page.dom().deprecated_elements {
            let tag = el.tag.to_ascii_lowercase();
            if OBSOLETE_ELEMENTS.contains(&tag.as_str()) {
                out.report(evidence! {
                    "url" => page.final_url,
                    "selector" => el.selector,
                    "snippet" => el.snippet,
                    "value" => tag,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{element, findings, page};
    use crate::model::DomFacts;

    #[test]
    fn fires_once_per_obsolete_element() {
        let p = page(DomFacts {
            deprecated_elements: vec![
                element("CENTER", "body > center", "<center>hi</center>"),
                element("font", "p > font", "<font color=red>x</font>"),
            ],
            ..Default::default()
        });
        let f = findings(&p, "semantics.deprecated-element");
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].evidence["value"], "center");
    }

    #[test]
    fn quiet_for_current_elements_the_collector_might_pass_on() {
        // <s>, <small>, <b> and <i> were redefined by HTML5 and are conforming.
        let p = page(DomFacts {
            deprecated_elements: vec![
                element("s", "s", "<s>old</s>"),
                element("small", "small", "<small>x</small>"),
            ],
            ..Default::default()
        });
        assert!(findings(&p, "semantics.deprecated-element").is_empty());
    }
}
