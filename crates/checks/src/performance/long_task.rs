use super::super::page_view::PageView;
use super::super::check::{Check, CheckMeta, Findings, Thresholds};
use super::grade::round_ms;
use crate::{declare_check, evidence};

declare_check! {
    /// A main-thread task ran for too long.
    ///
    /// One finding per task in `metrics.long_tasks` longer than `long_task_ms` (250 ms), in the
    /// order they ran (the per-page cap keeps the worst pages readable).
    pub struct PerformanceLongTask {
        id: "performance.long-task",
        severity: Low,
        title: "Long main-thread task",
        fires_when: "a main-thread task runs longer than 250 ms while the page loads (threshold long_task_ms)",
        description: "While one task runs, the browser can neither paint nor respond to input; a task of a quarter second or more is a visible freeze in which taps and key presses are ignored.",
        remediation: "Find the task's script in a performance profile (its start time is in the evidence) and split the work: defer what is not needed for the first screen, break loops into chunks that yield (`scheduler.yield()`, `setTimeout`), move heavy computation to a Web Worker, and trim third-party scripts.",
        cwe: None,
        evidence: ["url", "value", "limit", "start_ms"],
        help_url: Some("https://web.dev/articles/long-tasks-devtools"),
        requires: [Metrics],
    }
}

impl Check for PerformanceLongTask {
    fn meta(&self) -> &'static CheckMeta {
        &Self::META
    }

    fn page(&self, page: &PageView<'_>, thresholds: &Thresholds, out: &mut Findings<'_>) {
        if !page.rendered() {
            return;
        }
        for task in page.metrics().long_tasks.iter().filter(|t| t.duration_ms > thresholds.long_task_ms) {
            out.report(evidence! {
                "url" => page.final_url,
                "value" => round_ms(task.duration_ms),
                "limit" => thresholds.long_task_ms,
                "start_ms" => round_ms(task.start_ms),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{page, run};
    use super::*;
    use crate::model::{LongTask as Task, PageMetrics};

    #[test]
    fn one_finding_per_task_over_the_limit() {
        let tasks = vec![
            Task { start_ms: 800.0, duration_ms: 120.0 },
            Task { start_ms: 1200.0, duration_ms: 410.5 },
            Task { start_ms: 2000.0, duration_ms: 251.0 },
        ];
        let f = run(&PerformanceLongTask, &page(PageMetrics { long_tasks: tasks, ..Default::default() }, vec![]));
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].evidence["value"], 410.5);
        assert_eq!(f[0].evidence["start_ms"], 1200.0);
        assert_eq!(f[0].evidence["limit"], 250.0);
    }

    #[test]
    fn quiet_for_tasks_at_or_under_the_limit() {
        let tasks = vec![Task { start_ms: 800.0, duration_ms: 250.0 }, Task { start_ms: 900.0, duration_ms: 60.0 }];
        assert!(run(&PerformanceLongTask, &page(PageMetrics { long_tasks: tasks, ..Default::default() }, vec![])).is_empty());
    }
}
