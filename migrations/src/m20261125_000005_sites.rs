//! Sites and what hangs off them: ownership state, stored journeys and their encrypted secrets,
//! the attestation recorded with every active scan, schedules (with one row per due moment, the
//! fleet's exactly-once key) and monitors. Scans learn which site they belong to and why they ran.

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261125_000005_sites"
    }
}

#[derive(DeriveIden)]
enum Sites {
    Table,
    Id,
    OrgId,
    Origin,
    Hostname,
    VerificationToken,
    VerifiedAt,
    VerifiedMethod,
    LastCheckedAt,
    LastError,
    CreatedBy,
    CreatedAt,
}

#[derive(DeriveIden)]
enum SiteSecrets {
    Table,
    SiteId,
    Name,
    ValueEnc,
    CreatedAt,
}

#[derive(DeriveIden)]
enum Journeys {
    Table,
    Id,
    SiteId,
    Name,
    Definition,
    CreatedAt,
}

#[derive(DeriveIden)]
enum ScanAttestations {
    Table,
    ScanId,
    SiteId,
    OrgId,
    Actor,
    ClientAddr,
    Statement,
    AttestedAt,
}

#[derive(DeriveIden)]
enum Schedules {
    Table,
    Id,
    SiteId,
    OrgId,
    Cron,
    Timezone,
    Mode,
    NextDueAt,
    LastDueAt,
    Attestation,
    CreatedAt,
}

#[derive(DeriveIden)]
enum ScheduleRuns {
    Table,
    ScheduleId,
    DueAt,
    ScanId,
    CreatedAt,
}

#[derive(DeriveIden)]
enum Monitors {
    Table,
    Id,
    SiteId,
    OrgId,
    EverySeconds,
    NextCheckAt,
    LastState,
    LastCheckedAt,
    LastChange,
    CreatedAt,
}

