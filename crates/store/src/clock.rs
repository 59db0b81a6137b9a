//! Time for the loops that run on a schedule (the scheduler, monitors, webhook retries): the real
//! clock, or one the tests move instead of sleeping.

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

/// Microseconds since the Unix epoch.
pub trait Clock: Send + Sync + std::fmt::Debug {
    fn now_us(&self) -> i64;
}

/// The real clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_us(&self) -> i64 {
        crate::time::now_us()
    }
}

/// A clock that moves only when told (tests).
#[derive(Debug, Default)]
pub struct ManualClock(AtomicI64);

impl ManualClock {
    pub fn at(us: i64) -> ManualClock {
        ManualClock(AtomicI64::new(us))
    }

    pub fn now(&self) -> i64 {
        self.now_us()
    }

    pub fn set(&self, us: i64) {
        self.0.store(us, Ordering::SeqCst);
    }

    pub fn advance(&self, by: Duration) {
        self.0.fetch_add(by.as_micros() as i64, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_us(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}
