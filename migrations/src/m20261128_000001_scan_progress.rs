//! `scans.progress`: a running scan's phase and pages done out of pages found, as its worker
//! records them (JSON; empty before the worker's first word and for scans from before).

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261128_000001_scan_progress"
    }
}

#[derive(DeriveIden)]
enum Scans {
    Table,
    Progress,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(Table::alter().table(Scans::Table).add_column(ColumnDef::new(Scans::Progress).text().null()).to_owned()).await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(Table::alter().table(Scans::Table).drop_column(Scans::Progress).to_owned()).await
    }
}
