//! sitescan: scans live websites for quality problems in a real headless Chromium.
//!
//! This crate holds the edges; `main.rs` is a thin CLI over it. Every layer below is a crate of
//! its own, so Cargo, not a convention, keeps each out of what it may not reach
//! (`docs/architecture.md`, "Crates"):
//!
//! - `sitescan-services` (re-exported here module by module: `app`, `scans`, `sites`, `accounts`,
//!   `crawl`, `recurring`, `compare`, `events`, `tasks`): the application services, the one door
//!   to the data. This crate does not depend on the store, so no edge can name it.
//! - `sitescan-engine` (`net`, `browser`, `crawl`, `metrics`): reads the web and runs the checks on
//!   it; no database (the crawl reaches storage through the model's `CrawlStore`, which the store
//!   implements).
//! - `sitescan-checks` (`checks`): pure functions over what the engine gathered.
//! - `sitescan-report` (`report`): the report renderers.
//! - `sitescan-proto` (`proto`): the generated gRPC messages and their JSON.
//! - `sitescan-model` (`model`): plain data every layer shares.
//!
//! The edges:
//!
//! | module | job |
//! |---|---|
//! | `cli` | one function per subcommand; flags become options |
//! | `api` | REST + gRPC on one router (the dashboard's pages mounted beside), auth, limits, the error object: adapters over the services |
//! | `web` | the dashboard: pages, sessions, CSRF, forms, templates, over the same services |
//! | `client_addr` | who a request came from behind trusted proxies (the API's and the dashboard's middleware) |
//! | `telemetry` | the log subscriber |

pub mod api;
pub mod cli;
pub mod client_addr;
pub mod telemetry;
pub mod web;

pub use sitescan_checks as checks;
pub use sitescan_engine::{browser, metrics, net};
pub use sitescan_model as model;
pub use sitescan_proto as proto;
pub use sitescan_report as report;
pub use sitescan_services::{accounts, app, compare, crawl, events, recurring, scans, sites, tasks};

/// The crate version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

#[cfg(test)]
mod layering_tests {
    /// The crates are the layers Cargo holds apart: what each may never depend on, read from its
    /// manifest (a new dependency is a decision, made here).
    #[test]
    fn the_crates_keep_out_of_each_other() {
        let forbidden: &[(&str, &[&str])] = &[
            ("model", &["sitescan-", "sea-orm", "sqlx", "tokio", "chromiumoxide", "reqwest", "axum", "tonic"]),
            ("checks", &["sitescan-store", "sitescan-engine", "sitescan-report", "sea-orm", "sqlx", "tokio", "chromiumoxide", "reqwest", "axum", "tonic"]),
            ("report", &["sitescan-store", "sitescan-engine", "sea-orm", "sqlx", "tokio", "chromiumoxide", "reqwest", "axum", "tonic"]),
            ("engine", &["sitescan-store", "sitescan-report", "sitescan-services", "sea-orm", "sqlx", "axum", "tonic"]),
            ("store", &["sitescan-engine", "sitescan-checks", "sitescan-report", "sitescan-proto", "chromiumoxide", "reqwest", "axum", "tonic"]),
            ("proto", &["sitescan-store", "sitescan-engine", "sitescan-checks", "sitescan-report", "sitescan-services", "sea-orm", "sqlx", "chromiumoxide", "reqwest", "axum"]),
            ("services", &["sitescan-report", "axum", "tonic", "askama", "clap"]),
            // The edges: this crate reaches data only through the services.
            (".", &["sitescan-store", "sitescan-migrations", "sea-orm", "sqlx"]),
        ];
        for (krate, never) in forbidden {
            let path = match *krate {
                "." => format!("{}/Cargo.toml", env!("CARGO_MANIFEST_DIR")),
                _ => format!("{}/crates/{krate}/Cargo.toml", env!("CARGO_MANIFEST_DIR")),
            };
            let manifest = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
            let deps = manifest.split("[dependencies]").nth(1).unwrap_or_default().split("\n[").next().unwrap_or_default();
            for line in deps.lines().map(str::trim).filter(|l| !l.starts_with('#') && !l.is_empty()) {
                let name = line.split(['=', ' ']).next().unwrap_or_default();
                assert!(!never.iter().any(|n| name.starts_with(n)), "crates/{krate} depends on {name}, which its layer may not");
            }
        }
    }
}
