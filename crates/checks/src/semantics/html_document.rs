//! Which pages the document-level checks judge: pages that rendered an HTML document.

use crate::PageView;

/// True when the page rendered (a response arrived, nothing fatal happened), answered 2xx or 3xx,
/// and is an HTML document (or its type is unknown). Error pages and PDFs are not judged for
/// titles, headings or structured data: `crawlability.http-error` reports them.
pub fn is_html_document(page: &PageView<'_>) -> bool {
    page.rendered()
        && page.status.is_some_and(|s| s < 400)
        && page.mime_type.is_none_or(|m| {
            let m = m.to_ascii_lowercase();
            m.contains("html") || m.is_empty()
        })
}

#[cfg(test)]
mod tests {
    use crate::model::PageSnapshot;
    use crate::test_kit::view;
    use super::*;
    use crate::model::PageError;

    #[test]
    fn judges_rendered_html_only() {
        let mut page = PageSnapshot {
            status: Some(200),
            mime_type: Some("text/html".into()),
            ..Default::default()
        };
        assert!(is_html_document(&view(&page)));
        page.mime_type = Some("application/xhtml+xml".into());
        assert!(is_html_document(&view(&page)));
        page.mime_type = Some("application/pdf".into());
        assert!(!is_html_document(&view(&page)));
        page.mime_type = None;
        page.status = Some(404);
        assert!(!is_html_document(&view(&page)));
        page.status = Some(200);
        page.error = Some(PageError {
            kind: "timeout".into(),
            message: "t".into(),
        });
        assert!(!is_html_document(&view(&page)));
    }
}
