//! Records a running scan's progress in the store (`scans.progress`), so that any instance can
//! show it: the phase, pages done and pages found. The scanner reports every step; the store
//! is written at most once per `every`, and only when something changed.

use super::scanner::{Progress, ProgressFn};
use crate::model::{ScanPhase, ScanProgressState};
use crate::store::Store;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// How often a changed progress is written.
pub const PROGRESS_EVERY: Duration = Duration::from_millis(500);

/// The progress and whether the store has it yet.
#[derive(Default)]
struct Latest {
    state: ScanProgressState,
    written: bool,
}

/// Applies one report of the scanner to the recorded state.
fn apply(state: &mut ScanProgressState, p: &Progress) {
    match p {
        Progress::Phase(phase) => state.phase = *phase,
        Progress::PageStarted { .. } => {}
        Progress::PageDone { done, found, .. } => {
            state.pages_done = *done as u64;
            state.pages_found = (*found).max(*done) as u64;
        }
    }
}

/// A running recorder; `stop` (or dropping it) ends it.
pub struct ProgressRecorder {
    stop: CancellationToken,
    task: Option<JoinHandle<()>>,
}

impl Drop for ProgressRecorder {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl ProgressRecorder {
    /// Starts recording scan `id` (leased by `owner`); the returned function is the one to hand
    /// the scanner, and passes every report on to `inner` too.
    pub fn start(store: Store, id: Uuid, owner: String, inner: Option<ProgressFn>, every: Duration) -> (ProgressRecorder, ProgressFn) {
        let latest = Arc::new(Mutex::new(Latest { state: ScanProgressState { phase: ScanPhase::Preparing, ..Default::default() }, written: false }));
        let report: ProgressFn = {
            let latest = latest.clone();
            Arc::new(move |p: Progress| {
                if let Ok(mut l) = latest.lock() {
                    let before = l.state;
                    apply(&mut l.state, &p);
                    l.written &= l.state == before;
                }
                if let Some(f) = &inner {
                    f(p);
                }
            })
        };
        let stop = CancellationToken::new();
        let task = {
            let stop = stop.clone();
            tokio::spawn(async move {
                loop {
                    let pending = latest.lock().ok().and_then(|mut l| (!l.written).then(|| {
                        l.written = true;
                        l.state
                    }));
                    if let Some(state) = pending {
                        match store.set_scan_progress(id, &owner, &state).await {
                            Ok(true) => {}
                            // The lease is gone or the scan ended: nothing more to record.
                            Ok(false) => return,
                            Err(e) => tracing::warn!(error = %e, "could not record the scan's progress"),
                        }
                    }
                    tokio::select! {
                        _ = tokio::time::sleep(every) => {}
                        _ = stop.cancelled() => return,
                    }
                }
            })
        };
        (ProgressRecorder { stop, task: Some(task) }, report)
    }

    /// Stops recording (what was not written yet is dropped: the scan's end says more).
    pub async fn stop(mut self) {
        self.stop.cancel();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_phases_and_pages() {
        let mut s = ScanProgressState::default();
        apply(&mut s, &Progress::Phase(ScanPhase::Crawling));
        apply(&mut s, &Progress::PageStarted { url: "https://a.test/".into(), budget: 50 });
        apply(&mut s, &Progress::PageDone { url: "https://a.test/".into(), done: 1, found: 7, budget: 50 });
        assert_eq!(s, ScanProgressState { phase: ScanPhase::Crawling, pages_done: 1, pages_found: 7 });
        apply(&mut s, &Progress::PageDone { url: "https://a.test/b".into(), done: 2, found: 1, budget: 50 });
        assert_eq!((s.pages_done, s.pages_found), (2, 2), "found is never below done");
        apply(&mut s, &Progress::Phase(ScanPhase::Finishing));
        assert_eq!(s.phase, ScanPhase::Finishing);
    }
}
