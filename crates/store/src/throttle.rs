//! Sign-in throttle rows: per key, the failures counted in the current window and the time a
//! lock runs out. The keys, thresholds and delays are `accounts::throttle`'s; here each change
//! is one atomic statement, so parallel attempts cannot slip past a threshold together.

use super::Store;
use super::error::StoreResult;
use sea_orm::ConnectionTrait;

/// How a key is counted: its threshold, the window, and the lock past the threshold (the first
/// lock, doubled with each further attempt counted after a lock ran out, up to the cap).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThrottleRule {
    pub threshold: i64,
    pub window_us: i64,
    pub first_lock_us: i64,
    pub max_lock_us: i64,
}

impl ThrottleRule {
    /// `locked_until` after the attempt that brings `failures` to `failures + 1`: unchanged
    /// below the threshold (`$2`), else now (`$3`) plus the doubling delay. Numbers of the
    /// rule only, no input.
    fn lock_expression(&self) -> String {
        let mut sql = String::from("CASE WHEN failures + 1 < $2 THEN locked_until");
        let mut delay = self.first_lock_us.max(1);
        let mut excess = 0u32;
        while delay < self.max_lock_us {
            sql.push_str(&format!(" WHEN failures + 1 = $2 + {excess} THEN $3 + {delay}"));
            excess += 1;
            delay = delay.saturating_mul(2);
        }
        sql.push_str(&format!(" ELSE $3 + {} END", self.max_lock_us));
        sql
    }
}

impl Store {
    /// When the lock of `key` runs out (microseconds), if it has a row.
    pub async fn throttle_locked_until(&self, key: &str) -> StoreResult<Option<i64>> {
        let stmt = self.stmt("SELECT locked_until FROM login_throttle WHERE key = $1", vec![key.into()]);
        Ok(self.conn().query_one_raw(stmt).await?.map(|row| row.try_get::<i64>("", "locked_until")).transpose()?)
    }

    async fn ensure_throttle_row(&self, key: &str, now: i64) -> StoreResult<()> {
        self.conn()
            .execute_raw(self.stmt(
                "INSERT INTO login_throttle (key, failures, window_start, locked_until) VALUES ($1, 0, $2, 0) ON CONFLICT (key) DO NOTHING",
                vec![key.into(), now.into()],
            ))
            .await?;
        Ok(())
    }

    /// Counts one attempt against `key` at `now`, starting its lock at the threshold. A stale
    /// window starts over first (never while locked). False when the key is locked (a parallel
    /// attempt got there between the caller's check and this count).
    pub async fn throttle_count(&self, key: &str, rule: ThrottleRule, now: i64) -> StoreResult<bool> {
        self.ensure_throttle_row(key, now).await?;
        self.conn()
            .execute_raw(self.stmt(
                "UPDATE login_throttle SET failures = 0, window_start = $2 WHERE key = $1 AND window_start < $3 AND locked_until <= $2",
                vec![key.into(), now.into(), (now - rule.window_us).into()],
            ))
            .await?;
        let update = format!(
            "UPDATE login_throttle SET failures = failures + 1, locked_until = {} WHERE key = $1 AND locked_until <= $3 RETURNING failures",
            rule.lock_expression()
        );
        Ok(self.conn().query_one_raw(self.stmt(&update, vec![key.into(), rule.threshold.into(), now.into()])).await?.is_some())
    }

    /// Takes back one counted attempt (a success), lifting a lock it started.
    pub async fn throttle_uncount(&self, key: &str, threshold: i64) -> StoreResult<()> {
        self.conn()
            .execute_raw(self.stmt(
                "UPDATE login_throttle SET failures = failures - 1, \
                 locked_until = CASE WHEN failures - 1 < $2 THEN 0 ELSE locked_until END \
                 WHERE key = $1 AND failures > 0",
                vec![key.into(), threshold.into()],
            ))
            .await?;
        Ok(())
    }

    pub async fn throttle_clear(&self, key: &str) -> StoreResult<()> {
        self.conn().execute_raw(self.stmt("DELETE FROM login_throttle WHERE key = $1", vec![key.into()])).await?;
        Ok(())
    }

