//! `WatchScan`: one scan's progress, followed through the store so that any instance can serve
//! it (the worker that runs the scan may be another process): the scan row and the pages it has
//! stored are polled, and every state change, every new phase and every new page becomes one
//! message, until the scan ends.

use crate::store::{PageRow, ScanRow, Store, StoreResult};
use std::time::Duration;
use tokio::sync::mpsc;
use uuid::Uuid;

/// How often the store is asked.
pub const WATCH_POLL: Duration = Duration::from_millis(250);
/// Pages read per poll (a backlog drains over several polls).
const PAGES_PER_POLL: u64 = 200;

/// One message of the stream.
#[derive(Debug, Clone)]
pub struct ScanProgress {
    /// The scan as it stands.
    pub scan: ScanRow,
    /// Pages stored so far.
    pub pages_done: u64,
    /// The page this message is about, when it reports one.
    pub page: Option<PageRow>,
}

impl ScanProgress {
    /// Pages found so far as the worker recorded them (never fewer than the pages done).
    pub fn pages_found(&self) -> u64 {
        self.scan.progress().map_or(0, |p| p.pages_found).max(self.pages_done)
    }

    /// The running scan's phase (none while queued and once ended).
    pub fn phase(&self) -> Option<crate::model::ScanPhase> {
        (self.scan.status == crate::model::ScanStatus::Running).then(|| self.scan.progress().unwrap_or_default().phase)
    }
}

fn finished(scan: &ScanRow) -> bool {
    matches!(scan.status, crate::model::ScanStatus::Completed | crate::model::ScanStatus::Failed)
}

/// Follows `scan` (already read, so known to exist and belong to the caller) until it ends or
/// the receiver is dropped. The first message is the scan as it stands (for a scan still to
/// finish); then a message per state change and per page stored; the last one has an end status.
pub fn watch(store: Store, scan: ScanRow, every: Duration) -> mpsc::Receiver<StoreResult<ScanProgress>> {
    let (tx, rx) = mpsc::channel(64);
    tokio::spawn(async move {
        let id: Uuid = scan.id;
        let mut last_seq = 0i32;
        let mut pages_done = 0u64;
        let mut current = scan;
        // A finished scan is told by its pages and its end state alone.
        if !finished(&current) && tx.send(Ok(ScanProgress { scan: current.clone(), pages_done, page: None })).await.is_err() {
            return;
        }
        loop {
            // The row first, then the pages: a scan read as finished has stored all its pages.
            let row = match store.scan_any_org(id).await {
                Ok(Some(row)) => row,
                Ok(None) => return,
                Err(e) => {
                    let _ = tx.send(Err(e)).await;
                    return;
                }
            };
            let end = finished(&row);
            let restarted = row.attempts != current.attempts;
            if restarted {
                // Another attempt started over (its pages were removed): count again.
                last_seq = 0;
                pages_done = 0;
                current.attempts = row.attempts;
            }
            // A new running state goes before the pages it produced; an end state after them.
            // A new phase is news too (the pages' messages carry the rest of the progress).
            let new_phase = row.progress().map(|p| p.phase) != current.progress().map(|p| p.phase);
            if !end && (row.status != current.status || restarted || new_phase) {
                current = row.clone();
                if tx.send(Ok(ScanProgress { scan: current.clone(), pages_done, page: None })).await.is_err() {
                    return;
                }
            } else if !end {
                current.progress = row.progress.clone();
            }
            let pages = match store.scan_pages_after(id, last_seq, PAGES_PER_POLL).await {
                Ok(p) => p,
                Err(e) => {
                    let _ = tx.send(Err(e)).await;
                    return;
                }
            };
            let more = pages.len() as u64 == PAGES_PER_POLL;
            for page in pages {
                last_seq = page.seq;
                pages_done += 1;
                if tx.send(Ok(ScanProgress { scan: current.clone(), pages_done, page: Some(page) })).await.is_err() {
                    return;
                }
            }
            if more {
                continue;
            }
            if end {
                let _ = tx.send(Ok(ScanProgress { scan: row, pages_done, page: None })).await;
                return;
            }
            tokio::select! {
                _ = tokio::time::sleep(every) => {}
                _ = tx.closed() => return,
            }
        }
    });
    rx
}
