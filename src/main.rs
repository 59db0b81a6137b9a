//! The `sitescan` binary: parse the command line, run it, map the result to an exit status.

use clap::Parser;
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = sitescan::cli::Cli::parse();
    match sitescan::cli::run(cli).await {
        Ok(exit) => ExitCode::from(exit as u8),
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(sitescan::cli::Exit::Failed as u8)
        }
    }
}
