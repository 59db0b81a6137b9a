//! What axe-core found in each region of a site's pages (`browser/regions.js` fingerprints),
//! kept per organisation and origin across scans, so that a re-scan judges only what changed.
//! `generation` says which sitescan, axe-core and viewport produced the verdict (another
//! generation is never given back); `used_at` orders eviction (the site's bound) and expiry.

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261129_000005_region_verdicts"
    }
}

#[derive(DeriveIden)]
enum RegionVerdicts {
    Table,
    OrgId,
    Origin,
    Fp,
    Generation,
    Entry,
    Bytes,
    UsedAt,
}

const SITE_INDEX: &str = "idx_region_verdicts_site_used";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(RegionVerdicts::Table)
                .if_not_exists()
                .col(ColumnDef::new(RegionVerdicts::OrgId).string().not_null())
                .col(ColumnDef::new(RegionVerdicts::Origin).string().not_null())
                .col(ColumnDef::new(RegionVerdicts::Fp).string().not_null())
                .col(ColumnDef::new(RegionVerdicts::Generation).string().not_null())
                .col(ColumnDef::new(RegionVerdicts::Entry).text().not_null())
                .col(ColumnDef::new(RegionVerdicts::Bytes).big_integer().not_null())
                .col(ColumnDef::new(RegionVerdicts::UsedAt).big_integer().not_null())
                .primary_key(Index::create().col(RegionVerdicts::OrgId).col(RegionVerdicts::Origin).col(RegionVerdicts::Fp))
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name(SITE_INDEX)
                .table(RegionVerdicts::Table)
                .col(RegionVerdicts::OrgId)
                .col(RegionVerdicts::Origin)
                .col(RegionVerdicts::UsedAt)
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(RegionVerdicts::Table).to_owned()).await
    }
}
