//! The command line: one function per subcommand; flags become options here.

pub mod admin;
pub mod args;
pub mod checks;
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

/// Exit statuses (the README, "In a CI pipeline"): 0 clean, 1 a finding at or above `--fail-on`, 2 the scan failed or
/// bad usage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Clean = 0,
    Findings = 1,
    Failed = 2,
    /// The scan completed, but some checks did not run on some pages (or on the site), and
    /// nothing at or above `--fail-on` was found on what was judged: the report is not the whole
    /// story. `--allow-incomplete` makes this 0.
    Incomplete = 3,
}

/// How a person should type this binary in a hint: `sitescan` when that name on the PATH is this
/// very file, else its path (relative to the working directory when under it, such as
/// `./target/release/sitescan`), so every command a hint prints works as typed.
pub fn invoked_as() -> String {
    let Ok(exe) = std::env::current_exe().and_then(|p| p.canonicalize()) else { return "sitescan".into() };
    let on_path = std::env::var_os("PATH").into_iter().flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>()).map(|dir| dir.join("sitescan")).any(|c| c.canonicalize().is_ok_and(|c| c == exe));
    if on_path {
        return "sitescan".into();
    }
    match std::env::current_dir().ok().and_then(|cwd| exe.strip_prefix(cwd).ok().map(|rel| format!("./{}", rel.display()))) {
        Some(relative) => relative,
        None => exe.display().to_string(),
    }
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
