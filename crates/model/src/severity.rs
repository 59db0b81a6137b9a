//! Finding severities, ordered from most to least serious.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// How serious a finding is. `Critical` breaks the site for users or search engines; `Info` is
/// worth knowing. Ordered so that `Critical > High > ... > Info`. `Info` is the default (a finding
/// read without a severity).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    #[default]
    Info,
    Low,
    Medium,
    High,
    Critical,
}

impl Severity {
    /// Every severity, most serious first (the order of report tables).
    pub const ALL: [Severity; 5] =
        [Severity::Critical, Severity::High, Severity::Medium, Severity::Low, Severity::Info];

    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Critical => "critical",
            Severity::High => "high",
            Severity::Medium => "medium",
            Severity::Low => "low",
            Severity::Info => "info",
        }
    }

    /// A number that sorts like the severity (info = 0 .. critical = 4), stored beside findings.
    pub fn rank(self) -> i16 {
        self as i16
    }

    pub fn from_rank(rank: i16) -> Option<Severity> {
        Severity::ALL.into_iter().find(|s| s.rank() == rank)
    }
}

/// Serde writes and reads the `as_str` text (the one spelling of a severity).
impl Serialize for Severity {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Severity {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The text was not one of `critical`, `high`, `medium`, `low`, `info`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown severity {0:?}: expected one of critical, high, medium, low, info")]
pub struct UnknownSeverity(pub String);

impl FromStr for Severity {
    type Err = UnknownSeverity;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Severity::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| UnknownSeverity(s.to_string()))
    }
}

/// Counts of findings per severity (the spec's `SeverityCounts`); a missing one reads as zero.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SeverityCounts {
    pub critical: u64,
    pub high: u64,
    pub medium: u64,
    pub low: u64,
    pub info: u64,
}

impl SeverityCounts {
    pub fn add(&mut self, severity: Severity, n: u64) {
        match severity {
            Severity::Critical => self.critical += n,
            Severity::High => self.high += n,
            Severity::Medium => self.medium += n,
            Severity::Low => self.low += n,
            Severity::Info => self.info += n,
        }
    }

    pub fn get(&self, severity: Severity) -> u64 {
        match severity {
            Severity::Critical => self.critical,
            Severity::High => self.high,
            Severity::Medium => self.medium,
            Severity::Low => self.low,
            Severity::Info => self.info,
        }
    }

    pub fn total(&self) -> u64 {
        self.critical + self.high + self.medium + self.low + self.info
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_orders() {
        assert_eq!("high".parse::<Severity>().unwrap(), Severity::High);
        assert!("HIGH".parse::<Severity>().is_err());
        assert!(Severity::Critical > Severity::Info);
        for s in Severity::ALL {
            assert_eq!(Severity::from_rank(s.rank()), Some(s));
        }
    }
}
