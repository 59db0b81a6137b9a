use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::semantics::html_document::is_html_document;
use crate::{declare_check, evidence};

declare_check! {
    /// No viewport meta with width=device-width.
    pub struct ViewportMissing {
        id: "search.viewport-missing",
        severity: Medium,
        title: "No mobile viewport declared",
        fires_when: "the page has no <meta name=\"viewport\">, or one whose content lacks width=device-width",
        description: "Without a device-width viewport, phones render the page at a desktop width of about 980 px and zoom out: text is tiny and tap targets are small. Search engines index the mobile version of pages and treat such pages as not mobile-friendly.",
        remediation: "Add `<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">` to <head> and make the layout responsive.",
        cwe: None,
        evidence: ["url", "selector", "value", "expected"],
        help_url: Some("https://developer.mozilla.org/en-US/docs/Web/HTML/Viewport_meta_tag"),
        requires: [Dom],
    }
}

/// True when a viewport content string sets `width=device-width`.
pub fn has_device_width(content: &str) -> bool {
    content.split([',', ';']).any(|pair| {
        let mut kv = pair.splitn(2, '=');
        let key = kv.next().unwrap_or("").trim();
        let value = kv.next().unwrap_or("").trim().trim_matches(['"', '\'']);
        key.eq_ignore_ascii_case("width") && value.eq_ignore_ascii_case("device-width")
    })
}

impl Check for ViewportMissing {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        let viewports: Vec<_> = page
            .dom()
            .metas
            .iter()
            .filter(|m| {
                m.name
                    .as_deref()
                    .is_some_and(|n| n.trim().eq_ignore_ascii_case("viewport"))
            })
            .collect();
        if viewports
            .iter()
            .any(|m| m.content.as_deref().is_some_and(has_device_width))
        {
            return;
        }
        let first = viewports.first();
        out.report(evidence! {
            "url" => page.final_url,
            "selector" => first.map(|m| m.selector.clone()),
            "value" => first.and_then(|m| m.content.clone()),
            "expected" => "width=device-width, initial-scale=1",
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, meta_name, page};
    use crate::model::DomFacts;

    #[test]
    fn fires_when_missing_or_fixed_width() {
        assert_eq!(
            findings(&page(DomFacts::default()), "search.viewport-missing").len(),
            1
        );
        let p = page(DomFacts {
            metas: vec![meta_name("viewport", "width=1024")],
            ..Default::default()
        });
        let f = findings(&p, "search.viewport-missing");
        assert_eq!(f[0].evidence["value"], "width=1024");
    }

    #[test]
    fn quiet_with_spaces_semicolons_and_case() {
        let p = page(DomFacts {
            metas: vec![meta_name(
                "Viewport",
                "initial-scale=1.0; WIDTH = Device-Width",
            )],
            ..Default::default()
        });
        assert!(findings(&p, "search.viewport-missing").is_empty());
    }
}
