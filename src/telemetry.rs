//! The tracing subscriber: text or JSON lines on stderr, filtered by `RUST_LOG` (default: the
//! level the command asks for). Colour only on a terminal, never with `NO_COLOR`.

use std::io::IsTerminal;
use tracing_subscriber::EnvFilter;

/// The default filter at `level` (`info` for services, `warn` for `sitescan scan`): chatty
/// dependencies stay at warn or off.
pub fn default_filter(level: &str) -> String {
    format!("{level},chromiumoxide=off,sqlx=warn,sea_orm=warn,hyper=warn,h2=warn,tower=warn")
}

/// Whether text on stderr may carry colour escapes.
pub fn stderr_color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Installs the global subscriber (once; later calls do nothing).
pub fn init(json: bool, level: &str) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_filter(level)));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(stderr_color());
    let _ = if json { builder.json().flatten_event(true).try_init() } else { builder.try_init() };
}
