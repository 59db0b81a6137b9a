//! Hosts the proxy could not reach, remembered for a while: a page with sixty images on a dead
//! CDN pays for one failed lookup, not sixty (each of which may wait out a resolver's timeout).
//!
//! The first request to a host nobody has reached lately resolves and connects; requests to the
//! same host that arrive meanwhile wait for its answer instead of starting lookups of their own.
//! A failure (no name, no address, refused, timed out) is remembered for `REMEMBER`, during which
//! requests to that host fail at once with the same error; a success lets every later request
//! connect as usual, without waiting on each other. Policy refusals are not remembered here (the
//! guard answers them without the network).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::TcpStream;
use tokio::sync::Notify;

use super::error::NetError;
use super::guard::EgressGuard;

/// How long a failed host is answered from memory (about a scan's pages in flight; short enough
/// that a host that comes back is tried again soon).
pub const REMEMBER: Duration = Duration::from_secs(30);
/// Hosts remembered at most (failed or reached); past it the oldest are forgotten.
const MAX_HOSTS: usize = 4096;

#[derive(Debug)]
enum State {
    /// One request is resolving and connecting; the others wait on it.
    Trying(Arc<Notify>),
    Reached(Instant),
    Failed { at: Instant, error: Remembered },
}

/// A failure as it can be answered again.
#[derive(Debug, Clone)]
enum Remembered {
    Resolve(String),
    NoAddress,
    Connect(String),
    Timeout(&'static str),
}

impl Remembered {
    fn of(e: &NetError) -> Option<Remembered> {
        match e {
            NetError::Resolve { message, .. } => Some(Remembered::Resolve(message.clone())),
            NetError::NoAddress { .. } => Some(Remembered::NoAddress),
            NetError::Connect { message, .. } => Some(Remembered::Connect(message.clone())),
            NetError::Timeout { what, .. } => Some(Remembered::Timeout(what)),
            _ => None,
        }
    }

    fn error(&self, host: &str, port: u16) -> NetError {
        let host = host.to_string();
        match self.clone() {
            Remembered::Resolve(message) => NetError::Resolve { host, message },
            Remembered::NoAddress => NetError::NoAddress { host },
            Remembered::Connect(message) => NetError::Connect { host, port, message },
            Remembered::Timeout(what) => NetError::Timeout { what, host, port },
        }
    }
}

#[derive(Debug, Default)]
pub(crate) struct DeadHosts {
    hosts: Mutex<HashMap<(String, u16), State>>,
}

enum Next {
    Answer(NetError),
    Wait(Arc<Notify>),
    Try(Arc<Notify>),
    Connect,
}

impl DeadHosts {
    /// `guard.connect(host, port)`, answered from memory when the host failed lately, and alone
    /// while nobody knows whether it can be reached.
    pub(crate) async fn connect(&self, guard: &EgressGuard, host: &str, port: u16) -> Result<TcpStream, NetError> {
        let key = (host.to_ascii_lowercase(), port);
        loop {
            match self.next(&key) {
                Next::Answer(e) => return Err(e),
                Next::Connect => return guard.connect(host, port).await,
                Next::Wait(notify) => {
                    // Woken when the trying request ends; a bounded wait in case it was dropped.
                    let _ = tokio::time::timeout(Duration::from_secs(1), notify.notified()).await;
                }
                Next::Try(notify) => {
                    let result = guard.connect(host, port).await;
                    self.settle(&key, &result);
                    notify.notify_waiters();
                    return result;
                }
            }
        }
    }

    fn next(&self, key: &(String, u16)) -> Next {
        let Ok(mut hosts) = self.hosts.lock() else { return Next::Connect };
        let now = Instant::now();
        match hosts.get(key) {
            Some(State::Failed { at, error }) if now.duration_since(*at) < REMEMBER => Next::Answer(error.error(&key.0, key.1)),
            Some(State::Reached(at)) if now.duration_since(*at) < REMEMBER => Next::Connect,
            Some(State::Trying(notify)) => Next::Wait(notify.clone()),
            _ => {
                if hosts.len() >= MAX_HOSTS {
                    hosts.retain(|_, s| match s {
                        State::Trying(_) => true,
                        State::Reached(at) | State::Failed { at, .. } => now.duration_since(*at) < REMEMBER,
                    });
                    if hosts.len() >= MAX_HOSTS {
                        return Next::Connect;
                    }
                }
                let notify = Arc::new(Notify::new());
                hosts.insert(key.clone(), State::Trying(notify.clone()));
                Next::Try(notify)
            }
        }
    }

    fn settle(&self, key: &(String, u16), result: &Result<TcpStream, NetError>) {
        let Ok(mut hosts) = self.hosts.lock() else { return };
        let now = Instant::now();
        match result {
            Ok(_) => {
                hosts.insert(key.clone(), State::Reached(now));
            }
            Err(e) => match Remembered::of(e) {
                Some(error) => {
                    hosts.insert(key.clone(), State::Failed { at: now, error });
                }
                None => {
                    hosts.remove(key);
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::AddressPolicy;

    fn loopback() -> EgressGuard {
        EgressGuard::new(AddressPolicy::new(vec!["127.0.0.1/32".parse().unwrap()]))
    }

    #[tokio::test]
    async fn a_refused_host_is_tried_once_and_then_answered_from_memory() {
        // A port nothing listens on: bound, then closed.
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let dead = DeadHosts::default();
        let guard = loopback();
        let all = futures::future::join_all((0..20).map(|_| dead.connect(&guard, "127.0.0.1", port))).await;
        assert!(all.iter().all(|r| matches!(r, Err(NetError::Connect { .. }))), "{all:?}");
        // Now listening: still answered from memory within `REMEMBER`.
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await;
        if listener.is_ok() {
            assert!(matches!(dead.connect(&guard, "127.0.0.1", port).await, Err(NetError::Connect { .. })), "remembered");
        }
    }

    #[tokio::test]
    async fn a_reached_host_connects_freely() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            loop {
                let _ = listener.accept().await;
            }
        });
        let dead = DeadHosts::default();
        let guard = loopback();
        let all = futures::future::join_all((0..10).map(|_| dead.connect(&guard, "127.0.0.1", port))).await;
        assert!(all.iter().all(Result::is_ok), "{all:?}");
    }

    #[tokio::test]
    async fn a_policy_refusal_is_not_remembered_as_a_dead_host() {
        let dead = DeadHosts::default();
        let guard = loopback();
        assert!(dead.connect(&guard, "10.0.0.1", 80).await.unwrap_err().is_blocked());
        assert!(dead.hosts.lock().unwrap().is_empty());
    }
}
