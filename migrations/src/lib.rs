//! sitescan's schema migrations, the same for SQLite and PostgreSQL.

pub use sea_orm_migration::prelude::*;

// One module per migration file, and `every_migration()` listing them in order (build.rs).
include!(concat!(env!("OUT_DIR"), "/migrations.rs"));

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
        every_migration()
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
    fn every_file_in_src_is_a_migration_named_for_its_file() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files: Vec<String> = std::fs::read_dir(src)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().trim_end_matches(".rs").to_string())
            .filter(|stem| stem != "lib")
            .collect();
        files.sort();
        let names: Vec<String> = Migrator::migrations().iter().map(|m| m.name().to_string()).collect();
        assert_eq!(names, files);
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
