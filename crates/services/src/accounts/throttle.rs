//! Login throttling, in the database (so every instance of a fleet sees the same counts).
//!
//! An attempt is counted *before* its password is checked, in one atomic statement that also
//! starts the lock when the count reaches the threshold: a burst of parallel guesses gets at most
//! the threshold of real checks, the rest are refused without hashing. A success clears its count.
//!
//! Keys, each with its own threshold within a 15-minute window:
//! - `pair:` one account from one client address ([`ACCOUNT_THRESHOLD`]): a stranger's failures
//!   lock only the stranger's pair, so the victim signs in from their own address meanwhile;
//! - `addr:` one client address over all accounts ([`ADDRESS_THRESHOLD`]); IPv6 addresses count
//!   by their /64 (one host usually holds a whole /64);
//! - `acct:` the whole account, locked only once failures on it came from
//!   [`ACCOUNT_ADDRESSES`] distinct addresses within the window (a distributed guess), not by
//!   one stranger's occasional failure.
//!
//! Past a threshold a key is locked for [`BASE_DELAY_S`], doubling with each further attempt
//! counted after a lock ran out, up to [`MAX_DELAY_S`]. Stale rows are deleted on a timer
//! (`crate::store::expiry`).

use super::error::AccountResult;
use crate::store::Store;
use crate::store::throttle::ThrottleRule;
use crate::store::time::now_us;
use std::net::IpAddr;

/// Attempts on one account from one client address within the window before that pair is locked.
pub const ACCOUNT_THRESHOLD: i64 = 5;
/// Attempts from one client address within the window before its sign-ins are locked.
pub const ADDRESS_THRESHOLD: i64 = 20;
/// Distinct client addresses failing on one account within the window before the account is
/// locked for everyone. 10: a stranger (or a handful of them) cannot lock a victim out; a
/// distributed guess gets at most `10 × ACCOUNT_THRESHOLD` tries per window before it does.
pub const ACCOUNT_ADDRESSES: i64 = 10;
/// Attempts to confirm the current password on `/account/password` within the window.
pub const PASSWORD_CHANGE_THRESHOLD: i64 = 5;
/// The window attempts are counted in (microseconds): 15 minutes.
pub const WINDOW_US: i64 = 15 * 60 * 1_000_000;
/// The first lock (seconds); each further failure doubles it, up to `MAX_DELAY_S`.
pub const BASE_DELAY_S: i64 = 30;
pub const MAX_DELAY_S: i64 = 15 * 60;

/// The throttle over the store.
#[derive(Debug, Clone)]
pub struct Throttle {
    store: Store,
}

fn email_hash(email: &str) -> String {
    crate::store::hash_token(&email.trim().to_lowercase())
}

/// The throttle key of a whole account (its normalised email, hashed).
pub fn account_key(email: &str) -> String {
    format!("acct:{}", email_hash(email))
}

/// The key of one account from one client address.
pub fn pair_key(email: &str, addr: &str) -> String {
    format!("pair:{}:{}", email_hash(email), address_part(addr))
}

/// The throttle key of a client address.
pub fn address_key(addr: &str) -> String {
    format!("addr:{}", address_part(addr))
}

/// The key of a signed-in user confirming their current password.
pub fn password_change_key(user_id: &str) -> String {
    format!("pwchange:{user_id}")
}

/// An address as throttles count it: IPv4 as is, IPv6 by its /64.
fn address_part(addr: &str) -> String {
    match addr.parse::<IpAddr>() {
        Ok(IpAddr::V6(v6)) if v6.to_ipv4_mapped().is_none() => {
            let s = v6.segments();
            format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
        }
        Ok(IpAddr::V6(v6)) => v6.to_ipv4_mapped().map(|v4| v4.to_string()).unwrap_or_default(),
        _ => addr.to_string(),
    }
}

