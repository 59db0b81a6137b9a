//! The command line: one function per subcommand; flags become options here.

pub mod admin;
pub mod args;
pub mod checks;
pub mod cleanup;
pub mod engine;
pub mod recurring;
pub mod scan;
pub mod serve;
pub mod signals;
pub mod site;
pub mod version;
pub mod webhook;
pub mod worker;

pub use args::Cli;

/// Exit statuses (DESIGN.md): 0 clean, 1 a finding at or above `--fail-on`, 2 the scan failed or
/// bad usage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Clean = 0,
    Findings = 1,
    Failed = 2,
}

/// Runs a parsed command line.
pub async fn run(cli: Cli) -> anyhow::Result<Exit> {
    // A one-shot scan prints a report: its log stays at warnings unless asked (-v info, -vv debug).
    let level = match (&cli.command, cli.verbose) {
        (_, n) if n >= 2 => "debug",
        (args::Command::Scan(_), 0) => "warn",
        _ => "info",
    };
    crate::telemetry::init(cli.log_format == args::LogFormat::Json, level);
    match cli.command {
        args::Command::Serve(a) => serve::run(a).await.map(|_| Exit::Clean),
        args::Command::Worker(a) => worker::run(a).await.map(|_| Exit::Clean),
        args::Command::Scan(a) => scan::run(a).await,
        args::Command::Token(c) => admin::token(c).await.map(|_| Exit::Clean),
        args::Command::Org(c) => admin::org(c).await.map(|_| Exit::Clean),
        args::Command::User(c) => admin::user(c).await.map(|_| Exit::Clean),
        args::Command::Site(c) => site::run(c).await,
        args::Command::Checks(a) => checks::run(a).map(|_| Exit::Clean),
        args::Command::Migrate(a) => admin::migrate(a).await.map(|_| Exit::Clean),
        args::Command::Webhook(c) => webhook::run(c).await,
        args::Command::Schedule(c) => recurring::schedule(c).await,
        args::Command::Monitor(c) => recurring::monitor(c).await,
    }
}
