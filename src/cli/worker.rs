//! `sitescan worker` (being built with the scan engine).

use super::args::{BrowserArgs, CrawlArgs, WorkerArgs, WorkerPoolArgs};
use crate::model::AddressPolicy;
use crate::store::Store;

pub struct Workers;

impl Workers {
    pub async fn shutdown(self) {}
}

pub async fn start(
    _browser: &BrowserArgs,
    _crawl: &CrawlArgs,
    _jobs: &WorkerPoolArgs,
    _count: usize,
    _policy: AddressPolicy,
    _store: Store,
) -> anyhow::Result<Workers> {
    Ok(Workers)
}

pub async fn run(_args: WorkerArgs) -> anyhow::Result<()> {
    anyhow::bail!("the scan engine is not built yet")
}
