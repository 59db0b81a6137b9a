//! `schedules.claimed_until`: a planner's short claim on a due schedule, so that the planners of
//! a fleet share a rush between them (each takes a batch the others skip) instead of all
//! walking the same rows. The scan of a due moment stays exactly-once by its `schedule_runs`
//! key whatever the claims say.

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261128_000002_schedule_claims"
    }
}

#[derive(DeriveIden)]
enum Schedules {
    Table,
    ClaimedUntil,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(Table::alter().table(Schedules::Table).add_column(ColumnDef::new(Schedules::ClaimedUntil).big_integer().null()).to_owned()).await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(Table::alter().table(Schedules::Table).drop_column(Schedules::ClaimedUntil).to_owned()).await
    }
}
