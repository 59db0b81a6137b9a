//! Changes between scans: each finding's verdict against the previous scan of its target
//! (`new` or `persisting`; NULL for scans that were never compared), and an index to find that
//! previous scan (same organisation, target and mode, newest first).

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261125_000002_changes"
    }
}

#[derive(DeriveIden)]
enum Findings {
    Table,
    Change,
}

#[derive(DeriveIden)]
enum Scans {
    Table,
    OrgId,
    TargetUrl,
    Mode,
    Status,
    CreatedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(
            Table::alter().table(Findings::Table).add_column(ColumnDef::new(Findings::Change).string().null()).to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("idx_scans_baseline")
                .table(Scans::Table)
                .col(Scans::OrgId)
                .col(Scans::TargetUrl)
                .col(Scans::Mode)
                .col(Scans::Status)
                .col((Scans::CreatedAt, IndexOrder::Desc))
                .to_owned(),
        )
        .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_index(Index::drop().name("idx_scans_baseline").table(Scans::Table).to_owned()).await?;
        m.alter_table(Table::alter().table(Findings::Table).drop_column(Findings::Change).to_owned()).await?;
        Ok(())
    }
}
