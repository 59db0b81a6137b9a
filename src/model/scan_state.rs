//! Scan status, mode and trigger, as the API spells them.

use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// Where a scan is in its life: `queued -> running -> completed | failed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScanStatus {
    Queued,
    Running,
    Completed,
    Failed,
}

/// `passive` (the API's only mode) or `active` (owner-depth, never through the API).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScanMode {
    Passive,
    Active,
}

/// What started a scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TriggeredBy {
    Manual,
    Api,
    Schedule,
    Monitor,
}

macro_rules! string_enum {
    ($t:ty { $($v:ident => $s:literal),* $(,)? }) => {
        impl $t {
            pub fn as_str(self) -> &'static str {
                match self { $(<$t>::$v => $s),* }
            }
        }
        impl FromStr for $t {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s { $($s => Ok(<$t>::$v),)* other => Err(format!("unknown value {other:?}")) }
            }
        }
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { f.write_str(self.as_str()) }
        }
    };
}

string_enum!(ScanStatus { Queued => "queued", Running => "running", Completed => "completed", Failed => "failed" });
string_enum!(ScanMode { Passive => "passive", Active => "active" });
string_enum!(TriggeredBy { Manual => "manual", Api => "api", Schedule => "schedule", Monitor => "monitor" });
