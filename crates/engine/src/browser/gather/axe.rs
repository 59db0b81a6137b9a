//! axe gatherer: injects the embedded axe-core and runs it on the document (violations and
//! incomplete results; WCAG 2.0-2.2 A/AA and best-practice tags). With the scan's
//! `SharedRegions`, the regions of the page already judged on another page of the scan are left
//! out of the run and their findings given back on this page's elements (`browser/axe_share.js`).

use crate::model::AxeResults;
use chromiumoxide::Page;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::time::Duration;

use crate::browser::cdp::{Deadline, eval_string};
use crate::browser::error::BrowserError;
use crate::browser::instance::Instance;
use crate::browser::scripts::{AXE_INJECT, AXE_RUN_SCRIPT, FIND_REGIONS, axe_run_script};
use crate::browser::shared_regions::SharedRegions;

/// How long axe may run on one page.
pub const AXE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long finding and fingerprinting the page's regions may take.
const REGIONS_TIMEOUT: Duration = Duration::from_secs(10);
/// Findings given back to one page at most (JSON bytes); past it, regions are judged again.
const MAX_SHARE_BYTES: usize = 4 << 20;

/// A region of the page as `regions.js` answers.
#[derive(Debug, Deserialize)]
struct Region {
    fp: String,
}

/// The page's regions and, when the regions and what is around them cover everything axe-core
/// reads, the whole page's fingerprint (`regions.js`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Found {
    regions: Vec<Region>,
    pub(crate) page: Option<String>,
    /// How long finding them took.
    #[serde(skip)]
    ms: u64,
}

/// The key of a whole page's results among the regions' (a region's fingerprint has no colon).
fn page_key(fp: &str) -> String {
    format!("page:{fp}")
}

/// What a fresh region got in this run (`axe_share.js`'s `extract`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Fresh {
    index: usize,
    entry: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Shared {
    shared: Vec<Fresh>,
}

/// The results of a page seen unchanged, here or in an earlier scan of the site (`known`).
#[derive(Debug)]
pub(crate) struct Known {
    results: AxeResults,
    /// Kept by an earlier scan.
    seeded: bool,
}

/// The key of a whole page's results that pixels settled, with what the pixels read (`PixelsEntry`).
fn pixels_key(fp: &str) -> String {
    format!("pixels:{fp}")
}

/// A page's results after its contrast was settled from pixels, kept with a digest of what those
/// pixels read beyond the page's fingerprint (`unchanged::pixel_inputs`).
#[derive(Debug, Serialize, Deserialize)]
struct PixelsEntry {
    inputs: String,
    results: AxeResults,
}

/// The whole results kept for the page with fingerprint `fp`, if any need no pixels.
pub(crate) fn known(shared: &SharedRegions, fp: &str) -> Option<Known> {
    let key = page_key(fp);
    let results = crate::browser::lenient::from_json(&shared.get(&key)?).ok()?;
    Some(Known { results, seeded: shared.is_seeded(&key) })
}

/// Whether results settled from pixels are kept for the page with fingerprint `fp` (then
/// `known_from_pixels` with the page's `pixel_inputs` may give them back).
pub(crate) fn kept_from_pixels(shared: &SharedRegions, fp: &str) -> bool {
    shared.contains(&pixels_key(fp))
}

/// The results settled from pixels kept for the page with fingerprint `fp`, when the pixels read
/// the same `inputs`.
pub(crate) fn known_from_pixels(shared: &SharedRegions, fp: &str, inputs: &str) -> Option<Known> {
    let key = pixels_key(fp);
    let entry: PixelsEntry = crate::browser::lenient::from_json(&shared.get(&key)?).ok()?;
    (entry.inputs == inputs).then(|| Known { results: entry.results, seeded: shared.is_seeded(&key) })
}

/// Keeps the page's `results` once pixels settled their contrast, with what the pixels read.
pub(crate) fn keep_from_pixels(shared: &SharedRegions, fp: &str, inputs: String, results: &AxeResults) {
    if results.error.is_some() {
        return;
    }
    if let Ok(entry) = serde_json::to_string(&PixelsEntry { inputs, results: results.clone() }) {
        shared.replace(&pixels_key(fp), entry);
    }
}

