//! Webhook kinds: what an endpoint receives, `standard` (Standard Webhooks JSON, signed; every
//! endpoint added before this migration) or a chat platform's incoming-webhook message
//! (`slack`, `teams`, `discord`, `google-chat`; unsigned, the URL carries the platform's secret).

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261129_000003_webhook_kind"
    }
}

#[derive(DeriveIden)]
enum WebhookEndpoints {
    Table,
    Kind,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(
            Table::alter()
                .table(WebhookEndpoints::Table)
                .add_column(ColumnDef::new(WebhookEndpoints::Kind).string().not_null().default("standard"))
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(Table::alter().table(WebhookEndpoints::Table).drop_column(WebhookEndpoints::Kind).to_owned()).await
    }
}
