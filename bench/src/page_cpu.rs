//! `--only page-cpu`: where a first scan's time and CPU go, phase by phase, on the three
//! generated sites. Each page's capture logs its wall time per phase and, with Chromium's
//! performance counters on (`runners::PAGE_CPU`), what each phase cost the page's main thread:
//! all its tasks, and layout with style recalculation among them. Beside them, the CPU of each
//! kind of process (renderers, the browser, sitescan itself) per page. (Chromium's script counter
//! leaves out what DevTools evaluates, which is most of what a capture runs: it is kept in the
//! data, not shown.)
//!
//! The counters cost the page a little of its own: this section's scans are not the measured
//! ones of `throughput` and `sharing`.

use crate::report::{Report, mean};
use crate::runners::{self, Ctx, ScanRun};
use serde_json::json;

/// Scans each site (name, first URL, pages) once with the counters on and reports the table.
pub async fn run(ctx: &Ctx, sites: &[(&str, String, usize)], report: &mut Report) {
    const B: &str = "page-cpu";
    let mut data = Vec::new();
    for (k, (name, start, pages)) in sites.iter().enumerate() {
        let scan = match runners::sitescan_scan_with(ctx, start, *pages, None, &format!("page-cpu-{k}"), &[runners::PAGE_CPU]).await {
            Ok(s) => s,
            Err(e) => {
                report.problem(format!("page-cpu: scan of the {name} failed: {e:#}"));
                continue;
            }
        };
        let lines = table(name, &scan);
        let n = scan.pages.max(1) as f64;
        let main_thread: f64 = scan.page_cpu.values().map(|v| mean(&v.iter().map(|c| c[0]).collect::<Vec<_>>())).sum();
        report.row(B, &format!("{name}: page main thread, in-page phases"), main_thread, "ms a page");
        for (kind, s) in &scan.cpu_by_kind {
            report.row(B, &format!("{name}: CPU of {kind}"), s / n * 1000.0, "ms a page");
        }
        report.table(&format!("Page CPU by phase: {name}, {} pages, first scan", scan.pages), lines);
        data.push(json!({"site": name, "pages": scan.pages, "wall_s": scan.wall_s, "phases": scan.phases, "page_cpu": scan.page_cpu, "cpu_by_kind": scan.cpu_by_kind}));
    }
    report.data(B, json!(data));
}

/// One site's table: each phase's wall time and main-thread time, per page.
fn table(name: &str, scan: &ScanRun) -> Vec<String> {
    let n = scan.pages.max(1) as f64;
    let mut names: Vec<&String> = scan.phases.keys().chain(scan.page_cpu.keys()).collect();
    names.sort_by_key(|n| (runners::phase_rank(n), n.to_string()));
    names.dedup();
    let mut lines = vec![
        format!("{name}: {} pages in {:.1} s; ms a page (summed over the pages, divided by all of them):", scan.pages, scan.wall_s),
        format!("  {:<14} {:>9} {:>12} {:>13}", "phase", "wall ms", "main thread", "layout+style"),
    ];
    let (mut wall_total, mut task_total, mut layout_total) = (0.0, 0.0, 0.0);
    for phase in names {
        // A phase that ran on some pages only costs each page its share.
        let wall = scan.phases.get(phase).map_or(0.0, |v| v.iter().sum::<f64>() / n);
        let cpu = scan.page_cpu.get(phase);
        let sum = |i: usize| cpu.map_or(0.0, |v| v.iter().map(|c| c[i]).sum::<f64>() / n);
        let (task, layout) = (sum(0), sum(2));
        wall_total += wall;
        task_total += task;
        layout_total += layout;
        let cpu_cols = if cpu.is_some() { format!("{task:>12.1} {layout:>13.1}") } else { format!("{:>12} {:>13}", "-", "-") };
        lines.push(format!("  {phase:<14} {wall:>9.1} {cpu_cols}"));
    }
    lines.push(format!("  {:<14} {wall_total:>9.1} {task_total:>12.1} {layout_total:>13.1}", "total"));
    let kinds: Vec<String> = scan.cpu_by_kind.iter().map(|(k, s)| format!("{k} {:.0} ms", s / n * 1000.0)).collect();
    lines.push(format!("  CPU a page by process: {}", kinds.join(", ")));
    lines
}
