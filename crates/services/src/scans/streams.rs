//! Live streams shared fairly: how many long-lived streams (the dashboard's live views of a scan,
//! gRPC `WatchScan`) are open at once, per holder (a signed-in user, an API token), per
//! organisation and in the whole process, and how long one may stay open (idle and in total).
//! A stream takes a `StreamPermit` from its `StreamGate` before it starts; dropping the permit
//! gives its places back. The defaults are the constants below; `StreamCaps` carries them (tests
//! start the server with short ones).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// Live views (`/scans/{id}/events`) one signed-in user may have open at once.
pub const LIVE_VIEWS_PER_USER: usize = 8;
/// Live views one organisation may have open at once, all its members together.
pub const LIVE_VIEWS_PER_ORG: usize = 32;
/// Live views open at once in this process, every organisation together.
pub const LIVE_VIEWS_MAX: usize = 256;
/// A live view that has sent nothing new for this long ends (keep-alives are not news); the
/// browser's `EventSource` reconnects by itself.
pub const LIVE_VIEW_IDLE: Duration = Duration::from_secs(5 * 60);
/// A live view ends this long after it opened; the browser's `EventSource` reconnects by itself.
pub const LIVE_VIEW_MAX: Duration = Duration::from_secs(600);

/// `WatchScan` streams one API token may have open at once.
pub const WATCHES_PER_TOKEN: usize = 8;
/// `WatchScan` streams one organisation may have open at once, all its tokens together.
pub const WATCHES_PER_ORG: usize = 32;
/// `WatchScan` streams open at once in this process, every organisation together.
pub const WATCHES_MAX: usize = 256;
/// A `WatchScan` stream that has sent no message for this long ends with `DEADLINE_EXCEEDED`.
pub const WATCH_IDLE: Duration = Duration::from_secs(10 * 60);
/// A `WatchScan` stream ends with `DEADLINE_EXCEEDED` this long after it opened.
pub const WATCH_MAX: Duration = Duration::from_secs(60 * 60);

/// How long a refused stream is told to wait before asking again (`Retry-After`).
pub const STREAM_RETRY_AFTER: Duration = Duration::from_secs(30);

/// How many streams, and for how long, one gate lets through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamLimits {
    /// Streams one holder (a user, a token) may have open at once.
    pub per_holder: usize,
    /// Streams one organisation may have open at once, all its holders together.
    pub per_org: usize,
    /// Streams open at once in this process.
    pub process: usize,
    /// A stream that has sent nothing new for this long ends (keep-alives are not news).
    pub idle: Duration,
    /// A stream ends this long after it opened, whatever it sends.
    pub max: Duration,
}

impl StreamLimits {
    /// The dashboard's live views, by default.
    pub const LIVE_VIEWS: StreamLimits =
        StreamLimits { per_holder: LIVE_VIEWS_PER_USER, per_org: LIVE_VIEWS_PER_ORG, process: LIVE_VIEWS_MAX, idle: LIVE_VIEW_IDLE, max: LIVE_VIEW_MAX };
    /// `WatchScan`, by default.
    pub const WATCHES: StreamLimits =
        StreamLimits { per_holder: WATCHES_PER_TOKEN, per_org: WATCHES_PER_ORG, process: WATCHES_MAX, idle: WATCH_IDLE, max: WATCH_MAX };
}

/// The limits of both kinds of stream the service serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamCaps {
    /// The dashboard's live views (holder: the signed-in user).
    pub live_views: StreamLimits,
    /// gRPC `WatchScan` (holder: the API token).
    pub watches: StreamLimits,
}

impl Default for StreamCaps {
    fn default() -> Self {
        StreamCaps { live_views: StreamLimits::LIVE_VIEWS, watches: StreamLimits::WATCHES }
    }
}

/// Why a stream was not opened: the cap that is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum StreamRefusal {
    #[error("too many live streams are open for you ({0} at most)")]
    Holder(usize),
    #[error("too many live streams are open for your organisation ({0} at most)")]
    Organisation(usize),
    #[error("too many live streams are open on this server ({0} at most)")]
    Process(usize),
}

impl StreamRefusal {
    /// The size of the cap that is full.
    pub fn limit(self) -> usize {
        match self {
            StreamRefusal::Holder(n) | StreamRefusal::Organisation(n) | StreamRefusal::Process(n) => n,
        }
    }
}

