//! A running scan's crawl kept in the store, so that every worker of the fleet can take a share
//! of its pages: `crawls` (one row per scan being crawled: what every worker needs to judge its
//! pages alike, how many pages joined its frontier (the page budget is kept as pages join), and
//! when the post-crawl phase began), `crawl_pages` (the frontier: one row per
//! scan and normalised URL, queued, claimed under a lease, or done with what the site checks
//! need of the page), and `host_slots` / `host_pace` (per-host politeness across the fleet).

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261129_000006_shared_crawl"
    }
}

#[derive(DeriveIden)]
enum Crawls {
    Table,
    ScanId,
    Context,
    Admitted,
    SitePhaseAt,
    CreatedAt,
}

#[derive(DeriveIden)]
enum CrawlPages {
    Table,
    ScanId,
    UrlKey,
    Url,
    Depth,
    Ordinal,
    State,
    Holder,
    LeaseExpiresAt,
    Facts,
    DoneBy,
}

#[derive(DeriveIden)]
enum HostSlots {
    Table,
    Host,
    Slot,
    Holder,
    LeaseExpiresAt,
}

#[derive(DeriveIden)]
enum HostPace {
    Table,
    Host,
    NextStartAt,
}

const FRONTIER_INDEX: &str = "idx_crawl_pages_frontier";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(Crawls::Table)
                .if_not_exists()
                .col(ColumnDef::new(Crawls::ScanId).uuid().not_null().primary_key())
                .col(ColumnDef::new(Crawls::Context).text().not_null())
                .col(ColumnDef::new(Crawls::Admitted).big_integer().not_null().default(0))
                .col(ColumnDef::new(Crawls::SitePhaseAt).big_integer().null())
                .col(ColumnDef::new(Crawls::CreatedAt).big_integer().not_null())
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(CrawlPages::Table)
                .if_not_exists()
                .col(ColumnDef::new(CrawlPages::ScanId).uuid().not_null())
                .col(ColumnDef::new(CrawlPages::UrlKey).string().not_null())
                .col(ColumnDef::new(CrawlPages::Url).text().not_null())
                .col(ColumnDef::new(CrawlPages::Depth).integer().not_null())
                .col(ColumnDef::new(CrawlPages::Ordinal).big_integer().not_null())
                .col(ColumnDef::new(CrawlPages::State).string().not_null())
                .col(ColumnDef::new(CrawlPages::Holder).string().null())
                .col(ColumnDef::new(CrawlPages::LeaseExpiresAt).big_integer().null())
                .col(ColumnDef::new(CrawlPages::Facts).text().null())
                .col(ColumnDef::new(CrawlPages::DoneBy).string().null())
                .primary_key(Index::create().col(CrawlPages::ScanId).col(CrawlPages::UrlKey))
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name(FRONTIER_INDEX)
                .table(CrawlPages::Table)
                .col(CrawlPages::ScanId)
                .col(CrawlPages::State)
                .col(CrawlPages::Depth)
                .col(CrawlPages::Ordinal)
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(HostSlots::Table)
                .if_not_exists()
                .col(ColumnDef::new(HostSlots::Host).string().not_null())
                .col(ColumnDef::new(HostSlots::Slot).integer().not_null())
                .col(ColumnDef::new(HostSlots::Holder).string().null())
                .col(ColumnDef::new(HostSlots::LeaseExpiresAt).big_integer().null())
                .primary_key(Index::create().col(HostSlots::Host).col(HostSlots::Slot))
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(HostPace::Table)
                .if_not_exists()
                .col(ColumnDef::new(HostPace::Host).string().not_null().primary_key())
                .col(ColumnDef::new(HostPace::NextStartAt).big_integer().not_null())
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(HostPace::Table).to_owned()).await?;
        m.drop_table(Table::drop().table(HostSlots::Table).to_owned()).await?;
        m.drop_table(Table::drop().table(CrawlPages::Table).to_owned()).await?;
        m.drop_table(Table::drop().table(Crawls::Table).to_owned()).await?;
        Ok(())
    }
}
