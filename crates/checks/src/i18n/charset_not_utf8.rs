use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::semantics::html_document::is_html_document;
use super::charset_declaration::{declarations, is_utf8_label};
use crate::{declare_check, evidence};

declare_check! {
    /// The declared charset is not UTF-8.
    pub struct CharsetNotUtf8 {
        id: "i18n.charset-not-utf8",
        severity: Low,
        title: "Declared character encoding is not UTF-8",
        fires_when: "the Content-Type header or a meta charset declares an encoding other than UTF-8 (one finding per declaration)",
        description: "Legacy encodings (ISO-8859-1, windows-1252, Shift_JIS, ...) cannot represent most of the world's characters: form input and pasted text in other scripts gets mangled, and the HTML standard requires UTF-8 for new documents.",
        remediation: "Save templates and content as UTF-8, send `Content-Type: text/html; charset=utf-8`, and declare `<meta charset=\"utf-8\">`; convert stored data (e.g. with iconv) before switching.",
        cwe: None,
        evidence: ["url", "selector", "value", "expected", "source"],
        help_url: Some("https://www.w3.org/International/questions/qa-choosing-encodings"),
        requires: [Dom],
    }
}

impl Check for CharsetNotUtf8 {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        for d in declarations(page)
            .into_iter()
            .filter(|d| !is_utf8_label(&d.charset))
        {
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => d.selector,
                "value" => d.charset,
                "expected" => "utf-8",
                "source" => d.source,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, page};
    use crate::model::{DomFacts, Header, MetaTag};

    #[test]
    fn fires_per_legacy_declaration() {
        let mut p = page(DomFacts {
            metas: vec![MetaTag {
                charset: Some("windows-1252".into()),
                selector: "meta[charset]".into(),
                ..Default::default()
            }],
            ..Default::default()
        });
        p.response_headers = vec![Header {
            name: "Content-Type".into(),
            value: "text/html; charset=ISO-8859-1".into(),
        }];
        let f = findings(&p, "i18n.charset-not-utf8");
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].evidence["source"], "header");
        assert_eq!(f[1].evidence["selector"], "meta[charset]");
    }

    #[test]
    fn quiet_for_utf8_labels() {
        let mut p = page(DomFacts {
            metas: vec![MetaTag {
                http_equiv: Some("Content-Type".into()),
                content: Some("text/html; charset=UTF8".into()),
                ..Default::default()
            }],
            ..Default::default()
        });
        p.response_headers = vec![Header {
            name: "content-type".into(),
            value: "text/html;charset=utf-8".into(),
        }];
        assert!(findings(&p, "i18n.charset-not-utf8").is_empty());
    }
}
