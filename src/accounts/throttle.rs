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
use crate::store::time::now_us;
use sea_orm::ConnectionTrait;
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

/// `locked_until` after the attempt that brings `failures` to `failures + 1`: unchanged below
/// the threshold (`$2`), else now (`$3`) plus the doubling delay. Constants only, no input.
fn lock_expression() -> String {
    let mut sql = String::from("CASE WHEN failures + 1 < $2 THEN locked_until");
    let mut excess = 0u32;
    loop {
        let delay = (BASE_DELAY_S * 2i64.pow(excess)).min(MAX_DELAY_S);
        if delay >= MAX_DELAY_S {
            sql.push_str(&format!(" ELSE $3 + {} END", MAX_DELAY_S * 1_000_000));
            return sql;
        }
        sql.push_str(&format!(" WHEN failures + 1 = $2 + {excess} THEN $3 + {}", delay * 1_000_000));
        excess += 1;
    }
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
            let stmt = self.store.stmt("SELECT locked_until FROM login_throttle WHERE key = $1", vec![(*key).into()]);
            if let Some(row) = self.store.conn().query_one_raw(stmt).await? {
                let until: i64 = row.try_get("", "locked_until")?;
                if until > now {
                    let secs = (until - now + 999_999) / 1_000_000;
                    wait = Some(wait.map_or(secs, |w: i64| w.max(secs)));
                }
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
        let conn = self.store.conn();
        let update = format!(
            "UPDATE login_throttle SET failures = failures + 1, locked_until = {} \
             WHERE key = $1 AND locked_until <= $3 RETURNING failures",
            lock_expression()
        );
        for (key, threshold) in count {
            let now = now_us();
            conn.execute_raw(self.store.stmt(
                "INSERT INTO login_throttle (key, failures, window_start, locked_until) VALUES ($1, 0, $2, 0) ON CONFLICT (key) DO NOTHING",
                vec![(*key).into(), now.into()],
            ))
            .await?;
            // A stale window starts over (never while locked).
            conn.execute_raw(self.store.stmt(
                "UPDATE login_throttle SET failures = 0, window_start = $2 WHERE key = $1 AND window_start < $3 AND locked_until <= $2",
                vec![(*key).into(), now.into(), (now - WINDOW_US).into()],
            ))
            .await?;
            let counted = conn.query_one_raw(self.store.stmt(&update, vec![(*key).into(), (*threshold).into(), now.into()])).await?;
            if counted.is_none() {
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
        let conn = self.store.conn();
        for key in clear {
            conn.execute_raw(self.store.stmt("DELETE FROM login_throttle WHERE key = $1", vec![(*key).into()])).await?;
        }
        for (key, threshold) in uncount {
            conn.execute_raw(self.store.stmt(
                "UPDATE login_throttle SET failures = failures - 1, \
                 locked_until = CASE WHEN failures - 1 < $2 THEN 0 ELSE locked_until END \
                 WHERE key = $1 AND failures > 0",
                vec![(*key).into(), (*threshold).into()],
            ))
            .await?;
        }
        Ok(())
    }

    /// After a failed sign-in on the account of `email`: when failures on it came from
    /// [`ACCOUNT_ADDRESSES`] distinct addresses within the window, the whole account is locked.
    pub async fn spread_failure(&self, email: &str) -> AccountResult<()> {
        let now = now_us();
        let conn = self.store.conn();
        let prefix = format!("pair:{}:%", email_hash(email));
        let row = conn
            .query_one_raw(self.store.stmt(
                "SELECT COUNT(*) AS n FROM login_throttle WHERE key LIKE $1 AND failures > 0 AND window_start >= $2",
                vec![prefix.into(), (now - WINDOW_US).into()],
            ))
            .await?;
        let addresses: i64 = row.map(|r| r.try_get("", "n")).transpose()?.unwrap_or(0);
        if addresses < ACCOUNT_ADDRESSES {
            return Ok(());
        }
        let excess = (addresses - ACCOUNT_ADDRESSES).min(10) as u32;
        let until = now + (BASE_DELAY_S * 2i64.pow(excess)).min(MAX_DELAY_S) * 1_000_000;
        let key = account_key(email);
        conn.execute_raw(self.store.stmt(
            "INSERT INTO login_throttle (key, failures, window_start, locked_until) VALUES ($1, 0, $2, 0) ON CONFLICT (key) DO NOTHING",
            vec![key.clone().into(), now.into()],
        ))
        .await?;
        conn.execute_raw(self.store.stmt(
            "UPDATE login_throttle SET failures = $2, locked_until = $3 WHERE key = $1 AND locked_until < $3",
            vec![key.into(), addresses.into(), until.into()],
        ))
        .await?;
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

    #[test]
    fn the_lock_expression_doubles_up_to_the_cap() {
        let sql = lock_expression();
        assert!(sql.starts_with("CASE WHEN failures + 1 < $2 THEN locked_until"), "{sql}");
        assert!(sql.contains("= $2 + 0 THEN $3 + 30000000"), "{sql}");
        assert!(sql.contains("= $2 + 4 THEN $3 + 480000000"), "{sql}");
        assert!(sql.ends_with("ELSE $3 + 900000000 END"), "{sql}");
    }
}
