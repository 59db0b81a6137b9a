//! The initial schema: organisations, tokens, scans (the job queue), findings, pages, usage and
//! settings (the cursor signing key). Timestamps are microseconds since the Unix epoch (BIGINT), so
//! keyset cursors compare identically on both engines.

use base64::Engine;
use rand::RngCore;
use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261122_000001_init"
    }
}

#[derive(DeriveIden)]
enum Organisations {
    Table,
    Id,
    MonthlyScanQuota,
    CreatedAt,
}

#[derive(DeriveIden)]
enum ApiTokens {
    Table,
    Id,
    OrgId,
    Name,
    TokenHash,
    Scopes,
    CreatedAt,
    LastUsedAt,
    RevokedAt,
}

#[derive(DeriveIden)]
enum Scans {
    Table,
    Id,
    OrgId,
    TargetUrl,
    TargetHostname,
    Mode,
    Status,
    TriggeredBy,
    CreatedAt,
    StartedAt,
    CompletedAt,
    FindingsCount,
    Report,
    MaxPages,
    LeaseOwner,
    LeaseExpiresAt,
    Attempts,
}

#[derive(DeriveIden)]
enum Findings {
    Table,
    Id,
    ScanId,
    OrgId,
    CheckId,
    Severity,
    Title,
    Description,
    Evidence,
    Remediation,
    CweId,
    PageUrl,
    CreatedAt,
}

#[derive(DeriveIden)]
enum ScanPages {
    Table,
    Id,
    ScanId,
    Seq,
    Url,
    FinalUrl,
    Status,
    Title,
    Metrics,
    Error,
    CreatedAt,
}

#[derive(DeriveIden)]
enum OrgUsage {
    Table,
    OrgId,
    Month,
    ScansCreated,
}

