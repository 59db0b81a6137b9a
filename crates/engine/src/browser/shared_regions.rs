//! `SharedRegions`: what axe-core found in each region of a scan's pages (header, navigation,
//! footer, `main`, ...), by the region's fingerprint (`browser/regions.js`), so that a region the
//! site repeats is judged on the first page that shows it and given back on the others
//! (`browser/axe_share.js`). One per scan (`BrowserSession`); bounded, first answer kept.
//!
//! A scan may start seeded with what earlier scans of the same site found (`seed`): the
//! scanner keeps the verdicts per site (`crawl::region_cache`) and hands back at the end the
//! regions judged for the first time and the seeded ones given back again (`verdicts`).
//!
//! It also holds what the scan learnt from its images by response (`gather::response_memo`):
//! their animations, and their first looks for text, each taken once a scan for an image many
//! pages show.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::browser::gather::animation::ImageAnimations;
use crate::browser::gather::image_text::ImageLooks;

/// Regions kept per scan.
const MAX_REGIONS: usize = 20_000;
/// Bytes of kept findings per scan.
const MAX_BYTES: usize = 48 << 20;
/// A region whose findings take more than this is judged on every page.
pub(crate) const MAX_ENTRY_BYTES: usize = 1 << 20;

#[derive(Debug, Default)]
pub(crate) struct SharedRegions {
    kept: Mutex<Kept>,
    /// Regions given back instead of judged, over the scan.
    reused: AtomicUsize,
    /// Of those, regions an earlier scan judged.
    reused_seeded: AtomicUsize,
    /// Pages whose whole results were given back (axe-core did not run on them).
    pages_reused: AtomicUsize,
    /// Of those, pages whose barrier, keyboard, layout and dialog facts were given back too.
    facts_reused: AtomicUsize,
    /// What the images' bytes hold, by response.
    pub(crate) images: ImageAnimations,
    /// The first looks of the images drawn for text, by response and drawing.
    pub(crate) looks: ImageLooks,
}

#[derive(Debug, Default)]
struct Kept {
    entries: HashMap<String, Arc<str>>,
    bytes: usize,
    /// Fingerprints that came from earlier scans (`seed`).
    seeded: HashSet<String>,
    /// Seeded fingerprints this scan gave back.
    used: HashSet<String>,
}

/// What a scan leaves for the next scan of its site: regions judged for the first time (with
/// what they got) and earlier verdicts given back again (to keep them fresh).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct RegionVerdicts {
    pub fresh: Vec<(String, String)>,
    pub used: Vec<String>,
}

impl SharedRegions {
    /// What was found in the region with fingerprint `fp`, as the JSON text `axe_share.js` keeps.
    pub(crate) fn get(&self, fp: &str) -> Option<Arc<str>> {
        let mut kept = self.kept.lock().ok()?;
        let entry = kept.entries.get(fp).cloned()?;
        if kept.seeded.contains(fp) && !kept.used.contains(fp) {
            kept.used.insert(fp.to_string());
        }
        Some(entry)
    }

