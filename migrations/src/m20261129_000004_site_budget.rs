//! A site's budget: the assertions document its owner wrote (JSON or YAML, validated when set),
//! judged against every completed scan of the site's origin in its organisation.

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261129_000004_site_budget"
    }
}

#[derive(DeriveIden)]
enum Sites {
    Table,
    Budget,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(Table::alter().table(Sites::Table).add_column(ColumnDef::new(Sites::Budget).text().null()).to_owned()).await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(Table::alter().table(Sites::Table).drop_column(Sites::Budget).to_owned()).await
    }
}
