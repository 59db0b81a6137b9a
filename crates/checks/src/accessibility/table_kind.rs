//! What a table is for, read from its shape (`BarrierTable`): data, page layout, or unclear.
//! Shared by the table checks so that both read a table the same way.

use crate::model::BarrierTable;

/// What a table reads as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableKind {
    /// The author said so: `role=table|grid|treegrid`, or header cells, a caption or a summary.
    DeclaredData,
    /// No header markup, but set out as data: two columns and rows or more of short cells, with
    /// a first row or column set apart, mostly numbers, or ruled cells. `why` names the signal.
    LooksLikeData { why: &'static str },
    /// `role=presentation|none`.
    DeclaredLayout,
    /// Lays out the page: holds another table, headings, landmarks, paragraphs, frames or video,
    /// or is a single row or column.
    LooksLikeLayout { why: &'static str },
    /// None of the above.
    Unclear,
}

fn role_is(table: &BarrierTable, roles: &[&str]) -> bool {
    table.role.as_deref().map(|r| r.split_ascii_whitespace().next().unwrap_or("").to_ascii_lowercase()).is_some_and(|r| roles.contains(&r.as_str()))
}

/// True when the table carries data-table markup: header cells (or cells tied to headers), a
/// caption or a summary.
pub fn has_data_markup(table: &BarrierTable) -> bool {
    table.th + table.header_attrs > 0 || table.caption.is_some() || table.summary.is_some()
}

/// What the page's layout says the table is, before its markup: the signals of a table that
/// lays out the page.
fn layout_signal(table: &BarrierTable) -> Option<&'static str> {
    if table.contains_table {
        Some("holds-a-table")
    } else if table.layout_content {
        Some("holds-page-content")
    } else if table.rows <= 1 || table.cols <= 1 {
        Some("one-row-or-column")
    } else {
        None
    }
}

/// The signal that sets a table out as data, strongest first.
fn data_signal(table: &BarrierTable) -> Option<&'static str> {
    let cells = table.th + table.td;
    if table.first_row_distinct {
        Some("first-row-set-apart")
    } else if table.first_col_distinct {
        Some("first-column-set-apart")
    } else if table.filled >= 4 && table.numeric * 3 >= table.filled {
        Some("numbers")
    } else if cells >= 4 && table.bordered * 2 >= cells {
        Some("ruled-cells")
    } else {
        None
    }
}

/// Reads the table.
pub fn kind(table: &BarrierTable) -> TableKind {
    if role_is(table, &["presentation", "none"]) {
        return TableKind::DeclaredLayout;
    }
    if role_is(table, &["table", "grid", "treegrid"]) || has_data_markup(table) {
        return TableKind::DeclaredData;
    }
    if let Some(why) = layout_signal(table) {
        return TableKind::LooksLikeLayout { why };
    }
    // Short cells of data: a form laid out in a grid (controls) or long prose cells are not.
    if table.controls || table.avg_chars > 80 || table.filled < 4 {
        return TableKind::Unclear;
    }
    match data_signal(table) {
        Some(why) => TableKind::LooksLikeData { why },
        None => TableKind::Unclear,
    }
}

/// For a table marked up as data, whether its layout says otherwise (`None` when it does not):
/// the layout signals only, since its markup already spoke.
pub fn layout_despite_markup(table: &BarrierTable) -> Option<&'static str> {
    if role_is(table, &["table", "grid", "treegrid"]) {
        return None;
    }
    // A table of data holding only tables of data nests data (`accessibility.table-nested`).
    if table.contains_table && (table.holds_data_table.is_none() || table.layout_content) {
        Some("holds-a-table")
    } else if table.layout_content {
        Some("holds-page-content")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub fn grid(rows: usize, cols: usize) -> BarrierTable {
        BarrierTable { selector: "table".into(), rows, cols, td: rows * cols, filled: rows * cols, avg_chars: 8, ..Default::default() }
    }

    #[test]
    fn reads_tables_by_markup_then_by_shape() {
        assert_eq!(kind(&BarrierTable { role: Some("presentation".into()), ..grid(3, 3) }), TableKind::DeclaredLayout);
        assert_eq!(kind(&BarrierTable { th: 3, ..grid(3, 3) }), TableKind::DeclaredData);
        assert_eq!(kind(&BarrierTable { caption: Some("Prices".into()), ..grid(3, 3) }), TableKind::DeclaredData);
        assert_eq!(kind(&BarrierTable { first_row_distinct: true, ..grid(4, 3) }), TableKind::LooksLikeData { why: "first-row-set-apart" });
        assert_eq!(kind(&BarrierTable { numeric: 6, ..grid(4, 3) }), TableKind::LooksLikeData { why: "numbers" });
        assert_eq!(kind(&BarrierTable { bordered: 12, ..grid(4, 3) }), TableKind::LooksLikeData { why: "ruled-cells" });
        assert_eq!(kind(&grid(4, 3)), TableKind::Unclear, "plain cells say nothing");
        assert_eq!(kind(&BarrierTable { first_row_distinct: true, contains_table: true, ..grid(4, 3) }), TableKind::LooksLikeLayout { why: "holds-a-table" });
        assert_eq!(kind(&BarrierTable { first_row_distinct: true, ..grid(1, 3) }), TableKind::LooksLikeLayout { why: "one-row-or-column" });
        assert_eq!(kind(&BarrierTable { first_row_distinct: true, controls: true, ..grid(4, 2) }), TableKind::Unclear, "a form in a grid");
        assert_eq!(kind(&BarrierTable { first_row_distinct: true, avg_chars: 200, ..grid(4, 2) }), TableKind::Unclear, "prose cells");
        let nests_data = BarrierTable { th: 2, contains_table: true, holds_data_table: Some("td table".into()), ..grid(3, 2) };
        assert_eq!(layout_despite_markup(&nests_data), None, "nested data, not layout");
        assert_eq!(layout_despite_markup(&BarrierTable { layout_content: true, ..nests_data.clone() }), Some("holds-a-table"));
        assert_eq!(layout_despite_markup(&BarrierTable { holds_data_table: None, ..nests_data }), Some("holds-a-table"));
    }
}
