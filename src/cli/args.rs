//! The command line (the README's "Command line"): every flag has a `SITESCAN_*` fallback.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// sitescan: scans live websites for quality problems in a real headless Chromium.
#[derive(Debug, Parser)]
#[command(name = "sitescan", version = crate::cli::version::long_version(), about, propagate_version = true)]
pub struct Cli {
    /// Log format.
    #[arg(long, global = true, env = "SITESCAN_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// More log lines on stderr: -v info, -vv debug (`sitescan scan` logs only warnings by
    /// default; the services log info). `RUST_LOG` overrides both.
    #[arg(long, short = 'v', global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the API (REST, gRPC and gRPC-Web on one port) and, by default, scan workers.
    Serve(ServeArgs),
    /// Run scan workers only, against the same database as the API.
    Worker(WorkerArgs),
    /// Scan one site in-process (no server, no database file) and print the report.
    Scan(ScanArgs),
    /// Create, list and revoke API tokens.
    #[command(subcommand)]
    Token(TokenCommand),
    /// Manage organisations.
    #[command(subcommand)]
    Org(OrgCommand),
    /// Manage the people who sign in to the dashboard.
    #[command(subcommand)]
    User(UserCommand),
    /// Site ownership: verification tokens.
    #[command(subcommand)]
    Site(SiteCommand),
    /// List the check catalogue.
    Checks(ChecksArgs),
    /// Apply pending database migrations.
    Migrate(DatabaseArgs),
    /// Manage an organisation's webhook endpoints.
    #[command(subcommand)]
    Webhook(WebhookCommand),
    /// Scheduled scans of a site: a cron expression in a time zone.
    #[command(subcommand)]
    Schedule(ScheduleCommand),
    /// Monitors: a light probe of a site every N; a change starts a scan.
    #[command(subcommand)]
    Monitor(MonitorCommand),
}

#[derive(Debug, Subcommand)]
pub enum ScheduleCommand {
    /// Add a schedule; prints its id and next run time.
    Add {
        #[arg(long, env = "SITESCAN_ORG")]
        org: String,
        /// The site: its id or its origin URL (`https://shop.example.com`).
        #[arg(long)]
        site: String,
        /// A 5-field cron expression: minute hour day-of-month month day-of-week, e.g. `0 3 * * *`.
        #[arg(long)]
        cron: String,
        /// The IANA time zone the expression is read in, e.g. `Europe/Paris`.
        #[arg(long, default_value = crate::recurring::schedule::DEFAULT_TIMEZONE)]
        tz: String,
        /// `passive`, or `active` (scans run only while the site's ownership is verified).
        #[arg(long, default_value = "passive")]
        mode: String,
        /// With `--mode active`: you confirm the site's attestation statement (printed), which is
        /// recorded with the schedule and with every scan it starts.
        #[arg(long)]
        attest: bool,
        #[command(flatten)]
        db: DatabaseArgs,
    },
    /// List the organisation's schedules with their next run time.
    List(OrgSiteArgs),
    /// Remove a schedule.
    Remove(IdArgs),
}

#[derive(Debug, Subcommand)]
pub enum MonitorCommand {
    /// Add a monitor; prints its id. Its first probe (which only records) runs at once.
    Add {
        #[arg(long, env = "SITESCAN_ORG")]
        org: String,
        /// The site: its id or its origin URL.
        #[arg(long)]
        site: String,
        /// How often to probe: e.g. `5m`, `90s`, `1h` (at least 1m).
        #[arg(long)]
        every: String,
        #[command(flatten)]
        db: DatabaseArgs,
    },
    /// List the organisation's monitors: interval, next probe, last change.
    List(OrgSiteArgs),
    /// Remove a monitor.
    Remove(IdArgs),
}

#[derive(Debug, Clone, Args)]
pub struct RecurringArgs {
    /// Do not run schedules and monitors in this process (another instance of the fleet does).
    #[arg(long, env = "SITESCAN_NO_RECURRING", value_parser = clap::builder::BoolishValueParser::new())]
    pub no_recurring: bool,
    /// How often schedules and monitors are looked at (milliseconds).
    #[arg(long, env = "SITESCAN_RECURRING_POLL_MS", default_value_t = crate::recurring::schedule::DEFAULT_TICK.as_millis() as u64)]
    pub recurring_poll_ms: u64,
}

