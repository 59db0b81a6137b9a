//! Names DNS says do not exist, and everything under them (RFC 8020, "NXDOMAIN: There Really Is
//! Nothing Underneath"): a page naming sixty hosts of one dead domain (`cdn1.gone.example`,
//! `cdn2.gone.example`, ...) costs one lookup and a probe of the domain, not sixty lookups,
//! which a name server that drops bursts would answer after a timeout each.
//!
//! When a name's answer is NXDOMAIN, its ancestors are probed once (the top-level label first,
//! then the last two labels); an ancestor that is NXDOMAIN too cuts its whole subtree for
//! `REMEMBER`. The name itself is cut as well. Only NXDOMAIN cuts: an answer without records of
//! the asked type (NODATA) says nothing of the names below.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a cut holds (a dead domain stays dead for a scan; one that comes back is asked again).
pub const REMEMBER: Duration = Duration::from_secs(60);
/// Cuts and probes kept at most; past it the oldest are forgotten.
const MAX_NAMES: usize = 4096;

#[derive(Debug, Default)]
pub struct NxCuts {
    /// Name -> when DNS said NXDOMAIN for it.
    cuts: Mutex<HashMap<String, Instant>>,
    /// Ancestor -> when it was last probed.
    probed: Mutex<HashMap<String, Instant>>,
}

/// `name` and its ancestors at label boundaries, the name first (`a.b.c`, `b.c`, `c`).
fn suffixes(name: &str) -> impl Iterator<Item = &str> {
    std::iter::successors(Some(name), |n| n.split_once('.').map(|(_, rest)| rest)).filter(|n| !n.is_empty())
}

fn normalise(name: &str) -> String {
    name.trim_end_matches('.').to_ascii_lowercase()
}

fn remember(map: &mut HashMap<String, Instant>, name: String, now: Instant) {
    map.retain(|_, at| now.duration_since(*at) < REMEMBER);
    if map.len() >= MAX_NAMES
        && let Some(oldest) = map.iter().min_by_key(|(_, at)| **at).map(|(n, _)| n.clone())
    {
        map.remove(&oldest);
    }
    map.insert(name, now);
}

impl NxCuts {
    /// The cut that covers `name` (the name itself or an ancestor DNS said does not exist), if
    /// one holds now.
    pub fn covering(&self, name: &str) -> Option<String> {
        let name = normalise(name);
        let now = Instant::now();
        let cuts = self.cuts.lock().unwrap_or_else(|e| e.into_inner());
        suffixes(&name).find(|s| cuts.get(*s).is_some_and(|at| now.duration_since(*at) < REMEMBER)).map(str::to_string)
    }

    /// Records that DNS said NXDOMAIN for `name`.
    pub fn cut(&self, name: &str) {
        let mut cuts = self.cuts.lock().unwrap_or_else(|e| e.into_inner());
        remember(&mut cuts, normalise(name), Instant::now());
    }

    /// The ancestors of `name` to probe after its NXDOMAIN, the top-level label first, then the
    /// last two labels; each is handed out once per `REMEMBER`. A name of one or two labels has
    /// none worth asking beyond itself.
    pub fn probes(&self, name: &str) -> Vec<String> {
        let name = normalise(name);
        let labels: Vec<&str> = name.split('.').filter(|l| !l.is_empty()).collect();
        if labels.len() < 2 {
            return Vec::new();
        }
        let mut wanted = vec![labels[labels.len() - 1].to_string()];
        if labels.len() > 2 {
            wanted.push(labels[labels.len() - 2..].join("."));
        }
        let now = Instant::now();
        let mut probed = self.probed.lock().unwrap_or_else(|e| e.into_inner());
        wanted
            .into_iter()
            .filter(|a| {
                let fresh = probed.get(a).is_none_or(|at| now.duration_since(*at) >= REMEMBER);
                if fresh {
                    remember(&mut probed, a.clone(), now);
                }
                fresh
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_covers_the_name_and_everything_under_it_only() {
        let nx = NxCuts::default();
        nx.cut("Gone.Example.");
        assert_eq!(nx.covering("cdn1.gone.example").as_deref(), Some("gone.example"));
        assert_eq!(nx.covering("gone.example").as_deref(), Some("gone.example"));
        assert_eq!(nx.covering("example"), None, "nothing above it");
        assert_eq!(nx.covering("notgone.example"), None, "a label boundary, not a string suffix");
        assert_eq!(nx.covering("gone.example.org"), None);
    }

    #[test]
    fn ancestors_are_probed_once_top_level_first() {
        let nx = NxCuts::default();
        assert_eq!(nx.probes("cdn1.gone.example"), ["example", "gone.example"]);
        assert!(nx.probes("cdn2.gone.example").is_empty(), "already probed");
        assert_eq!(nx.probes("a.b.other.test"), ["test", "other.test"]);
        assert_eq!(nx.probes("y.third.test"), ["third.test"], "the top-level label was probed already");
        assert_eq!(nx.probes("two.labels"), ["labels"]);
        assert!(nx.probes("single").is_empty());
    }
}
