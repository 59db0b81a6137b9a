use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use crate::{declare_check, evidence};

declare_check! {
    /// Text styled as a heading is no heading.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`): a visible block whose text is short
    /// (3 to 80 characters, at most 10 words, no closing punctuation), at least 1.25 times the
    /// font size that carries most of the page's text, or bold where that text is not, and
    /// followed by a longer block of smaller or lighter text, while it is neither a heading
    /// element nor `role="heading"`. Text in headings, buttons, links, labels, legends, table
    /// cells and captions, lists, navigation, the page header and footer and dialogs is never
    /// judged (brand text, menus and names of controls look big or bold by design). A reading a
    /// person confirms: `needs_review`.
    pub struct HeadingNotMarkedUp {
        id: "accessibility.heading-not-marked-up",
        severity: Medium,
        title: "Text looks like a heading but is not marked up as one",
        fires_when: "a short standalone block, noticeably bigger or bolder than the page's body text and followed by content, is not a heading element or role=heading (needs review)",
        description: "Sighted visitors see the section titles and skim by them; screen-reader users jump from heading to heading, and text that is only styled big or bold is not among them, so the page's structure is lost to them: WCAG 2.2 success criterion 1.3.1 (Info and Relationships).",
        remediation: "Mark section titles up as headings of the right level (`<h2>Delivery</h2>`) and style the heading, instead of styling a paragraph or div (`<p class=\"big-bold\">`).",
        cwe: None,
        evidence: ["url", "selector", "snippet", "text", "font_size_px", "font_weight", "body_font_size_px", "body_font_weight", "needs_review", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Techniques/failures/F2"),
        requires: [Barriers],
        level: A,
        wcag: ["1.3.1"],
    }
}

impl Check for HeadingNotMarkedUp {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        if facts.body_font_size_px <= 0.0 {
            return;
        }
        for h in &facts.styled_headings {
            let bigger = h.font_size_px >= facts.body_font_size_px * 1.25;
            let bolder = h.font_weight >= 600 && facts.body_font_weight < 600;
            if !(bigger || bolder) || h.text.chars().count() < 3 {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => h.selector,
                "snippet" => h.snippet,
                "text" => h.text,
                "font_size_px" => h.font_size_px,
                "font_weight" => h.font_weight,
                "body_font_size_px" => facts.body_font_size_px,
                "body_font_weight" => facts.body_font_weight,
                "needs_review" => true,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_page, run};
    use super::*;
    use crate::model::{BarrierFacts, StyledHeading};

    fn styled(selector: &str, size: f64, weight: u32) -> StyledHeading {
        StyledHeading { selector: selector.into(), snippet: "<p class=big>Delivery</p>".into(), text: "Delivery".into(), font_size_px: size, font_weight: weight, next_selector: "p".into() }
    }

    #[test]
    fn fires_on_bigger_or_bolder_text_that_is_no_heading() {
        let facts = BarrierFacts {
            body_font_size_px: 16.0,
            body_font_weight: 400,
            styled_headings: vec![styled("#big", 24.0, 400), styled("#bold", 16.0, 700), styled("#near", 17.0, 400)],
            ..Default::default()
        };
        let f = run(&HeadingNotMarkedUp, &barrier_page(facts));
        let selectors: Vec<_> = f.iter().map(|f| f.evidence["selector"].as_str().unwrap_or_default()).collect();
        assert_eq!(selectors, ["#big", "#bold"]);
        assert_eq!(f[0].evidence["needs_review"], true);
        assert_eq!(f[0].severity, crate::model::Severity::Medium);
    }

    #[test]
    fn quiet_where_the_body_text_is_bold_or_unknown() {
        let bold_body = BarrierFacts { body_font_size_px: 16.0, body_font_weight: 700, styled_headings: vec![styled("#bold", 16.0, 700)], ..Default::default() };
        assert!(run(&HeadingNotMarkedUp, &barrier_page(bold_body)).is_empty());
        let unknown = BarrierFacts { styled_headings: vec![styled("#big", 24.0, 400)], ..Default::default() };
        assert!(run(&HeadingNotMarkedUp, &barrier_page(unknown)).is_empty());
    }
}
