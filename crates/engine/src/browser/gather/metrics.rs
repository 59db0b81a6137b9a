//! Metrics gatherer: what `browser/perf.js` observed from the start of the document (TTFB, FCP,
//! LCP and its element, CLS session windows, long tasks, TBT), plus page weight from the network.
//!
//! Read twice: before scrolling (paint metrics: LCP must not pick up content we scrolled into
//! view) and once the page settled after it (layout shifts, long tasks and TBT), before the
//! in-page gatherers add tasks of their own.

use crate::model::{LayoutShift, LcpElement, LongTask, NetworkRequest, PageMetrics};
use chromiumoxide::Page;
use serde::Deserialize;
use std::time::Duration;

use crate::browser::cdp::{Deadline, eval_string};
use crate::browser::error::BrowserError;
use crate::browser::instance::Instance;
use crate::browser::scripts::{PERF_QUIET, PERF_REPORT};

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub(crate) struct PerfReport {
    pub(crate) ttfb_ms: Option<f64>,
    pub(crate) fcp_ms: Option<f64>,
    pub(crate) lcp_ms: Option<f64>,
    pub(crate) lcp_element: Option<LcpElement>,
    pub(crate) cls: Option<f64>,
    pub(crate) layout_shifts: Vec<LayoutShift>,
    pub(crate) tbt_ms: Option<f64>,
    pub(crate) long_tasks: Vec<LongTask>,
    pub(crate) dom_content_loaded_ms: Option<f64>,
    pub(crate) load_ms: Option<f64>,
    pub(crate) dom_elements: u64,
    pub(crate) dom_max_depth: u64,
}

pub(crate) async fn read(instance: &Instance, page: &Page, budget: &Deadline) -> Result<PerfReport, BrowserError> {
    let text = eval_string(instance, page, "perf", PERF_REPORT, budget.cap(Duration::from_secs(10))).await?;
    if text.is_empty() {
        return Err(BrowserError::Script { name: "perf", message: "the performance observers were not installed".into() });
    }
    crate::browser::lenient::from_json(&text).map_err(|e| BrowserError::Script { name: "perf", message: e.to_string() })
}

/// Waits until the page has neither shifted its layout nor run a long task for `quiet`, at most
/// `max`: CLS and TBT read at once after the network went quiet would miss a banner inserted or a
/// task run a moment later. A page that did neither (most) costs one read.
pub(crate) async fn settle(instance: &Instance, page: &Page, budget: &Deadline, quiet: Duration, max: Duration) -> Result<(), BrowserError> {
    let until = std::time::Instant::now() + budget.cap(max);
    loop {
        let text = eval_string(instance, page, "perf", PERF_QUIET, budget.cap(Duration::from_secs(5))).await?;
        // Nothing shifted or blocked (`-1`), no observers, or an answer that is no duration (the
        // page's own doing): nothing to wait for.
        let since = match text.trim().parse::<f64>().ok().filter(|ms| *ms >= 0.0).map(|ms| Duration::try_from_secs_f64(ms / 1000.0)) {
            Some(Ok(since)) => since,
            _ => return Ok(()),
        };
        let now = std::time::Instant::now();
        if since >= quiet || now >= until {
            return Ok(());
        }
        tokio::time::sleep((quiet - since).max(Duration::from_millis(50)).min(until - now)).await;
    }
}

/// Paint metrics from `early` (before scrolling), the rest from `late`; weight from `requests`.
pub(crate) fn combine(early: Option<&PerfReport>, late: Option<&PerfReport>, requests: &[NetworkRequest]) -> PageMetrics {
    let paint = early.or(late);
    let whole = late.or(early);
    PageMetrics {
        ttfb_ms: paint.and_then(|p| p.ttfb_ms),
        fcp_ms: paint.and_then(|p| p.fcp_ms),
        lcp_ms: paint.and_then(|p| p.lcp_ms),
        lcp_element: paint.and_then(|p| p.lcp_element.clone()),
        cls: whole.and_then(|p| p.cls),
        layout_shifts: whole.map(|p| p.layout_shifts.clone()).unwrap_or_default(),
        tbt_ms: whole.and_then(|p| p.tbt_ms),
        long_tasks: whole.map(|p| p.long_tasks.clone()).unwrap_or_default(),
        dom_content_loaded_ms: whole.and_then(|p| p.dom_content_loaded_ms),
        load_ms: whole.and_then(|p| p.load_ms),
        transfer_bytes: requests.iter().filter_map(|r| r.encoded_bytes).sum(),
        requests: requests.len() as u64,
        dom_elements: whole.map(|p| p.dom_elements).unwrap_or(0),
        dom_max_depth: whole.map(|p| p.dom_max_depth).unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paint_from_early_rest_from_late() {
        let early = PerfReport { lcp_ms: Some(800.0), fcp_ms: Some(300.0), cls: Some(0.0), ..PerfReport::default() };
        let late = PerfReport { lcp_ms: Some(5000.0), cls: Some(0.3), tbt_ms: Some(120.0), dom_elements: 42, ..PerfReport::default() };
        let reqs = vec![
            NetworkRequest { encoded_bytes: Some(1000), ..NetworkRequest::default() },
            NetworkRequest { encoded_bytes: None, ..NetworkRequest::default() },
        ];
        let m = combine(Some(&early), Some(&late), &reqs);
        assert_eq!((m.lcp_ms, m.fcp_ms, m.cls, m.tbt_ms), (Some(800.0), Some(300.0), Some(0.3), Some(120.0)));
        assert_eq!((m.transfer_bytes, m.requests, m.dom_elements), (1000, 2, 42));
        let only_late = combine(None, Some(&late), &[]);
        assert_eq!(only_late.lcp_ms, Some(5000.0));
    }

    #[test]
    fn parses_the_script_output() {
        let text = r#"{"ttfb_ms":12.5,"fcp_ms":40,"lcp_ms":40,"lcp_element":{"selector":"h1","snippet":"<h1>Hi</h1>","tag":"h1","url":null,"is_image":false,"loading":null},"cls":0,"layout_shifts":[],"tbt_ms":0,"long_tasks":[{"start_ms":10,"duration_ms":80}],"dom_content_loaded_ms":30,"load_ms":null,"dom_elements":7,"dom_max_depth":4}"#;
        let r: PerfReport = serde_json::from_str(text).unwrap();
        assert_eq!(r.lcp_element.unwrap().selector.as_deref(), Some("h1"));
        assert_eq!(r.long_tasks[0].duration_ms, 80.0);
    }
}