/// Runs axe-core, or gives back what it found where the scan's `shared` regions (`found` on this
/// page by `find_regions` beforehand) already know; `known`: the whole page's results.
pub(crate) async fn gather(
    instance: &Instance,
    page: &Page,
    budget: &Deadline,
    shared: Option<&SharedRegions>,
    found: Found,
    known: Option<Known>,
) -> Result<AxeResults, BrowserError> {
    let began = std::time::Instant::now();
    let regions_ms = found.ms;
    // A page seen unchanged (here or in an earlier scan of the site): its results, without axe.
    if let (Some(shared), Some(known)) = (shared, known) {
        // Its regions stay fresh for the day the page changes.
        for region in &found.regions {
            let _ = shared.get(&region.fp);
        }
        shared.note_reused(found.regions.len(), if known.seeded { found.regions.len() } else { 0 });
        shared.note_page_reused();
        tracing::debug!(regions = found.regions.len(), regions_ms, "axe results of an unchanged page given back");
        return Ok(known.results);
    }
    let loaded = eval_string(instance, page, "axe-inject", &AXE_INJECT, budget.cap(Duration::from_secs(10))).await?;
    if loaded != "object" {
        return Err(BrowserError::Script { name: "axe-inject", message: format!("window.axe is {loaded}") });
    }
    tracing::debug!(inject_ms = began.elapsed().as_millis() as u64, "axe-core injected");
    let regions = found.regions;
    let share = shared.filter(|_| !regions.is_empty()).map(|shared| (shared, share_for(shared, &regions)));
    let script = match &share {
        Some((_, (json, _, _))) => Cow::Owned(axe_run_script(json)),
        None => Cow::Borrowed(AXE_RUN_SCRIPT.as_str()),
    };
    let text = eval_string(instance, page, "axe", &script, budget.cap(AXE_TIMEOUT)).await?;
    if let Some((shared, (_, reused, seeded))) = share {
        // What the regions judged here for the first time got, for the scan's next pages.
        for fresh in crate::browser::lenient::from_json::<Shared>(&text).map(|s| s.shared).unwrap_or_default() {
            if let Some(region) = regions.get(fresh.index) {
                shared.keep(&region.fp, fresh.entry);
            }
        }
        shared.note_reused(reused, seeded);
        tracing::debug!(regions = regions.len(), reused, regions_ms, run_ms = began.elapsed().as_millis() as u64, "axe with shared regions");
    }
    let results: AxeResults = crate::browser::lenient::from_json(&text).map_err(|e| BrowserError::Script { name: "axe", message: e.to_string() })?;
    // The whole page's results, for the next time it is seen unchanged; not when pixels must still
    // settle some contrast (that needs this page's elements) or axe reported an error.
    if let (Some(shared), Some(fp)) = (shared, &found.page)
        && results.error.is_none()
        && !super::contrast::wanted(&results)
        && let Ok(entry) = serde_json::to_string(&results)
    {
        shared.keep(&page_key(fp), entry);
    }
    Ok(results)
}

/// The page's regions; none when they cannot be read (then axe judges the whole page).
pub(crate) async fn find_regions(instance: &Instance, page: &Page, budget: &Deadline) -> Found {
    let began = std::time::Instant::now();
    let mut found = match eval_string(instance, page, "regions", &FIND_REGIONS, budget.cap(REGIONS_TIMEOUT)).await {
        Ok(text) => crate::browser::lenient::from_json(&text).unwrap_or_else(|e| {
            tracing::debug!(error = %e, "regions unreadable");
            Found::default()
        }),
        Err(e) => {
            tracing::debug!(error = %e, "regions not found");
            Found::default()
        }
    };
    found.ms = began.elapsed().as_millis() as u64;
    found
}


/// The `SHARE` of `axe_share.js` for these regions: the known ones with what they got, the
/// others to keep (the first of several alike on one page); how many are known, and of those how
/// many an earlier scan judged.
fn share_for(shared: &SharedRegions, regions: &[Region]) -> (String, usize, usize) {
    let mut known = Vec::new();
    let mut seeded = 0;
    let mut fresh = Vec::new();
    let mut bytes = 0;
    for (index, region) in regions.iter().enumerate() {
        match shared.get(&region.fp) {
            Some(entry) if bytes + entry.len() <= MAX_SHARE_BYTES => {
                bytes += entry.len();
                seeded += usize::from(shared.is_seeded(&region.fp));
                known.push(serde_json::json!({ "index": index, "entry": &*entry }));
            }
            Some(_) => {}
            None if !regions[..index].iter().any(|r| r.fp == region.fp) => fresh.push(index),
            None => {}
        }
    }
    let n = known.len();
    (serde_json::json!({ "known": known, "fresh": fresh }).to_string(), n, seeded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_regions_carry_their_findings_and_repeats_are_judged_once() {
        let shared = SharedRegions::default();
        shared.keep("h", "{\"rules\":{}}".into());
        let regions: Vec<Region> = ["h", "f", "f"].iter().map(|fp| Region { fp: fp.to_string() }).collect();
        let (share, known, seeded) = share_for(&shared, &regions);
        assert_eq!((known, seeded), (1, 0));
        let v: serde_json::Value = serde_json::from_str(&share).unwrap();
        assert_eq!(v["known"][0]["index"], 0);
        assert_eq!(v["known"][0]["entry"], "{\"rules\":{}}");
        assert_eq!(v["fresh"], serde_json::json!([1]));
    }
}
