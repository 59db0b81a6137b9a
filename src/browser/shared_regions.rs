//! `SharedRegions`: what axe-core found in each region of a scan's pages (header, navigation,
//! footer, ...), by the region's fingerprint (`browser/regions.js`), so that a region the site
//! repeats is judged on the first page that shows it and given back on the others
//! (`browser/axe_share.js`). One per scan (`BrowserSession`); bounded, first answer kept.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Regions kept per scan.
const MAX_REGIONS: usize = 2048;
/// Bytes of kept findings per scan.
const MAX_BYTES: usize = 32 << 20;
/// A region whose findings take more than this is judged on every page.
const MAX_ENTRY_BYTES: usize = 1 << 20;

#[derive(Debug, Default)]
pub(crate) struct SharedRegions {
    kept: Mutex<Kept>,
    /// Regions given back instead of judged, over the scan.
    reused: AtomicUsize,
}

#[derive(Debug, Default)]
struct Kept {
    entries: HashMap<String, Arc<str>>,
    bytes: usize,
}

impl SharedRegions {
    /// What was found in the region with fingerprint `fp`, as the JSON text `axe_share.js` keeps.
    pub(crate) fn get(&self, fp: &str) -> Option<Arc<str>> {
        self.kept.lock().ok()?.entries.get(fp).cloned()
    }

    /// Keeps what the region `fp` got, unless another page kept it first or the scan's share is full.
    pub(crate) fn keep(&self, fp: &str, entry: String) {
        if entry.len() > MAX_ENTRY_BYTES {
            return;
        }
        let Ok(mut kept) = self.kept.lock() else { return };
        if kept.entries.contains_key(fp) || kept.entries.len() >= MAX_REGIONS || kept.bytes + entry.len() > MAX_BYTES {
            return;
        }
        kept.bytes += entry.len() + fp.len();
        kept.entries.insert(fp.to_string(), Arc::from(entry));
    }

    pub(crate) fn note_reused(&self, n: usize) {
        self.reused.fetch_add(n, Ordering::Relaxed);
    }

    /// (regions kept, regions given back instead of judged) so far.
    pub(crate) fn counts(&self) -> (usize, usize) {
        let kept = self.kept.lock().map(|k| k.entries.len()).unwrap_or(0);
        (kept, self.reused.load(Ordering::Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_answer_is_kept() {
        let s = SharedRegions::default();
        assert!(s.get("a").is_none());
        s.keep("a", "{\"rules\":{}}".into());
        s.keep("a", "{\"rules\":{\"x\":1}}".into());
        assert_eq!(s.get("a").as_deref(), Some("{\"rules\":{}}"));
        s.note_reused(3);
        assert_eq!(s.counts(), (1, 3));
    }

    #[test]
    fn an_oversized_region_is_not_kept() {
        let s = SharedRegions::default();
        s.keep("big", "x".repeat(MAX_ENTRY_BYTES + 1));
        assert!(s.get("big").is_none());
    }
}
