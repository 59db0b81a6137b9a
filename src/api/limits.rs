//! Per-token rate limits: several windows (10/s and 60/min by default) enforced at once with a
//! GCRA per window, keyed on the token hash.
//!
//! Why not governor: a request must pass every window or consume none of them, and governor cannot
//! check a limiter without consuming a cell (governor issue #152), so a request refused by the
//! minute window would still spend a cell of the second window and the advertised `remaining` would
//! lie. Here all windows of a key are checked and updated together under one lock.

use axum::http::{HeaderMap, HeaderValue};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Burst window default: requests per second.
pub const DEFAULT_PER_SECOND: u32 = 10;
/// Steady window default: requests per minute.
pub const DEFAULT_PER_MINUTE: u32 = 60;
/// Idle keys are swept after this many checks.
const SWEEP_EVERY: u64 = 4096;

/// One window: at most `limit` requests per `period`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateWindow {
    pub limit: u32,
    pub period: Duration,
}

impl RateWindow {
    pub fn per_second(limit: u32) -> Self {
        RateWindow { limit, period: Duration::from_secs(1) }
    }
    pub fn per_minute(limit: u32) -> Self {
        RateWindow { limit, period: Duration::from_secs(60) }
    }
    fn emission_ns(&self) -> u128 {
        self.period.as_nanos() / u128::from(self.limit.max(1))
    }
}

/// What the headers say about a key after a check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateLimitInfo {
    pub limit: u64,
    pub remaining: u64,
    /// Unix seconds at which the window is whole again.
    pub reset_epoch: u64,
    /// Set when refused: how long until the next request gets through.
    pub retry_after: Option<Duration>,
}

impl RateLimitInfo {
    /// Whole seconds to wait (rounded up, at least 1).
    pub fn retry_after_secs(&self) -> u64 {
        self.retry_after.map_or(0, |d| d.as_secs() + u64::from(d.subsec_nanos() > 0)).max(1)
    }

    pub fn headers(&self) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("x-ratelimit-limit", HeaderValue::from(self.limit));
        h.insert("x-ratelimit-remaining", HeaderValue::from(self.remaining));
        h.insert("x-ratelimit-reset", HeaderValue::from(self.reset_epoch));
        if self.retry_after.is_some() {
            h.insert("retry-after", HeaderValue::from(self.retry_after_secs()));
        }
        h
    }
}

/// The limiter. Memory stays bounded: keys whose every window is whole again are swept.
#[derive(Debug)]
pub struct RateLimiter {
    windows: Vec<RateWindow>,
    origin: Instant,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Per key, the theoretical arrival time (ns since `origin`) per window.
    tats: HashMap<String, Vec<u128>>,
    checks: u64,
}

impl RateLimiter {
    pub fn new(windows: Vec<RateWindow>) -> Self {
        let windows = windows.into_iter().filter(|w| w.limit > 0 && !w.period.is_zero()).collect();
        RateLimiter { windows, origin: Instant::now(), state: Mutex::new(State::default()) }
    }

    /// Number of keys currently tracked.
    pub fn tracked_keys(&self) -> usize {
        self.state.lock().map(|s| s.tats.len()).unwrap_or(0)
    }

    /// Admits one request for `key` if every window allows it (and only then counts it).
    pub fn check(&self, key: &str) -> Result<RateLimitInfo, RateLimitInfo> {
        let now = self.origin.elapsed().as_nanos();
        let wall = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        let Ok(mut state) = self.state.lock() else {
            return Ok(RateLimitInfo { limit: 0, remaining: 0, reset_epoch: wall.as_secs(), retry_after: None });
        };
        state.checks += 1;
        if state.checks % SWEEP_EVERY == 0 {
            state.tats.retain(|_, tats| tats.iter().any(|t| *t > now));
        }
        if self.windows.is_empty() {
            return Ok(RateLimitInfo { limit: 0, remaining: 0, reset_epoch: wall.as_secs(), retry_after: None });
        }
        let tats = state.tats.entry(key.to_string()).or_insert_with(|| vec![0; self.windows.len()]);
        let epoch_at = |t: u128| -> u64 {
            let ahead = t.saturating_sub(now);
            let at = wall.as_nanos() + ahead;
            (at.div_ceil(1_000_000_000)) as u64
        };
        // Refused by the window that makes the caller wait longest.
        let mut refusal: Option<(u128, usize)> = None;
        for (i, w) in self.windows.iter().enumerate() {
            let tat = tats[i].max(now);
            let tolerance = w.period.as_nanos() - w.emission_ns();
            if tat - now > tolerance {
                let wait = tat - now - tolerance;
                if refusal.is_none_or(|(best, _)| wait > best) {
                    refusal = Some((wait, i));
                }
            }
        }
        if let Some((wait, i)) = refusal {
            let w = self.windows[i];
            return Err(RateLimitInfo {
                limit: u64::from(w.limit),
                remaining: 0,
                reset_epoch: epoch_at(tats[i].max(now)),
                retry_after: Some(Duration::from_nanos(wait.min(u128::from(u64::MAX)) as u64)),
            });
        }
        // Admitted: count it in every window; report the tightest one.
        let mut report: Option<RateLimitInfo> = None;
        for (i, w) in self.windows.iter().enumerate() {
            let tat = tats[i].max(now) + w.emission_ns();
            tats[i] = tat;
            let room = (now + w.period.as_nanos()).saturating_sub(tat);
            let remaining = (room / w.emission_ns()) as u64;
            let info = RateLimitInfo {
                limit: u64::from(w.limit),
                remaining,
                reset_epoch: epoch_at(tat),
                retry_after: None,
            };
            if report.as_ref().is_none_or(|r| remaining < r.remaining) {
                report = Some(info);
            }
        }
        Ok(report.unwrap_or(RateLimitInfo { limit: 0, remaining: 0, reset_epoch: wall.as_secs(), retry_after: None }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn burst_then_refuse_and_recover() {
        let limiter = RateLimiter::new(vec![
            RateWindow { limit: 3, period: Duration::from_millis(300) },
            RateWindow { limit: 4, period: Duration::from_secs(60) },
        ]);
        let remaining: Vec<u64> = (0..3).map(|_| limiter.check("k").unwrap().remaining).collect();
        assert_eq!(remaining, vec![2, 1, 0]);
        let refused = limiter.check("k").unwrap_err();
        assert_eq!(refused.limit, 3);
        assert!(refused.retry_after.unwrap() <= Duration::from_millis(100));
        // Another key is independent.
        assert!(limiter.check("other").is_ok());
        std::thread::sleep(refused.retry_after.unwrap());
        // The burst window let one through; the minute window (4/min) is now used up.
        let ok = limiter.check("k").unwrap();
        assert_eq!(ok.remaining, 0);
        std::thread::sleep(Duration::from_millis(120));
        // The minute window refuses now, and the refused request did not spend a burst cell.
        let refused = limiter.check("k").unwrap_err();
        assert_eq!(refused.limit, 4);
        assert!(refused.retry_after.unwrap() > Duration::from_secs(5));
    }
}
