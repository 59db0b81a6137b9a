use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::table_kind::{TableKind, kind};
use crate::{declare_check, evidence};

declare_check! {
    /// A table of data has no header cells.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`): a visible table of at least two
    /// rows and two columns with no `<th>`, no `role=columnheader|rowheader` and no `scope` or
    /// `headers` on its cells, that is set out as data (`table_kind`): short cells with the
    /// first row or column styled apart from the rest, mostly numbers, or ruled cells; or that
    /// says it is a table (`role=table|grid|treegrid`). Tables that hold other tables, headings,
    /// landmarks, paragraphs, form controls or long prose are layout and never judged here. A
    /// reading of the page's shape: `needs_review` is true.
    pub struct TableHeaderMissing {
        id: "accessibility.table-header-missing",
        severity: Medium,
        title: "Data table has no header cells",
        fires_when: "a visible table of 2+ rows and 2+ columns set out as data (first row or column styled apart, mostly numbers, or ruled cells) has no th, no columnheader/rowheader role and no scope or headers",
        description: "Sighted visitors read a cell against the row and column headings they see; a screen reader can only announce those headings when they are marked up as header cells. Without them every cell is read as a bare value, out of context: WCAG 2.2 success criterion 1.3.1 (Info and Relationships), technique H51 and failure F91.",
        remediation: "Mark the heading cells up as `<th>` (`<th scope=\"col\">Price</th>` for a column, `scope=\"row\"` for a row), put the heading row in `<thead>`, and give the table a `<caption>` that says what it holds.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "rows", "columns", "signal", "needs_review", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Techniques/failures/F91"),
        requires: [Barriers],
        level: A,
        wcag: ["1.3.1"],
    }
}

impl Check for TableHeaderMissing {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        for table in &facts.tables {
            if table.th + table.header_attrs > 0 || table.rows < 2 || table.cols < 2 || table.filled < 4 {
                continue;
            }
            let signal = match kind(table) {
                TableKind::LooksLikeData { why } => why,
                TableKind::DeclaredData if table.caption.is_none() && table.summary.is_none() => "role",
                TableKind::DeclaredData => "caption",
                _ => continue,
            };
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => table.selector,
                "snippet" => table.snippet,
                "rows" => table.rows,
                "columns" => table.cols,
                "signal" => signal,
                "needs_review" => true,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_page, run};
    use super::*;
    use crate::model::{BarrierFacts, BarrierTable};

    fn table(selector: &str, edit: impl FnOnce(&mut BarrierTable)) -> BarrierTable {
        let mut t = BarrierTable { selector: selector.into(), rows: 4, cols: 3, td: 12, filled: 12, avg_chars: 8, ..Default::default() };
        edit(&mut t);
        t
    }

    #[test]
    fn fires_on_data_tables_without_headers_only() {
        let facts = BarrierFacts {
            tables: vec![
                table("#styled-head", |t| t.first_row_distinct = true),
                table("#numbers", |t| t.numeric = 8),
                table("#captioned", |t| t.caption = Some("Opening hours".into())),
                table("#headed", |t| {
                    t.first_row_distinct = true;
                    t.th = 3;
                }),
                table("#scoped", |t| {
                    t.numeric = 8;
                    t.header_attrs = 3;
                }),
                table("#layout", |t| {
                    t.first_row_distinct = true;
                    t.contains_table = true;
                }),
                table("#presentation", |t| {
                    t.first_row_distinct = true;
                    t.role = Some("presentation".into());
                }),
                table("#plain", |_| {}),
                table("#form-grid", |t| {
                    t.first_col_distinct = true;
                    t.controls = true;
                }),
            ],
            ..Default::default()
        };
        let f = run(&TableHeaderMissing, &barrier_page(facts));
        let got: Vec<_> = f.iter().map(|f| (f.evidence["selector"].as_str().unwrap_or_default(), f.evidence["signal"].as_str().unwrap_or_default())).collect();
        assert_eq!(got, [("#styled-head", "first-row-set-apart"), ("#numbers", "numbers"), ("#captioned", "caption")]);
        assert!(f.iter().all(|f| f.evidence["needs_review"] == true));
    }
}