#[derive(DeriveIden)]
enum Settings {
    Table,
    Key,
    Value,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(Organisations::Table)
                .col(ColumnDef::new(Organisations::Id).string().not_null().primary_key())
                .col(ColumnDef::new(Organisations::MonthlyScanQuota).big_integer().not_null())
                .col(ColumnDef::new(Organisations::CreatedAt).big_integer().not_null())
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(ApiTokens::Table)
                .col(ColumnDef::new(ApiTokens::Id).uuid().not_null().primary_key())
                .col(ColumnDef::new(ApiTokens::OrgId).string().not_null())
                .col(ColumnDef::new(ApiTokens::Name).string().null())
                .col(ColumnDef::new(ApiTokens::TokenHash).string().not_null().unique_key())
                .col(ColumnDef::new(ApiTokens::Scopes).string().not_null())
                .col(ColumnDef::new(ApiTokens::CreatedAt).big_integer().not_null())
                .col(ColumnDef::new(ApiTokens::LastUsedAt).big_integer().null())
                .col(ColumnDef::new(ApiTokens::RevokedAt).big_integer().null())
                .foreign_key(
                    ForeignKey::create()
                        .from(ApiTokens::Table, ApiTokens::OrgId)
                        .to(Organisations::Table, Organisations::Id),
                )
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create().name("idx_api_tokens_org").table(ApiTokens::Table).col(ApiTokens::OrgId).to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(Scans::Table)
                .col(ColumnDef::new(Scans::Id).uuid().not_null().primary_key())
                .col(ColumnDef::new(Scans::OrgId).string().not_null())
                .col(ColumnDef::new(Scans::TargetUrl).text().not_null())
                .col(ColumnDef::new(Scans::TargetHostname).string().not_null())
                .col(ColumnDef::new(Scans::Mode).string().not_null())
                .col(ColumnDef::new(Scans::Status).string().not_null())
                .col(ColumnDef::new(Scans::TriggeredBy).string().not_null())
                .col(ColumnDef::new(Scans::CreatedAt).big_integer().not_null())
                .col(ColumnDef::new(Scans::StartedAt).big_integer().null())
                .col(ColumnDef::new(Scans::CompletedAt).big_integer().null())
                .col(ColumnDef::new(Scans::FindingsCount).text().null())
                .col(ColumnDef::new(Scans::Report).text().null())
                .col(ColumnDef::new(Scans::MaxPages).integer().null())
                .col(ColumnDef::new(Scans::LeaseOwner).string().null())
                .col(ColumnDef::new(Scans::LeaseExpiresAt).big_integer().null())
                .col(ColumnDef::new(Scans::Attempts).integer().not_null().default(0))
                .foreign_key(
                    ForeignKey::create().from(Scans::Table, Scans::OrgId).to(Organisations::Table, Organisations::Id),
                )
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("idx_scans_org_created")
                .table(Scans::Table)
                .col(Scans::OrgId)
                .col((Scans::CreatedAt, IndexOrder::Desc))
                .col((Scans::Id, IndexOrder::Desc))
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("idx_scans_queue")
                .table(Scans::Table)
                .col(Scans::Status)
                .col(Scans::CreatedAt)
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(Findings::Table)
                .col(ColumnDef::new(Findings::Id).uuid().not_null().primary_key())
                .col(ColumnDef::new(Findings::ScanId).uuid().not_null())
                .col(ColumnDef::new(Findings::OrgId).string().not_null())
                .col(ColumnDef::new(Findings::CheckId).string().not_null())
                .col(ColumnDef::new(Findings::Severity).string().not_null())
                .col(ColumnDef::new(Findings::Title).text().null())
                .col(ColumnDef::new(Findings::Description).text().null())
                .col(ColumnDef::new(Findings::Evidence).text().null())
                .col(ColumnDef::new(Findings::Remediation).text().null())
                .col(ColumnDef::new(Findings::CweId).string().null())
                .col(ColumnDef::new(Findings::PageUrl).text().null())
                .col(ColumnDef::new(Findings::CreatedAt).big_integer().not_null())
                .foreign_key(ForeignKey::create().from(Findings::Table, Findings::ScanId).to(Scans::Table, Scans::Id))
                .to_owned(),
        )
        .await?;
        for (name, extra) in [
            ("idx_findings_org_created", None),
            ("idx_findings_org_severity_created", Some(Findings::Severity)),
            ("idx_findings_org_check_created", Some(Findings::CheckId)),
        ] {
            let mut index = Index::create();
            index.name(name).table(Findings::Table).col(Findings::OrgId);
            if let Some(col) = extra {
                index.col(col);
            }
            index.col((Findings::CreatedAt, IndexOrder::Desc)).col((Findings::Id, IndexOrder::Desc));
            m.create_index(index.to_owned()).await?;
        }
        m.create_index(
            Index::create().name("idx_findings_scan").table(Findings::Table).col(Findings::ScanId).to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(ScanPages::Table)
                .col(ColumnDef::new(ScanPages::Id).uuid().not_null().primary_key())
                .col(ColumnDef::new(ScanPages::ScanId).uuid().not_null())
                .col(ColumnDef::new(ScanPages::Seq).integer().not_null())
                .col(ColumnDef::new(ScanPages::Url).text().not_null())
                .col(ColumnDef::new(ScanPages::FinalUrl).text().null())
                .col(ColumnDef::new(ScanPages::Status).integer().null())
                .col(ColumnDef::new(ScanPages::Title).text().null())
                .col(ColumnDef::new(ScanPages::Metrics).text().null())
                .col(ColumnDef::new(ScanPages::Error).text().null())
                .col(ColumnDef::new(ScanPages::CreatedAt).big_integer().not_null())
                .foreign_key(ForeignKey::create().from(ScanPages::Table, ScanPages::ScanId).to(Scans::Table, Scans::Id))
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("idx_scan_pages_scan")
                .table(ScanPages::Table)
                .col(ScanPages::ScanId)
                .col(ScanPages::Seq)
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(OrgUsage::Table)
                .col(ColumnDef::new(OrgUsage::OrgId).string().not_null())
                .col(ColumnDef::new(OrgUsage::Month).string().not_null())
                .col(ColumnDef::new(OrgUsage::ScansCreated).big_integer().not_null().default(0))
                .primary_key(Index::create().col(OrgUsage::OrgId).col(OrgUsage::Month))
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(Settings::Table)
                .col(ColumnDef::new(Settings::Key).string().not_null().primary_key())
                .col(ColumnDef::new(Settings::Value).text().not_null())
                .to_owned(),
        )
        .await?;

        // The key that signs pagination cursors: one per database, so every instance on it accepts
        // every other instance's cursors.
        let mut key = [0u8; 32];
        rand::rng().fill_bytes(&mut key);
        let key = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(key);
        let insert = Query::insert()
            .into_table(Settings::Table)
            .columns([Settings::Key, Settings::Value])
            .values_panic(["cursor_key".into(), key.into()])
            .to_owned();
        m.exec_stmt(insert).await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            Settings::Table.into_iden(),
            OrgUsage::Table.into_iden(),
            ScanPages::Table.into_iden(),
            Findings::Table.into_iden(),
            Scans::Table.into_iden(),
            ApiTokens::Table.into_iden(),
            Organisations::Table.into_iden(),
        ] {
            m.drop_table(Table::drop().table(table).to_owned()).await?;
        }
        Ok(())
    }
}
