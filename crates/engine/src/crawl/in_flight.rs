//! The pages a crawl has in flight keep going while the crawl does its one-at-a-time work (a
//! finished page's checks, its write to the store, its links to the frontier).
//!
//! A crawl loop holds its pages' renders in a [`FuturesUnordered`], which advances only while it
//! is polled. Awaiting a page's write on its own would pause every other page's capture at its
//! next step for as long as the write takes; [`InFlight::meanwhile`] polls them during it and
//! keeps those that finish for the loop to take next.

use futures::stream::{FuturesUnordered, StreamExt};
use std::collections::VecDeque;
use std::future::Future;

/// A crawl's pages in flight, and those that finished while the loop was busy.
pub struct InFlight<F: Future> {
    running: FuturesUnordered<F>,
    finished: VecDeque<F::Output>,
}

impl<F: Future> Default for InFlight<F> {
    fn default() -> Self {
        InFlight { running: FuturesUnordered::new(), finished: VecDeque::new() }
    }
}

impl<F: Future> InFlight<F> {
    pub fn push(&mut self, page: F) {
        self.running.push(page);
    }

    /// Pages started and not yet taken by [`InFlight::next`] (finished ones included).
    pub fn len(&self) -> usize {
        self.running.len() + self.finished.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The next finished page, in the order they finished; `None` when none is in flight.
    pub async fn next(&mut self) -> Option<F::Output> {
        match self.finished.pop_front() {
            Some(done) => Some(done),
            None => self.running.next().await,
        }
    }

    /// Awaits `work` while the pages in flight go on.
    pub async fn meanwhile<T>(&mut self, work: impl Future<Output = T>) -> T {
        let mut work = std::pin::pin!(work);
        loop {
            tokio::select! {
                biased;
                out = &mut work => return out,
                Some(done) = self.running.next(), if !self.running.is_empty() => self.finished.push_back(done),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::InFlight;
    use std::time::Duration;
    use tokio::time::{Instant, sleep};

    #[tokio::test(start_paused = true)]
    async fn pages_in_flight_go_on_while_the_loop_works() {
        let began = Instant::now();
        let mut pages = InFlight::default();
        for (n, ms) in [(1, 30u64), (2, 10), (3, 50)] {
            pages.push(async move {
                sleep(Duration::from_millis(ms)).await;
                (n, began.elapsed())
            });
        }
        // The loop's own work takes 40 ms; pages 2 and 1 finish during it, at their own time.
        let wrote = pages.meanwhile(sleep(Duration::from_millis(40))).await;
        assert_eq!(wrote, ());
        assert_eq!(pages.len(), 3);
        assert_eq!(pages.next().await, Some((2, Duration::from_millis(10))));
        assert_eq!(pages.next().await, Some((1, Duration::from_millis(30))));
        assert_eq!(pages.next().await, Some((3, Duration::from_millis(50))));
        assert_eq!(pages.next().await, None);
        assert!(pages.is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn work_ends_without_waiting_for_the_pages() {
        let mut pages = InFlight::default();
        pages.push(sleep(Duration::from_secs(3600)));
        let t = Instant::now();
        assert_eq!(pages.meanwhile(async { 7 }).await, 7);
        assert!(t.elapsed() < Duration::from_secs(1));
        assert_eq!(pages.len(), 1);
    }
}
