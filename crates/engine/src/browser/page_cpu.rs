//! The page's main-thread time, phase by phase, for the benchmark's profile: what each capture
//! phase cost the renderer, read from Chromium's own counters (`Performance.getMetrics`:
//! `TaskDuration`, `ScriptDuration`, `LayoutDuration`, `RecalcStyleDuration`) at each phase's end.
//!
//! Read only while the log target `sitescan_engine::page_cpu` is at debug: the `Performance`
//! domain counts every task of the page, and a scan should not pay for a profile nobody reads.

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::performance::{EnableParams, GetMetricsParams};
use std::time::Duration;

use super::cdp;
use super::instance::Instance;

/// The time limit of one counter read.
const READ_LIMIT: Duration = Duration::from_secs(2);

/// Whether the page's counters are wanted (the log target is on).
pub(crate) fn wanted() -> bool {
    tracing::enabled!(target: "sitescan_engine::page_cpu", tracing::Level::DEBUG)
}

/// The page's main thread, milliseconds since it started: all tasks, script, and layout with
/// style recalculation.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Counters {
    pub(crate) task: f64,
    pub(crate) script: f64,
    pub(crate) layout: f64,
}

impl std::ops::Sub for Counters {
    type Output = Counters;
    fn sub(self, o: Counters) -> Counters {
        Counters { task: self.task - o.task, script: self.script - o.script, layout: self.layout - o.layout }
    }
}

/// A capture's counters: the last read, and what each phase since the first read cost.
#[derive(Debug, Default)]
pub(crate) struct PageCpu {
    last: Option<Counters>,
    spent: Vec<(&'static str, Counters)>,
}

impl PageCpu {
    /// Turns the page's counters on and takes the first read (what came before is not counted).
    pub(crate) async fn start(&mut self, instance: &Instance, page: &Page) {
        let _ = cdp::run(instance, page, "performance counters", READ_LIMIT, EnableParams::default()).await;
        self.last = read(instance, page).await;
    }

    /// Ends the phase `name`: what the page's main thread did since the last read is its cost. A
    /// read that fails (the page is gone) leaves the phase out.
    pub(crate) async fn end(&mut self, instance: &Instance, page: &Page, name: &'static str) {
        let Some(before) = self.last else { return };
        let Some(now) = read(instance, page).await else { return };
        // A navigation within the phase (a page that moves itself) starts the counters again.
        if now.task >= before.task {
            self.spent.push((name, now - before));
        }
        self.last = Some(now);
    }

    /// `phase=task/script/layout` in milliseconds, in the order the phases ended; a phase that
    /// ran more than once (one gatherer per artifact) is summed.
    pub(crate) fn render(&self) -> String {
        let mut summed: Vec<(&str, Counters)> = Vec::new();
        for (name, c) in &self.spent {
            match summed.iter_mut().find(|(n, _)| n == name) {
                Some((_, total)) => {
                    total.task += c.task;
                    total.script += c.script;
                    total.layout += c.layout;
                }
                None => summed.push((name, *c)),
            }
        }
        summed.iter().map(|(n, c)| format!("{n}={:.1}/{:.1}/{:.1}", c.task, c.script, c.layout)).collect::<Vec<_>>().join(" ")
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.spent.is_empty()
    }
}

async fn read(instance: &Instance, page: &Page) -> Option<Counters> {
    let metrics = cdp::run(instance, page, "performance counters", READ_LIMIT, GetMetricsParams::default()).await.ok()?;
    let mut c = Counters::default();
    for m in &metrics.metrics {
        let ms = m.value * 1000.0;
        match m.name.as_str() {
            "TaskDuration" => c.task = ms,
            "ScriptDuration" => c.script = ms,
            "LayoutDuration" | "RecalcStyleDuration" => c.layout += ms,
            _ => {}
        }
    }
    Some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_phases_are_summed_in_the_order_they_first_ended() {
        let c = |task, script, layout| Counters { task, script, layout };
        let cpu = PageCpu { last: None, spent: vec![("dom", c(1.0, 0.5, 0.5)), ("axe", c(200.0, 150.0, 20.0)), ("dom", c(2.0, 1.0, 0.0))] };
        assert_eq!(cpu.render(), "dom=3.0/1.5/0.5 axe=200.0/150.0/20.0");
    }
}
