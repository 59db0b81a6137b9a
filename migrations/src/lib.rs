//! sitescan's schema migrations, the same for SQLite and PostgreSQL.

pub use sea_orm_migration::prelude::*;

mod m20261122_000001_init;
mod m20261125_000001_page_checks_not_run;
mod m20261125_000001_changes;
mod m20261125_000002_webhooks;
mod m20261125_000002_accounts;
mod m20261125_000003_sites;
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

/// Runs sitescan's migrations in order.
pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m20261122_000001_init::Migration),
            Box::new(m20261125_000001_page_checks_not_run::Migration),
            Box::new(m20261125_000001_changes::Migration),
            Box::new(m20261125_000002_webhooks::Migration),
            Box::new(m20261125_000002_accounts::Migration),
            Box::new(m20261125_000003_sites::Migration),
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
        ]
    }
}
