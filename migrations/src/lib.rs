//! sitescan's schema migrations, the same for SQLite and PostgreSQL.

pub use sea_orm_migration::prelude::*;

mod m20261122_000001_init;
mod m20261125_000001_page_checks_not_run;
mod m20261125_000002_changes;
mod m20261125_000003_webhooks;
mod m20261125_000004_accounts;
mod m20261125_000005_sites;
mod m20261127_000001_journey_screenshots;
mod m20261128_000001_scan_progress;
mod m20261128_000002_schedule_claims;
mod m20261129_000001_fair_queue;
mod m20261129_000002_webhook_lanes;
mod m20261129_000003_webhook_kind;
mod m20261129_000004_site_budget;
mod m20261129_000005_region_verdicts;
mod m20261129_000006_shared_crawl;
mod m20261202_000001_politeness_unlogged;
mod m20261202_000002_page_numbers;
mod m20261205_000001_conformance_level;
mod m20261207_000001_finding_help_url;

/// Runs sitescan's migrations in order.
pub struct Migrator;

/// Migrations renumbered after they shipped, so that no two share a number: (the name a
/// database migrated by an older sitescan recorded, the migration's name now).
const RENUMBERED: &[(&str, &str)] = &[
    ("m20261125_000001_changes", "m20261125_000002_changes"),
    ("m20261125_000002_webhooks", "m20261125_000003_webhooks"),
    ("m20261125_000002_accounts", "m20261125_000004_accounts"),
    ("m20261125_000003_sites", "m20261125_000005_sites"),
];

/// Renames the records of renumbered migrations (`RENUMBERED`) in a database an older sitescan
/// migrated, so that they read as applied rather than as missing files and pending ones. Run it
/// before `Migrator::up` or any status query; it does nothing to a database already renamed or
/// new (it creates the migration table when there is none, as `Migrator::up` would).
pub async fn renumber_applied<C: ConnectionTrait>(db: &C) -> Result<(), DbErr> {
    use sea_orm_migration::sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    use sea_orm_migration::seaql_migrations::{Column, Entity};
    Migrator::install(db).await?;
    for (old, new) in RENUMBERED {
        Entity::update_many().col_expr(Column::Version, Expr::value(*new)).filter(Column::Version.eq(*old)).exec(db).await?;
    }
    Ok(())
}

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m20261122_000001_init::Migration),
            Box::new(m20261125_000001_page_checks_not_run::Migration),
            Box::new(m20261125_000002_changes::Migration),
            Box::new(m20261125_000003_webhooks::Migration),
            Box::new(m20261125_000004_accounts::Migration),
            Box::new(m20261125_000005_sites::Migration),
            Box::new(m20261127_000001_journey_screenshots::Migration),
            Box::new(m20261128_000001_scan_progress::Migration),
            Box::new(m20261128_000002_schedule_claims::Migration),
            Box::new(m20261129_000001_fair_queue::Migration),
            Box::new(m20261129_000002_webhook_lanes::Migration),
            Box::new(m20261129_000003_webhook_kind::Migration),
            Box::new(m20261129_000004_site_budget::Migration),
            Box::new(m20261129_000005_region_verdicts::Migration),
            Box::new(m20261129_000006_shared_crawl::Migration),
            Box::new(m20261202_000001_politeness_unlogged::Migration),
            Box::new(m20261202_000002_page_numbers::Migration),
            Box::new(m20261205_000001_conformance_level::Migration),
            Box::new(m20261207_000001_finding_help_url::Migration),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sea_orm_migration::sea_orm::{ColumnTrait, Database, EntityTrait, QueryFilter};
    use sea_orm_migration::seaql_migrations::{Column, Entity};

    #[tokio::test]
    async fn a_database_migrated_under_the_old_numbers_upgrades() {
        let db = Database::connect("sqlite::memory:").await.unwrap();
        Migrator::up(&db, None).await.unwrap();
        // As a release before the renumbering left it.
        for (old, new) in RENUMBERED {
            Entity::update_many().col_expr(Column::Version, Expr::value(*old)).filter(Column::Version.eq(*new)).exec(&db).await.unwrap();
        }
        assert!(Migrator::get_pending_migrations(&db).await.is_err(), "the old names read as missing files");

        renumber_applied(&db).await.unwrap();
        assert!(Migrator::get_pending_migrations(&db).await.unwrap().is_empty());
        Migrator::up(&db, None).await.unwrap();
        renumber_applied(&db).await.unwrap();
        let applied = Migrator::get_applied_migrations(&db).await.unwrap();
        assert_eq!(applied.len(), Migrator::migrations().len());
    }

    #[test]
    fn no_two_migrations_share_a_number() {
        let names: Vec<String> = Migrator::migrations().iter().map(|m| m.name().to_string()).collect();
        let mut numbers: Vec<&str> = names.iter().map(|n| &n[..16]).collect();
        let count = numbers.len();
        numbers.dedup();
        assert_eq!(numbers.len(), count, "{names:?}");
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(sorted, names, "migrations run in the order of their numbers");
    }
}
