//! Connecting to the database (SQLite embedded or PostgreSQL) and migrating it.

use super::cursor::CursorCodec;
use super::error::{StoreError, StoreResult};
use base64::Engine;
use sea_orm::{ConnectOptions, ConnectionTrait, Database, DatabaseBackend, DatabaseConnection, Statement};
use sitescan_migrations::{Migrator, MigratorTrait};
use std::time::Duration;

/// The default database: an SQLite file in the working directory.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://sitescan.db?mode=rwc";

/// A handle on the database: the connection pool and the cursor codec.
#[derive(Clone, Debug)]
pub struct Store {
    db: DatabaseConnection,
    cursors: CursorCodec,
    /// Where this process's claims of each crawl's queue stand (see `Store::claim_pages_from`).
    claim_hints: super::crawl::ClaimHints,
}

impl Store {
    /// Connects, migrates when `migrate` is set, and loads the cursor key.
    pub async fn open(url: &str, migrate: bool) -> StoreResult<Store> {
        let db = connect(url).await?;
        if migrate {
            sitescan_migrations::renumber_applied(&db).await?;
            Migrator::up(&db, None).await?;
        }
        let cursors = load_cursor_key(&db).await?;
        Ok(Store { db, cursors, claim_hints: Default::default() })
    }

    pub fn conn(&self) -> &DatabaseConnection {
        &self.db
    }

    pub fn backend(&self) -> DatabaseBackend {
        self.db.get_database_backend()
    }

    pub(crate) fn claim_hints(&self) -> &super::crawl::ClaimHints {
        &self.claim_hints
    }

    pub fn cursors(&self) -> &CursorCodec {
        &self.cursors
    }

    /// True when the database answers and no migration is pending.
    pub async fn ready(&self) -> bool {
        match self.db.execute_unprepared("SELECT 1").await {
            Ok(_) => matches!(Migrator::get_pending_migrations(&self.db).await, Ok(p) if p.is_empty()),
            Err(_) => false,
        }
    }

    /// A raw statement for this backend, written with PostgreSQL's `$N` placeholders (turned into
    /// SQLite's numbered `?N` form when needed).
    pub fn stmt(&self, sql: &str, values: Vec<sea_orm::Value>) -> Statement {
        statement(self.backend(), sql, values)
    }

    pub async fn close(self) {
        let _ = self.db.close().await;
    }
}

/// A raw statement for `backend`, written with PostgreSQL's `$N` placeholders (turned into
/// SQLite's numbered `?N` form when needed).
pub fn statement(backend: DatabaseBackend, sql: &str, values: Vec<sea_orm::Value>) -> Statement {
    let sql = match backend {
        DatabaseBackend::Sqlite => sql.replace('$', "?"),
        _ => sql.to_string(),
    };
    Statement::from_sql_and_values(backend, sql, values)
}

/// Opens a pool. SQLite gets WAL and a busy timeout so API and workers can share one file;
/// `sqlite::memory:` gets a single connection (each connection would be its own database).
pub async fn connect(url: &str) -> StoreResult<DatabaseConnection> {
    let mut opts = ConnectOptions::new(url.to_string());
    opts.sqlx_logging(false).connect_timeout(Duration::from_secs(5)).acquire_timeout(Duration::from_secs(5));
    // No idle timeout and no maximum lifetime: with either, sqlx 0.9.0 runs a reaper that loops
    // `for _ in 0..num_idle` without yielding, and its idle count can wrap below zero for a moment
    // (a connection popped between another's push and its count's increment). Read then, the loop
    // runs ~2^64 times: a runtime thread spins for good and the process no longer shuts down
    // (seen once in a `sitescan scan`). Connections are checked before each use instead
    // (sqlx's `test_before_acquire`, on by default), so a connection the server dropped is replaced.
    opts.idle_timeout(None::<Duration>).max_lifetime(None::<Duration>);
    if url.starts_with("sqlite:") {
        let memory = url.contains(":memory:") || url.contains("mode=memory");
        // A file database opens its connections on demand: a connection kept open from the start
        // would be opened by the pool in the background while the first query opens another, and
        // two connections switching a new file to WAL at once fail with SQLITE_BUSY at once (no
        // busy wait). `:memory:` keeps its single connection, which is the database.
        opts.max_connections(if memory { 1 } else { 8 }).min_connections(if memory { 1 } else { 0 });
        opts.map_sqlx_sqlite_opts(move |o| {
            let o = o.busy_timeout(Duration::from_secs(10)).foreign_keys(true);
            if memory { o } else { o.journal_mode(sea_orm::sqlx::sqlite::SqliteJournalMode::Wal) }
        });
        // A COMMIT that fails with SQLITE_FULL or SQLITE_IOERR leaves SQLite's transaction open
        // (and its write lock held) while the pool believes the connection is clean: every later
        // write then fails with "database is locked", even once space is back. Roll back any such
        // leftover before a connection is handed out; it then stays usable.
        opts.map_sqlx_sqlite_before_acquire(|conn, _| {
            Box::pin(async move {
                if sea_orm::sqlx::Executor::execute(&mut *conn, "ROLLBACK").await.is_ok() {
                    tracing::warn!("rolled back a transaction a failed commit had left open");
                }
                Ok(true)
            })
        });
    } else {
        opts.max_connections(16).min_connections(1);
    }
    Ok(Database::connect(opts).await?)
}

/// Runs pending migrations.
pub async fn migrate(url: &str) -> StoreResult<usize> {
    let db = connect(url).await?;
    sitescan_migrations::renumber_applied(&db).await?;
    let pending = Migrator::get_pending_migrations(&db).await?.len();
    Migrator::up(&db, None).await?;
    db.close().await?;
    Ok(pending)
}

async fn load_cursor_key(db: &DatabaseConnection) -> StoreResult<CursorCodec> {
    let stmt = Statement::from_sql_and_values(
        db.get_database_backend(),
        "SELECT value FROM settings WHERE key = 'cursor_key'",
        [],
    );
    let row = db.query_one_raw(stmt).await?.ok_or(StoreError::NotFound("cursor key (run migrations)"))?;
    let value: String = row.try_get("", "value")?;
    let key = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(value)
        .map_err(|e| StoreError::Corrupt(format!("cursor key: {e}")))?;
    Ok(CursorCodec::new(&key))
}
