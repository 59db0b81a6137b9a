use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::super::page_view::PageView;
use super::table_kind::{TableKind, kind};
use crate::{declare_check, evidence};

declare_check! {
    /// A table of data holds another table of data in one of its cells.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`): a visible table marked up as data
    /// (header cells, a caption or a summary, not `role=presentation|none`) that holds a table
    /// marked up as data too, and no page layout (headings, landmarks, paragraphs: that is a
    /// layout table, `accessibility.layout-table-structure`).
    pub struct TableNested {
        id: "accessibility.table-nested",
        severity: Medium,
        title: "Table of data nested in another",
        fires_when: "a visible table with header cells, a caption or a summary holds, in a cell, another table with header cells, a caption or a table role, and no headings, landmarks or paragraphs",
        description: "Screen readers announce a table's headers as a person moves from cell to cell; inside a nested table they lose the outer table's row and column, announce the inner table's headers alone or both mixed, and their table commands stop at the inner table's edge. The relationships the two tables show by their layout are not conveyed: WCAG 2.2 success criterion 1.3.1 (Info and Relationships).",
        remediation: "Flatten the data into one table (the inner rows as rows of the outer one, with a row header saying which group they belong to, `<th scope=\"rowgroup\">`), or take the inner table out of the cell and place it after the outer table with its own caption.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "nested_selector", "wcag"],
        help_url: Some("https://www.w3.org/WAI/tutorials/tables/irregular/"),
        requires: [Barriers],
        level: A,
        wcag: ["1.3.1"],
    }
}

impl Check for TableNested {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        for table in &facts.tables {
            let Some(nested) = table.holds_data_table.as_deref() else { continue };
            if table.layout_content || kind(table) != TableKind::DeclaredData {
                continue;
            }
            out.report(evidence! {
                "url" => page.final_url,
                "selector" => table.selector,
                "snippet" => table.snippet,
                "nested_selector" => nested,
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
        let mut t = BarrierTable { selector: selector.into(), rows: 3, cols: 2, th: 2, td: 4, filled: 6, contains_table: true, ..Default::default() };
        edit(&mut t);
        t
    }

    #[test]
    fn fires_on_data_tables_holding_data_tables_only() {
        let facts = BarrierFacts {
            tables: vec![
                table("#costs", |t| t.holds_data_table = Some("#costs table".into())),
                table("#menu-layout", |_| {}),
                table("#page-layout", |t| {
                    t.holds_data_table = Some("#page-layout table".into());
                    t.layout_content = true;
                }),
                table("#presentation", |t| {
                    t.holds_data_table = Some("#presentation table".into());
                    t.role = Some("presentation".into());
                }),
            ],
            ..Default::default()
        };
        let f = run(&TableNested, &barrier_page(facts));
        let got: Vec<_> = f.iter().map(|f| (f.evidence["selector"].as_str().unwrap(), f.evidence["nested_selector"].as_str().unwrap())).collect();
        assert_eq!(got, [("#costs", "#costs table")]);
    }
}
