//! Webhook lanes and the latency breaker: per endpoint, how many deliveries in a row were slow
//! (`slow_streak`) and until when the breaker holds its deliveries back (`breaker_open_until`),
//! shared by every instance of a fleet; and an index to find an endpoint's pending messages (a
//! lane takes an endpoint's next message only when none of its messages is in flight).

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261129_000002_webhook_lanes"
    }
}

#[derive(DeriveIden)]
enum WebhookEndpoints {
    Table,
    SlowStreak,
    BreakerOpenUntil,
}

#[derive(DeriveIden)]
enum WebhookOutbox {
    Table,
    EndpointId,
    State,
    NextAttemptAt,
}

const LANE_INDEX: &str = "idx_webhook_outbox_lane";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        // One column a statement: SQLite alters one thing at a time.
        m.alter_table(
            Table::alter()
                .table(WebhookEndpoints::Table)
                .add_column(ColumnDef::new(WebhookEndpoints::SlowStreak).integer().not_null().default(0))
                .to_owned(),
        )
        .await?;
        m.alter_table(
            Table::alter().table(WebhookEndpoints::Table).add_column(ColumnDef::new(WebhookEndpoints::BreakerOpenUntil).big_integer().null()).to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name(LANE_INDEX)
                .table(WebhookOutbox::Table)
                .col(WebhookOutbox::EndpointId)
                .col(WebhookOutbox::State)
                .col(WebhookOutbox::NextAttemptAt)
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_index(Index::drop().name(LANE_INDEX).table(WebhookOutbox::Table).to_owned()).await?;
        m.alter_table(Table::alter().table(WebhookEndpoints::Table).drop_column(WebhookEndpoints::BreakerOpenUntil).to_owned()).await?;
        m.alter_table(Table::alter().table(WebhookEndpoints::Table).drop_column(WebhookEndpoints::SlowStreak).to_owned()).await
    }
}
