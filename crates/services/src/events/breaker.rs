//! The latency breaker of a webhook endpoint: an endpoint whose last [`BREAKER_TRIP_AFTER`]
//! deliveries each took [`SLOW_DELIVERY`] or longer (or timed out) is opened for
//! [`BREAKER_COOL_DOWN`]. While open, its due messages stay queued and are not claimed: nothing
//! is sent, no attempt is counted (the retry schedule and `attempts` only move on real sends).
//! When the cool-down ends, the endpoint's lane takes one message (lanes carry one delivery per
//! endpoint at a time, fleet-wide): that trial is the half-open state. A fast answer closes the
//! breaker; a slow one opens it again at once, since the streak still stands at the threshold.
//!
//! The state (the streak and the end of the cool-down) lives on the endpoint's row, so every
//! instance of a fleet sees the same breaker. This file only decides; `webhooks.rs` stores.

use std::time::Duration;

/// A delivery answering after this long counts as slow (a timeout always does).
pub const SLOW_DELIVERY: Duration = Duration::from_secs(5);
/// Slow deliveries in a row that open the breaker.
pub const BREAKER_TRIP_AFTER: i32 = 3;
/// How long an open breaker holds the endpoint's deliveries back before one trial delivery.
pub const BREAKER_COOL_DOWN: Duration = Duration::from_secs(5 * 60);

/// When an endpoint counts as slow and how long it then rests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BreakerRule {
    pub slow_after: Duration,
    pub trip_after: i32,
    pub cool_down: Duration,
}

impl Default for BreakerRule {
    fn default() -> Self {
        BreakerRule { slow_after: SLOW_DELIVERY, trip_after: BREAKER_TRIP_AFTER, cool_down: BREAKER_COOL_DOWN }
    }
}

/// The breaker's state after one delivery: the slow streak and, when open, until when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BreakerState {
    pub slow_streak: i32,
    /// µs since the epoch; `None` while closed.
    pub open_until: Option<i64>,
}

impl BreakerRule {
    /// Whether a delivery that took `latency` (and timed out or not) was slow.
    pub fn is_slow(&self, latency: Duration, timed_out: bool) -> bool {
        timed_out || latency >= self.slow_after
    }

    /// The state after a delivery at `now` (µs) that was `slow` or not, the streak before it
    /// being `streak`. The streak stops at the threshold, so after a cool-down one slow trial
    /// opens the breaker again and one fast answer closes it.
    pub fn after(&self, streak: i32, slow: bool, now: i64) -> BreakerState {
        if !slow {
            return BreakerState { slow_streak: 0, open_until: None };
        }
        let trip = self.trip_after.max(1);
        let slow_streak = streak.saturating_add(1).clamp(1, trip);
        let open_until = (slow_streak >= trip).then(|| now.saturating_add(self.cool_down.as_micros() as i64));
        BreakerState { slow_streak, open_until }
    }

    /// Whether an endpoint whose breaker is open until `open_until` is held back at `now`.
    pub fn holds(open_until: Option<i64>, now: i64) -> bool {
        open_until.is_some_and(|until| until > now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULE: BreakerRule = BreakerRule { slow_after: Duration::from_secs(5), trip_after: 3, cool_down: Duration::from_secs(60) };

    #[test]
    fn slow_means_over_the_threshold_or_timed_out() {
        assert!(!RULE.is_slow(Duration::from_millis(4_999), false));
        assert!(RULE.is_slow(Duration::from_secs(5), false));
        assert!(RULE.is_slow(Duration::from_millis(10), true), "a timeout is slow however fast it failed");
    }

    #[test]
    fn three_slow_deliveries_in_a_row_open_it_for_the_cool_down() {
        let s1 = RULE.after(0, true, 100);
        assert_eq!(s1, BreakerState { slow_streak: 1, open_until: None });
        let s2 = RULE.after(s1.slow_streak, true, 200);
        assert_eq!(s2, BreakerState { slow_streak: 2, open_until: None });
        let s3 = RULE.after(s2.slow_streak, true, 300);
        assert_eq!(s3, BreakerState { slow_streak: 3, open_until: Some(300 + 60_000_000) });
        assert!(BreakerRule::holds(s3.open_until, 300 + 59_999_999));
        assert!(!BreakerRule::holds(s3.open_until, 300 + 60_000_000), "the cool-down is over: one trial may go");
    }

    #[test]
    fn a_fast_answer_between_slow_ones_resets_the_streak() {
        let s = RULE.after(2, false, 100);
        assert_eq!(s, BreakerState { slow_streak: 0, open_until: None });
        assert_eq!(RULE.after(s.slow_streak, true, 200).open_until, None);
    }

    #[test]
    fn after_the_cool_down_one_slow_trial_reopens_and_one_fast_trial_closes() {
        let open = RULE.after(2, true, 0);
        let trial_at = open.open_until.unwrap();
        let reopened = RULE.after(open.slow_streak, true, trial_at);
        assert_eq!(reopened, BreakerState { slow_streak: 3, open_until: Some(trial_at + 60_000_000) }, "half-open: one slow trial is enough");
        let closed = RULE.after(open.slow_streak, false, trial_at);
        assert_eq!(closed, BreakerState { slow_streak: 0, open_until: None });
        assert!(!BreakerRule::holds(closed.open_until, trial_at));
    }

    #[test]
    fn a_threshold_below_one_still_needs_one_slow_delivery() {
        let rule = BreakerRule { trip_after: 0, ..RULE };
        assert_eq!(rule.after(0, false, 5).open_until, None);
        assert_eq!(rule.after(0, true, 5).open_until, Some(5 + 60_000_000));
        assert_eq!(RULE.after(i32::MAX, true, 5).slow_streak, 3, "the streak stops at the threshold");
    }
}
