//! The fair claim: `organisations.last_claimed_at` (when a worker last claimed one of its scans,
//! so the organisation served longest ago goes first), and `idx_scans_queue_org`, with which
//! grouping the claimable scans by organisation and counting each one's running scans read an
//! index alone, however many scans the store holds.

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261129_000001_fair_queue"
    }
}

#[derive(DeriveIden)]
enum Organisations {
    Table,
    LastClaimedAt,
}

#[derive(DeriveIden)]
enum Scans {
    Table,
    Status,
    OrgId,
    CreatedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(
            Table::alter().table(Organisations::Table).add_column(ColumnDef::new(Organisations::LastClaimedAt).big_integer().null()).to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("idx_scans_queue_org")
                .table(Scans::Table)
                .col(Scans::Status)
                .col(Scans::OrgId)
                .col(Scans::CreatedAt)
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_index(Index::drop().name("idx_scans_queue_org").table(Scans::Table).to_owned()).await?;
        m.alter_table(Table::alter().table(Organisations::Table).drop_column(Organisations::LastClaimedAt).to_owned()).await
    }
}