#[derive(Debug, Default)]
struct Counts {
    process: usize,
    orgs: HashMap<String, usize>,
    holders: HashMap<(String, String), usize>,
}

/// Counts open streams against `StreamLimits`; cheap to clone (clones share the counts).
#[derive(Debug, Clone)]
pub struct StreamGate {
    limits: StreamLimits,
    counts: Arc<Mutex<Counts>>,
}

/// One open stream's places; dropping it gives them back.
#[derive(Debug)]
pub struct StreamPermit {
    counts: Arc<Mutex<Counts>>,
    org: String,
    holder: String,
}

fn lock(counts: &Mutex<Counts>) -> MutexGuard<'_, Counts> {
    // Counts stay consistent even if a holder of the lock panicked (each update is one step).
    counts.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl StreamGate {
    pub fn new(limits: StreamLimits) -> Self {
        StreamGate { limits, counts: Arc::new(Mutex::new(Counts::default())) }
    }

    pub fn limits(&self) -> StreamLimits {
        self.limits
    }

    fn full(&self, c: &Counts, org: &str, holder: &str) -> Option<StreamRefusal> {
        let key = (org.to_string(), holder.to_string());
        if c.holders.get(&key).copied().unwrap_or(0) >= self.limits.per_holder {
            Some(StreamRefusal::Holder(self.limits.per_holder))
        } else if c.orgs.get(org).copied().unwrap_or(0) >= self.limits.per_org {
            Some(StreamRefusal::Organisation(self.limits.per_org))
        } else if c.process >= self.limits.process {
            Some(StreamRefusal::Process(self.limits.process))
        } else {
            None
        }
    }

    /// The cap that would refuse one more stream for `holder` of `org` right now, if any.
    pub fn refusal(&self, org: &str, holder: &str) -> Option<StreamRefusal> {
        self.full(&lock(&self.counts), org, holder)
    }

    /// Takes a place for one stream of `holder` (unique within `org`), or says which cap is full.
    pub fn try_open(&self, org: &str, holder: &str) -> Result<StreamPermit, StreamRefusal> {
        let mut c = lock(&self.counts);
        if let Some(refusal) = self.full(&c, org, holder) {
            return Err(refusal);
        }
        c.process += 1;
        *c.orgs.entry(org.to_string()).or_default() += 1;
        *c.holders.entry((org.to_string(), holder.to_string())).or_default() += 1;
        Ok(StreamPermit { counts: self.counts.clone(), org: org.to_string(), holder: holder.to_string() })
    }
}

impl Drop for StreamPermit {
    fn drop(&mut self) {
        let mut c = lock(&self.counts);
        c.process = c.process.saturating_sub(1);
        if let Some(n) = c.orgs.get_mut(&self.org) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                c.orgs.remove(&self.org);
            }
        }
        let key = (std::mem::take(&mut self.org), std::mem::take(&mut self.holder));
        if let Some(n) = c.holders.get_mut(&key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                c.holders.remove(&key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(per_holder: usize, per_org: usize, process: usize) -> StreamGate {
        StreamGate::new(StreamLimits { per_holder, per_org, process, idle: Duration::from_secs(1), max: Duration::from_secs(2) })
    }

    #[test]
    fn each_cap_refuses_by_name_and_a_dropped_permit_frees_its_place() {
        let g = gate(2, 3, 5);
        let a1 = g.try_open("acme", "alice").unwrap();
        let _a2 = g.try_open("acme", "alice").unwrap();
        assert_eq!(g.try_open("acme", "alice").unwrap_err(), StreamRefusal::Holder(2));
        assert_eq!(g.refusal("acme", "alice"), Some(StreamRefusal::Holder(2)));
        let _b1 = g.try_open("acme", "bob").unwrap();
        assert_eq!(g.try_open("acme", "bob").unwrap_err(), StreamRefusal::Organisation(3));
        // The same holder name in another organisation is another holder.
        let _c1 = g.try_open("globex", "alice").unwrap();
        let _c2 = g.try_open("globex", "carol").unwrap();
        assert_eq!(g.try_open("initech", "dave").unwrap_err(), StreamRefusal::Process(5));
        drop(a1);
        assert_eq!(g.refusal("acme", "alice"), None);
        assert!(g.try_open("acme", "alice").is_ok());
    }
}
