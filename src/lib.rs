//! sitescan: scans live websites for quality problems in a real headless Chromium.
//!
//! The library holds the services, the crawl and the edges; `main.rs` is a thin CLI
//! over it. Below it sit crates Cargo keeps apart (`docs/architecture.md`, "Crates"): the plain
//! model (`sitescan-model`, re-exported as `model`), the pure checks (`sitescan-checks`, as
//! `checks`), the report renderers (`sitescan-report`, as `report`) and the engine that reads the
//! web (`sitescan-engine`: `net`, `browser`, `metrics`); none of them can reach the store, itself a
//! crate (`sitescan-store`, as `store`) that reaches nothing above the model. The modules of this crate, and what each may import (arrows
//! point down; a test of the crate's imports keeps this map true):
//!
//! | module | job | imports |
//! |---|---|---|
//! | `cli` | one function per subcommand; flags become options | everything below but `store` |
//! | `api` | REST + gRPC on one router (the dashboard's pages mounted beside), auth, limits, the error object: adapters over the `app`'s services | `client_addr`, `app`, `web`, `scans`, `sites`, `crawl`, `recurring`, `accounts`, `report`, `checks`, `net`, `model`, `proto`, `metrics` |
//! | `web` | the dashboard: pages, sessions, CSRF, forms, templates, over the same services | `client_addr`, `app`, `scans`, `sites`, `recurring`, `compare`, `events`, `accounts`, `report`, `net`, `model` |
//! | `app` | the one door to the data: every service over one database, and the background work over it | `scans`, `sites`, `accounts`, `events`, `recurring`, `crawl`, `store`, `net`, `model` |
//! | `scans` | the scan service every edge calls: create, list, report, findings (one set of input rules), watch | `events`, `store`, `model`, `metrics` |
//! | `accounts` | users, roles, passwords, invites, token issuing shared with the CLI | `store`, `model` |
//! | `crawl` | the crawl, the worker loop, the lease guard, site facts, repository probes; ownership re-proved before an active scan; at completion, the comparison and the events | `browser`, `net`, `compare`, `events`, `sites`, `store`, `checks`, `model`, `metrics` |
//! | `sites` | sites, ownership verification (file, meta tag, DNS TXT), journeys and secrets stored per site, starting active scans with their attestation, the site's schedules and monitors | `recurring`, `net`, `store`, `model` |
//! | `recurring` | schedules (cron) and monitors that start scans of a site | `store`, `net`, `model`, `tasks` |
//! | `compare` | scans compared: new, fixed and persisting findings, the comparison stored at completion, two scans side by side | `store`, `model` |
//! | `events` | the webhook outbox, signing, delivery (bodies are the `proto`'s webhook messages), WatchScan | `net`, `store`, `model`, `tasks`, `proto` |
//! | `client_addr` | who a request came from behind trusted proxies (the API's and the dashboard's middleware) | nothing |
//!
//! The edges (`cli`, `api`, `web`) never name the store or a database type: the layering test
//! below forbids `crate::store` and `sea_orm` in them.
//!
//! `proto` (generated gRPC types), `metrics` (Prometheus), `telemetry` (the log subscriber) and
//! `tasks` (periodic rounds, long-running loops and drains of claimed work) are leaves any
//! layer above `model` may use.

pub mod accounts;
pub mod api;
pub mod app;
pub mod tasks;
pub use sitescan_engine::browser;
pub use sitescan_checks as checks;
pub mod client_addr;
pub mod cli;
pub mod compare;
pub mod events;
pub use sitescan_engine::metrics;
pub use sitescan_model as model;
pub use sitescan_engine::net;
pub mod proto;
pub mod recurring;
pub use sitescan_report as report;
pub mod crawl;
pub mod scans;
pub mod sites;
pub use sitescan_store as store;
pub mod telemetry;
pub mod web;

/// The crate version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

#[cfg(test)]
mod layering_tests {
    /// Which crate modules each module's files name (`crate::<module>`).
    fn imports(module: &str) -> std::collections::BTreeSet<String> {
        let mut found = std::collections::BTreeSet::new();
        for (_, text) in files(module) {
            for (i, _) in text.match_indices("crate::") {
                let rest = &text[i + 7..];
                // `crate::a::..` names `a`; `crate::{a, b::c}` names `a` and `b`.
                let named: Vec<&str> = match rest.strip_prefix('{') {
                    Some(group) => group.split('}').next().unwrap_or_default().split(',').map(str::trim).collect(),
                    None => vec![rest],
                };
                for item in named {
                    let name: String = item.chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').collect();
                    if !name.is_empty() && name != module {
                        found.insert(name);
                    }
                }
            }
        }
        found
    }