#[derive(DeriveIden)]
enum Scans {
    Table,
    SiteId,
    Trigger,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(Sites::Table)
                .col(ColumnDef::new(Sites::Id).uuid().not_null().primary_key())
                .col(ColumnDef::new(Sites::OrgId).string().not_null())
                .col(ColumnDef::new(Sites::Origin).string().not_null())
                .col(ColumnDef::new(Sites::Hostname).string().not_null())
                .col(ColumnDef::new(Sites::VerificationToken).string().not_null())
                .col(ColumnDef::new(Sites::VerifiedAt).big_integer().null())
                .col(ColumnDef::new(Sites::VerifiedMethod).string().null())
                .col(ColumnDef::new(Sites::LastCheckedAt).big_integer().null())
                .col(ColumnDef::new(Sites::LastError).text().null())
                .col(ColumnDef::new(Sites::CreatedBy).string().not_null())
                .col(ColumnDef::new(Sites::CreatedAt).big_integer().not_null())
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("idx_sites_org_origin")
                .table(Sites::Table)
                .col(Sites::OrgId)
                .col(Sites::Origin)
                .unique()
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(SiteSecrets::Table)
                .col(ColumnDef::new(SiteSecrets::SiteId).uuid().not_null())
                .col(ColumnDef::new(SiteSecrets::Name).string().not_null())
                .col(ColumnDef::new(SiteSecrets::ValueEnc).text().not_null())
                .col(ColumnDef::new(SiteSecrets::CreatedAt).big_integer().not_null())
                .primary_key(Index::create().col(SiteSecrets::SiteId).col(SiteSecrets::Name))
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(Journeys::Table)
                .col(ColumnDef::new(Journeys::Id).uuid().not_null().primary_key())
                .col(ColumnDef::new(Journeys::SiteId).uuid().not_null())
                .col(ColumnDef::new(Journeys::Name).string().not_null())
                .col(ColumnDef::new(Journeys::Definition).text().not_null())
                .col(ColumnDef::new(Journeys::CreatedAt).big_integer().not_null())
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("idx_journeys_site_name")
                .table(Journeys::Table)
                .col(Journeys::SiteId)
                .col(Journeys::Name)
                .unique()
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(ScanAttestations::Table)
                .col(ColumnDef::new(ScanAttestations::ScanId).uuid().not_null().primary_key())
                .col(ColumnDef::new(ScanAttestations::SiteId).uuid().not_null())
                .col(ColumnDef::new(ScanAttestations::OrgId).string().not_null())
                .col(ColumnDef::new(ScanAttestations::Actor).string().not_null())
                .col(ColumnDef::new(ScanAttestations::ClientAddr).string().null())
                .col(ColumnDef::new(ScanAttestations::Statement).text().not_null())
                .col(ColumnDef::new(ScanAttestations::AttestedAt).big_integer().not_null())
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(Schedules::Table)
                .col(ColumnDef::new(Schedules::Id).uuid().not_null().primary_key())
                .col(ColumnDef::new(Schedules::SiteId).uuid().not_null())
                .col(ColumnDef::new(Schedules::OrgId).string().not_null())
                .col(ColumnDef::new(Schedules::Cron).string().not_null())
                .col(ColumnDef::new(Schedules::Timezone).string().not_null())
                .col(ColumnDef::new(Schedules::Mode).string().not_null())
                .col(ColumnDef::new(Schedules::NextDueAt).big_integer().not_null())
                .col(ColumnDef::new(Schedules::LastDueAt).big_integer().null())
                .col(ColumnDef::new(Schedules::Attestation).text().null())
                .col(ColumnDef::new(Schedules::CreatedAt).big_integer().not_null())
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create().name("idx_schedules_due").table(Schedules::Table).col(Schedules::NextDueAt).to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(ScheduleRuns::Table)
                .col(ColumnDef::new(ScheduleRuns::ScheduleId).uuid().not_null())
                .col(ColumnDef::new(ScheduleRuns::DueAt).big_integer().not_null())
                .col(ColumnDef::new(ScheduleRuns::ScanId).uuid().null())
                .col(ColumnDef::new(ScheduleRuns::CreatedAt).big_integer().not_null())
                .primary_key(Index::create().col(ScheduleRuns::ScheduleId).col(ScheduleRuns::DueAt))
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(Monitors::Table)
                .col(ColumnDef::new(Monitors::Id).uuid().not_null().primary_key())
                .col(ColumnDef::new(Monitors::SiteId).uuid().not_null())
                .col(ColumnDef::new(Monitors::OrgId).string().not_null())
                .col(ColumnDef::new(Monitors::EverySeconds).big_integer().not_null())
                .col(ColumnDef::new(Monitors::NextCheckAt).big_integer().not_null())
                .col(ColumnDef::new(Monitors::LastState).text().null())
                .col(ColumnDef::new(Monitors::LastCheckedAt).big_integer().null())
                .col(ColumnDef::new(Monitors::LastChange).text().null())
                .col(ColumnDef::new(Monitors::CreatedAt).big_integer().not_null())
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create().name("idx_monitors_due").table(Monitors::Table).col(Monitors::NextCheckAt).to_owned(),
        )
        .await?;
        m.alter_table(Table::alter().table(Scans::Table).add_column(ColumnDef::new(Scans::SiteId).uuid().null()).to_owned())
            .await?;
        m.alter_table(Table::alter().table(Scans::Table).add_column(ColumnDef::new(Scans::Trigger).text().null()).to_owned())
            .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(Table::alter().table(Scans::Table).drop_column(Scans::Trigger).to_owned()).await?;
        m.alter_table(Table::alter().table(Scans::Table).drop_column(Scans::SiteId).to_owned()).await?;
        for t in [
            Monitors::Table.into_iden(),
            ScheduleRuns::Table.into_iden(),
            Schedules::Table.into_iden(),
            ScanAttestations::Table.into_iden(),
            Journeys::Table.into_iden(),
            SiteSecrets::Table.into_iden(),
            Sites::Table.into_iden(),
        ] {
            m.drop_table(Table::drop().table(t).to_owned()).await?;
        }
        Ok(())
    }
}
