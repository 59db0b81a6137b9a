//! Deleting what has run out: sessions past their idle or absolute timeout, and sign-in throttle
//! rows whose window and lock are both over. `sitescan serve` runs this on a timer
//! (`cli/cleanup.rs`), so strangers' failed sign-ins and abandoned sessions do not pile up.

use super::Store;
use super::error::StoreResult;
use sea_orm::ConnectionTrait;

/// How often `serve` purges by default (seconds).
pub const DEFAULT_INTERVAL_SECS: u64 = 300;

/// How long rows live (microseconds).
#[derive(Debug, Clone, Copy)]
pub struct Lifetimes {
    /// A session unused this long is over.
    pub session_idle_us: i64,
    /// A session this old is over.
    pub session_absolute_us: i64,
    /// A throttle row's counting window.
    pub throttle_window_us: i64,
}

/// Rows deleted by one purge.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Purged {
    pub sessions: u64,
    pub throttle: u64,
}

impl Store {
    /// Deletes expired sessions and stale throttle rows as of `now_us`.
    pub async fn purge_expired(&self, now_us: i64, life: Lifetimes) -> StoreResult<Purged> {
        let sessions = self
            .conn()
            .execute_raw(self.stmt(
                "DELETE FROM sessions WHERE last_seen_at < $1 OR created_at < $2",
                vec![(now_us - life.session_idle_us).into(), (now_us - life.session_absolute_us).into()],
            ))
            .await?
            .rows_affected();
        let throttle = self
            .conn()
            .execute_raw(self.stmt(
                "DELETE FROM login_throttle WHERE window_start < $1 AND locked_until < $2",
                vec![(now_us - life.throttle_window_us).into(), now_us.into()],
            ))
            .await?
            .rows_affected();
        Ok(Purged { sessions, throttle })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn count(store: &Store, table: &str) -> i64 {
        let row = store.conn().query_one_raw(store.stmt(&format!("SELECT COUNT(*) AS n FROM {table}"), vec![])).await.unwrap().unwrap();
        row.try_get("", "n").unwrap()
    }

    #[tokio::test]
    async fn purges_only_what_ran_out() {
        let store = Store::open("sqlite::memory:", true).await.unwrap();
        store.set_org("acme", None).await.unwrap();
        store
            .conn()
            .execute_raw(store.stmt(
                "INSERT INTO users (id, org_id, email, password_hash, role, created_at, password_changed_at) VALUES ('u1', 'acme', 'a@acme.test', 'x', 'owner', 0, 0)",
                vec![],
            ))
            .await
            .unwrap();
        let (now, hour) = (10_000 * 3_600_000_000i64, 3_600_000_000i64);
        let life = Lifetimes { session_idle_us: 12 * hour, session_absolute_us: 7 * 24 * hour, throttle_window_us: hour / 4 };
        // (id, created, last seen): live, idle too long, too old though just used.
        for (id, created, seen) in [("live", now - hour, now - hour), ("idle", now - 20 * hour, now - 13 * hour), ("old", now - 8 * 24 * hour, now)] {
            store
                .conn()
                .execute_raw(store.stmt(
                    "INSERT INTO sessions (id_hash, user_id, csrf_token, created_at, last_seen_at) VALUES ($1, $2, 'c', $3, $4)",
                    vec![id.into(), "u1".into(), created.into(), seen.into()],
                ))
                .await
                .unwrap();
        }
        // (key, window start, locked until): counting now, stale, stale but still locked.
        for (key, start, locked) in [("a", now - 60_000_000, 0), ("b", now - hour, 0), ("c", now - hour, now + 60_000_000)] {
            store
                .conn()
                .execute_raw(store.stmt(
                    "INSERT INTO login_throttle (key, failures, window_start, locked_until) VALUES ($1, 3, $2, $3)",
                    vec![key.into(), start.into(), locked.into()],
                ))
                .await
                .unwrap();
        }
        let purged = store.purge_expired(now, life).await.unwrap();
        assert_eq!(purged, Purged { sessions: 2, throttle: 1 });
        assert_eq!((count(&store, "sessions").await, count(&store, "login_throttle").await), (1, 2));
        assert_eq!(store.purge_expired(now, life).await.unwrap(), Purged::default());
    }
}
