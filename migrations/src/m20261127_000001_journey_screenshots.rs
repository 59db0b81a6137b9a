//! `journey_screenshots`: the PNGs an active scan's journeys took (a `screenshot` step's, or the
//! one taken when a step failed), named as the findings' evidence names them.

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261127_000001_journey_screenshots"
    }
}

#[derive(DeriveIden)]
enum JourneyScreenshots {
    Table,
    Id,
    ScanId,
    OrgId,
    Journey,
    Step,
    Name,
    Png,
    CreatedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(JourneyScreenshots::Table)
                .col(ColumnDef::new(JourneyScreenshots::Id).uuid().not_null().primary_key())
                .col(ColumnDef::new(JourneyScreenshots::ScanId).uuid().not_null())
                .col(ColumnDef::new(JourneyScreenshots::OrgId).string().not_null())
                .col(ColumnDef::new(JourneyScreenshots::Journey).text().not_null())
                .col(ColumnDef::new(JourneyScreenshots::Step).integer().not_null())
                .col(ColumnDef::new(JourneyScreenshots::Name).text().not_null())
                .col(ColumnDef::new(JourneyScreenshots::Png).blob().not_null())
                .col(ColumnDef::new(JourneyScreenshots::CreatedAt).big_integer().not_null())
                .to_owned(),
        )
        .await?;
        // One picture per journey step: a scan run again after a lost lease writes each once.
        m.create_index(
            Index::create()
                .name("idx_journey_screenshots_scan_step")
                .table(JourneyScreenshots::Table)
                .col(JourneyScreenshots::ScanId)
                .col(JourneyScreenshots::Journey)
                .col(JourneyScreenshots::Step)
                .unique()
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(JourneyScreenshots::Table).to_owned()).await
    }
}
