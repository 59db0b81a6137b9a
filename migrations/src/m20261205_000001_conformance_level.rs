//! The WCAG conformance level a scan judges against (`A`, `AA` or `AAA`): chosen per scan (the
//! API's `level`) or per site (its scans take it); `NULL` is the default, AA.

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261205_000001_conformance_level"
    }
}

#[derive(DeriveIden)]
enum Sites {
    Table,
    Level,
}

#[derive(DeriveIden)]
enum Scans {
    Table,
    Level,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(Table::alter().table(Sites::Table).add_column(ColumnDef::new(Sites::Level).text().null()).to_owned()).await?;
        m.alter_table(Table::alter().table(Scans::Table).add_column(ColumnDef::new(Scans::Level).text().null()).to_owned()).await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(Table::alter().table(Scans::Table).drop_column(Scans::Level).to_owned()).await?;
        m.alter_table(Table::alter().table(Sites::Table).drop_column(Sites::Level).to_owned()).await
    }
}
