//! What a gatherer read of a page larger than its work budget: it reads the first part it can
//! afford, its checks judge that part, and their findings say so (`evidence.sampled: true` with
//! `evidence.sampled_read`), so a very long page ends with every check run on a known share of
//! it, never with a timeout or a silent cut.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Longest `what` kept (characters): it comes from the page's side of the channel.
const MAX_WHAT: usize = 80;

/// One budget a gatherer spent: it read the first `read` of `total` `what`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Sample {
    /// What was counted (`elements`, `links`, `tab stops`).
    pub what: String,
    pub read: usize,
    /// How many the page had (at least `read`).
    pub total: usize,
}

impl Sample {
    pub fn new(what: &str, read: usize, total: usize) -> Self {
        Sample { what: what.to_string(), read, total: total.max(read) }
    }

    /// The sample as the gatherer sent it, bounded: `what` cut, `total` at least `read`.
    pub fn bounded(mut self) -> Self {
        if self.what.chars().count() > MAX_WHAT {
            self.what = self.what.chars().take(MAX_WHAT).collect();
        }
        self.total = self.total.max(self.read);
        self
    }
}

impl fmt::Display for Sample {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the first {} of {} {}", self.read, self.total, self.what)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_says_how_much_was_read_of_how_much() {
        assert_eq!(Sample::new("elements", 4000, 25_113).to_string(), "the first 4000 of 25113 elements");
        let odd = Sample { what: "x".repeat(500), read: 10, total: 3 }.bounded();
        assert_eq!((odd.what.len(), odd.total), (80, 10));
    }
}
