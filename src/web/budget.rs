//! A budget's verdict as the dashboard shows it: one row per assertion, the failing `error`
//! ones marked (the site page lists their messages, the scan page the whole table).

use crate::model::BudgetResult;
use crate::model::budget::AssertionLevel;

/// One assertion's verdict, ready to print.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetRow {
    pub assertion: String,
    pub level: &'static str,
    /// The limit, with `at or above <severity>` for counts that name one.
    pub limit: String,
    /// What the scan measured (`not measured` when no page measured the metric).
    pub actual: String,
    pub passed: bool,
    /// An `error` assertion that failed: it is what failed the budget.
    pub failed: bool,
    pub message: String,
}

/// The verdict of a budget on one scan.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetView {
    pub passed: bool,
    pub rows: Vec<BudgetRow>,
    /// How many `error` assertions failed.
    pub failed: usize,
}

fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 { format!("{}", v as i64) } else { format!("{v:.3}") }
}

impl BudgetView {
    pub fn of(result: &BudgetResult) -> BudgetView {
        let rows: Vec<BudgetRow> = result
            .assertions
            .iter()
            .map(|a| BudgetRow {
                assertion: a.assertion.clone(),
                level: a.level.as_str(),
                limit: match a.min_severity {
                    Some(s) => format!("{} (at or above {s})", number(a.max)),
                    None => number(a.max),
                },
                actual: a.actual.map_or_else(|| "not measured".to_string(), number),
                passed: a.passed,
                failed: !a.passed && a.level == AssertionLevel::Error,
                message: a.message.clone(),
            })
            .collect();
        BudgetView { passed: result.passed, failed: rows.iter().filter(|r| r.failed).count(), rows }
    }

    /// The failing `error` assertions.
    pub fn failures(&self) -> Vec<&BudgetRow> {
        self.rows.iter().filter(|r| r.failed).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::budget::AssertionResult;

    #[test]
    fn a_failed_error_assertion_is_marked_and_a_failed_warning_is_not() {
        let a = |name: &str, level, passed, actual| AssertionResult {
            assertion: name.into(),
            level,
            max: 2500.0,
            min_severity: None,
            actual,
            passed,
            message: name.into(),
        };
        let view = BudgetView::of(&BudgetResult {
            passed: false,
            assertions: vec![a("metrics.lcp-p75", AssertionLevel::Error, false, Some(3000.5)), a("metrics.cls-max", AssertionLevel::Warn, false, None)],
        });
        assert_eq!(view.failed, 1);
        assert_eq!(view.failures()[0].assertion, "metrics.lcp-p75");
        assert_eq!(view.rows[0].actual, "3000.500");
        assert_eq!(view.rows[1].actual, "not measured");
        assert!(!view.rows[1].failed);
    }
}