#[derive(Debug, Clone, Args)]
pub struct SecretKeyArgs {
    /// A file holding the key that encrypts stored secrets (32 bytes as base64 or hex); else
    /// `SITESCAN_SECRET_KEY`; else, on SQLite, the key file beside the database (`serve` makes
    /// it on its first start).
    #[arg(long, env = "SITESCAN_SECRET_KEY_FILE")]
    pub secret_key_file: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum WebhookCommand {
    /// Add an endpoint; prints its signing secret (`whsec_...`) as the only line on stdout, once.
    Add {
        #[arg(long, env = "SITESCAN_ORG")]
        org: String,
        /// The receiver's URL (reached through the egress guard).
        url: String,
        /// Events: scan.completed, scan.failed, scan.regressed, scan.budget_failed,
        /// monitor.triggered, site.ownership_lost (comma-separated).
        #[arg(long, value_delimiter = ',', required = true)]
        events: Vec<String>,
        /// scan.regressed fires when a new finding is at or above this severity (default high).
        #[arg(long)]
        min_severity: Option<crate::model::Severity>,
        /// What the endpoint receives: standard (signed JSON), slack, teams, discord, google-chat.
        #[arg(long, default_value_t = crate::events::WebhookKind::Standard)]
        kind: crate::events::WebhookKind,
        #[command(flatten)]
        key: SecretKeyArgs,
        #[command(flatten)]
        db: DatabaseArgs,
    },
    /// List an organisation's endpoints (never their secrets).
    List(OrgArgs),
    /// Remove an endpoint and its pending deliveries.
    Remove(IdArgs),
    /// Send a test event to an endpoint now, and print what the receiver answered.
    Test {
        id: uuid::Uuid,
        #[command(flatten)]
        policy: PolicyArgs,
        #[command(flatten)]
        key: SecretKeyArgs,
        #[command(flatten)]
        db: DatabaseArgs,
    },
}

/// An organisation (the lists of its records).
#[derive(Debug, Clone, Args)]
pub struct OrgArgs {
    #[arg(long, env = "SITESCAN_ORG")]
    pub org: String,
    #[command(flatten)]
    pub db: DatabaseArgs,
}

/// An organisation, and optionally one of its sites (the lists of its schedules and monitors).
#[derive(Debug, Clone, Args)]
pub struct OrgSiteArgs {
    #[arg(long, env = "SITESCAN_ORG")]
    pub org: String,
    /// Only this site's (id or origin URL).
    #[arg(long)]
    pub site: Option<String>,
    #[command(flatten)]
    pub db: DatabaseArgs,
}

/// One record by its id.
#[derive(Debug, Clone, Args)]
pub struct IdArgs {
    pub id: uuid::Uuid,
    #[command(flatten)]
    pub db: DatabaseArgs,
}

#[derive(Debug, Clone, Args)]
pub struct DatabaseArgs {
    /// Database URL: `sqlite://FILE?mode=rwc` (embedded default) or `postgres://USER@HOST/DB`.
    #[arg(long = "database", env = "SITESCAN_DATABASE_URL", default_value = crate::app::defaults::DATABASE_URL)]
    pub database: String,
}

#[derive(Debug, Clone, Args)]
pub struct PolicyArgs {
    /// Let scans reach this address range despite the private-address policy (repeatable),
    /// e.g. `127.0.0.1/32` to scan a site on loopback.
    #[arg(long = "allow-target", env = "SITESCAN_ALLOW_TARGET", value_delimiter = ',')]
    pub allow_target: Vec<ipnet::IpNet>,
    /// The DNS server asked for ownership TXT records, e.g. `127.0.0.1:5353` (default: the
    /// system's resolver).
    #[arg(long, env = "SITESCAN_DNS_SERVER")]
    pub dns_server: Option<std::net::SocketAddr>,
}

#[derive(Debug, Clone, Args)]
pub struct BrowserArgs {
    /// Chromium processes to launch.
    #[arg(long, env = "SITESCAN_BROWSERS", default_value_t = 1)]
    pub browsers: usize,
    /// Concurrent pages per Chromium process.
    #[arg(long, env = "SITESCAN_PAGES_PER_BROWSER", default_value_t = 4)]
    pub pages_per_browser: usize,
    /// Use a remote Chromium over CDP instead of launching one (repeatable), e.g.
    /// `ws://127.0.0.1:9222/devtools/browser/<id>`.
    #[arg(long = "cdp", env = "SITESCAN_CDP", value_delimiter = ',')]
    pub cdp: Vec<String>,
    /// The Chromium binary (default: SITESCAN_CHROMIUM, chromium-headless-shell, /usr/bin/chromium,
    /// google-chrome).
    #[arg(long, env = "SITESCAN_CHROMIUM")]
    pub chromium: Option<PathBuf>,
    /// Start Chromium without its own sandbox, as it always is when sitescan runs as root: for a
    /// container, which is then the sandbox, where the user namespaces Chromium's sandbox needs
    /// are not allowed (the image sets it).
    #[arg(long, env = "SITESCAN_CHROMIUM_NO_SANDBOX", value_parser = clap::builder::BoolishValueParser::new())]
    pub chromium_no_sandbox: bool,
    /// Where the egress proxy Chromium must use listens. Remote Chromium (`--cdp`) must be able
    /// to reach it: e.g. `0.0.0.0:8099` with the worker's address reachable from the container.
    #[arg(long, env = "SITESCAN_PROXY_LISTEN", default_value = "127.0.0.1:0")]
    pub proxy_listen: std::net::SocketAddr,
    /// Judge every page in full: by default a region the site repeats unchanged (header,
    /// navigation, footer) is judged once per scan and its findings given back on the other
    /// pages, which gives the same findings in less time.
    #[arg(long, env = "SITESCAN_NO_SHARE", value_parser = clap::builder::BoolishValueParser::new())]
    pub no_share: bool,
    /// Judge every page in full, reusing nothing: no region judged once per scan (as
    /// `--no-share`) and no verdict kept from an earlier scan of the site, and none kept for the
    /// next. By default a re-scan gives back what an unchanged region of the site got last time.
    #[arg(long, env = "SITESCAN_NO_CACHE", value_parser = clap::builder::BoolishValueParser::new())]
    pub no_cache: bool,
    /// Read the text in every candidate image of each page with Tesseract (8 a page at most,
    /// about 0.5-2 s each). By default only images whose pixels look like they hold text are
    /// read, each once a process (images of text, image names the image contradicts; needs
    /// `tesseract-ocr`, installed by `scripts/setup.sh`).
    #[arg(long, env = "SITESCAN_OCR", conflicts_with = "no_ocr", value_parser = clap::builder::BoolishValueParser::new())]
    pub ocr: bool,
    /// Read no image's text (the image text checks do not run).
    #[arg(long, env = "SITESCAN_NO_OCR", value_parser = clap::builder::BoolishValueParser::new())]
    pub no_ocr: bool,
}

impl BrowserArgs {
    /// Which images are read for text.
    pub fn ocr_mode(&self) -> crate::browser::OcrMode {
        match (self.ocr, self.no_ocr) {
            (_, true) => crate::browser::OcrMode::Off,
            (true, false) => crate::browser::OcrMode::All,
            (false, false) => crate::browser::OcrMode::Likely,
        }
    }

