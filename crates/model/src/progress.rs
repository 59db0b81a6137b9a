//! A running scan's progress as the worker records it (the `scans.progress` column): the phase
//! and how many pages are done out of how many were found, within the scan's page budget.
//! The dashboard's scan page and `WatchScan` read it; a finished scan's report says the rest.

use serde::{Deserialize, Serialize};

/// What a running scan is doing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ScanPhase {
    /// robots.txt, sitemaps and the HTTPS probe, before the first page.
    #[default]
    Preparing,
    /// Rendering and judging pages.
    Crawling,
    /// An active scan's journeys.
    Journeys,
    /// An active scan's repository probes.
    Probes,
    /// Links' statuses and the site-wide checks, after the last page.
    Finishing,
}

crate::scan_state::string_enum!(ScanPhase {
    Preparing => "preparing",
    Crawling => "crawling",
    Journeys => "journeys",
    Probes => "probes",
    Finishing => "finishing",
});

impl ScanPhase {
    /// The phase in a sentence's words.
    pub const fn label(self) -> &'static str {
        match self {
            ScanPhase::Preparing => "Reading robots.txt and sitemaps",
            ScanPhase::Crawling => "Rendering and checking pages",
            ScanPhase::Journeys => "Running the site's journeys",
            ScanPhase::Probes => "Probing for exposed repository files",
            ScanPhase::Finishing => "Checking links and site-wide rules",
        }
    }
}

/// The recorded progress of a running scan.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanProgressState {
    pub phase: ScanPhase,
    /// Pages rendered and judged so far.
    pub pages_done: u64,
    /// Pages found so far that the scan will render: at least `pages_done`, at most its budget.
    pub pages_found: u64,
}

impl ScanProgressState {
    /// Done out of found in whole per cent (0 before any page is found).
    pub fn percent(&self) -> u64 {
        (self.pages_done.min(self.pages_found) * 100).checked_div(self.pages_found).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_as_the_store_keeps_it() {
        let p = ScanProgressState { phase: ScanPhase::Crawling, pages_done: 3, pages_found: 8 };
        let text = serde_json::to_string(&p).unwrap();
        assert_eq!(text, r#"{"phase":"crawling","pages_done":3,"pages_found":8}"#);
        assert_eq!(serde_json::from_str::<ScanProgressState>(&text).unwrap(), p);
        assert!(serde_json::from_str::<ScanProgressState>(r#"{"phase":"dancing","pages_done":0,"pages_found":0}"#).is_err());
        assert_eq!(p.percent(), 37);
        assert_eq!(ScanProgressState::default().percent(), 0);
    }
}
