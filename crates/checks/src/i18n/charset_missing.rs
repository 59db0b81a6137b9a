use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::semantics::html_document::is_html_document;
use super::charset_declaration::{charset_param, prescan_meta_charset};
use crate::{declare_check, evidence};

/// Browsers look for a meta charset only in the first 1024 bytes (HTML "prescan").
pub const PRESCAN_BYTES: usize = 1024;

declare_check! {
    /// No charset in the Content-Type header, no BOM, and no meta charset early enough.
    pub struct CharsetMissing {
        id: "i18n.charset-missing",
        severity: Medium,
        title: "Character encoding not declared",
        fires_when: "the HTML response has no charset in its Content-Type header, no byte order mark, and no <meta charset> (or http-equiv content-type) within the first 1024 bytes",
        description: "Without a declared encoding the browser guesses from the bytes or the user's locale: non-ASCII text can turn into mojibake (Ã© instead of é), and a late declaration forces the browser to re-parse the page.",
        remediation: "Send `Content-Type: text/html; charset=utf-8` from the server and put `<meta charset=\"utf-8\">` as the first element in <head>.",
        cwe: None,
        evidence: ["url", "value", "limit"],
        help_url: Some("https://html.spec.whatwg.org/multipage/semantics.html#charset"),
        requires: [Dom, ServedHtml],
    }
}

impl Check for CharsetMissing {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        // XHTML served as XML defaults to UTF-8 by the XML rules.
        if page
            .mime_type
            .is_some_and(|m| m.to_ascii_lowercase().contains("xml"))
        {
            return;
        }
        if page
            .header("content-type")
            .and_then(charset_param)
            .is_some()
        {
            return;
        }
        let Some(html) = page.served_html() else {
            return;
        };
        if html.starts_with('\u{feff}') {
            return;
        }
        let offset = page
            .meta_charset_offset()
            .or_else(|| prescan_meta_charset(html));
        match offset {
            Some(o) if o < PRESCAN_BYTES => {}
            Some(o) => out.report(evidence! {
                "url" => page.final_url,
                "value" => format!("<meta charset> at byte {o}"),
                "limit" => PRESCAN_BYTES,
            }),
            None => out.report(evidence! {
                "url" => page.final_url,
                "value" => "no charset declared",
                "limit" => PRESCAN_BYTES,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, page};
    use crate::model::{DomFacts, Header, PageSnapshot};

    fn served(content_type: &str, html: &str) -> PageSnapshot {
        let mut p = page(DomFacts::default());
        p.response_headers = vec![Header {
            name: "content-type".into(),
            value: content_type.into(),
        }];
        p.served_html = Some(html.into());
        p
    }

    #[test]
    fn fires_without_any_declaration_or_a_late_one() {
        let f = findings(
            &served("text/html", "<!doctype html><title>x</title>"),
            "i18n.charset-missing",
        );
        assert_eq!(f[0].evidence["value"], "no charset declared");
        let late = format!(
            "<!doctype html><head><script>{}</script><meta charset=utf-8>",
            "x".repeat(1100)
        );
        let f = findings(&served("text/html", &late), "i18n.charset-missing");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["limit"], 1024);
    }

    #[test]
    fn quiet_with_header_meta_or_bom() {
        assert!(
            findings(
                &served("text/html; charset=utf-8", "<p>x"),
                "i18n.charset-missing"
            )
            .is_empty()
        );
        assert!(
            findings(
                &served(
                    "text/html",
                    "<!doctype html><meta charset=\"utf-8\"><title>x</title>"
                ),
                "i18n.charset-missing"
            )
            .is_empty()
        );
        assert!(
            findings(
                &served("text/html", "\u{feff}<!doctype html><title>x</title>"),
                "i18n.charset-missing"
            )
            .is_empty()
        );
    }
}
