use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::semantics::html_document::is_html_document;
use super::language_tag::is_rtl;
use crate::{declare_check, evidence};

declare_check! {
    /// A right-to-left language without dir="rtl".
    pub struct DirMissing {
        id: "i18n.dir-missing",
        severity: Medium,
        title: "Right-to-left page without dir=\"rtl\"",
        fires_when: "the page language is written right to left (ar, he, fa, ur, ps, yi, ..., or an Arab/Hebr/Thaa/... script subtag) and neither <html> nor <body> has dir=\"rtl\" (or dir=\"auto\")",
        description: "Without a base direction the browser lays out right-to-left text as left-to-right: punctuation lands at the wrong end, mixed Latin/Arabic runs are reordered incorrectly, and lists, tables and form fields align to the wrong side.",
        remediation: "Set the base direction on the root element, e.g. `<html lang=\"ar\" dir=\"rtl\">`, and use CSS logical properties (margin-inline-start, text-align: start) instead of left/right.",
        cwe: None,
        evidence: ["url", "selector", "value", "expected"],
        help_url: Some("https://www.w3.org/International/questions/qa-html-dir"),
        requires: [Dom, RenderedHtml],
    }
}

/// True when a dir value sets a right-to-left or automatic base direction.
fn sets_direction(dir: &str) -> bool {
    let d = dir.trim();
    d.eq_ignore_ascii_case("rtl") || d.eq_ignore_ascii_case("auto")
}

/// The `dir` of `<body>` in the rendered HTML, when it has one.
fn body_dir(rendered_html: &str) -> Option<String> {
    let doc = scraper::Html::parse_document(rendered_html);
    let selector = scraper::Selector::parse("body[dir]").ok()?;
    doc.select(&selector)
        .next()
        .and_then(|b| b.value().attr("dir"))
        .map(str::to_string)
}

impl Check for DirMissing {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        let Some(lang) = page.dom().html_lang.as_deref().filter(|l| is_rtl(l)) else {
            return;
        };
        if page.dom().html_dir.as_deref().is_some_and(sets_direction) {
            return;
        }
        if page
            .rendered_html()
            .and_then(body_dir)
            .is_some_and(|d| sets_direction(&d))
        {
            return;
        }
        out.report(evidence! {
            "url" => page.final_url,
            "selector" => "html",
            "value" => lang,
            "expected" => "dir=\"rtl\"",
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, page};
    use crate::model::DomFacts;

    fn lang_dir(lang: &str, dir: Option<&str>) -> crate::model::PageSnapshot {
        page(DomFacts {
            html_lang: Some(lang.into()),
            html_dir: dir.map(str::to_string),
            ..Default::default()
        })
    }

    #[test]
    fn fires_for_arabic_without_dir_or_with_ltr() {
        assert_eq!(findings(&lang_dir("ar", None), "i18n.dir-missing").len(), 1);
        assert_eq!(
            findings(&lang_dir("he-IL", Some("ltr")), "i18n.dir-missing").len(),
            1
        );
    }

    #[test]
    fn quiet_for_rtl_set_on_html_or_body_and_ltr_languages() {
        assert!(findings(&lang_dir("fa", Some("RTL")), "i18n.dir-missing").is_empty());
        let mut p = lang_dir("ur", None);
        p.rendered_html =
            Some("<html lang=ur><head></head><body dir=\"rtl\"><p>x</p></body></html>".into());
        assert!(findings(&p, "i18n.dir-missing").is_empty());
        assert!(findings(&lang_dir("en", None), "i18n.dir-missing").is_empty());
        assert!(findings(&lang_dir("ar-Latn", None), "i18n.dir-missing").is_empty());
    }
}
