//! On PostgreSQL, the fleet's politeness state (`host_slots`, `host_pace`) is kept in unlogged
//! tables. Every page a worker renders takes and gives back a host slot, and a logged write
//! waits for its WAL flush at commit: two flushes a page, on the path every worker of a big
//! scan shares. The state is only good for the lease it was taken with, so losing it in a
//! server crash (PostgreSQL empties unlogged tables when it recovers, and standbys do not have
//! them) costs nothing: every slot is free again and the pace starts afresh. SQLite has no such
//! tables and needs none (one process writes).

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DatabaseBackend};

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261202_000001_politeness_unlogged"
    }
}

async fn set(m: &SchemaManager<'_>, persistence: &str) -> Result<(), DbErr> {
    let db = m.get_connection();
    if db.get_database_backend() != DatabaseBackend::Postgres {
        return Ok(());
    }
    for table in ["host_slots", "host_pace"] {
        db.execute_unprepared(&format!("ALTER TABLE {table} SET {persistence}")).await?;
    }
    Ok(())
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        set(m, "UNLOGGED").await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        set(m, "LOGGED").await
    }
}
