use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::table_kind::{TableKind, has_data_markup, kind, layout_despite_markup};
use crate::model::{BarrierTable, Severity};
use crate::{declare_check, evidence};

declare_check! {
    /// A table that lays out the page speaks as a table of data.
    ///
    /// Judged from the barrier facts (`browser/barriers.js`): a visible table that is layout,
    /// by `role=presentation|none` (high confidence: the author said so) or by what it holds
    /// (another table, headings, landmarks, paragraphs, frames or video: `needs_review`), and
    /// that has header cells, a caption or a `summary`, which make a screen reader announce it
    /// as a table of data with rows, columns and headings that mean nothing.
    pub struct LayoutTableStructure {
        id: "accessibility.layout-table-structure",
        severity: Low,
        title: "Layout table uses data table markup",
        fires_when: "a table that lays out the page (role=presentation/none, or holding another table, headings, landmarks or page content) has th cells, a caption or a summary",
        description: "Header cells, captions and summaries tell assistive technologies that a table holds data to be read by row and column. On a table that only places content on the page, they make screen readers announce table dimensions and headings that mean nothing, in the middle of the content: WCAG 2.2 success criterion 1.3.1 (Info and Relationships), failure F46.",
        remediation: "Lay the page out with CSS (grid or flexbox). Where a layout table must stay, give it `role=\"presentation\"` and remove its `<th>`, `<caption>` and `summary`; keep data-table markup for tables of data.",
        cwe: None,
        evidence: ["url", "selector", "snippet", "markup", "layout", "needs_review", "wcag"],
        help_url: Some("https://www.w3.org/WAI/WCAG22/Techniques/failures/F46"),
        requires: [Barriers],
        level: A,
        wcag: ["1.3.1"],
    }
}

/// The data-table markup a table carries, named.
fn markup(table: &BarrierTable) -> Vec<&'static str> {
    let mut found = Vec::new();
    if table.th > 0 {
        found.push("th");
    }
    if table.caption.is_some() {
        found.push("caption");
    }
    if table.summary.is_some() {
        found.push("summary");
    }
    found
}

impl Check for LayoutTableStructure {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, _thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        let Some(facts) = page.barriers() else { return };
        for table in &facts.tables {
            let found = markup(table);
            if found.is_empty() || !has_data_markup(table) {
                continue;
            }
            let (layout, review) = match kind(table) {
                TableKind::DeclaredLayout => ("role", false),
                _ => match layout_despite_markup(table) {
                    Some(why) => (why, true),
                    None => continue,
                },
            };
            let severity = if review { Severity::Low } else { Severity::Medium };
            out.report_with(
                severity,
                evidence! {
                    "url" => page.final_url,
                    "selector" => table.selector,
                    "snippet" => table.snippet,
                    "markup" => found,
                    "layout" => layout,
                    "needs_review" => review,
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{barrier_page, run};
    use super::*;
    use crate::model::BarrierFacts;

    fn table(selector: &str, edit: impl FnOnce(&mut BarrierTable)) -> BarrierTable {
        let mut t = BarrierTable { selector: selector.into(), rows: 2, cols: 2, td: 4, filled: 4, avg_chars: 40, ..Default::default() };
        edit(&mut t);
        t
    }

    #[test]
    fn fires_on_layout_tables_with_data_markup() {
        let facts = BarrierFacts {
            tables: vec![
                table("#presentation-th", |t| {
                    t.role = Some("presentation".into());
                    t.th = 2;
                }),
                table("#outer-caption", |t| {
                    t.contains_table = true;
                    t.caption = Some("Layout".into());
                }),
                table("#page-summary", |t| {
                    t.layout_content = true;
                    t.summary = Some("layout".into());
                }),
                table("#presentation-plain", |t| t.role = Some("none".into())),
                table("#data", |t| t.th = 2),
                table("#inner-data", |t| {
                    t.inside_table = true;
                    t.th = 2;
                }),
                table("#grid-with-headings", |t| {
                    t.role = Some("grid".into());
                    t.layout_content = true;
                    t.th = 2;
                }),
            ],
            ..Default::default()
        };
        let f = run(&LayoutTableStructure, &barrier_page(facts));
        let got: Vec<_> = f.iter().map(|f| (f.evidence["selector"].as_str().unwrap_or_default(), f.evidence["layout"].as_str().unwrap_or_default(), f.severity)).collect();
        assert_eq!(
            got,
            [("#presentation-th", "role", Severity::Medium), ("#outer-caption", "holds-a-table", Severity::Low), ("#page-summary", "holds-page-content", Severity::Low)]
        );
        assert_eq!(f[0].evidence["needs_review"], false);
        assert_eq!(f[1].evidence["markup"], serde_json::json!(["caption"]));
    }
}