    /// Whether regions may be judged once and their findings given back (within a scan and
    /// across scans).
    pub fn shares(&self) -> bool {
        !self.no_share && !self.no_cache
    }
}

#[derive(Debug, Clone, Args)]
pub struct CrawlArgs {
    /// Pages to render per scan.
    #[arg(long, env = "SITESCAN_MAX_PAGES", default_value_t = crate::crawl::DEFAULT_MAX_PAGES)]
    pub max_pages: usize,
    /// Link depth from the start page.
    #[arg(long, env = "SITESCAN_MAX_DEPTH", default_value_t = crate::crawl::DEFAULT_MAX_DEPTH)]
    pub max_depth: u32,
    /// Requests to a scanned site's host at once, for every worker of the fleet together when
    /// pages are shared (default: the pages one worker renders at once, at least 4). Raise it for
    /// your own big site to let more workers render its pages side by side.
    #[arg(long, env = "SITESCAN_HOST_CONCURRENCY", value_name = "N")]
    pub host_concurrency: Option<usize>,
    /// The WCAG conformance target: A, AA or AAA. Checks of success criteria above it do not
    /// run (AA leaves out the AAA checks; A also the AA ones). For `serve`, the level of scans
    /// that name none (a site's level, or the API's `level`, comes first).
    #[arg(long, env = "SITESCAN_LEVEL", default_value = "AA", value_name = "A|AA|AAA")]
    pub level: crate::model::Level,
}

#[derive(Debug, Clone, Args)]
pub struct WorkerPoolArgs {
    /// How long a claimed scan's lease lasts before another worker may take it over (seconds);
    /// renewed while the scan runs.
    #[arg(long, env = "SITESCAN_LEASE_SECONDS", default_value_t = crate::crawl::DEFAULT_LEASE_SECONDS)]
    pub lease_seconds: u64,
    /// Claims after which a scan that keeps losing its worker is failed.
    #[arg(long, env = "SITESCAN_MAX_ATTEMPTS", default_value_t = crate::app::defaults::MAX_ATTEMPTS)]
    pub max_attempts: i32,
    /// How often an idle worker looks for queued scans (milliseconds).
    #[arg(long, env = "SITESCAN_POLL_MS", default_value_t = crate::crawl::DEFAULT_POLL_MS)]
    pub poll_ms: u64,
    /// Scans of one organisation running at once across the whole fleet (every worker on the
    /// same database); its other scans wait while other organisations' are claimed. 0: no cap.
    #[arg(long, env = "SITESCAN_MAX_RUNNING_PER_ORG", default_value_t = crate::crawl::DEFAULT_MAX_RUNNING_PER_ORG)]
    pub max_running_per_org: usize,
    /// Share each scan's pages with every worker of the fleet: its crawl lives in the database,
    /// idle workers render batches of its pages (per-host politeness holds for the fleet
    /// together), and a scan whose worker died resumes where it stopped. `false`: each scan is
    /// crawled whole by the worker that claimed it, in its memory.
    #[arg(long, env = "SITESCAN_SHARE_PAGES", default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL")]
    pub share_pages: bool,
}

/// What every process that runs scans and recurring work takes (`serve` with its workers,
/// `worker`): the browser, the crawl, the job queue, the secrets key and the recurring runners.
#[derive(Debug, Args)]
pub struct EngineArgs {
    #[command(flatten)]
    pub browser: BrowserArgs,
    #[command(flatten)]
    pub crawl: CrawlArgs,
    #[command(flatten)]
    pub jobs: WorkerPoolArgs,
    #[command(flatten)]
    pub key: SecretKeyArgs,
    #[command(flatten)]
    pub recurring: RecurringArgs,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (REST, gRPC and gRPC-Web share it).
    #[arg(long, env = "SITESCAN_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: String,
    #[command(flatten)]
    pub db: DatabaseArgs,
    /// Scan workers to run in this process.
    #[arg(long, env = "SITESCAN_WORKERS", default_value_t = 1, conflicts_with = "no_workers")]
    pub workers: usize,
    /// Run the API only (workers run elsewhere with `sitescan worker`).
    #[arg(long, env = "SITESCAN_NO_WORKERS", value_parser = clap::builder::BoolishValueParser::new())]
    pub no_workers: bool,
    /// The data memory of the scan worker process `serve` starts (MB): a worker that needs more
    /// stops, its scan is retried once and then fails, and another process starts.
    #[arg(long, env = "SITESCAN_WORKER_MEMORY_MB", default_value_t = crate::app::worker_process::DEFAULT_MEMORY_MB, value_parser = clap::value_parser!(u64).range(64..))]
    pub worker_memory_mb: u64,
    /// Run the scan workers inside the API's process (no memory limit; for debugging). By
    /// default they run in a process of their own.
    #[arg(long, env = "SITESCAN_WORKERS_IN_PROCESS", conflicts_with = "no_workers", value_parser = clap::builder::BoolishValueParser::new())]
    pub workers_in_process: bool,
    /// This process is the worker process of a `serve` (set by `serve` itself).
    #[arg(long = "worker-process", hide = true)]
    pub worker_process: bool,
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Burst rate limit per token (requests per second).
    #[arg(long, env = "SITESCAN_RATE_LIMIT_PER_SECOND", default_value_t = crate::api::DEFAULT_PER_SECOND)]
    pub rate_limit_per_second: u32,
    /// Steady rate limit per token (requests per minute).
    #[arg(long, env = "SITESCAN_RATE_LIMIT_PER_MINUTE", default_value_t = crate::api::DEFAULT_PER_MINUTE)]
    pub rate_limit_per_minute: u32,
    /// Where rate-limit state lives: `memory` (this instance) or `redis://HOST:PORT` (shared by
    /// every instance of a fleet).
    #[arg(long, env = "SITESCAN_RATE_LIMIT_BACKEND", default_value = "memory")]
    pub rate_limit_backend: String,
    /// The address people reach the dashboard at, e.g. `https://scan.example.com`: with https,
    /// session cookies are `Secure`; form posts must come from its origin; invite links use it.
    #[arg(long, env = "SITESCAN_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// A reverse proxy in front of sitescan (CIDR, repeatable, e.g. `10.0.0.0/8`): only when the
    /// connection comes from one do `Forwarded: for=` / `X-Forwarded-For` (the rightmost hop that
    /// is not a trusted proxy) name the client, for the sign-in throttle and attestations, and
    /// `X-Forwarded-Proto: https` make cookies `Secure`. From anyone else these headers are ignored.
    #[arg(long = "trusted-proxy", env = "SITESCAN_TRUSTED_PROXY", value_delimiter = ',', value_parser = proxy_net)]
    pub trusted_proxy: Vec<ipnet::IpNet>,
    /// How often expired sessions and stale sign-in throttle rows are deleted (seconds).
    #[arg(long, env = "SITESCAN_CLEANUP_INTERVAL_SECS", default_value_t = crate::app::defaults::CLEANUP_INTERVAL_SECS, hide = true)]
    pub cleanup_interval_secs: u64,
    /// Scans older than this many days are deleted with their findings, pages and screenshots,
    /// except each target's newest ended scan and scans that have not ended; 0 keeps everything.
    #[arg(long, env = "SITESCAN_RETENTION_DAYS", default_value_t = crate::app::defaults::RETENTION_DAYS)]
    pub retention_days: u32,
    #[command(flatten)]
    pub engine: EngineArgs,
}

#[derive(Debug, Args)]
pub struct WorkerArgs {
    #[command(flatten)]
    pub db: DatabaseArgs,
    /// Scan workers to run in this process.
    #[arg(long, env = "SITESCAN_WORKERS", default_value_t = 1)]
    pub workers: usize,
    #[command(flatten)]
    pub policy: PolicyArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
    /// The address people reach the dashboard at (as `serve --public-url`): chat messages this
    /// worker delivers link to the scan and the comparison there.
    #[arg(long, env = "SITESCAN_PUBLIC_URL")]
    pub public_url: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    Text,
    Json,
    Sarif,
    Junit,
    Html,
    /// GitLab Code Quality (`artifacts:reports:codequality`)
    Gitlab,
}

#[derive(Debug, Args)]
pub struct ScanArgs {
    /// The site to scan: a URL or a bare hostname.
    pub url: String,
    /// Report format (default: text).
    #[arg(long, env = "SITESCAN_FORMAT", value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,
    /// Write the report to this file instead of stdout.
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Exit with status 1 when a finding at or above this severity exists.
    #[arg(long, env = "SITESCAN_FAIL_ON")]
    pub fail_on: Option<crate::model::Severity>,
    /// A previous report of this site (`--format json`): mark each finding new or persisting,
    /// list the fixed ones, and give SARIF results their `baselineState`.
    #[arg(long, env = "SITESCAN_BASELINE", value_name = "REPORT_JSON")]
    pub baseline: Option<PathBuf>,
    /// Exit with status 1 only when a finding new since the baseline is at or above this
    /// severity (replaces --fail-on; without --baseline every finding is new).
    #[arg(long, env = "SITESCAN_FAIL_ON_NEW")]
    pub fail_on_new: Option<crate::model::Severity>,
    /// Exit with status 0 (not 3) when some checks did not run on some pages; the report still
    /// says which and why.
    #[arg(long, env = "SITESCAN_ALLOW_INCOMPLETE", value_parser = clap::builder::BoolishValueParser::new())]
    pub allow_incomplete: bool,
    /// A budget (JSON or YAML, Lighthouse CI-style assertions, e.g. `{"assertions":
    /// {"metrics.lcp-p75": ["error", {"maxNumericValue": 2500}]}}`): the report gains
    /// `summary.budget`, and a failed `error` assertion exits with status 1.
    #[arg(long, env = "SITESCAN_BUDGET", value_name = "FILE")]
    pub budget: Option<PathBuf>,
    /// Keep the region verdicts in this SQLite file (made if missing) and reuse them on the next
    /// scan of the same site, so a re-scan judges only what changed (`--no-cache` ignores it).
    #[arg(long, env = "SITESCAN_CACHE", value_name = "FILE")]
    pub cache: Option<PathBuf>,
    #[command(flatten)]
    pub policy: PolicyArgs,
    #[command(flatten)]
    pub browser: BrowserArgs,
    #[command(flatten)]
    pub crawl: CrawlArgs,
    /// No progress bar on stderr.
    #[arg(long, env = "SITESCAN_QUIET", value_parser = clap::builder::BoolishValueParser::new())]
    pub quiet: bool,
    /// An active owner-depth scan: prove ownership of the site first (refused with exit 2 and
    /// `ownership_unverified` otherwise), then also run the repository probes.
    #[arg(long, requires = "verification_token")]
    pub active: bool,
    /// The token the site publishes (`/.well-known/sitescan-verification.txt`, `<meta
    /// name="sitescan-verification">` or DNS TXT `sitescan-verification=TOKEN`); with `--active`.
    #[arg(long, env = "SITESCAN_VERIFICATION_TOKEN", hide_env_values = true)]
    pub verification_token: Option<String>,
    /// Requests the repository probes of an active scan may make (calibration included).
    #[arg(long, env = "SITESCAN_PROBE_BUDGET", default_value_t = crate::crawl::probes::DEFAULT_PROBE_BUDGET)]
    pub probe_budget: usize,
    /// A journey (JSON or YAML file) to run after the crawl of an active scan; repeatable.
    /// Every journey is validated before anything runs.
    #[arg(long = "journey", value_name = "FILE", requires = "active")]
    pub journeys: Vec<PathBuf>,
    /// A secret the journeys type as `{{secret.NAME}}`, read from a file (trailing newline
    /// trimmed; never a value on the command line); repeatable.
    #[arg(long = "secret", value_name = "NAME=@FILE", requires = "active")]
    pub secrets: Vec<String>,
    /// Write the journeys' screenshots (each `screenshot` step's, and the one taken when a step
    /// fails) to this folder as `<journey>-step<N>-<name>.png`, the names the findings' evidence
    /// gives; secrets are hidden in them as in the report.
    #[arg(long, value_name = "DIR", requires = "active")]
    pub screenshots: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum SiteCommand {
    /// Print a fresh random verification token to publish on the site (file, meta tag or DNS).
    Token,
    /// Add a site (the origin of URL) to an organisation; prints its verification token as the
    /// only line on stdout and the three ways to publish it on stderr.
    Add {
        #[arg(long, env = "SITESCAN_ORG")]
        org: String,
        /// Any URL on the site.
        url: String,
        #[command(flatten)]
        policy: PolicyArgs,
        #[command(flatten)]
        db: DatabaseArgs,
    },
    /// List an organisation's sites and their ownership state.
    List(OrgArgs),
    /// Prove ownership of a site now (exit 2 when not proved).
    Verify {
        #[arg(long, env = "SITESCAN_ORG")]
        org: String,
        /// The site's id or any URL on it.
        site: String,
        #[command(flatten)]
        policy: PolicyArgs,
        #[command(flatten)]
        db: DatabaseArgs,
    },
    /// Remove a site with its journeys, secrets, schedules and monitors (its scans stay).
    Remove {
        #[arg(long, env = "SITESCAN_ORG")]
        org: String,
        site: String,
        #[command(flatten)]
        db: DatabaseArgs,
    },
    /// Store (or replace, by name) a journey file (JSON or YAML) for a site's active scans.
    Journey {
        #[arg(long, env = "SITESCAN_ORG")]
        org: String,
        #[arg(long)]
        site: String,
        file: PathBuf,
        #[command(flatten)]
        db: DatabaseArgs,
    },
    /// Store (or replace) a secret for journeys (`{{secret.NAME}}`), read from a file:
    /// `NAME=@FILE` (never from argv). Stored encrypted.
    Secret {
        #[arg(long, env = "SITESCAN_ORG")]
        org: String,
        #[arg(long)]
        site: String,
        secret: String,
        #[command(flatten)]
        key: SecretKeyArgs,
        #[command(flatten)]
        db: DatabaseArgs,
    },
}

#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Create a token; prints the plaintext token as the only line on stdout (shown once).
    Create {
        /// The organisation (created if new).
        #[arg(long, env = "SITESCAN_ORG")]
        org: String,
        /// A name to recognise the token by.
        #[arg(long)]
        name: Option<String>,
        /// Scopes: scans:read, scans:write, scans:active (repeatable; default scans:read and
        /// scans:write; scans:active opens the internal OwnerService).
        #[arg(long = "scope")]
        scope: Vec<String>,
        #[command(flatten)]
        db: DatabaseArgs,
    },
    /// List an organisation's tokens (never their plaintext).
    List(OrgArgs),
    /// Revoke a token by its id or its plaintext.
    Revoke {
        id_or_token: String,
        #[command(flatten)]
        db: DatabaseArgs,
    },
}

#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Create a user; the password is read from stdin (one line), never from the command line.
    Create {
        /// The organisation (created if new).
        #[arg(long, env = "SITESCAN_ORG")]
        org: String,
        #[arg(long)]
        email: String,
        /// owner (manages tokens and members) or member.
        #[arg(long, default_value = "member")]
        role: String,
        /// Read the password from stdin (the only way; accepted for clarity).
        #[arg(long)]
        password_stdin: bool,
        /// Refused: a password on the command line leaks into shell history and `ps`.
        #[arg(long, hide = true)]
        password: Option<String>,
        #[command(flatten)]
        db: DatabaseArgs,
    },
    /// List an organisation's users.
    List(OrgArgs),
    /// Disable a user: they cannot sign in any more and their sessions end.
    Disable {
        email: String,
        #[command(flatten)]
        db: DatabaseArgs,
    },
}

