//! Accounts and the dashboard: users (one organisation and role each), server-side sessions,
//! single-use invites, login throttling counters, and who made an API token and when it expires.
//! Ids are text (UUIDs) and times are microseconds (BIGINT), as in the initial schema.

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261125_000004_accounts"
    }
}

#[derive(DeriveIden)]
enum Organisations {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum Users {
    Table,
    Id,
    OrgId,
    Email,
    PasswordHash,
    Role,
    CreatedAt,
    PasswordChangedAt,
    DisabledAt,
}

#[derive(DeriveIden)]
enum Sessions {
    Table,
    IdHash,
    UserId,
    CsrfToken,
    CreatedAt,
    LastSeenAt,
}

#[derive(DeriveIden)]
enum Invites {
    Table,
    TokenHash,
    OrgId,
    Email,
    Role,
    CreatedBy,
    CreatedAt,
    ExpiresAt,
    UsedAt,
}

#[derive(DeriveIden)]
enum LoginThrottle {
    Table,
    Key,
    Failures,
    WindowStart,
    LockedUntil,
}

#[derive(DeriveIden)]
enum ApiTokens {
    Table,
    CreatedBy,
    ExpiresAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(Users::Table)
                .col(ColumnDef::new(Users::Id).string().not_null().primary_key())
                .col(ColumnDef::new(Users::OrgId).string().not_null())
                .col(ColumnDef::new(Users::Email).string().not_null().unique_key())
                .col(ColumnDef::new(Users::PasswordHash).string().not_null())
                .col(ColumnDef::new(Users::Role).string().not_null())
                .col(ColumnDef::new(Users::CreatedAt).big_integer().not_null())
                .col(ColumnDef::new(Users::PasswordChangedAt).big_integer().not_null())
                .col(ColumnDef::new(Users::DisabledAt).big_integer().null())
                .foreign_key(ForeignKey::create().from(Users::Table, Users::OrgId).to(Organisations::Table, Organisations::Id))
                .to_owned(),
        )
        .await?;
        m.create_index(Index::create().name("idx_users_org").table(Users::Table).col(Users::OrgId).to_owned()).await?;

        m.create_table(
            Table::create()
                .table(Sessions::Table)
                .col(ColumnDef::new(Sessions::IdHash).string().not_null().primary_key())
                .col(ColumnDef::new(Sessions::UserId).string().not_null())
                .col(ColumnDef::new(Sessions::CsrfToken).string().not_null())
                .col(ColumnDef::new(Sessions::CreatedAt).big_integer().not_null())
                .col(ColumnDef::new(Sessions::LastSeenAt).big_integer().not_null())
                .foreign_key(
                    ForeignKey::create()
                        .from(Sessions::Table, Sessions::UserId)
                        .to(Users::Table, Users::Id)
                        .on_delete(ForeignKeyAction::Cascade),
                )
                .to_owned(),
        )
        .await?;
        m.create_index(Index::create().name("idx_sessions_user").table(Sessions::Table).col(Sessions::UserId).to_owned())
            .await?;

        m.create_table(
            Table::create()
                .table(Invites::Table)
                .col(ColumnDef::new(Invites::TokenHash).string().not_null().primary_key())
                .col(ColumnDef::new(Invites::OrgId).string().not_null())
                .col(ColumnDef::new(Invites::Email).string().not_null())
                .col(ColumnDef::new(Invites::Role).string().not_null())
                .col(ColumnDef::new(Invites::CreatedBy).string().not_null())
                .col(ColumnDef::new(Invites::CreatedAt).big_integer().not_null())
                .col(ColumnDef::new(Invites::ExpiresAt).big_integer().not_null())
                .col(ColumnDef::new(Invites::UsedAt).big_integer().null())
                .foreign_key(ForeignKey::create().from(Invites::Table, Invites::OrgId).to(Organisations::Table, Organisations::Id))
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(LoginThrottle::Table)
                .col(ColumnDef::new(LoginThrottle::Key).string().not_null().primary_key())
                .col(ColumnDef::new(LoginThrottle::Failures).big_integer().not_null())
                .col(ColumnDef::new(LoginThrottle::WindowStart).big_integer().not_null())
                .col(ColumnDef::new(LoginThrottle::LockedUntil).big_integer().not_null())
                .to_owned(),
        )
        .await?;

        // One column per ALTER: SQLite accepts a single change per statement.
        m.alter_table(Table::alter().table(ApiTokens::Table).add_column(ColumnDef::new(ApiTokens::CreatedBy).string().null()).to_owned())
            .await?;
        m.alter_table(
            Table::alter().table(ApiTokens::Table).add_column(ColumnDef::new(ApiTokens::ExpiresAt).big_integer().null()).to_owned(),
        )
        .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(Table::alter().table(ApiTokens::Table).drop_column(ApiTokens::ExpiresAt).to_owned()).await?;
        m.alter_table(Table::alter().table(ApiTokens::Table).drop_column(ApiTokens::CreatedBy).to_owned()).await?;
        for table in [
            LoginThrottle::Table.into_iden(),
            Invites::Table.into_iden(),
            Sessions::Table.into_iden(),
            Users::Table.into_iden(),
        ] {
            m.drop_table(Table::drop().table(table).to_owned()).await?;
        }
        Ok(())
    }
}