    #[test]
    fn the_module_map_in_lib_rs_holds() {
        let allowed: &[(&str, &[&str])] = &[
            ("tasks", &[]),
            ("crawl", &["browser", "net", "compare", "events", "sites", "store", "checks", "model", "metrics", "proto"]),
            ("recurring", &["store", "model", "net", "tasks"]),
            ("compare", &["store", "model"]),
            ("events", &["net", "store", "model", "metrics", "tasks", "proto"]),
            ("accounts", &["store", "model"]),
            ("sites", &["recurring", "net", "store", "checks", "model"]),
            ("scans", &["compare", "events", "store", "model", "metrics"]),
            ("app", &["scans", "sites", "accounts", "events", "recurring", "crawl", "store", "net", "model", "metrics"]),
            ("web", &["client_addr", "app", "scans", "sites", "recurring", "compare", "events", "accounts", "report", "net", "model", "metrics"]),
            (
                "cli",
                &[
                    "app", "api", "web", "scans", "sites", "crawl", "recurring", "compare", "events", "accounts", "report", "browser", "checks",
                    "net", "model", "proto", "metrics", "telemetry",
                ],
            ),
            (
                "api",
                &["client_addr", "app", "web", "scans", "sites", "crawl", "recurring", "compare", "accounts", "report", "checks", "net", "model", "proto", "metrics"],
            ),
        ];
        for (module, may) in allowed {
            let extra: Vec<String> = imports(module).into_iter().filter(|m| !may.contains(&m.as_str())).collect();
            assert!(extra.is_empty(), "{module} imports {extra:?}, which the map in lib.rs does not allow");
        }
    }

    /// Every `.rs` file under `src/<module>`, with its text.
    fn files(module: &str) -> Vec<(std::path::PathBuf, String)> {
        let mut out = Vec::new();
        let mut dirs = vec![std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/src")).join(module)];
        while let Some(dir) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap_or_default();
                    out.push((path, text));
                }
            }
        }
        out
    }

    /// The crates below the binary are the layers Cargo holds apart: what each may never depend
    /// on, read from its manifest (a new dependency is a decision, made here).
    #[test]
    fn the_crates_below_the_binary_keep_out_of_each_other() {
        let forbidden: &[(&str, &[&str])] = &[
            ("model", &["sitescan-", "sea-orm", "sqlx", "tokio", "chromiumoxide", "reqwest", "axum", "tonic"]),
            ("checks", &["sitescan-store", "sitescan-engine", "sitescan-report", "sea-orm", "sqlx", "tokio", "chromiumoxide", "reqwest", "axum", "tonic"]),
            ("report", &["sitescan-store", "sitescan-engine", "sea-orm", "sqlx", "tokio", "chromiumoxide", "reqwest", "axum", "tonic"]),
            ("engine", &["sitescan-store", "sitescan-checks", "sitescan-report", "sea-orm", "sqlx", "axum", "tonic"]),
            ("store", &["sitescan-engine", "sitescan-checks", "sitescan-report", "chromiumoxide", "reqwest", "axum", "tonic"]),
        ];
        for (krate, never) in forbidden {
            let path = format!("{}/crates/{krate}/Cargo.toml", env!("CARGO_MANIFEST_DIR"));
            let manifest = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
            let deps = manifest.split("[dependencies]").nth(1).unwrap_or_default().split("\n[").next().unwrap_or_default();
            for line in deps.lines().map(str::trim).filter(|l| !l.starts_with('#') && !l.is_empty()) {
                let name = line.split(['=', ' ']).next().unwrap_or_default();
                assert!(!never.iter().any(|n| name.starts_with(n)), "crates/{krate} depends on {name}, which its layer may not");
            }
        }
    }

    #[test]
    fn the_edges_reach_data_only_through_the_app() {
        for edge in ["api", "web", "cli"] {
            let all = files(edge);
            assert!(!all.is_empty(), "no files under src/{edge}");
            for (path, text) in all {
                for word in ["crate::store", "sea_orm", "Store::", "store::Store"] {
                    assert!(!text.contains(word), "{} names `{word}`: edges reach data through `crate::app` only", path.display());
                }
            }
        }
    }
}
