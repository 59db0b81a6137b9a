//! The ceiling of one scan's stored findings: a count and a byte total. Pages' findings may use
//! [`PAGES_SHARE_PERCENT`] of each, so the site checks (robots.txt, sitemaps, links) that run
//! last always have room. Findings past the ceiling are counted, not stored, and the summary
//! says so (`summary.capped.findings_omitted`).

use crate::model::Finding;

/// Findings stored per scan.
pub const MAX_FINDINGS_PER_SCAN: usize = 50_000;
/// Bytes of findings stored per scan (evidence serialised, plus title, description and
/// remediation).
pub const MAX_FINDINGS_BYTES_PER_SCAN: usize = 32 * 1024 * 1024;
/// The share of both the pages' findings may take; the rest is the site checks'.
pub const PAGES_SHARE_PERCENT: usize = 90;

/// Where a batch of findings comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Page,
    Site,
}

/// What a scan has stored so far.
#[derive(Debug, Clone)]
pub struct FindingCeiling {
    max_count: usize,
    max_bytes: usize,
    count: usize,
    bytes: usize,
    omitted: u64,
}

impl Default for FindingCeiling {
    fn default() -> Self {
        FindingCeiling::new(MAX_FINDINGS_PER_SCAN, MAX_FINDINGS_BYTES_PER_SCAN)
    }
}

fn size(f: &Finding) -> usize {
    serde_json::to_vec(&f.evidence).map_or(0, |v| v.len()) + f.title.len() + f.description.len() + f.remediation.len() + f.check_id.len()
}

impl FindingCeiling {
    pub fn new(max_count: usize, max_bytes: usize) -> Self {
        FindingCeiling { max_count, max_bytes, count: 0, bytes: 0, omitted: 0 }
    }

    /// The ceiling of a scan that has `count` findings stored already (by other workers of a
    /// shared crawl; their bytes are not known and not counted).
    pub fn with_stored(count: usize) -> Self {
        FindingCeiling { count, ..FindingCeiling::default() }
    }

    /// Counts what every worker of a shared crawl has stored (`stored`, ours included) before
    /// the next batch: the ceiling holds for the scan, not for each worker that serves it.
    /// (Bytes are this worker's only: the store counts rows.)
    pub fn sync(&mut self, stored: usize) {
        self.count = self.count.max(stored);
    }

    /// The findings of `batch` that fit, in order (most serious first, as they come sorted);
    /// the others are counted in [`FindingCeiling::omitted`].
    pub fn admit(&mut self, batch: Vec<Finding>, source: Source) -> Vec<Finding> {
        let (max_count, max_bytes) = match source {
            Source::Page => (self.max_count / 100 * PAGES_SHARE_PERCENT, self.max_bytes / 100 * PAGES_SHARE_PERCENT),
            Source::Site => (self.max_count, self.max_bytes),
        };
        let mut kept = Vec::with_capacity(batch.len());
        for f in batch {
            let n = size(&f);
            if self.count < max_count && self.bytes + n <= max_bytes {
                self.count += 1;
                self.bytes += n;
                kept.push(f);
            } else {
                self.omitted += 1;
            }
        }
        kept
    }

    /// Findings left out so far.
    pub fn omitted(&self) -> u64 {
        self.omitted
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Severity;

    fn finding(i: usize) -> Finding {
        Finding {
            check_id: "search.title-missing".into(),
            severity: Severity::High,
            title: "t".into(),
            description: String::new(),
            remediation: String::new(),
            cwe_id: None,
            evidence: serde_json::json!({"url": format!("https://a.test/{i}")}).as_object().cloned().unwrap_or_default(),
            ..Default::default()
        }
    }

    #[test]
    fn pages_stop_at_their_share_and_the_site_checks_keep_room() {
        let mut c = FindingCeiling::new(100, usize::MAX);
        let kept = c.admit((0..150).map(finding).collect(), Source::Page);
        assert_eq!(kept.len(), 90);
        assert_eq!(c.omitted(), 60);
        let kept = c.admit((0..30).map(finding).collect(), Source::Site);
        assert_eq!(kept.len(), 10);
        assert_eq!(c.omitted(), 80);
    }

    /// Two workers of one shared crawl, each seeing what the other stored: together they stop
    /// at the pages' share, not at twice it.
    #[test]
    fn the_ceiling_holds_across_the_workers_of_a_scan() {
        let (mut a, mut b) = (FindingCeiling::new(100, usize::MAX), FindingCeiling::new(100, usize::MAX));
        let mut stored = 0;
        for round in 0..20 {
            let worker = if round % 2 == 0 { &mut a } else { &mut b };
            worker.sync(stored);
            stored += worker.admit((0..10).map(finding).collect(), Source::Page).len();
        }
        assert_eq!(stored, 90, "the pages' share of the scan's ceiling");
        assert_eq!(a.omitted() + b.omitted(), 200 - 90);
    }

    #[test]
    fn bytes_count_too() {
        let one = size(&finding(1));
        let mut c = FindingCeiling::new(usize::MAX / 200, one * 10);
        let kept = c.admit((0..20).map(finding).collect(), Source::Site);
        assert!(kept.len() >= 9 && kept.len() <= 10, "{}", kept.len());
        assert_eq!(c.omitted() as usize, 20 - kept.len());
    }
}
