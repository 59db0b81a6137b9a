//! `scan_pages.checks_not_run`: the checks that did not judge a page (a gatherer they need failed,
//! or the check itself failed), as a JSON array of `{"check_id", "reason"}`.

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261125_000001_page_checks_not_run"
    }
}

#[derive(DeriveIden)]
enum ScanPages {
    Table,
    ChecksNotRun,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(ScanPages::Table)
                    .add_column(ColumnDef::new(ScanPages::ChecksNotRun).text().null())
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(Table::alter().table(ScanPages::Table).drop_column(ScanPages::ChecksNotRun).to_owned())
            .await
    }
}
