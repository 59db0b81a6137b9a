use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::html_document::is_html_document;
use super::html_parse_errors::{describe, parse_errors, truncate};
use crate::{declare_check, evidence};

/// Lines listed per grouped error.
const MAX_LINES_LISTED: usize = 10;

declare_check! {
    /// The HTML parser reports errors in the served markup.
    pub struct ParseError {
        id: "semantics.parse-error",
        severity: Low,
        title: "HTML parse error in the served markup",
        fires_when: "the HTML5 parser (html5ever, the WHATWG algorithm browsers implement) reports errors in the HTML as served: stray or misnested end tags, elements never closed, duplicate attributes, bad character references. Identical errors are grouped into one finding with their count and lines; a missing doctype is left to semantics.doctype-missing",
        description: "Browsers repair broken markup, each by the same rules but often not the way the author meant: a stray </div> or an unclosed element silently moves content into or out of containers, changing layout, the accessibility tree and what scripts and crawlers see.",
        remediation: "Fix the reported lines in the templates that produce them: close every element you open, in the reverse order, remove stray end tags, and quote attribute values. Run the page through the W3C Nu validator (validator.w3.org/nu) to confirm.",
        cwe: None,
        evidence: ["url", "value", "line", "lines", "count", "snippet"],
        help_url: Some("https://html.spec.whatwg.org/multipage/parsing.html#parse-errors"),
        requires: [ServedHtml],
    }
}

impl Check for ParseError {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _: &Thresholds, out: &mut Findings<'_>) {
        if !is_html_document(page) {
            return;
        }
        let Some(html) = page.served_html() else {
            return;
        };
        // Group identical errors, keeping the order of first appearance.
        let mut groups: Vec<(String, Vec<u64>)> = Vec::new();
        for error in parse_errors(html).errors {
            let Some(text) = describe(&error.message) else {
                continue;
            };
            match groups.iter_mut().find(|(t, _)| *t == text) {
                Some((_, lines)) => lines.push(error.line),
                None => groups.push((text, vec![error.line])),
            }
        }
        let source_lines: Vec<&str> = html.lines().collect();
        for (text, lines) in groups {
            let first = lines[0];
            let snippet = usize::try_from(first)
                .ok()
                .and_then(|l| source_lines.get(l.saturating_sub(1)))
                .map(|l| truncate(l.trim(), 160))
                .unwrap_or_default();
            let mut listed = lines.clone();
            listed.dedup();
            listed.truncate(MAX_LINES_LISTED);
            out.report(evidence! {
                "url" => page.final_url,
                "value" => text,
                "line" => first,
                "lines" => listed,
                "count" => lines.len(),
                "snippet" => snippet,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_kit::{findings, page};
    use crate::model::DomFacts;

    fn served(html: &str) -> crate::model::PageSnapshot {
        let mut p = page(DomFacts::default());
        p.served_html = Some(html.into());
        p
    }

    #[test]
    fn fires_and_groups_stray_end_tags() {
        let p = served("<!DOCTYPE html>\n<title>t</title>\n<p>a</div>\n<p>b</div>\n<p>c</span>");
        let f = findings(&p, "semantics.parse-error");
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(
            f[0].evidence["value"]
                .as_str()
                .unwrap()
                .starts_with("Unexpected end tag </div>")
        );
        assert_eq!(f[0].evidence["count"], 2);
        assert_eq!(f[0].evidence["line"], 3);
        assert_eq!(f[0].evidence["lines"], serde_json::json!([3, 4]));
        assert_eq!(f[0].evidence["snippet"], "<p>a</div>");
    }

    #[test]
    fn quiet_on_valid_html5_with_implied_end_tags() {
        let p = served(
            "<!doctype html><html lang=en><meta charset=utf-8><title>t</title><p>one<p>two<ul><li>a<li>b</ul><img src=x alt=''><br/><svg><path d='M0'/></svg>",
        );
        assert!(findings(&p, "semantics.parse-error").is_empty());
    }

    #[test]
    fn quiet_without_a_doctype_which_has_its_own_check() {
        let p = served("<html><body><p>x</p></body></html>");
        assert!(findings(&p, "semantics.parse-error").is_empty());
    }
}
