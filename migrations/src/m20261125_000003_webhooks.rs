//! Webhooks: per-organisation endpoints (secret encrypted at rest), the durable outbox of
//! deliveries to make, and the log of every attempt.

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261125_000003_webhooks"
    }
}

#[derive(DeriveIden)]
enum WebhookEndpoints {
    Table,
    Id,
    OrgId,
    Url,
    Events,
    MinSeverity,
    SecretEnc,
    Enabled,
    DisabledReason,
    FailingSince,
    CreatedAt,
}

#[derive(DeriveIden)]
enum WebhookOutbox {
    Table,
    Id,
    EndpointId,
    MessageId,
    EventType,
    Payload,
    State,
    Attempts,
    NextAttemptAt,
    LeaseOwner,
    LeaseExpiresAt,
    CreatedAt,
    DeliveredAt,
}

#[derive(DeriveIden)]
enum WebhookDeliveries {
    Table,
    Id,
    OutboxId,
    EndpointId,
    Attempt,
    Status,
    LatencyMs,
    Error,
    CreatedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(WebhookEndpoints::Table)
                .col(ColumnDef::new(WebhookEndpoints::Id).uuid().not_null().primary_key())
                .col(ColumnDef::new(WebhookEndpoints::OrgId).string().not_null())
                .col(ColumnDef::new(WebhookEndpoints::Url).text().not_null())
                .col(ColumnDef::new(WebhookEndpoints::Events).string().not_null())
                .col(ColumnDef::new(WebhookEndpoints::MinSeverity).string().null())
                .col(ColumnDef::new(WebhookEndpoints::SecretEnc).text().not_null())
                .col(ColumnDef::new(WebhookEndpoints::Enabled).boolean().not_null().default(true))
                .col(ColumnDef::new(WebhookEndpoints::DisabledReason).text().null())
                .col(ColumnDef::new(WebhookEndpoints::FailingSince).big_integer().null())
                .col(ColumnDef::new(WebhookEndpoints::CreatedAt).big_integer().not_null())
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create().name("idx_webhook_endpoints_org").table(WebhookEndpoints::Table).col(WebhookEndpoints::OrgId).to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(WebhookOutbox::Table)
                .col(ColumnDef::new(WebhookOutbox::Id).uuid().not_null().primary_key())
                .col(ColumnDef::new(WebhookOutbox::EndpointId).uuid().not_null())
                .col(ColumnDef::new(WebhookOutbox::MessageId).string().not_null())
                .col(ColumnDef::new(WebhookOutbox::EventType).string().not_null())
                .col(ColumnDef::new(WebhookOutbox::Payload).text().not_null())
                .col(ColumnDef::new(WebhookOutbox::State).string().not_null())
                .col(ColumnDef::new(WebhookOutbox::Attempts).integer().not_null().default(0))
                .col(ColumnDef::new(WebhookOutbox::NextAttemptAt).big_integer().not_null())
                .col(ColumnDef::new(WebhookOutbox::LeaseOwner).string().null())
                .col(ColumnDef::new(WebhookOutbox::LeaseExpiresAt).big_integer().null())
                .col(ColumnDef::new(WebhookOutbox::CreatedAt).big_integer().not_null())
                .col(ColumnDef::new(WebhookOutbox::DeliveredAt).big_integer().null())
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("idx_webhook_outbox_due")
                .table(WebhookOutbox::Table)
                .col(WebhookOutbox::State)
                .col(WebhookOutbox::NextAttemptAt)
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(WebhookDeliveries::Table)
                .col(ColumnDef::new(WebhookDeliveries::Id).uuid().not_null().primary_key())
                .col(ColumnDef::new(WebhookDeliveries::OutboxId).uuid().not_null())
                .col(ColumnDef::new(WebhookDeliveries::EndpointId).uuid().not_null())
                .col(ColumnDef::new(WebhookDeliveries::Attempt).integer().not_null())
                .col(ColumnDef::new(WebhookDeliveries::Status).integer().null())
                .col(ColumnDef::new(WebhookDeliveries::LatencyMs).big_integer().not_null())
                .col(ColumnDef::new(WebhookDeliveries::Error).text().null())
                .col(ColumnDef::new(WebhookDeliveries::CreatedAt).big_integer().not_null())
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("idx_webhook_deliveries_endpoint")
                .table(WebhookDeliveries::Table)
                .col(WebhookDeliveries::EndpointId)
                .col(WebhookDeliveries::CreatedAt)
                .to_owned(),
        )
        .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for t in [WebhookDeliveries::Table.into_iden(), WebhookOutbox::Table.into_iden(), WebhookEndpoints::Table.into_iden()] {
            m.drop_table(Table::drop().table(t).to_owned()).await?;
        }
        Ok(())
    }
}