#[derive(Debug, Subcommand)]
pub enum OrgCommand {
    /// Create an organisation or change its settings.
    Set {
        org: String,
        /// Scans the organisation may create per calendar month (UTC).
        #[arg(long)]
        monthly_scan_quota: Option<i64>,
        #[command(flatten)]
        db: DatabaseArgs,
    },
}

#[derive(Debug, Args)]
pub struct ChecksArgs {
    #[arg(long, value_enum, default_value_t = ChecksFormat::Text)]
    pub format: ChecksFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ChecksFormat {
    Text,
    Json,
    /// The catalogue document (`docs/CHECKS.md` is this output).
    Markdown,
}

/// A `--trusted-proxy` value: a CIDR, or one address (`10.0.0.5` is `10.0.0.5/32`).
fn proxy_net(raw: &str) -> Result<ipnet::IpNet, String> {
    let raw = raw.trim();
    raw.parse::<ipnet::IpNet>()
        .or_else(|_| raw.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
        .map_err(|_| format!("{raw:?} is neither a CIDR (10.0.0.0/8) nor an address"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[test]
    fn trusted_proxies_take_cidrs_and_single_addresses() {
        let cli = Cli::try_parse_from(["sitescan", "serve", "--trusted-proxy", "10.0.0.0/8", "--trusted-proxy", "192.0.2.7,2001:db8::1"]).unwrap();
        let Command::Serve(a) = cli.command else { panic!("serve") };
        let nets: Vec<String> = a.trusted_proxy.iter().map(|n| n.to_string()).collect();
        assert_eq!(nets, ["10.0.0.0/8", "192.0.2.7/32", "2001:db8::1/128"]);
        assert!(Cli::try_parse_from(["sitescan", "serve", "--trusted-proxy", "nonsense"]).is_err());
    }
}
