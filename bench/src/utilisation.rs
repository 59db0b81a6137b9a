//! CPU utilisation over a run: the process tree's cumulative CPU time sampled against wall time
//! (`proc::TreeSampler`), read as cores busy over any span, overall and per capture phase.

use std::collections::BTreeMap;

/// Cumulative CPU seconds of a process tree at seconds since the run started, in time order.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    points: Vec<(f64, f64)>,
}

impl Timeline {
    pub fn new(points: Vec<(f64, f64)>) -> Timeline {
        Timeline { points }
    }

    pub fn is_empty(&self) -> bool {
        self.points.len() < 2
    }

    /// CPU seconds used by `t` (linear between samples; flat outside them).
    fn cpu_at(&self, t: f64) -> f64 {
        let p = &self.points;
        match p.iter().position(|(at, _)| *at >= t) {
            None => p.last().map_or(0.0, |x| x.1),
            Some(0) => p[0].1,
            Some(i) => {
                let ((t0, c0), (t1, c1)) = (p[i - 1], p[i]);
                if t1 > t0 { c0 + (c1 - c0) * (t - t0) / (t1 - t0) } else { c1 }
            }
        }
    }

    /// CPU seconds used between `a` and `b`.
    pub fn cpu_between(&self, a: f64, b: f64) -> f64 {
        (self.cpu_at(b) - self.cpu_at(a)).max(0.0)
    }

    /// Seconds of the run spent with cores busy in each band `[edges[i], edges[i+1])` (the last
    /// band open-ended), sample interval by sample interval.
    pub fn time_in_bands(&self, edges: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; edges.len()];
        for w in self.points.windows(2) {
            let (dt, dc) = (w[1].0 - w[0].0, w[1].1 - w[0].1);
            if dt <= 0.0 {
                continue;
            }
            let busy = dc / dt;
            let band = edges.iter().rposition(|e| busy >= *e).unwrap_or(0);
            out[band] += dt;
        }
        out
    }
}

/// One lane's stay in one phase: (phase, start, end) in seconds since the run started.
pub type Stay = (String, f64, f64);

/// Per phase: the mean number of cores busy while a page was in it, weighted by the time pages
/// spent there (other pages' phases run at the same time: this says how busy the machine was,
/// not what the phase itself costs).
pub fn cores_by_phase(timeline: &Timeline, stays: &[Stay]) -> BTreeMap<String, f64> {
    let mut sums: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for (phase, a, b) in stays {
        if b > a {
            let e = sums.entry(phase.clone()).or_default();
            e.0 += timeline.cpu_between(*a, *b);
            e.1 += b - a;
        }
    }
    sums.into_iter().filter(|(_, (_, t))| *t > 0.0).map(|(k, (c, t))| (k, c / t)).collect()
}

/// The stays of one capture from its "capture phases" line: phases in order, ending at `end`.
pub fn stays_of(phases: &[(String, f64)], end: f64) -> Vec<Stay> {
    let mut at = end;
    let mut out: Vec<Stay> = phases
        .iter()
        .rev()
        .map(|(name, ms)| {
            let start = at - ms / 1000.0;
            let stay = (name.clone(), start, at);
            at = start;
            stay
        })
        .collect();
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cores_busy_between_samples_and_by_phase() {
        // 1 core busy for the first second, 2 for the next.
        let t = Timeline::new(vec![(0.0, 0.0), (1.0, 1.0), (2.0, 3.0)]);
        assert!((t.cpu_between(0.5, 1.5) - 1.5).abs() < 1e-9);
        assert_eq!(t.time_in_bands(&[0.0, 1.5]), vec![1.0, 1.0]);
        let stays = stays_of(&[("quiet".into(), 1000.0), ("axe".into(), 1000.0)], 2.0);
        assert_eq!(stays, vec![("quiet".into(), 0.0, 1.0), ("axe".into(), 1.0, 2.0)]);
        let by = cores_by_phase(&t, &stays);
        assert!((by["quiet"] - 1.0).abs() < 1e-9 && (by["axe"] - 2.0).abs() < 1e-9);
    }
}
