//! Login throttling: failures are counted per account and per client address in the database
//! (so every instance of a fleet sees the same counts); past a threshold within a window, the
//! key is locked for a delay that doubles with each further failure.

use super::error::AccountResult;
use crate::store::Store;
use crate::store::time::now_us;
use sea_orm::ConnectionTrait;

/// Failures on one account within the window before sign-ins to it are slowed.
pub const ACCOUNT_THRESHOLD: i64 = 5;
/// Failures from one client address within the window before its sign-ins are slowed.
pub const ADDRESS_THRESHOLD: i64 = 20;
/// The window failures are counted in (microseconds): 15 minutes.
pub const WINDOW_US: i64 = 15 * 60 * 1_000_000;
/// The first lock (seconds); each further failure doubles it, up to `MAX_DELAY_S`.
pub const BASE_DELAY_S: i64 = 30;
pub const MAX_DELAY_S: i64 = 15 * 60;

/// The throttle over the store.
#[derive(Debug, Clone)]
pub struct Throttle {
    store: Store,
}

/// The throttle key of an account (its normalised email, hashed: no address in this table).
pub fn account_key(email: &str) -> String {
    format!("acct:{}", crate::store::hash_token(&email.trim().to_lowercase()))
}

/// The throttle key of a client address.
pub fn address_key(addr: &str) -> String {
    format!("addr:{addr}")
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

    /// Counts a failure against `key`, locking it past `threshold`.
    pub async fn failure(&self, key: &str, threshold: i64) -> AccountResult<()> {
        let now = now_us();
        let conn = self.store.conn();
        conn.execute_raw(self.store.stmt(
            "INSERT INTO login_throttle (key, failures, window_start, locked_until) VALUES ($1, 0, $2, 0) ON CONFLICT (key) DO NOTHING",
            vec![key.into(), now.into()],
        ))
        .await?;
        // Restart a stale window, then count this failure, in one statement each (atomic per row).
        conn.execute_raw(self.store.stmt(
            "UPDATE login_throttle SET failures = 0, window_start = $2 WHERE key = $1 AND window_start < $3 AND locked_until < $2",
            vec![key.into(), now.into(), (now - WINDOW_US).into()],
        ))
        .await?;
        conn.execute_raw(self.store.stmt("UPDATE login_throttle SET failures = failures + 1 WHERE key = $1", vec![key.into()])).await?;
        let row = conn
            .query_one_raw(self.store.stmt("SELECT failures FROM login_throttle WHERE key = $1", vec![key.into()]))
            .await?;
        let failures: i64 = row.map(|r| r.try_get("", "failures")).transpose()?.unwrap_or(0);
        if failures >= threshold {
            let excess = (failures - threshold).min(10) as u32;
            let delay = (BASE_DELAY_S * 2i64.pow(excess)).min(MAX_DELAY_S);
            conn.execute_raw(self.store.stmt(
                "UPDATE login_throttle SET locked_until = $2 WHERE key = $1",
                vec![key.into(), (now + delay * 1_000_000).into()],
            ))
            .await?;
        }
        Ok(())
    }

    /// Clears an account's failures after a successful sign-in.
    pub async fn success(&self, key: &str) -> AccountResult<()> {
        self.store.conn().execute_raw(self.store.stmt("DELETE FROM login_throttle WHERE key = $1", vec![key.into()])).await?;
        Ok(())
    }
}
