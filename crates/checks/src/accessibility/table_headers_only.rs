use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::page_view::PageView;
use super::table_kind::{TableKind, kind};
use crate::{declare_check, evidence};

declare_check! {
    /// A table made of header cells only: headers with no data to head.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`): a visible table, not
    /// `role=presentation|none`, with two or more `<th>` and not one `<td>`. Either a table of data
    /// whose rows are missing (its data cells never rendered) or content put in header cells for
    /// their look.
    pub struct TableHeadersOnly {
        id: "accessibility.table-headers-only",
        severity: Low,
        title: "Table has header cells and no data cells",
        fires_when: "a visible table (not role=presentation/none) has 2+ th cells and no td",
        description: "A screen reader announces a table of header cells as column and row headings with nothing under them, and reads every cell as the heading of an empty column: what the table was meant to say is neither there as data nor as plain content. WCAG 2.2 success criterion 1.3.1 (Info and Relationships).",
        remediation: "Put the data in `<td>` cells under the headers; if the table has no rows to show, say so in a data cell (`<td colspan=\"4\">No results</td>`) or leave the table out. Content that is not a table of data belongs in a list or headings, not in `<th>`.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "header_cells", "rows", "wcag"],
        help_url: Some("https://www.w3.org/WAI/tutorials/tables/"),
        requires: [Barriers],
        level: A,
        wcag: ["1.3.1"],
    }
}

impl Check for TableHeadersOnly {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        for table in &facts.tables {
            if table.th < 2 || table.td > 0 || kind(table) == TableKind::DeclaredLayout {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => table.selector,
                "snippet" => table.snippet,
                "header_cells" => table.th,
                "rows" => table.rows,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_page, run};
    use super::*;
    use crate::model::{BarrierFacts, BarrierTable};

    #[test]
    fn fires_on_tables_of_header_cells_only() {
        let t = |selector: &str, th: usize, td: usize, role: Option<&str>| BarrierTable { selector: selector.into(), rows: 1, cols: th + td, th, td, role: role.map(str::to_string), ..Default::default() };
        let facts = BarrierFacts {
            tables: vec![t("#headers", 4, 0, None), t("#data", 4, 8, None), t("#one", 1, 0, None), t("#presentation", 3, 0, Some("none"))],
            ..Default::default()
        };
        let f = run(&TableHeadersOnly, &barrier_page(facts));
        let got: Vec<_> = f.iter().map(|f| f.evidence["selector"].as_str().unwrap()).collect();
        assert_eq!(got, ["#headers"]);
        assert_eq!(f[0].evidence["header_cells"], 4);
    }
}
