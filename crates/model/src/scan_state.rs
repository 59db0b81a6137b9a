//! Scan status, mode and trigger, as the API spells them. Each enum's text is written once, in
//! its `string_enum!` line: `as_str`, `FromStr`, `Display` and serde all read that table, from
//! the database row to the JSON edge.

/// Where a scan is in its life: `queued -> running -> completed | failed`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ScanStatus {
    #[default]
    Queued,
    Running,
    Completed,
    Failed,
}

/// `passive` (the API's only mode) or `active` (owner-depth, never through the API).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ScanMode {
    #[default]
    Passive,
    Active,
}

/// What started a scan.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum TriggeredBy {
    Manual,
    #[default]
    Api,
    Schedule,
    Monitor,
}

/// `as_str`, `FromStr`, `Display` and serde (as the string) of an enum, from one table.
macro_rules! string_enum {
    ($t:ty { $($v:ident => $s:literal),* $(,)? }) => {
        impl $t {
            pub const fn as_str(self) -> &'static str {
                match self { $(<$t>::$v => $s),* }
            }
        }
        impl std::str::FromStr for $t {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s { $($s => Ok(<$t>::$v),)* other => Err(format!("unknown value {other:?}")) }
            }
        }
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { f.write_str(self.as_str()) }
        }
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> { s.serialize_str(self.as_str()) }
        }
        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = <String as serde::Deserialize>::deserialize(d)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}
pub(crate) use string_enum;

string_enum!(ScanStatus { Queued => "queued", Running => "running", Completed => "completed", Failed => "failed" });
string_enum!(ScanMode { Passive => "passive", Active => "active" });
string_enum!(TriggeredBy { Manual => "manual", Api => "api", Schedule => "schedule", Monitor => "monitor" });
