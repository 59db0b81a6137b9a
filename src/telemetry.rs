//! The tracing subscriber: text or JSON lines on stderr, filtered by `RUST_LOG` (default `info`).

use tracing_subscriber::EnvFilter;

/// Installs the global subscriber (once; later calls do nothing).
pub fn init(json: bool) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        EnvFilter::new("info,chromiumoxide=off,sqlx=warn,sea_orm=warn,hyper=warn,h2=warn,tower=warn")
    });
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    let _ = if json { builder.json().flatten_event(true).try_init() } else { builder.try_init() };
}
