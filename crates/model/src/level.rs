//! The WCAG conformance level a scan judges against (`--level A|AA|AAA`, a site's level, the
//! API's `level`): a check whose success criteria all sit above it does not run. WCAG 2.2 AA is
//! the default, the level law and procurement ask for.

use std::fmt;
use std::str::FromStr;

/// A WCAG conformance level. Ordered `A < AA < AAA`: a scan at a level runs the checks of that
/// level and of the levels below it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    A,
    #[default]
    AA,
    AAA,
}

impl Level {
    /// Every level, lowest first.
    pub const ALL: [Level; 3] = [Level::A, Level::AA, Level::AAA];

    pub const fn as_str(self) -> &'static str {
        match self {
            Level::A => "A",
            Level::AA => "AA",
            Level::AAA => "AAA",
        }
    }

    /// The level of an axe-core rule from its tags: the lowest conformance level among its WCAG
    /// level tags (`wcag2a`, `wcag21aa`, `wcag2aaa`, ...); `None` for a rule with none
    /// (`best-practice`), which runs at every level.
    pub fn of_axe_tags<'a>(tags: impl IntoIterator<Item = &'a str>) -> Option<Level> {
        tags.into_iter()
            .filter_map(|tag| {
                let rest = tag.strip_prefix("wcag")?;
                let letters = rest.trim_start_matches(|c: char| c.is_ascii_digit());
                // `wcag111` (a criterion) has no letters; `wcag2a`, `wcag21aa`, `wcag2aaa` do.
                match letters {
                    "a" => Some(Level::A),
                    "aa" => Some(Level::AA),
                    "aaa" => Some(Level::AAA),
                    _ => None,
                }
            })
            .min()
    }

    /// True when a check declared at `check` (`None`: not tied to a level) runs at this target.
    pub fn runs(self, check: Option<Level>) -> bool {
        check.is_none_or(|c| c <= self)
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a level was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LevelError(pub String);

impl fmt::Display for LevelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not a conformance level: use A, AA or AAA", self.0)
    }
}

impl std::error::Error for LevelError {}

impl FromStr for Level {
    type Err = LevelError;

    /// `A`, `AA` or `AAA`, in any case, surrounding spaces ignored.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_uppercase().as_str() {
            "A" => Ok(Level::A),
            "AA" => Ok(Level::AA),
            "AAA" => Ok(Level::AAA),
            _ => Err(LevelError(s.chars().take(40).collect())),
        }
    }
}

impl serde::Serialize for Level {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Level {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse_in_any_case_and_refuse_the_rest() {
        assert_eq!("aa".parse::<Level>(), Ok(Level::AA));
        assert_eq!(" AAA ".parse::<Level>(), Ok(Level::AAA));
        assert_eq!("A".parse::<Level>(), Ok(Level::A));
        let err = "AAAA".parse::<Level>().unwrap_err();
        assert_eq!(err.to_string(), "`AAAA` is not a conformance level: use A, AA or AAA");
        assert!("".parse::<Level>().is_err());
        assert_eq!(Level::default(), Level::AA);
    }

    #[test]
    fn an_axe_rule_takes_the_lowest_level_of_its_tags() {
        assert_eq!(Level::of_axe_tags(["cat.color", "wcag2aa", "wcag143", "ACT"]), Some(Level::AA));
        assert_eq!(Level::of_axe_tags(["wcag2aaa", "wcag146"]), Some(Level::AAA));
        assert_eq!(Level::of_axe_tags(["wcag2a", "wcag111", "section508"]), Some(Level::A));
        assert_eq!(Level::of_axe_tags(["wcag21aa", "wcag2aaa"]), Some(Level::AA));
        assert_eq!(Level::of_axe_tags(["wcag22aa", "wcag258"]), Some(Level::AA));
        assert_eq!(Level::of_axe_tags(["best-practice", "cat.semantics"]), None);
    }

    #[test]
    fn a_target_runs_its_level_and_those_below() {
        assert!(Level::AA.runs(None));
        assert!(Level::AA.runs(Some(Level::A)));
        assert!(Level::AA.runs(Some(Level::AA)));
        assert!(!Level::AA.runs(Some(Level::AAA)));
        assert!(!Level::A.runs(Some(Level::AA)));
        assert!(Level::AAA.runs(Some(Level::AAA)));
    }
}
