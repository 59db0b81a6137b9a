use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::html_document::is_html_document;
use crate::{declare_check, evidence};

declare_check! {
    /// The document has no `<!DOCTYPE html>` and renders in quirks mode.
    pub struct DoctypeMissing {
        id: "semantics.doctype-missing",
        severity: Medium,
        title: "Page has no <!DOCTYPE html> and renders in quirks mode",
        fires_when: "the document has no doctype, or a legacy doctype that puts the browser in quirks mode",
        description: "Without <!DOCTYPE html> browsers render the page in quirks mode, emulating bugs of 1990s browsers: the box model, table sizing, line heights and some CSS selectors behave differently, so layouts break in ways that differ between browsers.",
        remediation: "Make `<!DOCTYPE html>` the very first line of every HTML document (before any whitespace-sensitive output such as a BOM-less byte order or server-side includes).",
        cwe: None,
        evidence: ["url", "value", "expected"],
        help_url: Some("https://developer.mozilla.org/en-US/docs/Web/HTML/Quirks_Mode_and_Standards_Mode"),
        requires: [Dom],
    }
}

impl Check for DoctypeMissing {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        let quirks = page.dom().compat_mode == "BackCompat";
        if page.dom().doctype.is_none() || quirks {
            let value = match (&page.dom().doctype, quirks) {
                (None, _) => "no doctype".to_string(),
                (Some(name), _) => format!("<!DOCTYPE {name}> in quirks mode"),
            };
            out.report(evidence! {
                "url" => page.final_url,
                "value" => value,
                "expected" => "<!DOCTYPE html>",
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, page};
    use crate::model::DomFacts;

    #[test]
    fn fires_without_doctype() {
        let p = page(DomFacts {
            doctype: None,
            compat_mode: "BackCompat".into(),
            ..Default::default()
        });
        let f = findings(&p, "semantics.doctype-missing");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["value"], "no doctype");
    }

    #[test]
    fn fires_on_a_legacy_doctype_in_quirks_mode() {
        let p = page(DomFacts {
            doctype: Some("html".into()),
            compat_mode: "BackCompat".into(),
            ..Default::default()
        });
        assert_eq!(findings(&p, "semantics.doctype-missing").len(), 1);
    }

    #[test]
    fn quiet_with_a_lowercase_doctype_in_standards_mode() {
        let p = page(DomFacts {
            doctype: Some("html".into()),
            compat_mode: "CSS1Compat".into(),
            ..Default::default()
        });
        assert!(findings(&p, "semantics.doctype-missing").is_empty());
    }
}
