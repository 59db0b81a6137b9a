//! `scan_page_numbers`: the last page number given out in each scan. Writers of one scan take
//! turns for a page's number, so that pages are numbered in the order they commit and a live
//! reader that follows the numbers misses none. The turn was the scan's own row, which the
//! scan's lease renewals and progress updates also write, held from the number's lookup to the
//! commit; a counter row of its own, raised in one statement just before the page's row is
//! written, holds the turn for that one write. Scans written before have no row; their next
//! page starts it from their pages' highest number.

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261202_000002_page_numbers"
    }
}

#[derive(DeriveIden)]
enum ScanPageNumbers {
    Table,
    ScanId,
    LastSeq,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(ScanPageNumbers::Table)
                .if_not_exists()
                .col(ColumnDef::new(ScanPageNumbers::ScanId).uuid().not_null().primary_key())
                .col(ColumnDef::new(ScanPageNumbers::LastSeq).integer().not_null())
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(ScanPageNumbers::Table).to_owned()).await
    }
}
