//! `sitescan-bench`: sitescan side by side with its peers on the same pages in the same run:
//! scan throughput and memory, scaling, metric fidelity against Lighthouse, API latency, and a
//! profile of where a page's time goes. `make bench` builds and runs it; results print as a table
//! plus one summary line per benchmark and are written to `bench/results-<timestamp>.json`.

use sitescan_test_support::fixture_site;

mod api;
mod bare;
mod fidelity_site;
mod fleet;
mod page_cpu;
mod proc;
mod profile;
mod report;
mod runners;
mod sections;
mod site;
mod forms_site;
mod template_site;
mod utilisation;

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Parser)]
#[command(name = "sitescan-bench", about = "Benchmarks of sitescan side by side with Lighthouse, pa11y and bare Chromium")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// (internal) Load pages in Chromium and nothing else; prints JSON.
    #[command(hide = true)]
    BareRender {
        #[arg(long)]
        urls: PathBuf,
        #[arg(long, default_value_t = 4)]
        concurrency: usize,
        #[arg(long)]
        chromium: PathBuf,
        /// Network quiet awaited after `load`, in ms (0: `load` only).
        #[arg(long, default_value_t = 500)]
        quiet_ms: u64,
        /// Then inject this axe-core (`axe.min.js`) and run it with sitescan's tags on every page:
        /// "axe-core alone", the least every axe-based tool does.
        #[arg(long)]
        axe: Option<PathBuf>,
    },
    /// Serves the generated benchmark site on 127.0.0.1 until interrupted (for profiling by
    /// hand); prints its first URL.
    ServeSite {
        #[arg(long, default_value_t = 60)]
        pages: usize,
        /// Serve the template-heavy site of the sharing benchmark instead.
        #[arg(long, conflicts_with = "forms")]
        template: bool,
        /// Serve the sharing benchmark's site of long pages full of forms and images instead.
        #[arg(long)]
        forms: bool,
    },
}

#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Pages of the generated site for the throughput benchmark.
    #[arg(long, default_value_t = 60)]
    pub pages: usize,
    /// Pages (spread over the site) the peers audit.
    #[arg(long, default_value_t = 8)]
    pub sample: usize,
    /// Site sizes for the scaling benchmark (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "15,60,240")]
    pub scaling: Vec<usize>,
    /// Concurrent pages (`--pages-per-browser`) for the scaling benchmark.
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8")]
    pub concurrency: Vec<usize>,
    /// Pages of the site scanned at each concurrency.
    #[arg(long, default_value_t = 30)]
    pub sweep_pages: usize,
    /// pa11y pages at once (one shared browser); the default matches sitescan's 4.
    #[arg(long, default_value_t = 4)]
    pub pa11y_concurrency: usize,
    /// Runs per page for metric fidelity (medians are compared).
    #[arg(long, default_value_t = 3)]
    pub fidelity_runs: usize,
    /// Findings in the API benchmark's table (comma-separated sizes, measured in turn).
    #[arg(long, value_delimiter = ',', default_value = "1000,1000000")]
    pub api_findings: Vec<usize>,
    /// Sequential calls per API measurement (and as many for the throughput part).
    #[arg(long, default_value_t = 1000)]
    pub api_requests: usize,
    /// Calls in flight for the API throughput part.
    #[arg(long, default_value_t = 8)]
    pub api_concurrency: usize,
    /// PostgreSQL for the API benchmark (an admin connection; a database is created and dropped).
    /// Empty: SQLite only.
    #[arg(long, env = "SITESCAN_BENCH_POSTGRES_URL", default_value = "postgres://postgres@127.0.0.1:5432/test")]
    pub postgres: String,
    /// Pages captured per variant in the profile.
    #[arg(long, default_value_t = 24)]
    pub profile_pages: usize,
    /// Benchmarks to run (comma-separated): throughput, profile, page-cpu, scaling, sharing, recurring, fleet, fidelity, api.
    #[arg(long, value_delimiter = ',', default_value = "throughput,profile,page-cpu,scaling,sharing,recurring,fleet,fidelity,api")]
    pub only: Vec<String>,
    /// Leave out Lighthouse and pa11y.
    #[arg(long)]
    pub skip_peers: bool,
    /// The sitescan binary (default: the release build in $CARGO_TARGET_DIR or target/).
    #[arg(long)]
    pub sitescan: Option<PathBuf>,
    /// Chromium (default: what sitescan finds, chromium-headless-shell first).
    #[arg(long)]
    pub chromium: Option<PathBuf>,
    /// Where the peers are installed (`npm ci` by `make bench`).
    #[arg(long)]
    pub peers: Option<PathBuf>,
    /// Where results-<timestamp>.json goes.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

fn repo_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(PathBuf::from).unwrap_or(manifest)
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    match cli.command {
        Some(Command::BareRender { urls, concurrency, chromium, quiet_ms, axe }) => rt.block_on(async {
            let list: Vec<String> = std::fs::read_to_string(urls)?.lines().filter(|l| !l.trim().is_empty()).map(str::to_string).collect();
            let axe = axe.map(std::fs::read_to_string).transpose()?;
            let report = bare::run(list, concurrency, chromium, Duration::from_millis(quiet_ms), axe).await?;
            println!("{}", serde_json::to_string(&report)?);
            Ok(())
        }),
        Some(Command::ServeSite { pages, template, forms }) => rt.block_on(async {
            // Held until ctrl-c: the server stops when the site is dropped.
            let (_bench, _template, _forms);
            if template {
                _template = template_site::TemplateSite::start(pages).await;
                println!("{}", _template.url(0));
            } else if forms {
                _forms = forms_site::FormsSite::start(pages).await;
                println!("{}", _forms.url(0));
            } else {
                _bench = site::GeneratedSite::start(pages).await;
                println!("{}", _bench.url(0));
            }
            tokio::signal::ctrl_c().await?;
            Ok(())
        }),
        None => rt.block_on(sections::run_all(cli.run, repo_root())),
    }
}
