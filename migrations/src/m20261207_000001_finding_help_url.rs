//! Where to read more about a finding's defect (its check's reference): `findings.help_url`,
//! `NULL` for findings written before it and for checks without a public reference.

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261207_000001_finding_help_url"
    }
}

#[derive(DeriveIden)]
enum Findings {
    Table,
    HelpUrl,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(Table::alter().table(Findings::Table).add_column(ColumnDef::new(Findings::HelpUrl).text().null()).to_owned()).await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(Table::alter().table(Findings::Table).drop_column(Findings::HelpUrl).to_owned()).await
    }
}
