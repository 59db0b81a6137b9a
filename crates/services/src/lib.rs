//! sitescan's application services: the one door to the data. The edges (the API, the dashboard
//! and the CLI, in the `sitescan` crate above) call these; none of them can name the store, which
//! this crate does not re-export (`sitescan-store` is a dependency of this crate only).
//!
//! The modules, and what each may use (arrows point down):
//!
//! | module | job | uses |
//! |---|---|---|
//! | `app` | every service over one database, and the background work over it | `scans`, `sites`, `accounts`, `events`, `recurring`, `crawl`, `store`, `net`, `model`, `metrics` |
//! | `scans` | the scan service every edge calls: create, list, report, findings (one set of input rules), watch | `compare`, `events`, `store`, `model`, `metrics` |
//! | `accounts` | users, roles, passwords, invites, token issuing shared with the CLI | `store`, `model` |
//! | `crawl` | the scan jobs: the worker loop over the engine's crawl (`sitescan_engine::crawl`, re-exported), the lease guard, progress; ownership re-proved before an active scan; at completion, the comparison, the site budget's verdict and the events | `compare`, `events`, `sites`, `store`, `model`, `metrics`, `proto` |
//! | `sites` | sites, ownership verification (file, meta tag, DNS TXT), journeys and secrets stored per site, starting active scans with their attestation, the site's schedules and monitors | `recurring`, `net`, `store`, `checks`, `model` |
//! | `recurring` | schedules (cron) and monitors that start scans of a site | `store`, `net`, `model`, `tasks` |
//! | `compare` | scans compared: new, fixed and persisting findings, the comparison stored at completion, two scans side by side | `store`, `model` |
//! | `events` | the webhook outbox, signing, delivery (bodies are the `proto`'s webhook messages), WatchScan | `net`, `store`, `model`, `metrics`, `tasks`, `proto` |
//! | `tasks` | periodic rounds, long-running loops and drains of claimed work | nothing |
//!
//! Below sit the crates Cargo keeps apart: the plain model (`model`), the pure checks (`checks`),
//! the engine that reads the web and crawls it (`net`, `browser`, `crawl`, `metrics`; storage
//! through the model's `CrawlStore`, which the store implements), the wire (`proto`) and the store.

pub mod accounts;
pub mod app;
pub mod compare;
pub mod crawl;
pub mod events;
pub mod recurring;
pub mod scans;
pub mod sites;
pub mod tasks;

use sitescan_checks as checks;
use sitescan_engine::{metrics, net};
use sitescan_model as model;
use sitescan_proto as proto;
use sitescan_store as store;

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
    fn the_module_map_above_holds() {
        let allowed: &[(&str, &[&str])] = &[
            ("tasks", &[]),
            ("crawl", &["compare", "events", "sites", "store", "model", "metrics", "proto"]),
            ("recurring", &["store", "model", "net", "tasks"]),
            ("compare", &["store", "model"]),
            ("events", &["net", "store", "model", "metrics", "tasks", "proto"]),
            ("accounts", &["store", "model"]),
            ("sites", &["recurring", "net", "store", "checks", "model"]),
            ("scans", &["compare", "events", "store", "model", "metrics"]),
            ("app", &["scans", "sites", "accounts", "events", "recurring", "crawl", "store", "net", "model", "metrics"]),
        ];
        for (module, may) in allowed {
            let extra: Vec<String> = imports(module).into_iter().filter(|m| !may.contains(&m.as_str())).collect();
            assert!(extra.is_empty(), "{module} imports {extra:?}, which the map in the crate docs does not allow");
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
}
