//! The `sitescan` binary: parse the command line, run it, map the result to an exit status.

use clap::Parser;
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = sitescan::cli::Cli::parse();
    let code = match sitescan::cli::run(cli).await {
        Ok(exit) => exit as i32,
        Err(err) => {
            eprintln!("error: {err:#}");
            sitescan::cli::Exit::Failed as i32
        }
    };
    // The command is done (servers drained, reports written): leave now rather than through the
    // runtime's teardown, where a database pool's maintenance task was seen spinning forever on
    // a runtime being dropped, so a finished `sitescan scan` never exited.
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    std::process::exit(code)
}