    /// How many keys starting with `prefix` counted a failure in a window that began at or
    /// after `since`.
    pub async fn throttle_failing_keys(&self, prefix: &str, since: i64) -> StoreResult<i64> {
        let like = format!("{}%", prefix.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_"));
        let row = self
            .conn()
            .query_one_raw(self.stmt(
                "SELECT COUNT(*) AS n FROM login_throttle WHERE key LIKE $1 ESCAPE '\\' AND failures > 0 AND window_start >= $2",
                vec![like.into(), since.into()],
            ))
            .await?;
        Ok(row.map(|r| r.try_get::<i64>("", "n")).transpose()?.unwrap_or(0))
    }

    /// Locks `key` until `until` with `failures` counted, unless it is locked longer already.
    pub async fn throttle_lock(&self, key: &str, failures: i64, until: i64, now: i64) -> StoreResult<()> {
        self.ensure_throttle_row(key, now).await?;
        self.conn()
            .execute_raw(self.stmt(
                "UPDATE login_throttle SET failures = $2, locked_until = $3 WHERE key = $1 AND locked_until < $3",
                vec![key.into(), failures.into(), until.into()],
            ))
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULE: ThrottleRule = ThrottleRule { threshold: 2, window_us: 1_000, first_lock_us: 30, max_lock_us: 100 };

    #[test]
    fn the_lock_expression_doubles_up_to_the_cap() {
        let sql = ThrottleRule { threshold: 5, window_us: 1, first_lock_us: 30_000_000, max_lock_us: 900_000_000 }.lock_expression();
        assert!(sql.starts_with("CASE WHEN failures + 1 < $2 THEN locked_until"), "{sql}");
        assert!(sql.contains("= $2 + 0 THEN $3 + 30000000"), "{sql}");
        assert!(sql.contains("= $2 + 4 THEN $3 + 480000000"), "{sql}");
        assert!(!sql.contains("$2 + 5 "), "{sql}");
        assert!(sql.ends_with("ELSE $3 + 900000000 END"), "{sql}");
    }

    #[tokio::test]
    async fn counting_locks_at_the_threshold_and_a_success_takes_it_back() {
        let store = Store::open("sqlite::memory:", true).await.unwrap();
        assert_eq!(store.throttle_locked_until("k").await.unwrap(), None);
        assert!(store.throttle_count("k", RULE, 10).await.unwrap());
        assert_eq!(store.throttle_locked_until("k").await.unwrap(), Some(0));
        assert!(store.throttle_count("k", RULE, 11).await.unwrap());
        assert_eq!(store.throttle_locked_until("k").await.unwrap(), Some(11 + 30), "locked at the threshold");
        assert!(!store.throttle_count("k", RULE, 12).await.unwrap(), "locked: not counted");
        store.throttle_uncount("k", RULE.threshold).await.unwrap();
        assert_eq!(store.throttle_locked_until("k").await.unwrap(), Some(0), "the success lifted the lock it started");
        store.throttle_clear("k").await.unwrap();
        assert_eq!(store.throttle_locked_until("k").await.unwrap(), None);
    }

    #[tokio::test]
    async fn failing_keys_are_counted_by_literal_prefix() {
        let store = Store::open("sqlite::memory:", true).await.unwrap();
        for key in ["pair:a_b:1", "pair:a_b:2", "pair:aXb:3"] {
            store.throttle_count(key, RULE, 10).await.unwrap();
        }
        assert_eq!(store.throttle_failing_keys("pair:a_b:", 0).await.unwrap(), 2, "_ is a character, not a wildcard");
        assert_eq!(store.throttle_failing_keys("pair:a_b:", 11).await.unwrap(), 0, "outside the window");
        store.throttle_lock("acct:x", 10, 500, 10).await.unwrap();
        store.throttle_lock("acct:x", 10, 400, 10).await.unwrap();
        assert_eq!(store.throttle_locked_until("acct:x").await.unwrap(), Some(500), "a longer lock stands");
    }
}
