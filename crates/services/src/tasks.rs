//! Spawning background tasks beside the requests: rounds repeated on a timer until a stop token (the
//! scheduler's ticks, the monitors' probes), one long-running loop (webhook deliveries), and what
//! a drain of claimed work collects (the results in the order the work ended, the first error).
//!
//! A leaf: it names no other module of the crate.

use std::fmt::Display;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// Runs `round` over `state` until `stop`: one round now, then one `every` after each ends. A
/// round that fails is logged as `failed` and the next one runs as usual.
pub fn spawn_rounds<S, F, Fut, T, E>(state: S, every: Duration, stop: CancellationToken, failed: &'static str, round: F) -> JoinHandle<()>
where
    S: Send + Sync + 'static,
    F: Fn(Arc<S>) -> Fut + Send + 'static,
    Fut: Future<Output = Result<T, E>> + Send + 'static,
    E: Display,
{
    let state = Arc::new(state);
    tokio::spawn(async move {
        loop {
            if let Err(e) = round(state.clone()).await {
                tracing::warn!(error = %e, "{failed}");
            }
            tokio::select! {
                _ = tokio::time::sleep(every) => {}
                _ = stop.cancelled() => return,
            }
        }
    })
}

/// Runs `work` (a loop that stops by itself) as a background task; its error is logged as
/// `failed`.
pub fn spawn_logged<T, E>(failed: &'static str, work: impl Future<Output = Result<T, E>> + Send + 'static) -> JoinHandle<()>
where
    E: Display,
{
    tokio::spawn(async move {
        if let Err(e) = work.await {
            tracing::warn!(error = %e, "{failed}");
        }
    })
}

/// What a drain of claimed work collects: each result in the order the work ended, and the
/// first error (the work in flight still ends; the drain claims no more once one is kept).
#[derive(Debug)]
pub struct Drained<T, E> {
    done: Vec<T>,
    first_error: Option<E>,
}

impl<T, E> Default for Drained<T, E> {
    fn default() -> Self {
        Drained { done: Vec::new(), first_error: None }
    }
}

impl<T, E> Drained<T, E> {
    pub fn new() -> Self {
        Self::default()
    }

    /// One piece of work ended with `item`.
    pub fn push(&mut self, item: T) {
        self.done.push(item);
    }

    /// Keeps `error` unless an earlier one is kept already.
    pub fn fail(&mut self, error: E) {
        self.first_error.get_or_insert(error);
    }

    /// Whether an error is kept (then nothing more should be claimed).
    pub fn failed(&self) -> bool {
        self.first_error.is_some()
    }

    /// The first error, or every result.
    pub fn finish(self) -> Result<Vec<T>, E> {
        match self.first_error {
            Some(e) => Err(e),
            None => Ok(self.done),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn a_drain_keeps_every_result_or_the_first_error() {
        let mut d: Drained<u32, &str> = Drained::new();
        d.push(1);
        d.push(2);
        assert!(!d.failed());
        assert_eq!(d.finish(), Ok(vec![1, 2]));
        let mut d: Drained<u32, &str> = Drained::new();
        d.push(1);
        d.fail("first");
        d.fail("second");
        assert!(d.failed());
        assert_eq!(d.finish(), Err("first"));
    }

    #[tokio::test]
    async fn rounds_run_until_stopped_and_go_on_after_a_failure() {
        let stop = CancellationToken::new();
        let rounds = Arc::new(AtomicUsize::new(0));
        let task = spawn_rounds(rounds.clone(), Duration::from_millis(5), stop.clone(), "round failed", |n| async move {
            let k = n.fetch_add(1, Ordering::SeqCst);
            if k == 0 { Err("the first round fails") } else { Ok(k) }
        });
        tokio::time::sleep(Duration::from_millis(60)).await;
        stop.cancel();
        tokio::time::timeout(Duration::from_secs(2), task).await.expect("stops when cancelled").expect("never panics");
        assert!(rounds.load(Ordering::SeqCst) >= 2, "a round after the failed one");
    }
}