    /// Whether something is kept under `fp` (without counting it as given back).
    pub(crate) fn contains(&self, fp: &str) -> bool {
        self.kept.lock().map(|k| k.entries.contains_key(fp)).unwrap_or(false)
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

    /// Keeps `entry` under `fp` in place of what was kept there (an earlier scan's included, which
    /// the next scan then gets instead): for a verdict whose key does not say all it depends on
    /// (the whole page's results settled from pixels, kept with what the pixels read).
    pub(crate) fn replace(&self, fp: &str, entry: String) {
        if entry.len() > MAX_ENTRY_BYTES {
            return;
        }
        let Ok(mut kept) = self.kept.lock() else { return };
        let old = kept.entries.get(fp).map_or(0, |e| e.len() + fp.len());
        if kept.entries.len() >= MAX_REGIONS + usize::from(old > 0) || kept.bytes - old + entry.len() > MAX_BYTES {
            return;
        }
        kept.bytes = kept.bytes - old + entry.len() + fp.len();
        kept.seeded.remove(fp);
        kept.used.remove(fp);
        kept.entries.insert(fp.to_string(), Arc::from(entry));
    }

    /// Starts the scan with what earlier scans of the site found (within this scan's bounds).
    pub(crate) fn seed(&self, entries: Vec<(String, String)>) {
        for (fp, entry) in entries {
            self.keep(&fp, entry);
            if let Ok(mut kept) = self.kept.lock()
                && kept.entries.contains_key(&fp)
            {
                kept.seeded.insert(fp);
            }
        }
    }

    pub(crate) fn note_reused(&self, n: usize, seeded: usize) {
        self.reused.fetch_add(n, Ordering::Relaxed);
        self.reused_seeded.fetch_add(seeded, Ordering::Relaxed);
    }

    pub(crate) fn note_facts_reused(&self) {
        self.facts_reused.fetch_add(1, Ordering::Relaxed);
    }

    /// Pages whose in-page facts beyond axe-core were given back (`unchanged.rs`).
    pub(crate) fn facts_reused(&self) -> usize {
        self.facts_reused.load(Ordering::Relaxed)
    }

    pub(crate) fn note_page_reused(&self) {
        self.pages_reused.fetch_add(1, Ordering::Relaxed);
    }

    /// Pages whose whole results were given back.
    pub(crate) fn pages_reused(&self) -> usize {
        self.pages_reused.load(Ordering::Relaxed)
    }

    /// Whether `fp` came from an earlier scan.
    pub(crate) fn is_seeded(&self, fp: &str) -> bool {
        self.kept.lock().map(|k| k.seeded.contains(fp)).unwrap_or(false)
    }

    /// (regions kept, regions given back instead of judged, of those from earlier scans) so far.
    pub(crate) fn counts(&self) -> (usize, usize, usize) {
        let kept = self.kept.lock().map(|k| k.entries.len()).unwrap_or(0);
        (kept, self.reused.load(Ordering::Relaxed), self.reused_seeded.load(Ordering::Relaxed))
    }

    /// What this scan leaves for the next one.
    pub(crate) fn verdicts(&self) -> RegionVerdicts {
        let Ok(kept) = self.kept.lock() else { return RegionVerdicts::default() };
        let fresh = kept.entries.iter().filter(|(fp, _)| !kept.seeded.contains(*fp)).map(|(fp, e)| (fp.clone(), e.to_string())).collect();
        RegionVerdicts { fresh, used: kept.used.iter().cloned().collect() }
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
        s.note_reused(3, 0);
        assert_eq!(s.counts(), (1, 3, 0));
    }

    #[test]
    fn a_replaced_verdict_is_left_for_the_next_scan_as_fresh() {
        let s = SharedRegions::default();
        s.seed(vec![("pixels:p".into(), "old".into())]);
        s.replace("pixels:p", "new".into());
        assert_eq!(s.get("pixels:p").as_deref(), Some("new"));
        assert!(!s.is_seeded("pixels:p"));
        assert_eq!(s.verdicts().fresh, vec![("pixels:p".to_string(), "new".to_string())]);
    }

    #[test]
    fn an_oversized_region_is_not_kept() {
        let s = SharedRegions::default();
        s.keep("big", "x".repeat(MAX_ENTRY_BYTES + 1));
        assert!(s.get("big").is_none());
    }

    #[test]
    fn seeded_verdicts_are_told_apart_from_fresh_ones() {
        let s = SharedRegions::default();
        s.seed(vec![("old".into(), "{\"rules\":{}}".into()), ("unused".into(), "{\"rules\":{}}".into())]);
        s.keep("new", "{\"rules\":{}}".into());
        assert!(s.is_seeded("old") && !s.is_seeded("new"));
        assert!(s.get("old").is_some());
        let v = s.verdicts();
        assert_eq!(v.fresh, vec![("new".to_string(), "{\"rules\":{}}".to_string())]);
        assert_eq!(v.used, vec!["old".to_string()]);
    }
}