/// How `key`s with `threshold` are counted.
fn rule(threshold: i64) -> ThrottleRule {
    ThrottleRule { threshold, window_us: WINDOW_US, first_lock_us: BASE_DELAY_S * 1_000_000, max_lock_us: MAX_DELAY_S * 1_000_000 }
}

impl Throttle {
    pub fn new(store: Store) -> Self {
        Throttle { store }
    }

    /// Seconds to wait before another attempt, when any key is locked.
    pub async fn locked(&self, keys: &[&str]) -> AccountResult<Option<i64>> {
        let now = now_us();
        let mut wait = None;
        for key in keys {
            if let Some(until) = self.store.throttle_locked_until(key).await?
                && until > now
            {
                let secs = (until - now + 999_999) / 1_000_000;
                wait = Some(wait.map_or(secs, |w: i64| w.max(secs)));
            }
        }
        Ok(wait)
    }

    /// Admits one attempt: refused (`Err(seconds to wait)`) when a key of `check` or `count` is
    /// locked; otherwise the attempt is counted against every key of `count` (with its
    /// threshold) before the caller checks the password. Counting and locking are one atomic
    /// statement per key, so parallel attempts cannot slip past a threshold together.
    pub async fn begin(&self, check: &[&str], count: &[(&str, i64)]) -> AccountResult<Result<(), i64>> {
        let all: Vec<&str> = check.iter().copied().chain(count.iter().map(|(k, _)| *k)).collect();
        if let Some(wait) = self.locked(&all).await? {
            return Ok(Err(wait));
        }
        for (key, threshold) in count {
            if !self.store.throttle_count(key, rule(*threshold), now_us()).await? {
                // Locked by a parallel attempt between the check above and this one.
                return Ok(Err(self.locked(&[key]).await?.unwrap_or(1)));
            }
        }
        Ok(Ok(()))
    }

    /// After a success: `clear` keys are deleted (the pair, the account); the attempt counted
    /// against each `uncount` key (with its threshold) is taken back, and a lock it started
    /// lifted, so a busy address is not locked by its successes.
    pub async fn success(&self, clear: &[&str], uncount: &[(&str, i64)]) -> AccountResult<()> {
        for key in clear {
            self.store.throttle_clear(key).await?;
        }
        for (key, threshold) in uncount {
            self.store.throttle_uncount(key, *threshold).await?;
        }
        Ok(())
    }

    /// After a failed sign-in on the account of `email`: when failures on it came from
    /// [`ACCOUNT_ADDRESSES`] distinct addresses within the window, the whole account is locked.
    pub async fn spread_failure(&self, email: &str) -> AccountResult<()> {
        let now = now_us();
        let prefix = format!("pair:{}:", email_hash(email));
        let addresses = self.store.throttle_failing_keys(&prefix, now - WINDOW_US).await?;
        if addresses < ACCOUNT_ADDRESSES {
            return Ok(());
        }
        let excess = (addresses - ACCOUNT_ADDRESSES).min(10) as u32;
        let until = now + (BASE_DELAY_S * 2i64.pow(excess)).min(MAX_DELAY_S) * 1_000_000;
        self.store.throttle_lock(&account_key(email), addresses, until, now).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_hash_emails_and_group_ipv6_by_64() {
        assert_eq!(account_key("A@b.test "), account_key("a@B.test"));
        assert!(!account_key("a@b.test").contains("a@b"));
        assert_eq!(address_key("192.0.2.1"), "addr:192.0.2.1");
        assert_eq!(address_key("2001:db8:1:2:aaaa::1"), address_key("2001:db8:1:2:bbbb::2"));
        assert_ne!(address_key("2001:db8:1:2::1"), address_key("2001:db8:1:3::1"));
        assert_eq!(address_key("::ffff:192.0.2.1"), "addr:192.0.2.1");
        assert_ne!(pair_key("a@b.test", "192.0.2.1"), pair_key("a@b.test", "192.0.2.2"));
    }
}
