//! `sitescan scan` (being built with the scan engine).

use super::Exit;
use super::args::ScanArgs;

pub async fn run(_args: ScanArgs) -> anyhow::Result<Exit> {
    anyhow::bail!("the scan engine is not built yet")
}
