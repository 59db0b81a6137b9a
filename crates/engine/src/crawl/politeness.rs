//! Per-host politeness: at most K requests in flight and a minimum interval between starts.

use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Mutex, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// A gate every request of a scan to its host passes through.
#[derive(Debug, Clone)]
pub struct HostGate {
    slots: Arc<Semaphore>,
    min_interval: Duration,
    next_start: Arc<Mutex<Instant>>,
}

impl HostGate {
    pub fn new(concurrency: usize, min_interval: Duration) -> Self {
        HostGate {
            slots: Arc::new(Semaphore::new(concurrency.max(1))),
            min_interval,
            next_start: Arc::new(Mutex::new(Instant::now())),
        }
    }

    /// Waits for a slot and for the interval since the previous start; hold the permit for the
    /// duration of the request.
    pub async fn enter(&self) -> Option<OwnedSemaphorePermit> {
        let permit = self.slots.clone().acquire_owned().await.ok()?;
        if !self.min_interval.is_zero() {
            let mut next = self.next_start.lock().await;
            let now = Instant::now();
            if *next > now {
                tokio::time::sleep_until(*next).await;
            }
            *next = Instant::now() + self.min_interval;
        }
        Some(permit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn spaces_requests_and_bounds_concurrency() {
        let gate = HostGate::new(2, Duration::from_millis(30));
        let started = Instant::now();
        let a = gate.enter().await.unwrap();
        let b = gate.enter().await.unwrap();
        assert!(started.elapsed() >= Duration::from_millis(30));
        assert_eq!(gate.slots.available_permits(), 0);
        drop((a, b));
        let _c = gate.enter().await.unwrap();
        assert!(started.elapsed() >= Duration::from_millis(60));
    }
}
